"""The two interpreters of a backward formula: raw arrays, or leafgrad Tensors.

Every backward formula is written once, against the namespace ``xp`` it receives as its
first argument, in NumPy's vocabulary::

    SIN = defop("SinBackward0", lambda xp, a: xp.sin(a),
                lambda xp, g, self: g * xp.cos(self), saved=("self",))

The engine runs that same formula two ways (HIPS autograd's ``autograd.numpy`` is the model):

* **on raw arrays** (``create_graph=False``, nearly every backward): ``xp`` is an
  :class:`ArrayNamespace`, the tensor's array module itself (NumPy now, CuPy later) plus the
  few helpers below. ``g`` and the saved values are plain arrays, so a formula costs what the
  NumPy calls in it cost, and no Tensor or node is made for a gradient nobody looks at.
* **on Tensors** (``create_graph=True``, anomaly mode, ``grad_fn(...)`` called by hand): ``xp``
  is the :data:`TENSORS` namespace, whose functions have NumPy's names and signatures but are
  leafgrad ops, so the backward is itself recorded and higher-order gradients come free.

A formula may use Python operators (``+ - * / ** @``, comparisons, unary minus), ``.shape``,
``.ndim``, ``.reshape(shape)`` and ``xp.<name>(...)`` for any name in :data:`TENSORS` below.
The names NumPy lacks, or where torch's rule differs from NumPy's, are the helpers defined
here once, for both interpreters: ``apply`` (run another ``defop`` op), ``sum_to`` (torch's
``sum_to_size``), ``astype``, ``dtype_of``, ``numel``, ``conj`` (no copy for real values),
``index_add_zeros``, ``scalar_like``, ``swap_last``, ``kernel`` (a part that torch computes as one
fused backward kernel: float16 rounds it once, see _lowp.py), and ``data`` / ``constant`` for a part of a
formula computed on the raw arrays as a constant of the backward (never differentiated).
"""
from __future__ import annotations

import numpy as np

from .._backend import CPU as _CPU
from .._lowp import keep_lowp

__all__ = ["ArrayNamespace", "array_namespace", "TENSORS", "TensorNamespace"]


# ----------------------------------------------------------------------------- on arrays
_NDARRAY = np.ndarray
_FACTORS: dict = {}  # floating or complex dtype -> {Python number: read-only 0-d array} (ArrayNamespace.conj)


def _factor(a, dtype):
    """Python number ``a`` as a 0-d array of ``dtype`` (cached) where that gives the result NumPy
    gives for ``a`` itself: a floating or complex dtype, and an int only up to 2**53, where NumPy
    going through a float64 first cannot round it differently. Otherwise ``a`` itself."""
    if dtype.kind not in "fc" or (a.__class__ is int and not -(1 << 53) <= a <= 1 << 53):
        return a
    k = _CPU.const(a, dtype)
    if k.flags.writeable:  # (zero and NaN: Backend.const keeps neither, see there)
        return k
    table = _FACTORS.get(dtype)
    if table is None or len(table) >= 256:  # (a program sweeping through many numbers: start over)
        table = _FACTORS[dtype] = {}
    table[a] = k
    return k


def sum_to_axes(have: tuple, want: tuple) -> tuple:
    """The dims of shape ``have`` to sum (keeping them) so that it reshapes to ``want``."""
    lead = len(have) - len(want)
    return tuple(range(lead)) + tuple(lead + k for k, s in enumerate(want) if s == 1 and have[lead + k] != 1)


