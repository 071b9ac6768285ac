"""Real bfloat16 storage, computed the way torch's CPU kernels compute it.

NumPy has no bfloat16; the small ``ml_dtypes`` package (a JAX/TensorFlow dependency, one wheel, no
other requirements) registers one, with casts that round to nearest even. Its ufuncs alone are not
torch's arithmetic: ``matmul`` answers in float32, ``sum`` accumulates in bfloat16 (torch
accumulates in float32), and an op that leafgrad writes as several NumPy calls (softmax, sigmoid)
would round after each call where torch's kernel rounds once. So a bfloat16 tensor's data is a
:class:`BFloat16Array`, an ``ndarray`` subclass holding ``ml_dtypes.bfloat16`` values that is
registered as an array type of its own in ``_backend`` (as a CuPy array would be):

* any NumPy computation on it (ufuncs, their ``reduce``/``at`` methods, ``np.*`` functions) runs in
  float32 and returns a float32 :class:`Float32FromBF16` array (an ``ndarray`` subclass with no
  behaviour of its own but ``astype``): a whole op's forward is float32 arithmetic;
* the op wrapper already converts a forward's result whose array type is not its input's with
  the backend's ``asarray`` (``registry.apply``); for this backend that is :func:`round_result`,
  which rounds a floating result to bfloat16 once: torch's "compute in float32, round per op";
* a backward formula on bfloat16 gradients likewise computes in float32; the engine casts each
  gradient back to its input's dtype with ``astype``, which on a :class:`Float32FromBF16` gives a
  :class:`BFloat16Array` again (a plain float32 array's ``astype`` would give a plain bfloat16
  array, whose NumPy arithmetic is not torch's);
* data movement that must stay a view (reshape, transpose, slicing, ``broadcast_to``) keeps the
  bfloat16 array untouched, and writes into it (``a[i] = v``, ``np.copyto``, ``out=``) round.

The float32 and float64 paths see none of this: a plain ``ndarray`` still goes to NumPy's backend.
"""
from __future__ import annotations

import numpy as np

import importlib.util

# ``import ml_dtypes`` costs about a second of CPU (its extension registers its dtypes with NumPy),
# more than all of ``import leafgrad``: it is imported on the first use of bfloat16 (:func:`load`,
# called when ``leafgrad.bfloat16.np`` is first read), never by ``import leafgrad`` itself.
_ml = None

__all__ = ["BF16", "BFloat16Array", "Float32FromBF16", "ExactResult", "available", "add_scaled", "as_bf16",
           "cast_array", "keep_bf16", "prod_sequential", "refuse_numpy", "round_like", "round_result"]

#: NumPy's bfloat16 dtype (ml_dtypes'), once :func:`load` ran; None before (no array can hold
#: bfloat16 then, so every ``x.dtype is BF16`` test here is rightly False) and without ml_dtypes
BF16 = None
_F32 = np.dtype(np.float32)
_PLAIN = np.ndarray


def available() -> bool:
    """Whether ml_dtypes is installed (found without importing it)."""
    return _ml is not None or importlib.util.find_spec("ml_dtypes") is not None


def load():
    """Import ml_dtypes and register bfloat16's array type; returns the NumPy dtype that stores
    bfloat16 (float32 without ml_dtypes, the storage leafgrad used before it had bfloat16)."""
    global _ml, BF16
    if BF16 is not None:
        return BF16
    try:
        import ml_dtypes
    except ImportError:
        return _F32
    _ml = ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
    _register()
    return BF16


def _up(x):
    """A bfloat16 array (of either class) as plain float32; anything else unchanged."""
    c = x.__class__
    if c is BFloat16Array:  # (an ndarray method, argmax say, may give one of another dtype)
        v = x.view(_PLAIN)
        return v.astype(_F32) if v.dtype is BF16 else v
    if isinstance(x, _PLAIN) and x.dtype is BF16:
        return x.view(_PLAIN).astype(_F32)
    if x.__class__ is list or x.__class__ is tuple:
        return x.__class__(_up(v) for v in x)
    return x


