"""16-bit floating storage (float16, bfloat16) computed the way torch's CPU kernels compute it.

torch's CPU kernels for ``Half`` and ``BFloat16`` load their 16-bit values into float32, do the
whole op there and round to the 16-bit type once, when they store the result; reductions
accumulate in float32. NumPy's own float16 loops round after every ufunc (an op that leafgrad writes
as several NumPy calls, softmax or add with ``alpha``, rounds in between), its ``x * 0.1`` rounds
0.1 to float16 first, and ml_dtypes' bfloat16 ufuncs are no better. So the data of such a tensor is
a :class:`LowpArray` (one subclass per dtype: ``_float16.Float16Array``, ``_bfloat16.BFloat16Array``),
an ``ndarray`` subclass registered as an array type of its own in ``_backend`` (as a CuPy array
would be):

* any NumPy computation on it (ufuncs, their ``reduce``/``at`` methods, ``np.*`` functions) runs in
  float32 and returns a float32 :class:`Float32From` array (an ``ndarray`` subclass with no
  behaviour of its own but ``astype``): a whole op's forward is float32 arithmetic;
* the op wrapper already converts a forward's result whose array type is not its input's with
  the backend's ``asarray`` (``registry.apply``); for these backends that is :func:`round_result`,
  which rounds a floating result to the 16-bit dtype once: torch's "compute in float32, round per op";
* a backward formula on 16-bit gradients likewise computes in float32; the engine casts each
  gradient back to its input's dtype with ``astype``, which on a :class:`Float32From` gives a
  :class:`LowpArray` again (a plain float32 array's ``astype`` would give a plain 16-bit array,
  whose NumPy arithmetic is not torch's);
* except for float16 (``BACKWARD_PER_OP``): torch's Half backward runs its derivative formulas as
  separate Half ops, each rounded (``sin``'s is ``grad * cos(x)``: ``cos(x)`` is rounded first), so
  each NumPy call of a backward formula rounds its result, while the parts that torch computes as one
  fused kernel (``xp.apply(OP, ...)`` and ``xp.kernel(f, ...)`` in a formula: tanh_backward,
  softmax's, layer_norm's) compute in float32 and round once. The ops of a custom
  ``autograd.Function``'s backward and of a recorded (``create_graph``) backward round once each, as
  any op. (An op run by a tensor hook inside a backward rounds per NumPy call: a known difference.)
* data movement that must stay a view (reshape, transpose, slicing, ``broadcast_to``) keeps the
  16-bit array untouched, and writes into it (``a[i] = v``, ``np.copyto``, ``out=``) round.

The float32 and float64 paths see none of this: a plain ``ndarray`` still goes to NumPy's backend.
"""
from __future__ import annotations

import numpy as np

__all__ = ["LowpArray", "Float32From", "ExactResult", "add_scaled", "as_lowp", "cascade_sums", "cast_array", "erf_approx",
           "keep_lowp", "nll_cascade", "prod_sequential", "register", "round_like", "round_result", "unrounded"]

_F32 = np.dtype(np.float32)
_PLAIN = np.ndarray
#: storage dtype -> its LowpArray subclass (float16 from import; bfloat16 once ml_dtypes is loaded)
_CLASS_OF: dict = {}


def _grad_state():
    from .autograd.grad_mode import STATE
    global _grad_state
    _grad_state = lambda: STATE  # noqa: E731  (looked up once: grad_mode imports this module's users)
    return STATE


def _up(x):
    """A 16-bit float array (a LowpArray or a plain one) as plain float32; anything else unchanged."""
    if isinstance(x, LowpArray):  # (an ndarray method, argmax say, may give one of another dtype)
        v = x.view(_PLAIN)
        return v.astype(_F32) if v.dtype is x.STORE else v
    if isinstance(x, _PLAIN):
        return x.view(_PLAIN).astype(_F32) if x.dtype.itemsize == 2 and x.dtype in _CLASS_OF else x
    if x.__class__ is list or x.__class__ is tuple:
        return x.__class__(_up(v) for v in x)
    return x


def _mark(r, wide):
    """A computation's float32 result as a ``wide`` (:class:`Float32From`) array (others unchanged)."""
    if r.__class__ is _PLAIN or r.__class__ is np.float32:
        if r.dtype == _F32:
            return np.asarray(r).view(wide)
    elif r.__class__ is tuple:
        return tuple(_mark(v, wide) for v in r)
    return r


