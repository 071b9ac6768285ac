"""Counting and order statistics: unique, unique_consecutive, bincount, histc, histogram,
searchsorted, bucketize (integer or count results, no gradient, as torch), and quantile /
nanquantile, cdist, cartesian_prod, built from differentiable ops so that first and second
gradients flow as torch's do.

Loaded on first use of one of its names (``leafgrad.__getattr__`` and the Tensor methods bound
at the bottom), keeping ``import leafgrad`` lean.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor, _wrap_dim
from .._unsigned_array import SHELL_NP, keep_shell

from .pointwise import lerp
from .registry import apply, defop
from .shape import expand, flatten, movedim, reshape, stack, unsqueeze
from .shape_extra import meshgrid, take_along_dim
from .sorting import sort
from .unsigned import refuse_unsigned

_make = Tensor._make


def _long(a) -> Tensor:
    return _make(np.asarray(a, dtype=np.int64))


# ----------------------------------------------------------------------------- unique
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None):
    """The distinct values (slices along ``dim``), sorted (torch's CPU kernel sorts even with
    ``sorted=False``), with the inverse mapping and counts on request."""
    a = input._data
    if dim is None:
        vals, inv, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        d = _wrap_dim(dim, a.ndim)
        vals, inv, counts = np.unique(a, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    return _results(_make(keep_shell(np.ascontiguousarray(vals))), inv, counts, return_inverse, return_counts)


def _results(vals: Tensor, inv, counts, return_inverse: bool, return_counts: bool):
    out = (vals,) + ((_long(inv),) if return_inverse else ()) + ((_long(counts),) if return_counts else ())
    return out[0] if len(out) == 1 else out


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """Collapse runs of equal consecutive values (slices along ``dim``)."""
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        change = np.empty(flat.shape[0], dtype=bool)
        if flat.size:
            change[0] = True
            change[1:] = flat[1:] != flat[:-1]
        vals = flat[change]
        inv = (np.cumsum(change) - 1).reshape(a.shape)
    else:
        d = _wrap_dim(dim, a.ndim)
        moved = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        change = np.empty(moved.shape[0], dtype=bool)
        if moved.shape[0]:
            change[0] = True
            change[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        vals = np.compress(change, a, axis=d)
        inv = np.cumsum(change) - 1
    starts = np.flatnonzero(change)
    counts = np.diff(np.append(starts, change.shape[0]))
    return _results(_make(keep_shell(np.ascontiguousarray(vals))), inv, counts, return_inverse, return_counts)


# ----------------------------------------------------------------------------- counting
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    a = input._data
    if a.dtype.kind not in "iub" or a.dtype in SHELL_NP:  # (uint16/32/64: see _ops/unsigned.py)
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{D.scalar_type_name(input.dtype)}': "
                                  "bincount counts integers; convert the input first, e.g. x.long()")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _long(np.bincount(a, minlength=minlength))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # (float32 weights count in float32; every other dtype in double, as torch)
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    return _make(np.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(out_dtype))


def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    """Counts in ``bins`` equal bins over [min, max] (the data's range when min == max); values
    outside are not counted. The result has the input's (floating) dtype."""
    refuse_unsigned(input.dtype, "aminmax_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    a = input._data
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{D.scalar_type_name(input.dtype)}': histc "
                           f"counts floating point input; convert it first, e.g. x.float()")
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0, but got " + str(bins) + " for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: min must be less than or equal to max: pass min <= max")
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite: remove the inf/nan values or pass "
                           "a finite min and max")
    flat = a.reshape(-1).astype(np.float64)
    keep = (flat >= lo) & (flat <= hi)
    pos = ((flat[keep] - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)  # (the top edge belongs to the last bin)
    return _make(np.bincount(pos, minlength=bins).astype(a.dtype))


def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False):
    """torch.histogram: (hist, bin_edges) as ``torch.return_types.histogram``."""
    a = input._data
    if a.dtype.kind not in "fV":
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {D.scalar_type_name(input.dtype).lower()} and bins float: pass a floating input")
    flat = a.reshape(-1)
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(a.dtype)
    else:
        if range is None:
            lo, hi = (float(flat.min()), float(flat.max())) if flat.size else (0.0, 0.0)
        else:
            lo, hi = float(range[0]), float(range[1])
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # (np.histogram's and torch's widening of an empty range)
        edges = np.linspace(lo, hi, int(bins) + 1).astype(a.dtype)
    hist, _ = np.histogram(flat.astype(np.float64), bins=edges.astype(np.float64), weights=w, density=density)
    return return_types.histogram((_make(hist.astype(a.dtype)), _make(edges)))


