"""Reductions (sum, mean, prod, max/min, amax/amin, var, std, logsumexp, norm) and softmax."""
from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._lowp import LowpArray, prod_sequential, round_like
from .._tensor import Tensor, _wrap_dim
from .indexing import select_back
from .layout import c_order, contiguous_output as _contiguous_output
from .norm_rows import row_sums
from .registry import apply, apply_simple, defop, show_saved_as
from .numpy_kwargs import numpy_kwargs
from .unsigned import refuse_unsigned

_make = Tensor._make


def normalize_dims(dim, ndim: int) -> tuple | None:
    """None for 'all dims', else a sorted tuple of non-negative axes (errors like torch's)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        dims = tuple(_wrap_dim(int(d), ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
        return tuple(sorted(dims)) if ndim else ()
    d = _wrap_dim(int(dim), ndim)
    return (d,) if ndim else ()  # (a 0-dim tensor's dim 0 or -1 is the scalar itself: reduce over no axis)


def _grad_to_input(xp, g, shape: tuple, dims, keepdim: bool):
    """Put back the reduced dims of a gradient so it broadcasts against the input."""
    if dims is None:
        return g.reshape((1,) * len(shape)) if len(shape) else g
    if not keepdim and dims:
        return xp.expand_dims(g, dims)
    return g


def _sum_fwd(xp, a, dims, keepdim, np_dtype):
    axis = dims if dims is None else tuple(dims)
    return a.sum(axis=axis, keepdims=keepdim, dtype=np_dtype)


SUM = defop("SumBackward0", lambda xp, a, np_dtype: a.sum(dtype=np_dtype),
            lambda xp, g, self_sym_sizes: xp.broadcast_to(g, self_sym_sizes), saved=("self_sym_sizes",))
SUM_DIM = defop("SumBackward1", _sum_fwd,
                lambda xp, g, self_sym_sizes, dims, keepdim: xp.broadcast_to(
                    _grad_to_input(xp, g, self_sym_sizes, dims, keepdim), self_sym_sizes),
                saved=("self_sym_sizes", "dims", "keepdim"))
SUM_DIM.node_cls._saved_names = ("self_sym_sizes", "dim", "keepdim")  # (torch's names)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


MEAN = defop("MeanBackward0", lambda xp, a: a.mean(),
             lambda xp, g, self_sym_sizes: xp.broadcast_to(g, self_sym_sizes) / builtins.max(_numel(self_sym_sizes), 1),
             saved=("self_sym_sizes",))
MEAN_DIM = defop("MeanBackward1", lambda xp, a, dims, keepdim: a.mean(axis=dims, keepdims=keepdim),
                 lambda xp, g, self_sym_sizes, dims, keepdim: xp.broadcast_to(
                     _grad_to_input(xp, g, self_sym_sizes, dims, keepdim), self_sym_sizes) / _count(self_sym_sizes, dims),
                 saved=("self_sym_sizes", "dims", "keepdim"))
MEAN_DIM.node_cls._saved_names = ("self_sym_sizes", "dim", "keepdim")  # (torch's names)
for _op in (MEAN, MEAN_DIM):  # (torch saves the element count too; here it is read from the shape)
    _op.node_cls._saved_self_sym_numel = property(lambda node: _numel(node._saved_self_sym_sizes))


def _count(shape, dims) -> int:
    return _numel(shape) if dims is None else _numel([shape[d] for d in dims])


def _prod_grad(xp, g, self, result, dims, keepdim):
    shape = self.shape
    gx = _grad_to_input(xp, g, shape, dims, keepdim)
    rx = _grad_to_input(xp, result, shape, dims, keepdim)
    data = xp.data(self)
    if not (data == 0).any():
        return gx * xp.conj(rx / self)  # (torch's order; conj: its complex rule)
    # with zeros, divide-by-self fails: take the product of the other elements directly (a constant)
    axes = tuple(range(data.ndim)) if dims is None else dims
    moved = np.moveaxis(data, axes, tuple(range(data.ndim - len(axes), data.ndim)))
    flat = moved.reshape(moved.shape[:data.ndim - len(axes)] + (-1,))
    n = flat.shape[-1]
    left = np.concatenate([np.ones(flat.shape[:-1] + (1,), flat.dtype), np.cumprod(flat, -1)[..., :-1]], -1)
    right = np.concatenate([np.cumprod(flat[..., ::-1], -1)[..., ::-1][..., 1:],
                            np.ones(flat.shape[:-1] + (1,), flat.dtype)], -1)
    others = (left * right).reshape(moved.shape)
    others = np.moveaxis(others, tuple(range(data.ndim - len(axes), data.ndim)), axes)
    del n
    return gx * xp.constant(np.ascontiguousarray(np.conj(others) if others.dtype.kind == "c" else others))


def _prod(a, axis, keepdims: bool):
    if isinstance(a, LowpArray):  # (torch rounds each partial product: see _lowp.prod_sequential)
        return prod_sequential(a, axis, keepdims)
    if a.dtype.kind == "u":  # (NumPy multiplies unsigned ints in uint64; torch in int64, wrapping)
        a = a.astype(np.int64)
    return a.prod() if axis is None else a.prod(axis=axis, keepdims=keepdims)


PROD = defop("ProdBackward0", lambda xp, a, dims, keepdim: _prod(a, None, False),
             lambda xp, g, self, result, dims, keepdim: _prod_grad(xp, g, self, result, None, False),
             saved=("self", "result", "dims", "keepdim"))
PROD.node_cls._saved_names = ("self", "result")  # (torch's names)
PROD_DIM = defop("ProdBackward1", lambda xp, a, dims, keepdim: _prod(a, dims, keepdim),
                 _prod_grad, saved=("self", "result", "dims", "keepdim"))
PROD_DIM.node_cls._saved_names = ("self", "result", "dim", "keepdim")  # (torch's names)
show_saved_as(PROD_DIM, "dim", lambda dims: dims[0])  # (prod takes one dim)


def _evenly(xp, g, self, result):
    """The maximum's (median's) positions share the gradient; a nan one is at the nans (torch's
    evenly_distribute)."""
    mask = xp.logical_or(self == result, xp.logical_and(xp.isnan(self), xp.isnan(result)))
    return mask * (g / xp.sum(mask, dtype=xp.dtype_of(g)))  # (the count in g's dtype: no promotion)


MAX_ALL = defop("MaxBackward1", lambda xp, a: a.max(), _evenly, saved=("self", "result"))
MIN_ALL = defop("MinBackward1", lambda xp, a: a.min(), _evenly, saved=("self", "result"))


def _max_dim_fwd(xp, a, dim, keepdim, which):
    if a.ndim == 0:  # (a 0-dim tensor over dim 0 or -1: itself, at index 0)
        return a.copy(), xp.zeros((), dtype=np.int64)
    idx = a.argmax(axis=dim) if which == "max" else a.argmin(axis=dim)
    idx_k = xp.expand_dims(idx, dim)
    vals = xp.take_along_axis(a, idx_k, axis=dim)
    if not keepdim:
        vals = vals.squeeze(dim)
        return vals, idx.astype(np.int64)
    return vals, idx_k.astype(np.int64)


MAX_DIM = defop("MaxBackward0", _max_dim_fwd,
                select_back,
                saved=("dim", "keepdim", "self_sym_sizes", "result1"), n_out=2, diff_outputs=(True, False))
MAX_DIM.node_cls._saved_names = ("dim", "keepdim", "self_sym_sizes", "indices")  # (torch's names)
MIN_DIM = defop("MinBackward0", _max_dim_fwd,
                select_back,
                saved=("dim", "keepdim", "self_sym_sizes", "result1"), n_out=2, diff_outputs=(True, False))
MIN_DIM.node_cls._saved_names = ("dim", "keepdim", "self_sym_sizes", "indices")  # (torch's names)


def _amax_grad(xp, g, self, result, dims, keepdim):
    shape = self.shape
    r = _grad_to_input(xp, result, shape, dims, keepdim)
    gx = _grad_to_input(xp, g, shape, dims, keepdim)
    mask = self == r
    return gx * mask / xp.sum(mask, axis=dims if dims is not None else tuple(range(len(shape))), keepdims=True)


AMAX = defop("AmaxBackward0", lambda xp, a, dims, keepdim: a.max(axis=dims, keepdims=keepdim), _amax_grad,
             saved=("self", "result", "dims", "keepdim"))
AMAX.node_cls._saved_names = ("self", "result", "dim", "keepdim")  # (torch's names)
show_saved_as(AMAX, "dim", lambda dims: () if dims is None else dims)  # (every dim: torch's ())
AMIN = defop("AminBackward0", lambda xp, a, dims, keepdim: a.min(axis=dims, keepdims=keepdim), _amax_grad,
             saved=("self", "result", "dims", "keepdim"))
AMIN.node_cls._saved_names = ("self", "result", "dim", "keepdim")  # (torch's names)
show_saved_as(AMIN, "dim", lambda dims: () if dims is None else dims)  # (every dim: torch's ())


def _dof(n: int, correction) -> float:
    """Degrees of freedom, nan when there are none (one sample, unbiased): torch's nan, not an error."""
    d = n - correction
    return d if d > 0 else float("nan")