def _exact(r):
    """A result in a dtype that the caller asked for (a cast, ``sum(dtype=...)``): kept as it is."""
    if isinstance(r, _PLAIN) or isinstance(r, np.generic):
        return np.asarray(r).view(ExactResult)
    if r.__class__ is tuple:
        return tuple(_exact(v) for v in r)
    return r


def _asked_dtype(kwargs: dict, store):
    """``kwargs`` with a ``dtype=<store>`` replaced by float32 (accumulate there, round once), and
    whether a dtype other than ``store`` was asked for."""
    d = kwargs.get("dtype")
    if d is None:
        return kwargs, False
    if np.dtype(d) == store:
        return {**kwargs, "dtype": _F32}, False
    return kwargs, True


def _rewrap(r, cls):
    """A data-movement result (``np.broadcast_to`` gives a plain view of a subclass) as ``cls`` again
    when it holds ``cls``'s values: a plain 16-bit array would compute with NumPy's own arithmetic."""
    if r.__class__ is _PLAIN:
        return r.view(cls) if r.dtype == cls.STORE else r
    if r.__class__ is tuple or r.__class__ is list:
        return r.__class__(_rewrap(v, cls) for v in r)
    return r


def _per_op_now() -> bool:
    """Whether a backward formula runs on raw arrays now (a backward, grad mode off): a recorded one
    (``create_graph``) runs its steps as ops, each already rounded once."""
    st = _grad_state()
    return bool(st.in_backward) and not st.grad


def _per_op(cls, r, asked: bool):
    """A backward step's result for a ``BACKWARD_PER_OP`` family: rounded, as torch's separate op."""
    if asked:
        return _exact(r)
    return as_lowp(r, cls) if r.dtype == _F32 else r


def unrounded(v):
    """A forward's extra float32 result ``v`` of a 16-bit op, kept float32 (the backend does not round
    it); any other ``v`` unchanged."""
    return v.view(ExactResult) if isinstance(v, Float32From) else v


def keep_lowp(arr):
    """``arr`` as its :class:`LowpArray` view when it holds float16 or bfloat16, else itself: for the
    places that make a tensor's array outside an op (factories, casts, files)."""
    d = arr.dtype
    if d.itemsize == 2:
        cls = _CLASS_OF.get(d)
        if cls is not None and arr.__class__ is not cls:
            return arr.view(cls)
    return arr


def cast_array(a, np_dtype):
    """``a.astype(np_dtype)`` as a forward's result: a 16-bit float one a :class:`LowpArray`; one cast
    from a 16-bit float marked so that the backend does not round it back (see :func:`round_result`)."""
    r = a.astype(np_dtype, copy=True)
    kept = keep_lowp(r)
    if kept is not r or isinstance(r, LowpArray):
        return kept
    if isinstance(a, LowpArray):
        return r.view(ExactResult)
    return r


def _plain(x):
    return x.view(_PLAIN) if isinstance(x, LowpArray) else x


def as_lowp(arr, cls):
    """``arr`` (any array or number) as a ``cls`` array, rounding once (no copy when it already holds
    ``cls.STORE``: a plain 16-bit view becomes a ``cls`` view of the same memory)."""
    if arr.__class__ is cls:
        return arr
    arr = np.asarray(arr)
    if arr.dtype != cls.STORE:
        arr = arr.astype(cls.STORE)
    return arr.view(cls)


def round_result(cls, obj, dtype=None, **kwargs):
    """A 16-bit backend's ``asarray`` (bound to ``cls`` by :class:`_Module`): with ``dtype``, NumPy's;
    without, a forward's result, rounded to ``cls.STORE`` when it is floating (an integer or bool
    result keeps its dtype)."""
    if dtype is not None:
        return keep_lowp(np.asarray(_plain(obj), dtype=dtype, **kwargs))
    if obj.__class__ is cls:
        return obj if obj.dtype is cls.STORE else obj.view(_PLAIN)
    if obj.__class__ is ExactResult:
        return obj.view(_PLAIN)
    r = np.asarray(obj)  # (also drops Float32From)
    if r.dtype.kind == "f" or r.dtype == cls.STORE:
        return as_lowp(r, cls)
    return r