def _search(seq: np.ndarray, vals, right: bool):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, vals, side=side)
    flat_s = seq.reshape(-1, seq.shape[-1])
    flat_v = vals.reshape(flat_s.shape[0], -1)
    return np.stack([np.searchsorted(s, v, side=side) for s, v in zip(flat_s, flat_v)]).reshape(vals.shape)


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter: Tensor | None = None) -> Tensor:
    """Where each value would be inserted to keep the innermost dim of ``sorted_sequence`` sorted."""
    refuse_unsigned(sorted_sequence.dtype, "searchsorted_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    seq = sorted_sequence._data
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data.astype(np.int64), axis=-1)
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input, dtype=seq.dtype) if scalar else input._data
    if seq.ndim > 1 and (scalar or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor "
                           f"{list(vals.shape) if not scalar else []}")
    res = _search(seq, vals, right)
    return _make(np.asarray(res, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    refuse_unsigned(boundaries.dtype, "searchsorted_out_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    b = boundaries._data
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----------------------------------------------------------------------------- differentiable compositions
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, name: str) -> Tensor:
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    q_is_tensor = isinstance(q, Tensor)
    if q_is_tensor:
        if q._data.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qs = q._data.reshape(-1).astype(np.float64)
    else:
        qs = np.asarray([float(q)])
    if qs.size and not ((qs >= 0) & (qs <= 1)).all():
        bad = qs[~((qs >= 0) & (qs <= 1))][0]
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {bad:g}" if not q_is_tensor else
                           f"{name}() q values must be in the range [0, 1]")
    x = input
    if dim is None:
        x = reshape(x, (-1,))
        d = 0
        out_shape = [1] * input._data.ndim if keepdim else []
    else:
        d = _wrap_dim(dim, input._data.ndim)
        if input._data.ndim == 0:
            x = reshape(x, (1,))
        out_shape = list(input._data.shape)
        if out_shape:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
    if x._data.shape[d] == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    x = movedim(x, d, -1)
    srt = sort(x, -1).values  # (nan sorts last)
    n = srt._data.shape[-1]
    nan = np.isnan(srt._data)
    if ignore_nan:
        valid = (n - nan.sum(-1, keepdims=True)).astype(np.float64)
        ranks = qs.reshape((-1,) + (1,) * srt._data.ndim) * (valid - 1)
        ranks = np.where(ranks < 0, n - 1, ranks)  # (an all-nan slice: its last value, nan)
    else:
        ranks = qs.reshape((-1,) + (1,) * srt._data.ndim) * (n - 1) + np.zeros(nan.shape[:-1] + (1,))
        ranks = np.where(nan.any(-1, keepdims=True), n - 1, ranks)  # (a slice holding nan: nan)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # (half to even, as torch's round)
    lo_i = np.floor(ranks).astype(np.int64)
    hi_i = np.ceil(ranks).astype(np.int64)
    nq = qs.shape[0]
    batch = expand(unsqueeze(srt, 0), (nq,) + srt._data.shape)
    lo = take_along_dim(batch, _long(lo_i), -1)
    if interpolation in ("linear", "midpoint"):
        hi = take_along_dim(batch, _long(hi_i), -1)
        w = 0.5 if interpolation == "midpoint" else (ranks - lo_i).astype(input._data.dtype)
        res = lerp(lo, hi, w if isinstance(w, float) else _make(w))
    else:
        res = lo
    res = reshape(res, [nq] + out_shape)
    return res if q_is_tensor and q._data.ndim == 1 else reshape(res, out_shape)


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def _cdist_fwd(xp, x1, x2, p):
    diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(axis=-1).astype(x1.dtype)
    if p == 1:
        return diff.sum(axis=-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(axis=-1))
    if p == float("inf"):
        return diff.max(axis=-1) if diff.shape[-1] else diff.sum(axis=-1)
    return (diff ** p).sum(axis=-1) ** (1.0 / p)


def _sum_to_shape(a, shape):
    lead = a.ndim - len(shape)
    a = a.sum(axis=tuple(range(lead))) if lead else a
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and a.shape[i] != 1)
    return a.sum(axis=axes, keepdims=True) if axes else a