def _var_fwd(xp, a, dims, correction, keepdim):
    correction = 1 if correction is None else correction  # (None: shown as torch's default, computed as 1)
    n = _count(a.shape, dims)
    return a.var(axis=dims, ddof=0, keepdims=keepdim) * (n / _dof(n, correction)) if correction else \
        a.var(axis=dims, keepdims=keepdim)


def _var_grad(xp, g, self, dims, correction, keepdim):
    shape = self.shape
    n = _count(shape, dims)
    gx = _grad_to_input(xp, g, shape, dims, keepdim)
    mean = xp.mean(self, axis=dims, keepdims=True) if dims is not None else xp.mean(self)
    return (2.0 / _dof(n, _one_if_none(correction))) * gx * (self - mean)  # (torch's var_backward, in its order)


def _std_grad(xp, g, self, dims, correction, keepdim, result):
    shape = self.shape
    n = _count(shape, dims)
    gx = _grad_to_input(xp, g, shape, dims, keepdim)
    rx = _grad_to_input(xp, result, shape, dims, keepdim)
    mean = xp.mean(self, axis=dims, keepdims=True) if dims is not None else xp.mean(self)
    flat = rx == 0  # a constant slice: torch's gradient is 0 there, not 0/0
    # (torch's std_backward: var_backward of grad / (2 * result), in its order)
    return (2.0 / _dof(n, _one_if_none(correction))) * xp.where(flat, 0.0, gx / (xp.where(flat, 1.0, rx) * 2.0)) * (
        self - mean)