def round_like(v, like):
    """``v`` rounded to ``like``'s 16-bit dtype and kept as float32 when ``like`` holds one (else
    ``v``): the points inside one of torch's kernels where it stores a 16-bit partial result
    (log_softmax stores its sum and its log; see reduction.py)."""
    cls = _CLASS_OF.get(like.dtype) if like.dtype.itemsize == 2 else None
    if cls is None:
        return v
    return np.asarray(v).astype(cls.STORE).astype(_F32).view(cls.WIDE)


def add_scaled(a, b, alpha):
    """``a + alpha * b`` for a 16-bit ``b`` as torch's add kernel takes it: ``alpha`` rounded to the
    16-bit dtype (it is cast to the tensor's dtype), then one fused multiply-add in float32
    (emulated in float64, where the product is exact), then the op's one rounding."""
    cls = b.__class__ if isinstance(b, LowpArray) else _CLASS_OF[b.dtype]
    store = cls.STORE
    al = float(np.asarray(alpha, _F32).astype(store).astype(np.float64))
    a32 = _up(a) if isinstance(a, _PLAIN) else np.float32(a)
    b32 = _up(b)
    out = (a32.astype(np.float64) + al * b32.astype(np.float64)).astype(_F32)
    if out.shape == b32.shape == np.shape(a32) and out.ndim:
        # torch's loop takes 32 elements per vector step; the last n % 32 (of the flat order) go
        # through its scalar loop, which rounds alpha * b to the 16-bit dtype before adding
        tail = out.size % 32
        if tail:
            flat, fa, fb = out.reshape(-1), a32.reshape(-1)[-tail:], b32.reshape(-1)[-tail:]
            prod = (np.float32(al) * fb).astype(store).astype(_F32)
            flat[-tail:] = fa + prod
    return out.view(cls.WIDE)


def prod_sequential(a, axis, keepdims: bool):
    """A product of 16-bit values the way torch's CPU kernel takes it: one factor at a time, each
    partial product rounded to the 16-bit dtype (the same as torch's for reductions of up to a few
    dozen values; a long contiguous one torch splits over vector lanes, in an order not reproduced)."""
    cls = a.__class__ if isinstance(a, LowpArray) else _CLASS_OF[a.dtype]
    v = a.view(_PLAIN).astype(_F32)
    axes = tuple(range(v.ndim)) if axis is None else tuple(d % v.ndim for d in np.atleast_1d(axis))
    rest = [d for d in range(v.ndim) if d not in axes]
    w = v.transpose(axes + tuple(rest)).reshape((-1,) + tuple(v.shape[d] for d in rest))
    acc = np.ones(w.shape[1:], _F32)
    for row in w:
        acc = (acc * row).astype(cls.STORE).astype(_F32)
    if keepdims:
        acc = acc.reshape(tuple(1 if d in axes else v.shape[d] for d in range(v.ndim)))
    return as_lowp(acc, cls)


def _fma(a, b, c):
    """float32 ``a * b + c`` rounded once, as a fused multiply-add (the product is exact in float64)."""
    return (np.asarray(a, np.float64) * b + c).astype(_F32)


def erf_approx(x):
    """erf as torch's vectorized CPU kernel computes it for float16 and bfloat16 (float32 has a
    more accurate one): Abramowitz and Stegun's 7.1.26, ``1 - (p5 t^4 + ... + p1) t exp(-x^2)`` with
    ``t = 1 / (1 + 0.3275911 |x|)``, in fused multiply-adds, the sign put back; float32 values out
    (absolute error up to 1.5e-7, which rounding to the 16-bit dtype shows now and then)."""
    v = _up(x) if isinstance(x, _PLAIN) else np.float32(x)
    v = np.asarray(v, _F32).view(_PLAIN)
    ax = np.abs(v)
    with np.errstate(over="ignore", under="ignore"):
        t = np.float32(1) / _fma(np.float32(0.3275911), ax, 1.0)
        r = _fma(_fma(_fma(_fma(np.float32(1.061405429), t, np.float32(-1.453152027)), t, np.float32(1.421413741)),
                      t, np.float32(-0.284496736)), t, np.float32(0.254829592))
        e = np.exp(-(v * v))
        out = _fma(-e * t, r, 1.0)
    return np.where(np.signbit(v), -out, out).astype(_F32)


