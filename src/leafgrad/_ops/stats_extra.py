"""Reductions and statistics torch has beyond reduction.py: aminmax, mode, nansum, nanmean, std_mean,
var_mean, cov, corrcoef, dist, renorm and the legacy torch.cross (its dim rule).

aminmax, mode, nansum, std_mean, var_mean, dist and renorm are single ``defop`` nodes with torch's
names and derivatives.yaml formulas; nanmean, cov and corrcoef are torch's own compositions of other
ops (so their graphs end in DivBackward0, SqueezeBackward0, ClampBackward1 as torch's do).
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import reduction as R
from .indexing import select_back
from .linalg_decomp import _pad
from .registry import apply, defop, show_saved_as, unsigned_int64
from .unsigned import refuse_unsigned

__all__ = ["aminmax", "mode", "nansum", "nanmean", "std_mean", "var_mean", "cov", "corrcoef", "dist", "renorm",
           "cross"]

_make = Tensor._make


def _wrap(dim: int, ndim: int, name: str = "") -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


# ----------------------------------------------------------------------------- aminmax
def _aminmax_fwd(xp, a, dim, keepdim):
    axis = None if dim is None else (dim if a.ndim else None)
    return (xp.asarray(a.min(axis=axis, keepdims=keepdim and axis is not None)),
            xp.asarray(a.max(axis=axis, keepdims=keepdim and axis is not None)))


def _share(xp, g, self, r, dim, keepdim):
    """torch's scale_grad_by_count: the gradient of one extreme, shared among the elements equal to it."""
    dims = None if dim is None or self.ndim == 0 else (dim,)
    gx = R._grad_to_input(xp, g, self.shape, dims, keepdim)
    rx = R._grad_to_input(xp, r, self.shape, dims, keepdim)
    mask = self == rx
    return gx * mask / xp.sum(mask, axis=dims if dims is not None else tuple(range(self.ndim)), keepdims=True)


def _aminmax_grad(xp, g, self, dim, keepdim, min, max):
    g = _pad(g, 2)  # (the engine passes no grads after the last one that arrived)
    out = None
    if g[0] is not None:
        out = _share(xp, g[0], self, min, dim, keepdim)
    if g[1] is not None:
        part = _share(xp, g[1], self, max, dim, keepdim)
        out = part if out is None else out + part
    return out


AMINMAX = defop("AminmaxBackward0", _aminmax_fwd, _aminmax_grad, saved=("self", "dim", "keepdim", "result0",
                                                                         "result1"), n_out=2)
AMINMAX.node_cls._saved_names = ("self", "dim", "keepdim", "min", "max")


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False):
    """The minimum and the maximum together, over ``dim`` or the whole tensor (return_types.aminmax)."""
    refuse_unsigned(input.dtype, "aminmax_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    from ..return_types import aminmax as _aminmax
    if dim is not None:
        dim = _wrap(int(dim), input._data.ndim)
        if input._data.ndim and input._data.shape[dim] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {dim} to have non-zero size. The tensor has shape "
                             f"{list(input._data.shape)}: reduce over a dimension that has elements.")
    elif input._data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity. Pass a non-empty tensor, or give dim= a dimension that has elements.")
    if input.dtype.is_complex:
        raise RuntimeError("aminmax is not implemented for complex tensors: compare x.real or x.abs() instead.")
    return _aminmax(apply(AMINMAX, (input,), (dim, bool(keepdim))))


# ----------------------------------------------------------------------------- mode
def _mode_fwd(xp, a, dim, keepdim):
    """The most frequent value of each slice (the smallest on a tie) and its last index, as torch's CPU kernel."""
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=np.int64)
    moved = xp.moveaxis(a, dim, -1)
    n = moved.shape[-1]
    flat = moved.reshape(-1, n)
    vals = np.empty(flat.shape[0], dtype=a.dtype)
    idx = np.empty(flat.shape[0], dtype=np.int64)
    for r in range(flat.shape[0]):
        row = flat[r]
        order = np.argsort(row, kind="stable")
        srt = row[order]
        starts = np.flatnonzero(np.r_[True, srt[1:] != srt[:-1]]) if n else np.zeros(0, dtype=np.int64)
        counts = np.diff(np.r_[starts, n])
        best = int(np.argmax(counts))  # (the first of the largest counts: the smallest value)
        vals[r] = srt[starts[best]]
        idx[r] = order[starts[best] + counts[best] - 1]  # (stable order: the last position holding it)
    shape = moved.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = xp.expand_dims(vals, dim), xp.expand_dims(idx, dim)
    return vals, idx