class ArrayNamespace:
    """An array module (``numpy``) plus leafgrad's formula helpers, for formulas on raw arrays.

    Attribute reads of module functions are served from the instance's dict after their first
    use (``xp.exp`` is then one dict lookup, as fast as ``np.exp``).
    """

    tensors = False  # (the rare formula that must know which interpreter runs it)

    def __init__(self, module) -> None:
        self.module = module

    def __getattr__(self, name: str):
        value = getattr(self.module, name)  # (an AttributeError names the missing function)
        setattr(self, name, value)
        return value

    def apply(self, op, *inputs, params: tuple = ()):
        """Run ``defop`` op ``op`` on arrays: its forward, nothing recorded. (Two inputs, no
        parameters, the backward of tanh, sigmoid and relu: called spelled out, as a star-call
        costs a C-level call of its own in CPython.)"""
        if len(inputs) == 2 and not params:
            out = op.forward(self.module, inputs[0], inputs[1])
        else:
            out = op.forward(self.module, *inputs, *params)
        return out if out.__class__ is inputs[0].__class__ else self.module.asarray(out)

    def kernel(self, f, *args):
        """``f(xp, *args)``: a formula (or part) that torch computes as one fused kernel, not as
        separate ops. Only a 16-bit float backend whose other formula steps round one by one (see
        _lowp.py) treats it differently: it computes ``f`` in float32 and rounds once."""
        return f(self, *args)

    def sum_to(self, g, shape: tuple):
        """``g`` summed over the dims that broadcasting added to reach ``g.shape`` from ``shape``."""
        shape = tuple(shape)
        if g.shape == shape:
            return g
        axes = sum_to_axes(g.shape, shape)
        out = self.module.add.reduce(g, axes, None, None, True) if axes else g
        return self.module.asarray(out.reshape(shape))

    def conj(self, a, like=None):
        """``a``'s complex conjugate; a real array or number itself, with no copy.

        With ``like`` (the gradient that ``a`` multiplies or divides: ``x * 0.5``'s backward), a
        Python float or int comes back as a cached read-only 0-d array of ``like``'s dtype, as the
        forward passed it (``Backend.const``). NumPy 2 converts a Python number to the array's
        dtype on every call (NEP 50), which costs about as much as the multiply itself on a small
        array: W3's MulBackward0 runs about 1 k instructions fewer per node. The values are the
        same, as NumPy converts the number to that dtype itself (see ``_factor``)."""
        c = a.__class__
        if c is float or c is int:  # (a saved Python number: the common case, tested first)
            if like is not None and like.__class__ is _NDARRAY:
                table = _FACTORS.get(like.dtype)
                k = table.get(a) if table is not None else None
                return k if k is not None else _factor(a, like.dtype)
            return a
        if c is complex:
            return self.module.conj(a)
        dt = getattr(a, "dtype", None)
        return self.module.conj(a) if dt is not None and dt.kind == "c" else a

    def masked_fill(self, a, mask, value):
        """torch's ``a.masked_fill(mask, value)``. On Tensors it records torch's MaskedFillBackward0
        (``where`` would record WhereBackward0), so a double backward shows the nodes torch's makes."""
        return self.module.where(mask, value, a)

    def astype(self, a, dtype):
        """``a`` in NumPy dtype ``dtype`` (the same object when it already is); complex to real keeps the
        real part, as torch's casts do (NumPy's would warn)."""
        if a.dtype == dtype:
            return a
        return keep_lowp((a.real if a.dtype.kind == "c" and np.dtype(dtype).kind != "c" else a).astype(dtype))

    def dtype_of(self, a):
        """The NumPy dtype of an array or a Tensor."""
        return a.dtype

    def numel(self, a) -> int:
        return a.size

    def scalar_like(self, value, like):
        """Python number ``value`` as a 0-d array of ``like``'s dtype (a formula's constant)."""
        return self.module.asarray(value, dtype=like.dtype)

    def index_add_zeros(self, values, shape: tuple, key):
        """Zeros of ``shape`` with ``values`` added at ``key`` (repeated positions accumulate):
        the backward of every gather-like op."""
        out = self.module.zeros(shape, dtype=values.dtype)
        self.module.add.at(out, key, values)
        return out

    def swap_last(self, a):
        """``a`` with its last two dims swapped (torch's ``mT``; ``a.T`` for a matrix)."""
        return self.module.swapaxes(a, -1, -2)

    def data(self, a):
        """The raw array under ``a`` (for a part of a formula that is a constant of the backward)."""
        return a

    def constant(self, arr):
        """A raw array as an operand of the formula: a constant, never differentiated."""
        return arr


_BY_MODULE: dict = {}


def array_namespace(module) -> ArrayNamespace:
    """The one :class:`ArrayNamespace` of an array module (made on first use)."""
    ns = _BY_MODULE.get(module)
    if ns is None:
        # (a backend may bring its own subclass: _lowp's float16 one marks xp.apply as one fused kernel)
        ns = _BY_MODULE[module] = getattr(module, "NAMESPACE", None) or ArrayNamespace(module)
    return ns