def cascade_sums(picked, w, keep, cls):
    """torch's nll_loss sums (its CPU kernel's loop) for 16-bit values ``picked`` = ``x[b, t_b]`` (None:
    the weights' sum alone): ``-x * w`` and the weights summed in ``cls.STORE`` itself, each addition
    rounded, through an 8-level cascade of partial sums (levels of 16 samples), skipping ignored
    samples (``keep`` False). ``w``: the per-sample weights, None for all ones (their sum is then the
    count). Returns the two float32 sums."""
    st = cls.STORE.type

    def r(v):
        return np.float32(st(v))

    wf = None if w is None else _up(w).reshape(-1)
    kf = None if keep is None else np.asarray(keep).reshape(-1)
    p = None if picked is None else _up(picked).reshape(-1)
    n = (p if p is not None else wf).size
    power = max(4, (int(n - 1).bit_length() if n > 1 else 0) // 8)  # (CeilLog2(n) / 8 levels)
    mask = (1 << power) - 1
    zero, one = np.float32(0), np.float32(1)
    loss, wsum = [zero] * 8, [zero] * 8
    ignored = 0
    for b in range(n):
        if kf is not None and not kf[b]:
            ignored += 1
            continue
        wv = one if wf is None else wf[b]
        wsum[0] = r(wsum[0] + wv)
        if p is not None:
            loss[0] = r(loss[0] + r(-p[b] * wv))
        for j in range(7):
            if b & (mask << (j * power)):
                break
            wsum[j + 1], loss[j + 1] = r(wsum[j + 1] + wsum[j]), r(loss[j + 1] + loss[j])
            wsum[j] = loss[j] = zero
    total, weight = zero, r(n - ignored) if wf is None else zero
    for v, u in zip(loss, wsum):
        total = r(total + v)
        if wf is not None:
            weight = r(weight + u)
    return total, weight


def nll_cascade(picked, w, keep, reduction: str):
    """torch's nll_loss reduction of 16-bit ``picked`` values (see :func:`cascade_sums`), then
    its division by the weights' sum for ``"mean"``."""
    cls = picked.__class__ if isinstance(picked, LowpArray) else _CLASS_OF[picked.dtype]
    total, weight = cascade_sums(picked, w, keep, cls)
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.float32(cls.STORE.type(total / weight))
    return as_lowp(np.asarray(total), cls)


# np.* functions that move or view data without arithmetic: run on the 16-bit values themselves,
# so that views stay views and writes land in the 16-bit array (and round there)
_KEEP = frozenset(getattr(np, n) for n in (
    "reshape", "transpose", "swapaxes", "moveaxis", "ravel", "squeeze", "expand_dims", "broadcast_to",
    "broadcast_arrays", "diagonal", "atleast_1d", "atleast_2d", "atleast_3d", "split", "array_split",
    "flip", "copyto", "put", "putmask", "place", "shape", "ndim", "size", "may_share_memory",
    "shares_memory", "permute_dims", "matrix_transpose", "unstack") if hasattr(np, n))
_KEEP = _KEEP | {np.lib.stride_tricks.as_strided, np.lib.stride_tricks.sliding_window_view}

# torch's add and sub kernels cast a number operand to the tensor's dtype (``x + 0.1`` adds
# bfloat16(0.1)); mul and div read it in float32 (``x * 0.1`` multiplies by 0.1f): checked on torch
_SCALAR_IN_STORE = frozenset((np.add, np.subtract))


class LowpArray(np.ndarray):
    """16-bit float values whose arithmetic runs in float32 (see the module docstring). A subclass
    names its storage dtype ``STORE`` and its :class:`Float32From` subclass ``WIDE``."""

    STORE = None
    WIDE: type
    #: whether each NumPy call of a backward formula rounds its result (torch's Half backward kernels
    #: round after each elementary step: sigmoid's is ``h(h(g * h(1 - y)) * y)``, checked on torch)
    BACKWARD_PER_OP = False

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        cls = self.__class__
        args = [_up(x) for x in inputs]
        if ufunc in _SCALAR_IN_STORE and method == "__call__" and len(args) == 2:
            store = cls.STORE
            args = [x.astype(store).astype(_F32) if x.__class__ is _PLAIN and x.ndim == 0 and x.dtype == _F32
                    else x for x in args]
        kwargs, asked = _asked_dtype(kwargs, cls.STORE)
        if method == "at":  # in place into inputs[0]: do it in float32, then round back into it
            target = inputs[0]
            work = args[0]
            ufunc.at(work, *args[1:], **kwargs)
            if work is not target:
                np.copyto(_plain(target), work, casting="unsafe")
            return None
        if out is None:
            r = getattr(ufunc, method)(*args, **kwargs)
            if cls.BACKWARD_PER_OP and not IN_KERNEL[0] and _per_op_now():
                return _per_op(cls, r, asked)
            if (ufunc is np.add and method == "__call__" and len(inputs) == 2 and _grad_state().in_backward
                    and inputs[0].__class__ is inputs[1].__class__ is cls):
                # the engine sums the gradients an input gets from several uses with ``+``: that sum is
                # one op of torch's, rounded (and what follows it must see a 16-bit array)
                return as_lowp(r, cls)
            return _exact(r) if asked else _mark(r, cls.WIDE)
        res = getattr(ufunc, method)(*args, **kwargs)
        results = res if isinstance(res, tuple) else (res,)
        for o, r in zip(out, results):
            np.copyto(_plain(o), r, casting="unsafe")  # (rounds once into a 16-bit out)
        return out[0] if len(out) == 1 else out

    def __array_function__(self, func, types, args, kwargs):
        if func in _KEEP:
            return _rewrap(func._implementation(*args, **kwargs), self.__class__)
        return self._wide_call(func, _up(list(args)), kwargs)

    def _wide_call(self, func, args, kwargs):
        """``func(*args, **kwargs)`` on float32 operands, its result marked (or rounded: see
        ``BACKWARD_PER_OP``) as a ufunc's is."""
        cls = self.__class__
        kwargs, asked = _asked_dtype({k: _up(v) for k, v in kwargs.items()}, cls.STORE)
        r = func(*args, **kwargs)
        if cls.BACKWARD_PER_OP and not IN_KERNEL[0] and _per_op_now():
            return _per_op(cls, r, asked)
        return _exact(r) if asked else _mark(r, cls.WIDE)

    # (ndarray's own mean/var/std answer a float16 array in float16, rounding the float32 mean and
    # the variance's partial results: run them on the float32 values instead, as np.mean does here)
    def mean(self, *args, **kwargs):
        return self._wide_call(_PLAIN.mean, (_up(self),) + args, kwargs)

    def var(self, *args, **kwargs):
        return self._wide_call(_PLAIN.var, (_up(self),) + args, kwargs)

    def std(self, *args, **kwargs):
        return self._wide_call(_PLAIN.std, (_up(self),) + args, kwargs)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's astype; the result is a LowpArray only when it is a 16-bit float (a float32 copy is
        a plain array, or every later op would round it back)."""
        return keep_lowp(self.view(_PLAIN).astype(dtype, order=order, casting=casting, copy=copy))

    def tolist(self):
        v = self.view(_PLAIN)
        return (v.astype(_F32) if v.dtype is self.STORE else v).tolist()  # (Python floats, as torch's tolist)

    def item(self, *args):
        v = self.view(_PLAIN)
        return (v.astype(_F32) if v.dtype is self.STORE else v).item(*args)


class Float32From(np.ndarray):
    """float32 values computed from 16-bit ones (see the module docstring): plain float32 arithmetic,
    but ``astype`` back to the 16-bit dtype gives a :class:`LowpArray`. A subclass names its
    LowpArray subclass ``ARRAY``."""

    ARRAY: type

    def __array_function__(self, func, types, args, kwargs):
        # (ndarray's own would serve ``np.where(mask, a16, b)`` for a mask of this class, before the
        # 16-bit array's override is asked: give way to it)
        for t in types:
            if issubclass(t, LowpArray):
                return NotImplemented
        return _PLAIN.__array_function__(self, func, types, args, kwargs)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        plain = self.view(_PLAIN)
        if np.dtype(dtype) is self.ARRAY.STORE:
            if not _grad_state().in_backward:
                # inside a forward (``(...).astype(x.dtype)`` keeps a float32 op's dtype): stay float32,
                # the wrapper rounds the op's result once; in a backward the engine's cast-back rounds
                return plain.astype(_F32, copy=False).view(self.__class__)
            return plain.astype(self.ARRAY.STORE).view(self.ARRAY)
        return keep_lowp(plain.astype(dtype, order=order, casting=casting, copy=copy))


class ExactResult(np.ndarray):
    """A forward's result in a dtype that was asked for (see :func:`cast_array`): never rounded."""