def _grad_state():
    from .autograd.grad_mode import STATE
    global _grad_state
    _grad_state = lambda: STATE  # noqa: E731  (looked up once: grad_mode imports this module's users)
    return STATE


def _mark(r):
    """A computation's float32 result as a :class:`Float32FromBF16` (others unchanged)."""
    if r.__class__ is _PLAIN or r.__class__ is np.float32:
        if r.dtype == _F32:
            return np.asarray(r).view(Float32FromBF16)
    elif r.__class__ is tuple:
        return tuple(_mark(v) for v in r)
    return r


def _exact(r):
    """A result in a dtype that the caller asked for (a cast, ``sum(dtype=...)``): kept as it is."""
    if isinstance(r, _PLAIN) or isinstance(r, np.generic):
        return np.asarray(r).view(ExactResult)
    if r.__class__ is tuple:
        return tuple(_exact(v) for v in r)
    return r


def _asked_dtype(kwargs: dict):
    """``kwargs`` with a ``dtype=bfloat16`` replaced by float32 (accumulate there, round once), and
    whether a dtype other than bfloat16 was asked for."""
    d = kwargs.get("dtype")
    if d is None:
        return kwargs, False
    if np.dtype(d) == BF16:
        return {**kwargs, "dtype": _F32}, False
    return kwargs, True


def cast_array(a, np_dtype):
    """``a.astype(np_dtype)`` as a forward's result: a bfloat16 one a :class:`BFloat16Array`; one
    cast from bfloat16 marked so that the backend does not round it back (see :func:`round_result`)."""
    r = a.astype(np_dtype, copy=True)
    if r.dtype is BF16:
        return r.view(BFloat16Array) if r.__class__ is not BFloat16Array else r
    if a.__class__ is BFloat16Array:
        return r.view(ExactResult)
    return r


def _plain(x):
    return x.view(_PLAIN) if x.__class__ is BFloat16Array else x


def as_bf16(arr):
    """``arr`` (any array or number) as a :class:`BFloat16Array`, rounding once (no copy when it
    already holds bfloat16: a plain bfloat16 view becomes a BFloat16Array view of the same memory)."""
    if arr.__class__ is BFloat16Array:
        return arr
    arr = np.asarray(arr)
    if arr.dtype != BF16:
        arr = arr.astype(BF16)
    return arr.view(BFloat16Array)


def keep_bf16(arr):
    """``arr`` as a :class:`BFloat16Array` view when it holds bfloat16, else itself: for the few
    places that make a tensor's array outside an op (factories, casts)."""
    if arr.dtype is BF16 and arr.__class__ is not BFloat16Array:  # (BF16 is None without ml_dtypes)
        return arr.view(BFloat16Array)
    return arr


def round_result(obj, dtype=None, **kwargs):
    """The bfloat16 backend's ``asarray``: with ``dtype``, NumPy's; without, a forward's result,
    rounded to bfloat16 when it is floating (an integer or bool result keeps its dtype)."""
    if dtype is not None:
        r = np.asarray(_plain(obj) if obj.__class__ is BFloat16Array else obj, dtype=dtype, **kwargs)
        return r.view(BFloat16Array) if r.dtype == BF16 else r
    if obj.__class__ is BFloat16Array:
        return obj if obj.dtype is BF16 else obj.view(_PLAIN)
    if obj.__class__ is ExactResult:
        return obj.view(_PLAIN)
    r = np.asarray(obj)  # (also drops Float32FromBF16)
    if r.dtype.kind == "f" or r.dtype == BF16:
        return as_bf16(r)
    return r


# np.* functions that move or view data without arithmetic: run on the bfloat16 values themselves,
# so that views stay views and writes land in the bfloat16 array (and round there)
_KEEP = frozenset(getattr(np, n) for n in (
    "reshape", "transpose", "swapaxes", "moveaxis", "ravel", "squeeze", "expand_dims", "broadcast_to",
    "broadcast_arrays", "diagonal", "atleast_1d", "atleast_2d", "atleast_3d", "split", "array_split",
    "flip", "copyto", "put", "putmask", "place", "shape", "ndim", "size", "may_share_memory",
    "shares_memory", "permute_dims", "matrix_transpose", "unstack") if hasattr(np, n))