# ----------------------------------------------------------------------------- on Tensors
def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


class TensorNamespace:
    """NumPy's names, computed with leafgrad ops on Tensors: the formulas' second interpreter.

    Python numbers and NumPy arrays (a saved index, a mask) are accepted wherever NumPy takes
    them, and become constants of the recorded graph.
    """

    tensors = True

    def __getattr__(self, name: str):
        _bind()
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(
                f"backward formulas on Tensors have no xp.{name}: add it to leafgrad/_ops/xp.py, "
                "for both interpreters") from None

    # -- helpers shared with ArrayNamespace (see there)
    @staticmethod
    def apply(op, *inputs, params: tuple = ()):
        from .registry import apply
        out = apply(op, tuple(_t(x) for x in inputs), tuple(params))
        return out

    def kernel(self, f, *args):
        return f(self, *args)  # (on Tensors each step is an op of its own, rounded as such)

    @staticmethod
    def sum_to(g, shape: tuple):
        shape = tuple(shape)
        if tuple(g.shape) == shape:
            return g
        from .reduction import sum_dims
        axes = sum_to_axes(tuple(g.shape), shape)
        return (sum_dims(g, axes, True) if axes else g).reshape(shape)

    @staticmethod
    def conj(a, like=None):
        return a.conj() if hasattr(a, "_data") and a._data.dtype.kind == "c" else a

    @staticmethod
    def astype(a, dtype):
        if a._data.dtype == dtype:
            return a
        if a._data.dtype.kind == "c" and np.dtype(dtype).kind != "c":  # (the real part, recorded: see fft_ops)
            from .fft_ops import REAL_PART
            from .registry import apply
            a = apply(REAL_PART, (a,))
        return a.to(_leafgrad_dtype(dtype))

    @staticmethod
    def dtype_of(a):
        return a._data.dtype if hasattr(a, "_data") else a.dtype

    @staticmethod
    def numel(a) -> int:
        return a.numel()

    @staticmethod
    def scalar_like(value, like):
        from .._creation import tensor
        return tensor(value, dtype=like.dtype)

    @staticmethod
    def index_add_zeros(values, shape: tuple, key):
        from .indexing import index_add_zeros
        return index_add_zeros(values, tuple(shape), key)

    @staticmethod
    def swap_last(a):
        return a.t() if a.ndim == 2 else a.transpose(-1, -2)  # (torch's formulas use .t() on matrices)

    @staticmethod
    def data(a):
        return a._data

    @staticmethod
    def constant(arr):
        from .._tensor import Tensor
        return Tensor._make(arr)


def _leafgrad_dtype(np_dtype):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(np.dtype(np_dtype))


def _t(x):
    """A formula's operand as a Tensor (arrays and numbers become constants)."""
    if hasattr(x, "_data"):
        return x
    from .._tensor import Tensor
    return Tensor._make(np.asarray(x))


TENSORS = TensorNamespace()
_BOUND: list = []