#: backward ops whose Half kernel in torch rounds after each step, as separate ops would (checked on
#: torch: sigmoid_backward is ``h(h(g * h(1 - y)) * y)``), though leafgrad runs them with ``xp.apply``
_PER_OP_KERNELS = frozenset(("SigmoidBackwardBackward0",))

#: how deep a backward now runs inside ``xp.apply``/``xp.kernel`` (one of torch's fused backward
#: kernels, rounding once) or a custom ``autograd.Function``'s backward (whose ops round once each,
#: as any op does): float16's per-step rounding is off there
IN_KERNEL = [0]


def _namespace(module):
    """The formula namespace of a 16-bit backend whose backward rounds per NumPy call
    (``BACKWARD_PER_OP``): a backward formula's plain ``xp``/operator steps are torch's separate ops,
    each rounded, while an ``xp.apply(OP, ...)`` in it is one of torch's fused backward kernels
    (``tanh_backward``, ``softmax_backward_data``), computed in float32 and rounded once."""
    from ._ops.xp import ArrayNamespace

    class LowpNamespace(ArrayNamespace):
        def apply(self, op, *inputs, params: tuple = ()):
            outer = IN_KERNEL[0]
            if op.name in _PER_OP_KERNELS and not outer:
                return ArrayNamespace.apply(self, op, *inputs, params=params)
            IN_KERNEL[0] += 1
            try:
                if outer:  # (a step of an enclosing fused kernel: its float32 value, not rounded)
                    return op.forward(self.module, *inputs, *params)
                return ArrayNamespace.apply(self, op, *inputs, params=params)
            finally:
                IN_KERNEL[0] -= 1

        def kernel(self, f, *args):
            IN_KERNEL[0] += 1
            try:
                return f(self, *args)
            finally:
                IN_KERNEL[0] -= 1

    return LowpNamespace(module)