_KEEP = _KEEP | {np.lib.stride_tricks.as_strided, np.lib.stride_tricks.sliding_window_view}


def refuse_numpy(arr) -> None:
    """torch's ``numpy()`` of a bfloat16 tensor: a TypeError (NumPy has no bfloat16 of its own)."""
    if arr.dtype is BF16:
        raise TypeError("Got unsupported ScalarType BFloat16: NumPy has no bfloat16 dtype, so a bfloat16 "
                        "tensor has no numpy() view. Convert first: t.float().numpy() (exact: float32 holds "
                        "every bfloat16 value)")


def round_like(v, like):
    """``v`` rounded to bfloat16 and kept as float32 when ``like`` holds bfloat16 (else ``v``): the
    points inside one of torch's kernels where it stores a bfloat16 partial result (log_softmax
    stores its sum and its log; see reduction.py)."""
    if like.dtype is not BF16:
        return v
    return np.asarray(v).astype(BF16).astype(_F32).view(Float32FromBF16)


def add_scaled(a, b, alpha):
    """``a + alpha * b`` for a bfloat16 ``b`` as torch's add kernel takes it: ``alpha`` rounded to
    bfloat16 (it is cast to the tensor's dtype), then one fused multiply-add in float32 (emulated in
    float64, where the product is exact), then the op's one rounding to bfloat16."""
    al = float(np.asarray(alpha, _F32).astype(BF16).astype(np.float64))
    a32 = _up(a) if isinstance(a, _PLAIN) else np.float32(a)
    b32 = _up(b)
    out = (a32.astype(np.float64) + al * b32.astype(np.float64)).astype(_F32)
    if out.shape == b32.shape == np.shape(a32) and out.ndim:
        # torch's loop takes 32 elements per vector step; the last n % 32 (of the flat order) go
        # through its scalar loop, which rounds alpha * b to bfloat16 before adding
        tail = out.size % 32
        if tail:
            flat, fa, fb = out.reshape(-1), a32.reshape(-1)[-tail:], b32.reshape(-1)[-tail:]
            prod = (np.float32(al) * fb).astype(BF16).astype(_F32)
            flat[-tail:] = fa + prod
    return out.view(Float32FromBF16)


def prod_sequential(a, axis, keepdims: bool):
    """A product of bfloat16 values the way torch's CPU kernel takes it: one factor at a time, each
    partial product rounded to bfloat16 (the same as torch's for reductions of up to a few dozen
    values; a long contiguous one torch splits over vector lanes, in an order not reproduced here)."""
    v = a.view(_PLAIN).astype(_F32)
    axes = tuple(range(v.ndim)) if axis is None else tuple(d % v.ndim for d in np.atleast_1d(axis))
    rest = [d for d in range(v.ndim) if d not in axes]
    w = v.transpose(axes + tuple(rest)).reshape((-1,) + tuple(v.shape[d] for d in rest))
    acc = np.ones(w.shape[1:], _F32)
    for row in w:
        acc = (acc * row).astype(BF16).astype(_F32)
    if keepdims:
        acc = acc.reshape(tuple(1 if d in axes else v.shape[d] for d in range(v.ndim)))
    return as_bf16(acc)


# torch's add and sub kernels cast a number operand to the tensor's dtype (``x + 0.1`` adds
# bfloat16(0.1)); mul and div read it in float32 (``x * 0.1`` multiplies by 0.1f): checked on torch
_SCALAR_IN_BF16 = frozenset((np.add, np.subtract))


def _scalar_to_bf16(x):
    if x.__class__ is _PLAIN and x.ndim == 0 and x.dtype == _F32:
        return x.astype(BF16).astype(_F32)
    return x