MODE = defop("ModeBackward0", _mode_fwd, select_back, saved=("dim", "keepdim", "self_sym_sizes", "result1"), n_out=2,
             diff_outputs=(True, False))
MODE.node_cls._saved_names = ("dim", "keepdim", "self_sym_sizes", "indices")


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and the index of its
    last occurrence (return_types.mode)."""
    from ..return_types import mode as _mode
    given = int(dim)
    d = _wrap(given, input._data.ndim)
    if input._data.ndim and input._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size. The tensor has shape "
                         f"{list(input._data.shape)}: reduce over a dimension that has elements.")
    refuse_unsigned(input.dtype, "mode_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    # (the dim as given: NumPy reads a negative one as torch does, and torch shows -1 as 2**64 - 1)
    return _mode(tuple(apply(MODE, (input,), (given, bool(keepdim)))))


show_saved_as(MODE, "dim", unsigned_int64)


# ----------------------------------------------------------------------------- nansum, nanmean
def _nansum_fwd(xp, a, dims, keepdim, np_dtype):
    return xp.asarray(xp.nansum(a, axis=dims, keepdims=keepdim, dtype=np_dtype))


def _nansum_grad(xp, g, self, dims, keepdim):
    gx = R._grad_to_input(xp, g, self.shape, dims, keepdim)
    return xp.where(xp.isnan(self), 0.0, xp.broadcast_to(gx, self.shape))


NANSUM = defop("NansumBackward0", _nansum_fwd, _nansum_grad, saved=("self", "dims", "keepdim"))
NANSUM.node_cls._saved_names = ("self", "dim", "keepdim")


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum treating nan as zero."""
    if input.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs: sum the real and imaginary parts apart.")
    dims = R.normalize_dims(dim, input._data.ndim)
    np_dtype = R._sum_dtype(input, dtype)
    return apply(NANSUM, (input,), (dims, bool(keepdim), np_dtype))