class _Module:
    """NumPy for one 16-bit backend, with ``asarray`` = :func:`round_result` (see the docstring)."""

    def __init__(self, cls) -> None:
        self.asarray = lambda obj, dtype=None, **kwargs: round_result(cls, obj, dtype, **kwargs)
        self._cls = cls

    @property
    def NAMESPACE(self):  # noqa: N802  (read once by _ops.xp.array_namespace)
        return _namespace(self) if self._cls.BACKWARD_PER_OP else None

    def __getattr__(self, name: str):
        value = getattr(np, name)
        setattr(self, name, value)
        return value


def register(cls, wide, name: str, numpy_view: bool) -> None:
    """Make ``cls`` (holding ``cls.STORE`` values; ``wide`` its Float32From subclass) an array type of
    its own in ``_backend``. ``numpy_view``: ``Tensor.numpy()`` gives a plain ndarray view of the data
    (float16; bfloat16 has no NumPy dtype of its own, and torch refuses its numpy())."""
    from ._backend import _BY_ARRAY_TYPE, CPU, Backend

    class _Backend(Backend):
        __slots__ = ()

        def const(self, value, dtype):
            """A Python number of a 16-bit op as float32, not rounded to the 16-bit dtype: torch's CPU
            kernels read a scalar operand in their float32 compute type (``x * 0.3`` multiplies by 0.3f)."""
            return Backend.const(self, value, _F32 if dtype is cls.STORE else dtype)

        def to_numpy(self, arr):
            return arr.view(_PLAIN) if numpy_view else arr

    cls.WIDE, wide.ARRAY = wide, cls
    _CLASS_OF[cls.STORE] = cls
    if cls not in _BY_ARRAY_TYPE:
        _BY_ARRAY_TYPE[cls] = _Backend(name, _Module(cls), cls, CPU.device, special_module=CPU.special_module)
        # (a Float32From is float32 data: should one reach a tensor, NumPy's backend serves it)
        _BY_ARRAY_TYPE[wide] = CPU
        _BY_ARRAY_TYPE[ExactResult] = CPU


# float16 needs no optional package: its array type is registered as soon as this module is imported
# (bfloat16's on first use, by _bfloat16.load)
from . import _float16  # noqa: E402,F401