class BFloat16Array(np.ndarray):
    """bfloat16 values whose arithmetic runs in float32 (see the module docstring)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        args = [_up(x) for x in inputs]
        if ufunc in _SCALAR_IN_BF16 and method == "__call__" and len(args) == 2:
            args = [_scalar_to_bf16(x) for x in args]
        kwargs, asked = _asked_dtype(kwargs)
        if method == "at":  # in place into inputs[0]: do it in float32, then round back into it
            target = inputs[0]
            work = args[0]
            ufunc.at(work, *args[1:], **kwargs)
            if work is not target:
                np.copyto(_plain(target), work, casting="unsafe")
            return None
        if out is None:
            r = getattr(ufunc, method)(*args, **kwargs)
            if (ufunc is np.add and method == "__call__" and len(inputs) == 2 and _grad_state().in_backward
                    and inputs[0].__class__ is inputs[1].__class__ is BFloat16Array):
                # the engine sums the gradients an input gets from several uses with ``+``: that sum is
                # one op of torch's, rounded (and what follows it must see a bfloat16 array)
                return as_bf16(r)
            return _exact(r) if asked else _mark(r)
        res = getattr(ufunc, method)(*args, **kwargs)
        results = res if isinstance(res, tuple) else (res,)
        for o, r in zip(out, results):
            np.copyto(_plain(o), r, casting="unsafe")  # (rounds once into a bfloat16 out)
        return out[0] if len(out) == 1 else out

    def __array_function__(self, func, types, args, kwargs):
        if func in _KEEP:
            return func._implementation(*args, **kwargs)
        kwargs, asked = _asked_dtype({k: _up(v) for k, v in kwargs.items()})
        r = func(*_up(list(args)), **kwargs)
        return _exact(r) if asked else _mark(r)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's astype; the result is a BFloat16Array only when it is bfloat16 (a float32 copy is a
        plain array, or every later op would round it back)."""
        r = self.view(_PLAIN).astype(dtype, order=order, casting=casting, copy=copy)
        return r.view(BFloat16Array) if r.dtype == BF16 else r

    def tolist(self):
        v = self.view(_PLAIN)
        return (v.astype(_F32) if v.dtype is BF16 else v).tolist()  # (Python floats, as torch's tolist)

    def item(self, *args):
        v = self.view(_PLAIN)
        return (v.astype(_F32) if v.dtype is BF16 else v).item(*args)


class Float32FromBF16(np.ndarray):
    """float32 values computed from bfloat16 ones (see the module docstring): plain float32
    arithmetic, but ``astype(bfloat16)`` gives a :class:`BFloat16Array`."""

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        plain = self.view(_PLAIN)
        if np.dtype(dtype) is BF16:
            if not _grad_state().in_backward:
                # inside a forward (``(...).astype(x.dtype)`` keeps a float32 op's dtype): stay float32,
                # the wrapper rounds the op's result once; in a backward the engine's cast-back rounds
                return plain.astype(_F32, copy=False).view(Float32FromBF16)
            return plain.astype(BF16).view(BFloat16Array)
        return plain.astype(dtype, order=order, casting=casting, copy=copy)


class ExactResult(np.ndarray):
    """A forward's result in a dtype that was asked for (see :func:`cast_array`): never rounded."""


class _Bf16Module:
    """NumPy for the bfloat16 backend, with ``asarray`` = :func:`round_result` (see the docstring)."""

    asarray = staticmethod(round_result)

    def __getattr__(self, name: str):
        value = getattr(np, name)
        setattr(self, name, value)
        return value


MODULE = _Bf16Module()


def _register() -> None:
    from ._backend import _BY_ARRAY_TYPE, CPU, Backend

    class _Bf16Backend(Backend):
        __slots__ = ()

        def const(self, value, dtype):
            """A Python number of a bfloat16 op as float32, not rounded to bfloat16: torch's CPU kernels
            read a scalar operand in their float32 compute type (``x * 0.3`` multiplies by 0.3f)."""
            return Backend.const(self, value, _F32 if dtype is BF16 else dtype)

    if BFloat16Array not in _BY_ARRAY_TYPE:
        _BY_ARRAY_TYPE[BFloat16Array] = _Bf16Backend("numpy-bfloat16", MODULE, BFloat16Array, CPU.device,
                                                     special_module=CPU.special_module)
        # (a Float32FromBF16 is float32 data: should one reach a tensor, NumPy's backend serves it)
        _BY_ARRAY_TYPE[Float32FromBF16] = CPU
        _BY_ARRAY_TYPE[ExactResult] = CPU