show_saved_as(NANSUM, "dim", lambda dims: None if dims is None else dims)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean of the non-nan elements, as torch composes it: nansum / count of non-nan (DivBackward0)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{D.scalar_type_name(input.dtype)}: convert it first, e.g. x.float().")
    from .pointwise import isnan, logical_not
    count = R.sum(logical_not(isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


# ----------------------------------------------------------------------------- std_mean, var_mean
def _var_mean_fwd(xp, a, dims, correction, keepdim):
    correction = 1 if correction is None else correction  # (None: not given, saved as torch shows it)
    return xp.asarray(R._var_fwd(xp, a, dims, correction, keepdim)), xp.asarray(a.mean(axis=dims, keepdims=keepdim))


def _std_mean_fwd(xp, a, dims, correction, keepdim):
    v, m = _var_mean_fwd(xp, a, dims, correction, keepdim)
    return xp.sqrt(v), m


def _mean_part(xp, g, self, dims, keepdim):
    gx = R._grad_to_input(xp, g, self.shape, dims, keepdim)
    return xp.broadcast_to(gx, self.shape) / float(R._count(self.shape, dims))


def _var_mean_grad(xp, g, self, dims, correction, keepdim):
    g = _pad(g, 2)
    correction = 1 if correction is None else correction
    out = None if g[0] is None else R._var_grad(xp, g[0], self, dims, correction, keepdim)
    if g[1] is not None:
        part = _mean_part(xp, g[1], self, dims, keepdim)
        out = part if out is None else out + part
    return out


def _std_mean_grad(xp, g, self, dims, correction, keepdim, result0):
    g = _pad(g, 2)
    correction = 1 if correction is None else correction
    out = None if g[0] is None else R._std_grad(xp, g[0], self, dims, correction, keepdim, result0)
    if g[1] is not None:
        part = _mean_part(xp, g[1], self, dims, keepdim)
        out = part if out is None else out + part
    return out


VAR_MEAN = defop("VarMeanBackward0", _var_mean_fwd, _var_mean_grad, saved=("self", "dims", "correction", "keepdim"),
                 n_out=2)
VAR_MEAN.node_cls._saved_names = ("self", "dim", "correction", "keepdim")
STD_MEAN = defop("StdMeanBackward0", _std_mean_fwd, _std_mean_grad,
                 saved=("self", "dims", "correction", "keepdim", "result0"), n_out=2)
STD_MEAN.node_cls._saved_names = ("self", "dim", "correction", "keepdim", "result0")


def _moments(op, name: str, input: Tensor, dim, unbiased, keepdim, correction):
    # (the saved correction as torch's overloads show it: R.var_args)
    dim, unbiased, c, shown = R.var_args(dim, unbiased, correction)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{name} only support floating point and complex dtypes; got "
                           f"{D.scalar_type_name(input.dtype)}: convert the tensor first, e.g. x.float().")
    dims = R.normalize_dims(dim, input._data.ndim)
    R._warn_no_dof(name, input, dims, c)
    return tuple(apply(op, (input,), (dims, shown, bool(keepdim))))


def var_mean(input: Tensor, dim=R.UNSET, unbiased=None, keepdim: bool = False, *, correction=R.UNSET) -> tuple:
    """The variance and the mean in one pass (a plain tuple, as torch's)."""
    return _moments(VAR_MEAN, "var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input: Tensor, dim=R.UNSET, unbiased=None, keepdim: bool = False, *, correction=R.UNSET) -> tuple:
    """The standard deviation and the mean in one pass (a plain tuple, as torch's)."""
    return _moments(STD_MEAN, "std_mean", input, dim, unbiased, keepdim, correction)


# ----------------------------------------------------------------------------- cov, corrcoef
def _check_cov_weights(w: Tensor, name: str, n_obs: int) -> None:
    """torch's checks of cov()'s frequency weights (integral) or observation weights (floating), in its order."""
    if w._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w._data.ndim} dimensions")
    if name == "fweights":
        if w.dtype.is_floating_point or w.dtype.is_complex or w.dtype is D.bool:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{D.scalar_type_name(w.dtype)} dtype")
    elif not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{D.scalar_type_name(w.dtype)} dtype")
    if w._data.size != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                           f"input but got {w._data.size} != {n_obs}")
    if n_obs and w._data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in the columns),
    optionally weighted by integer frequencies and float weights: torch's composition, step by step."""
    from .linalg import matmul
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    if input.dtype is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input: convert it first, e.g. x.float().")
    x = input.reshape(1, -1) if input._data.ndim < 2 else input
    n_obs = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_cov_weights(fweights, "fweights", n_obs)
        w = fweights
    if aweights is not None:
        _check_cov_weights(aweights, "aweights", n_obs)
        w = aweights if w is None else w * aweights
    if w is not None:
        w_sum = w.sum()
        if not bool(w_sum._data != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if correction != 0:
            norm = w_sum - correction * (w * aweights).sum() / w_sum if aweights is not None else w_sum - correction
        else:
            norm = w_sum
    else:
        w_sum = _make(np.asarray(n_obs, dtype=np.int64))
        avg = x.sum(1) / w_sum
        norm = w_sum - correction
    if bool(norm._data <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    centred = x - avg.unsqueeze(1)
    c = matmul(centred, (centred * w if w is not None else centred).t().conj())
    return (c / norm).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the rows of ``input`` (cov normalised, clipped to [-1, 1])."""
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    d = c.diagonal()
    if d.dtype.is_complex:
        raise RuntimeError("corrcoef of complex input is not supported by leafgrad: use torch for it.")
    sd = d.sqrt()
    c = c / sd.reshape(-1, 1)
    c = c / sd.reshape(1, -1)
    return c.clip(-1, 1)


# ----------------------------------------------------------------------------- dist
def _dist_fwd(xp, a, b, p):
    return xp.asarray(R._norm_fwd(xp, a - b, p, None, False))


def _dist_grad(sign: float, which: str):
    def f(xp, g, self, other, p, result):
        diff = self - other
        out = R._norm_grad(xp, g, diff, p, None, False, result)
        if out is None:
            return None
        return xp.sum_to(out if sign > 0 else -out, (self if which == "self" else other).shape)
    return f


DIST = defop("DistBackward0", _dist_fwd, (_dist_grad(1.0, "self"), _dist_grad(-1.0, "other")),
             saved=("self", "other", "p", "result"), n_in=2)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), as one node."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    dt = D.result_type(input, other)
    refuse_unsigned(dt, "add_stub")  # (uint16/32/64: torch subtracts first, with no kernel for them)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{D.scalar_type_name(dt)} instead: dist computes a norm, so convert the tensors first.")
    from .inplace import broadcast_or_raise
    broadcast_or_raise(input._data.shape, other._data.shape)
    return apply(DIST, (input, other), (p,), cast=dt.np)


# ----------------------------------------------------------------------------- renorm
def _renorm_dims(ndim: int, dim: int) -> tuple:
    return tuple(k for k in range(ndim) if k != dim)


def _renorm_fwd(xp, a, p, dim, maxnorm):
    norm = R._norm_fwd(xp, a, p, _renorm_dims(a.ndim, dim), True)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(a.dtype, copy=False)
    return a * factor


def _renorm_grad(xp, g, self, p, dim, maxnorm):
    # torch's renorm_backward
    dims = _renorm_dims(self.ndim, dim)
    norm = xp.apply(R.NORM, self, params=(p, dims, True))
    gout = xp.sum(self * g, axis=dims, keepdims=True)
    nb = R._norm_grad(xp, gout, self, p, dims, True, norm)
    inv = xp.reciprocal(norm + 1e-7)
    factor = inv * maxnorm
    return xp.where(norm > maxnorm, factor * g - factor * inv * nb, g)


RENORM = defop("RenormBackward0", _renorm_fwd, _renorm_grad, saved=("self", "p", "dim", "maxnorm"))


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``."""
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (got p = {p}): pass p > 0.")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input._data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input._data.ndim} dimensions")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"renorm: expected a floating point tensor, got {D.scalar_type_name(input.dtype)}: "
                           "convert it first, e.g. x.float().")
    d = _wrap(int(dim), input._data.ndim)
    return apply(RENORM, (input,), (p, d, maxnorm))