def _warn_no_dof(name: str, input: Tensor, dims, correction) -> None:
    if _count(input._data.shape, dims) - correction <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel). The result is nan.", UserWarning, stacklevel=3)


VAR = defop("VarBackward0", _var_fwd, _var_grad, saved=("self", "dims", "correction", "keepdim"))
VAR.node_cls._saved_names = ("self", "dim", "correction", "keepdim")  # (torch's names)
STD = defop("StdBackward0", lambda xp, a, dims, correction, keepdim: xp.sqrt(_var_fwd(xp, a, dims, correction, keepdim)),
            _std_grad, saved=("self", "dims", "correction", "keepdim", "result"))
STD.node_cls._saved_names = ("self", "dim", "correction", "keepdim", "result")  # (torch's names)


def _logsumexp_fwd(xp, a, dims, keepdim):
    m = a.max(axis=dims, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    # (float16/bfloat16: torch's logsumexp is separate ops, each rounded; round_like is a no-op otherwise)
    s = round_like(xp.exp(round_like(a - m, a)), a).sum(axis=dims, keepdims=True)
    out = round_like(xp.log(round_like(s, a)), a) + m
    return out if keepdim else out.squeeze(axis=dims)


LOGSUMEXP = defop("LogsumexpBackward0", _logsumexp_fwd,
                  lambda xp, g, self, result, dims, keepdim: _grad_to_input(xp, g, self.shape, dims, keepdim) * xp.exp(
                      self - _grad_to_input(xp, result, self.shape, dims, keepdim)),
                  saved=("self", "result", "dims", "keepdim"))
LOGSUMEXP.node_cls._saved_names = ("self", "result", "dim", "keepdim")  # (torch's names)


def _norm_fwd(xp, a, p, dims, keepdim):
    x = xp.abs(a)
    if p == 2:
        return xp.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
    if p == float("inf"):
        return x.max(axis=dims, keepdims=keepdim)
    if p == float("-inf"):
        return x.min(axis=dims, keepdims=keepdim)
    if p == 1:
        return x.sum(axis=dims, keepdims=keepdim)
    if p == 0:
        return (x != 0).sum(axis=dims, keepdims=keepdim).astype(a.dtype)
    return (x ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)


def _norm_grad(xp, g, self, p, dims, keepdim, result):
    from .pointwise import SIGN  # (torch's sign: 0 at nan)
    shape = self.shape
    gx = _grad_to_input(xp, g, shape, dims, keepdim)
    rx = _grad_to_input(xp, result, shape, dims, keepdim)
    if p == 0:  # a count of non-zeros: torch defines no gradient (None), not a zero one
        return None
    if p == 1:
        return gx * xp.apply(SIGN, self)
    if p == 2:  # torch's (self / norm).masked_fill_(norm == 0, 0): its own derivative is nan at a zero norm
        return gx * xp.where(rx == 0, 0.0, self / rx)
    if p == float("inf") or p == float("-inf"):  # the gradient goes to the largest (smallest) |x|, shared
        mask = xp.abs(self) == rx
        count = xp.sum(mask, axis=dims if dims is not None else tuple(range(len(shape))), keepdims=True)
        # (a nan norm matches no element: count 0, and torch's gradient is 0 there, not 0/0)
        return gx * xp.apply(SIGN, self) * mask / xp.where(count == 0, 1, count)
    return gx * self * xp.abs(self) ** (p - 2) / xp.where(rx == 0, float("inf"), rx ** (p - 1))


NORM = defop("LinalgVectorNormBackward0", _norm_fwd, _norm_grad, saved=("self", "p", "dims", "keepdim", "result"))
NORM.node_cls._saved_names = ("self", "ord", "dim", "keepdim", "result")  # (torch's names)


def _row_max(xp, a, dim):
    """``a.max(axis=dim, keepdims=True)``, for softmax and log_softmax.

    NumPy reduces a short contiguous last axis row by row, about 50-90 ns a row whatever its
    length: attention scores (B, H, T, T) with T = 64 spend more in that overhead than in the
    comparisons. Many short rows therefore take a detour that gives the same maximum (a maximum
    is exact in any order, NaN included): rows wider than 16 are halved with element-wise
    ``maximum`` of their two halves (long inner loops) until 16 or fewer columns remain, and those
    are reduced as a transposed copy over its first axis. (Measured: (8, 4, 64, 64) float32
    196 -> 87 us, (8192, 16) 750 -> 80 us, (128, 10) 9.6 -> 2.9 us; wider rows or fewer of them
    keep NumPy's own reduction, which is faster there.)"""
    shape = a.shape
    if (a.__class__ is np.ndarray and dim == a.ndim - 1 and 2 <= shape[-1] <= 64
            and a.size >= 32 * shape[-1] and (shape[-1] <= 16 or a.size >= 256 * shape[-1])):
        m, n = a, shape[-1]
        while n > 16:
            h = n // 2
            r = np.maximum(m[..., :h], m[..., h:2 * h])
            if n % 2:  # (an odd width: its last column joins the first)
                np.maximum(r[..., :1], m[..., 2 * h:], out=r[..., :1])
            m, n = r, h
        return np.maximum.reduce(np.ascontiguousarray(m.reshape(-1, n).T), 0).reshape(shape[:-1] + (1,))
    return xp.maximum.reduce(a, dim, None, None, True)  # (a.max without NumPy's Python wrapper)


def _row_sum(xp, a, dim):
    """``a.sum(axis=dim, keepdims=True)``, for softmax, log_softmax and their backwards.

    Summing many short contiguous rows is NumPy's slow case again (a reduction loop set up per row):
    a float32/float64 C-contiguous ``a`` of 64 rows or more, each of 2..1024, is summed instead as one
    BLAS matrix-vector product with a vector of ones (another order of additions; each row's error
    stays within float32 rounding at these lengths). (Measured, float32: (8, 4, 64, 64) 51 -> 9 us,
    (512, 65) 14 -> 3.8 us, (128, 10) 2.8 -> 1.6 us; a GPT step's softmax forward 293 -> 237 us and
    backward 145 -> 97 us.)"""
    shape = a.shape
    n = shape[-1] if shape else 0
    if (a.__class__ is np.ndarray and dim == a.ndim - 1 and 2 <= n <= 1024 and a.size >= 64 * n
            and a.dtype.kind == "f" and a.dtype.itemsize >= 4 and a.flags.c_contiguous):
        return row_sums(a.reshape(-1, n)).reshape(shape[:-1] + (1,))  # (layer norm's, see norm_rows)
    return xp.add.reduce(a, dim, None, None, True)


# (The in-place steps below write only into fresh temporaries of the result's dtype.)
# (``xp.add.reduce(a, dim, None, None, True)`` is ``a.sum(dim, keepdims=True)`` without NumPy's
# Python-level wrapper around it: these run on every forward and backward of a classifier)
def _softmax_fwd(xp, a, dim):
    e = a - _row_max(xp, a, dim)
    if e.__class__ is np.ndarray and e.dtype.kind == "f":
        np.exp(e, out=e)  # (in place in the fresh difference: one array of a's size, not two)
    else:
        e = xp.exp(e)
    e /= _row_sum(xp, e, dim)
    return e


def _log_softmax_fwd(xp, a, dim):
    s = a - _row_max(xp, a, dim)
    # (float16/bfloat16: torch's kernel stores the sum and its log in that dtype; else round_like is a no-op)
    lse = round_like(xp.log(round_like(_row_sum(xp, xp.exp(s), dim), a)), a)
    if s.dtype != lse.dtype:  # (an integer input: the result is floating)
        return s - lse
    s -= lse
    return s


def _log_softmax_back_fwd(xp, g, r, dim):  # g - exp(r) * g.sum(dim)
    e = xp.exp(r)
    gs = _row_sum(xp, g, dim)
    if e.dtype != g.dtype or e.shape != g.shape or not e.ndim:
        return g - e * gs
    e *= gs
    return xp.subtract(g, e, out=e)


def _softmax_grad(xp, g, result, dim):  # (torch's _softmax_backward_data: one kernel)
    if g.__class__ is result.__class__ is np.ndarray and g.shape == result.shape and g.dtype == result.dtype and \
            g.dtype.kind == "f" and g.ndim:
        t = g * result  # (then in place: the same operations, one temporary instead of three)
        s = _row_sum(np, t, dim)
        np.subtract(g, s, out=t)
        t *= result
        return t
    return result * (g - xp.sum(g * result, axis=dim, keepdims=True))


SOFTMAX = defop("SoftmaxBackward0", _softmax_fwd,
                lambda xp, g, result, dim: xp.kernel(_softmax_grad, g, result, dim),
                saved=("result", "dim"))
# The backward of log_softmax is one op (torch's _log_softmax_backward_data): one node and
# one pass over the arrays instead of four, and still differentiable for double backward.
LOG_SOFTMAX_BACKWARD = defop(
    "LogSoftmaxBackwardDataBackward0", _log_softmax_back_fwd,
    (lambda xp, gg, grad_output, output, dim: gg - xp.sum(gg * xp.exp(output), axis=dim, keepdims=True),
     lambda xp, gg, grad_output, output, dim: -gg * xp.sum(grad_output, axis=dim, keepdims=True) * xp.exp(output)),
    saved=("input0", "input1", "dim"), n_in=2)
LOG_SOFTMAX_BACKWARD.node_cls._saved_names = ("grad_output", "output", "dim")
LOG_SOFTMAX = defop("LogSoftmaxBackward0", _log_softmax_fwd,
                    lambda xp, g, result, dim: xp.apply(LOG_SOFTMAX_BACKWARD, g, result, params=(dim,)),
                    saved=("result", "dim"))


# ----------------------------------------------------------------------------- public functions
def _sum_dtype(t: Tensor, dtype) -> np.dtype | None:
    if dtype is not None:
        dt = D.to_dtype(dtype)
        refuse_unsigned(dt, "sum_cpu")  # (torch sums uint16/32/64 only in the default int64)
        return dt.np
    if t.dtype._kind <= 1:
        return np.dtype(np.int64)
    return None


@numpy_kwargs
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    dims = normalize_dims(dim, input._data.ndim)
    npd = _sum_dtype(input, dtype)
    if dims is None and not keepdim:
        return apply_simple(SUM, input, None, (npd,))
    return apply(SUM_DIM, (input,), (dims, keepdim, npd))


def sum_dims(input: Tensor, dims: tuple, keepdim: bool = False) -> Tensor:
    """``input.sum(dims, keepdim=keepdim)`` for ``dims`` already sorted, distinct and
    non-negative: the engine's reduction of broadcast gradients, with nothing to re-check."""
    return apply(SUM_DIM, (input,), (dims, keepdim, _sum_dtype(input, None)))


def require_float_norm_input(input: Tensor, name: str) -> None:
    """torch's norms refuse integer and bool input outright (``dtype=`` does not help)."""
    if input.dtype._kind < 2:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(input.dtype)}. Convert it first, e.g. x.float().")