def _bind() -> None:
    """Fill :data:`TENSORS` on first use (the op modules import this one, so not at import)."""
    if _BOUND:
        return
    from .. import _creation as C
    from . import linalg as L, pointwise as P, pointwise_math as PM, reduction as R, shape as S
    from ..autograd.grad_mode import no_grad

    def const(fn):  # a result that carries no gradient (zeros, masks)
        def f(*a, **k):
            with no_grad():
                return fn(*a, **k)
        f.__name__ = fn.__name__
        return f

    def sum_(a, axis=None, keepdims=False, dtype=None):
        out = R.sum_dims(a, _axes(axis, a.ndim), keepdims) if axis is not None else (
            a.sum() if not keepdims else R.sum_dims(a, _axes(None, a.ndim), True))
        return out if dtype is None else out.to(_leafgrad_dtype(dtype))

    def mean_(a, axis=None, keepdims=False):
        return a.mean() if axis is None and not keepdims else a.mean(_axes(axis, a.ndim), keepdim=keepdims)

    def amax_(a, axis=None, keepdims=False):
        return a.amax(_axes(axis, a.ndim), keepdim=keepdims)

    def where_(cond, a, b):
        return P.where(_t(cond), a, b)

    def transpose_(a, axes=None):
        return a.permute(*(axes if axes is not None else range(a.ndim - 1, -1, -1)))

    def expand_dims_(a, axis):
        for ax in sorted(_axes(axis, 0)):
            a = a.unsqueeze(ax)
        return a

    def squeeze_(a, axis=None):
        if axis is None:
            return a.squeeze()
        for ax in sorted((x % a.ndim for x in _axes(axis, a.ndim)), reverse=True):
            a = a.squeeze(ax)
        return a

    def zeros_(shape, dtype=None):
        from .._tensor import Tensor
        return Tensor._make(np.zeros(shape, dtype=dtype))

    def ones_(shape, dtype=None):
        from .._tensor import Tensor
        return Tensor._make(np.ones(shape, dtype=dtype))

    def split_(a, indices_or_sections, axis=0):
        """NumPy's split, as narrow()s of ``a`` (the pieces glu's backward takes apart)."""
        n = a.shape[axis]
        if isinstance(indices_or_sections, int):
            if indices_or_sections <= 0 or n % indices_or_sections:
                raise ValueError("array split does not result in an equal division")
            step = n // indices_or_sections
            cuts = [step * k for k in range(1, indices_or_sections)]
        else:  # (indices as Python slicing reads them: negative from the end, clamped to [0, n])
            cuts = [min(max(c + n if c < 0 else c, 0), n) for c in indices_or_sections]
        starts = [0] + cuts
        ends = cuts + [n]
        return [a.narrow(axis, lo, max(hi - lo, 0)) for lo, hi in zip(starts, ends)]

    table = {
        # element-wise
        "exp": P.exp, "log": P.log, "log1p": P.log1p, "expm1": P.expm1, "sqrt": P.sqrt, "sin": P.sin, "cos": P.cos,
        "tan": P.tan, "tanh": P.tanh, "abs": P.abs, "sign": P.sign, "reciprocal": P.reciprocal,
        "square": P.square, "maximum": P.maximum, "minimum": P.minimum, "power": P.pow, "negative": P.neg,
        "multiply": P.mul, "add": P.add, "subtract": P.sub, "divide": P.div, "where": where_,
        "logical_and": const(P.logical_and), "logical_or": const(P.logical_or), "logical_not": const(P.logical_not),
        "isnan": const(P.isnan), "isfinite": const(P.isfinite), "isinf": const(P.isinf),
        "equal": const(P.eq), "greater": const(P.gt), "less": const(P.lt),
        # reductions
        "sum": sum_, "mean": mean_, "amax": amax_,
        "cumsum": lambda a, axis: a.cumsum(axis),
        # shapes
        "reshape": lambda a, shape: a.reshape(shape), "broadcast_to": lambda a, shape: a.expand(*shape),
        "swapaxes": lambda a, i, j: a.transpose(i, j), "transpose": transpose_, "moveaxis": S.movedim,
        "expand_dims": expand_dims_, "squeeze": squeeze_, "flip": lambda a, axis: a.flip(_axes(axis, a.ndim)),
        "concatenate": lambda arrays, axis=0: S.cat(list(arrays), axis), "stack": lambda arrays, axis=0:
        S.stack(list(arrays), axis),
        # linear algebra
        "matmul": L.matmul, "dot": L.matmul, "outer": L.outer,
        # constants
        "zeros_like": const(lambda a, dtype=None: C.zeros_like(a) if dtype is None else
                            C.zeros_like(a, dtype=_leafgrad_dtype(dtype))),
        "ones_like": const(lambda a, dtype=None: C.ones_like(a) if dtype is None else
                           C.ones_like(a, dtype=_leafgrad_dtype(dtype))),
        "zeros": zeros_,
        "asarray": _t,
    }
    table.update({
        "sinh": PM.sinh, "cosh": PM.cosh, "split": split_, "ones": ones_,
        "masked_fill": lambda a, mask, value: a.masked_fill(_t(mask), value),
        "any": const(lambda a, axis=None, keepdims=False: R.any(a, axis, keepdims)),
        "take_along_axis": lambda a, indices, axis: a.gather(axis, _t(indices)),  # (one index per position)
    })
    # (misc14: the real part as torch's handle_r_to_c takes it, a view: SelectBackward0; eig's backward)
    from .complex_views import real as _real
    table["real"] = _real
    TENSORS.__dict__.update(table)
    _BOUND.append(True)