def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    from . import inplace as IP
    renorm(self.detach(), p, dim, maxnorm)  # (the checks, before anything is written)
    return IP.inplace(RENORM, self, (), (p, _wrap(int(dim), self._data.ndim), maxnorm), "renorm_")


# ----------------------------------------------------------------------------- torch.cross
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """torch.cross: linalg.cross, but without ``dim`` the first dim of size 3 (deprecated, with torch's warning)."""
    from .linalg_decomp import cross as _cross
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(input._data.shape, other._data.shape) if input._data.ndim == other._data.ndim \
            else input._data.shape
        sizes = [k for k, s in enumerate(shape) if s == 3]
        if not sizes:
            raise RuntimeError(f"no dimension of size 3 in input: torch.cross needs one (the shape is {list(shape)})")
        dim = sizes[0]
    return _cross(input, other, dim=dim)


METHODS = {"aminmax": aminmax, "mode": mode, "nansum": nansum, "nanmean": nanmean, "cov": cov, "corrcoef": corrcoef,
           "dist": dist, "renorm": renorm, "renorm_": renorm_, "cross": cross}
TOP_LEVEL = ("aminmax", "mode", "nansum", "nanmean", "std_mean", "var_mean", "cov", "corrcoef", "dist", "renorm",
             "cross")


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(NANSUM, VAR_MEAN, STD_MEAN)