def _require_std_var_float(input: Tensor) -> None:
    if input.dtype._kind < 2:
        raise RuntimeError("std and var only support floating point and complex dtypes")


def _require_float(input: Tensor, name: str) -> None:
    if input.dtype._kind < 2:
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {D.scalar_type_name(input.dtype)}")


@numpy_kwargs
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    _require_float(input, "mean")
    dims = normalize_dims(dim, input._data.ndim)
    if dims is None and not keepdim:
        return apply(MEAN, (input,))
    return apply(MEAN_DIM, (input,), (dims, keepdim))


@numpy_kwargs
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if dtype is not None:
        refuse_unsigned(D.to_dtype(dtype), "prod_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
        input = input.to(D.to_dtype(dtype))
    if dim is None:
        return apply(PROD, (input,), (None, False))
    return apply(PROD_DIM, (input,), (normalize_dims(dim, input._data.ndim), keepdim))


def _check_nonempty(input: Tensor, name: str, dims) -> None:
    """torch's errors for a max/min-like reduction with nothing to pick from: RuntimeError over
    the whole of an empty tensor (argmax/argmin: IndexError), IndexError for a reduced dim of size 0."""
    if input._data.size:
        return
    if dims is None:
        arg = name in ("argmax", "argmin")
        raise (IndexError if arg else RuntimeError)(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            f"with the 'dim' argument (one whose size is not 0), or check for an empty tensor first.")
    for d in dims:
        if input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size. The tensor has shape "
                             f"{list(input._data.shape)}: reduce over a dimension that has elements.")