def _cdist_back_fwd(xp, g, x1, x2, result, p):
    """torch's _cdist_backward: the gradient for ``x1`` (for ``x2``: the same with the roles swapped)."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    dist = result[..., None]
    gg = g[..., None]
    sign = xp.sign(diff)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            term = xp.zeros_like(diff)
        elif p == 1:
            term = gg * sign
        elif p == 2:
            term = xp.where(dist == 0, 0.0, gg * diff / xp.where(dist == 0, 1.0, dist))
        elif p == float("inf"):
            term = gg * sign * (xp.abs(diff) == dist)
        else:
            zero = (dist == 0) | ((diff == 0) & (p < 1))
            term = xp.where(zero, 0.0, sign * xp.abs(diff) ** (p - 1) * gg / dist ** (p - 1))
    return _sum_to_shape(term.sum(axis=-2).astype(x1.dtype), x1.shape)


def _cdist_no_double(xp, g):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


CDIST_BACKWARD = defop("CdistBackwardBackward0", _cdist_back_fwd, (_cdist_no_double,) * 4, n_in=4)
CDIST = defop("CdistBackward0", _cdist_fwd,
              (lambda xp, g, input0, input1, result, p: xp.apply(CDIST_BACKWARD, g, input0, input1, result,
                                                                  params=(p,)),
               lambda xp, g, input0, input1, result, p: xp.apply(CDIST_BACKWARD, xp.swap_last(g), input1, input0,
                                                                  xp.swap_last(result), params=(p,))),
              saved=("input0", "input1", "result", "p"), n_in=2)
CDIST.node_cls._saved_names = ("x1", "x2", "result", "p")  # (torch's names)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """Pairwise p-norm distances between the rows of ``x1`` (.., P, M) and ``x2`` (.., R, M):
    one node (CdistBackward0) whose gradient, as torch's, has no derivative of its own."""
    for t, label in ((x1, "X1"), (x2, "X2")):
        if t.dtype._kind < 2:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {label} got: "
                               f"{D.scalar_type_name(t.dtype)}")
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {label} got: {t._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} "
                           f"X2: {x2._data.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return apply(CDIST, (x1, x2), (float(p),))


def cartesian_prod(*tensors: Tensor) -> Tensor:
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([flatten(g) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of a 1-d tensor's elements, as rows (in itertools' order)."""
    import itertools
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    n = input._data.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(pick(range(n), r)), dtype=np.int64).reshape(-1, r)
    if r == 0 or idx.shape[0] == 0:
        return _make(np.empty((0,) if r == 0 else (0, r), dtype=input._data.dtype))
    from .indexing import getitem
    return getitem(input, _long(idx))


NAMES = ("unique", "unique_consecutive", "bincount", "histc", "histogram", "searchsorted", "bucketize", "quantile",
         "nanquantile", "cdist", "cartesian_prod", "combinations")
METHODS = ("unique", "unique_consecutive", "bincount", "histc", "histogram", "quantile", "nanquantile")


#: torch's top-level functions here, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in NAMES}


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(CDIST)