def _max_min(input: Tensor, dim, keepdim, other, which: str):
    if isinstance(dim, Tensor):
        from .pointwise import maximum, minimum
        return (maximum if which == "max" else minimum)(input, dim)
    if dim is None:
        _check_nonempty(input, which, None)
        refuse_unsigned(input.dtype, f"{which}_all")  # (uint16/32/64, after torch's checks: see unsigned.py)
        return apply(MAX_ALL if which == "max" else MIN_ALL, (input,))
    d = _wrap_dim(int(dim), input._data.ndim)
    _check_nonempty(input, which, (d,))
    refuse_unsigned(input.dtype, f"{which}_cpu")
    vals, idx = apply(MAX_DIM if which == "max" else MIN_DIM, (input,), (d, keepdim, which))
    return (return_types.max if which == "max" else return_types.min)((vals, idx))


@numpy_kwargs
def max(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    return _max_min(input, dim, keepdim, None, "max")


@numpy_kwargs
def min(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    return _max_min(input, dim, keepdim, None, "min")


@numpy_kwargs
def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    dims = normalize_dims(dim, input._data.ndim)
    _check_nonempty(input, "amax", dims)
    refuse_unsigned(input.dtype, "max_values_cpu")  # (uint16/32/64, after torch's checks: see unsigned.py)
    return apply(AMAX, (input,), (dims, keepdim))


@numpy_kwargs
def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    dims = normalize_dims(dim, input._data.ndim)
    _check_nonempty(input, "amin", dims)
    refuse_unsigned(input.dtype, "min_values_cpu")  # (uint16/32/64, after torch's checks: see unsigned.py)
    return apply(AMIN, (input,), (dims, keepdim))


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


class _Unset:
    """A ``dim`` or ``correction`` not passed at all: torch's parser then picks another overload,
    which shows a different saved correction (see ``var_args``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "None"


UNSET = _Unset()


def var_args(dim, unbiased, correction):
    """(dim, unbiased, the correction to compute with, the correction the node shows) as torch's
    overloads read them: with ``correction=`` given (None included) the node shows it as given; else
    with ``dim`` (None included) or ``unbiased`` it shows the resolved number; with neither, None.
    torch allows var(t, False) meaning unbiased=False."""
    if isinstance(dim, bool):
        dim, unbiased = UNSET, dim
    c = _correction(unbiased, None if correction is UNSET else correction)
    if correction is not UNSET:
        shown = correction
    else:
        shown = c if unbiased is not None or dim is not UNSET else None
    return (None if dim is UNSET else dim), unbiased, c, shown


def _one_if_none(correction):
    return 1 if correction is None else correction


@numpy_kwargs
def var(input: Tensor, dim=UNSET, unbiased=None, keepdim: bool = False, *, correction=UNSET) -> Tensor:
    dim, unbiased, correction, shown = var_args(dim, unbiased, correction)
    _require_std_var_float(input)
    dims = normalize_dims(dim, input._data.ndim)
    _warn_no_dof("var", input, dims, correction)
    return apply(VAR, (input,), (dims, shown, keepdim))


@numpy_kwargs
def std(input: Tensor, dim=UNSET, unbiased=None, keepdim: bool = False, *, correction=UNSET) -> Tensor:
    dim, unbiased, correction, shown = var_args(dim, unbiased, correction)
    _require_std_var_float(input)
    dims = normalize_dims(dim, input._data.ndim)
    _warn_no_dof("std", input, dims, correction)
    return apply(STD, (input,), (dims, shown, keepdim))


@numpy_kwargs
def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    if input.dtype._kind <= 1:  # an integer input gives the default float dtype, as torch
        input = input.to(D.get_default_dtype())
    dims = normalize_dims(dim, input._data.ndim)
    if dims is None:
        dims = tuple(range(input._data.ndim))
    return apply(LOGSUMEXP, (input,), (dims, keepdim))


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is not supported by leafgrad")
    require_float_norm_input(input, "linalg.vector_norm")
    dims = normalize_dims(dim, input._data.ndim)
    # (p kept as given, int or float: torch's grad_fn._saved_ord shows it so)
    return apply(NORM, (input,), (p if p.__class__ in (int, float) else float(p), dims, keepdim))


@numpy_kwargs
def softmax(input: Tensor, dim=None, dtype=None, _stacklevel: int = 3) -> Tensor:
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    d = _implicit_dim(input, dim)
    _require_float_softmax(input, d, "softmax")
    return apply(SOFTMAX, (input,), (d,))


@numpy_kwargs
def log_softmax(input: Tensor, dim=None, dtype=None, _stacklevel: int = 3) -> Tensor:
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    d = _implicit_dim(input, dim)
    _require_float_softmax(input, d, "log_softmax")
    return apply(LOG_SOFTMAX, (input,), (d,))


def _require_float_softmax(input: Tensor, d, name: str) -> None:
    """torch has no softmax kernel for integer or bool input (pass dtype= to convert first)."""
    if input._data.dtype.kind not in "biu":
        return
    nd = input._data.ndim
    kernel = f"{name}_lastdim_kernel_impl" if nd == 0 or d == nd - 1 else f"{name}_kernel_impl"
    raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_type_name(input.dtype)}\': {name} needs '
                              f"a floating point input. Pass dtype=torch.float32, or convert first with x.float().")


def _implicit_dim(input: Tensor, dim) -> int:
    if dim is None:
        import warnings
        nd = input._data.ndim
        warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
                      "as an argument.", UserWarning, stacklevel=4)
        return 0 if nd in (0, 1, 3) else 1
    if input._data.ndim == 0:
        _wrap_dim(dim, 0)
        return ()
    return _wrap_dim(int(dim), input._data.ndim)


def _arg_extreme(input: Tensor, dim, keepdim: bool, which: str) -> Tensor:
    """argmax / argmin (``which``): int64 positions, with torch's errors for empty input (uint16/32/64
    data refuses in its ``argmax`` / ``argmin`` methods, after these checks: ``_unsigned_array.py``)."""
    a = input._data
    if dim is None:
        _check_nonempty(input, which, None)
        return _make(np.asarray(getattr(a, which)(), dtype=np.int64))
    d = _wrap_dim(int(dim), a.ndim)
    if a.ndim:
        _check_nonempty(input, which, (d,))
    return _make(np.asarray(getattr(a, which)(axis=d, keepdims=keepdim), dtype=np.int64))


@numpy_kwargs
def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "argmax")


@numpy_kwargs
def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "argmin")


@numpy_kwargs
def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    axis = None if dim is None else normalize_dims(dim, input._data.ndim)
    return _make(c_order(np.asarray(np.all(input._data, axis=axis, keepdims=keepdim))))


@numpy_kwargs
def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    axis = None if dim is None else normalize_dims(dim, input._data.ndim)
    return _make(c_order(np.asarray(np.any(input._data, axis=axis, keepdims=keepdim))))


@numpy_kwargs
def count_nonzero(input: Tensor, dim=None) -> Tensor:
    axis = None if dim is None else normalize_dims(dim, input._data.ndim)
    return _make(c_order(np.asarray(np.count_nonzero(input._data, axis=axis), dtype=np.int64)))


@numpy_kwargs
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    if dtype is not None:
        refuse_unsigned(D.to_dtype(dtype), "cumsum_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
        input = input.to(D.to_dtype(dtype))
    elif input.dtype._kind <= 1:  # bool and integers accumulate in int64, as torch
        input = input.to(D.int64)
    return apply(CUMSUM, (input,), (d,))


# (a 0-dim tensor is its own cumulative sum)
CUMSUM = defop("CumsumBackward0", lambda xp, a, dim: xp.cumsum(a, axis=dim) if a.ndim else a.copy(),
               lambda xp, g, dim: xp.flip(xp.cumsum(xp.flip(g, dim), axis=dim), dim) if g.ndim else g, saved=("dim",))


# The reductions' NumPy calls run in NumPy's Python code (ndarray.sum, np.var, ...), where a
# floating-point warning (an overflowing sum, a mean of inf - inf) is not attributed to leafgrad:
# these forwards switch NumPy's warnings off themselves (see leafgrad._quiet).
from .._quiet import quiet_ops as _quiet_ops  # noqa: E402

_quiet_ops(globals())

# torch's reduction, softmax and cumsum kernels return a contiguous result for an input of any
# layout (NumPy keeps a transposed input's order): see _ops/layout.py

_contiguous_output(SUM_DIM, MEAN_DIM, PROD_DIM, AMAX, AMIN, VAR, STD, LOGSUMEXP, NORM, SOFTMAX, LOG_SOFTMAX, CUMSUM)
