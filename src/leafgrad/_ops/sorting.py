"""Order-based selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, cummax, cummin.

Every op here picks elements out of its input, so every gradient is the output gradient put
back at the picked positions (a scatter-add into zeros, whose own backward is a gather: double
backward comes free). The forwards all rest on one stable sort with nan placed largest, as
torch orders it; where torch's own tie order is unspecified (topk, kthvalue, median) the stable
order is as good an answer as any.

torch keeps the dim exactly as the caller gave it (``-1`` included) and its Python binding reads
that int64 back unsigned, so ``_saved_dim`` of ``sort(t, -1)`` shows ``2**64 - 1``: the ops here
save the dim as given and show it that way.
"""
from __future__ import annotations

import numpy as np

from .. import return_types
from .._tensor import Tensor, _wrap_dim
from .indexing import select_back
from .reduction import _check_nonempty, _evenly
from .registry import apply, defop, show_saved_as, unsigned_int64
from .numpy_kwargs import numpy_kwargs
from .unsigned import refuse_unsigned

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "cummax", "cummin"]


def _axis(dim: int, ndim: int) -> int:
    return dim % ndim if ndim else 0


def _can_hold_nan(a) -> bool:
    return a.dtype.kind in "fcV"


def _stable_order(xp, a, axis: int, descending: bool):
    """Indices that sort ``a`` along ``axis``, ties in input order, nan largest (NumPy already
    puts nan last). Descending sorts the reversed array ascending and reads it backwards, which
    keeps ties in input order and nans first."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    rev = xp.argsort(xp.flip(a, axis), axis=axis, kind="stable")
    return a.shape[axis] - 1 - xp.flip(rev, axis)


def _sort_fwd(xp, a, dim, descending):
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=np.int64)
    idx = _stable_order(xp, a, _axis(dim, a.ndim), descending).astype(np.int64)
    return xp.take_along_axis(a, idx, axis=_axis(dim, a.ndim)), idx


def _topk_fwd(xp, a, k, dim, largest, sorted):
    vals, idx = _sort_fwd(xp, a, dim, largest)
    if a.ndim == 0:
        return vals, idx
    cut = [slice(None)] * a.ndim
    cut[_axis(dim, a.ndim)] = slice(0, k)
    return vals[tuple(cut)].copy(), idx[tuple(cut)].copy()


def _pick(xp, vals, idx, axis, pos, keepdim):
    """The sorted ``vals``/``idx`` at per-slice position ``pos`` (kept as a size-1 axis)."""
    v = xp.take_along_axis(vals, pos, axis=axis)
    i = xp.take_along_axis(idx, pos, axis=axis)
    if not keepdim:
        v, i = v.squeeze(axis), i.squeeze(axis)
    return v, i


def _kthvalue_fwd(xp, a, k, dim, keepdim):
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=np.int64)
    axis = _axis(dim, a.ndim)
    vals, idx = _sort_fwd(xp, a, dim, False)
    shape = list(a.shape)
    shape[axis] = 1
    return _pick(xp, vals, idx, axis, xp.full(shape, k - 1, dtype=np.int64), keepdim)


def _median_dim_fwd(xp, a, dim, keepdim, ignore_nan):
    """Lower median per slice. A slice holding nan has median nan at its first nan (stable
    sort puts that one first among the nans) unless ``ignore_nan``, when only the other values count."""
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=np.int64)
    axis = _axis(dim, a.ndim)
    vals, idx = _sort_fwd(xp, a, dim, False)
    n = a.shape[axis]
    n_nan = xp.isnan(a).sum(axis=axis, keepdims=True) if _can_hold_nan(a) else xp.zeros(
        [1 if d == axis else s for d, s in enumerate(a.shape)], dtype=np.int64)
    valid = n - n_nan
    if ignore_nan:
        pos = xp.where(valid > 0, (valid - 1) // 2, 0)
    else:
        pos = xp.where(n_nan > 0, valid, (n - 1) // 2)
    return _pick(xp, vals, idx, axis, pos.astype(np.int64), keepdim)


def _median_all_fwd(xp, a, ignore_nan):
    flat = a.reshape(-1)
    if _can_hold_nan(a):
        nans = xp.isnan(flat)
        if ignore_nan:
            flat = flat[~nans]
        elif nans.any():
            return xp.asarray(np.nan, dtype=a.dtype)
    if flat.size == 0:
        return xp.asarray(np.nan, dtype=a.dtype)
    return xp.asarray(xp.sort(flat, kind="stable")[(flat.size - 1) // 2])


def _cum_fwd(xp, a, dim, which):
    """Running max (min) and where it was last reached: an equal value moves the index on, and
    so does every nan, after which nothing else does, as torch's ``isnan(x) || x >= best`` scan."""
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=np.int64)
    axis = _axis(dim, a.ndim)
    src = xp.moveaxis(a, axis, 0)
    vals = src.copy()
    idx = xp.zeros(src.shape, dtype=np.int64)
    nan = _can_hold_nan(a)
    for i in range(1, src.shape[0]):
        best, x = vals[i - 1], src[i]
        better = (x >= best) if which == "max" else (x <= best)
        if nan:
            better = xp.isnan(x) | (~xp.isnan(best) & better)
        vals[i] = xp.where(better, x, best)
        idx[i] = xp.where(better, i, idx[i - 1])
    return xp.moveaxis(vals, 0, axis), xp.moveaxis(idx, 0, axis)


def _kept_back(xp, grads, dim, self_sym_sizes, result1):
    return select_back(xp, grads, _axis(dim, len(self_sym_sizes)), True, self_sym_sizes, result1)


def _reduced_back(xp, grads, dim, keepdim, self_sym_sizes, result1):
    # (a 0-d input's grad and index are 0-d already: unsqueezing them would leave the double
    # backward's gather a 1-d index into a 0-d grad; select_back leaves them so)
    return select_back(xp, grads, _axis(dim, len(self_sym_sizes)), keepdim, self_sym_sizes, result1)


def _cum_back(xp, grads, dim, result1, self):
    g = grads[0]
    if g is None:
        return None
    shape = tuple(self.shape)
    if 0 in shape:  # (torch hands back the empty input itself)
        return self
    return select_back(xp, grads, _axis(dim, len(shape)), True, shape, result1)


def _selecting_op(name: str, forward, formula, saved: tuple):
    op = defop(name, forward, formula, saved=saved, n_out=2, diff_outputs=(True, False))
    op.node_cls._saved_names = tuple("indices" if s == "result1" else s for s in saved)  # (torch's names)
    show_saved_as(op, "dim", unsigned_int64)
    return op


SORT = _selecting_op("SortBackward0", _sort_fwd, _kept_back, ("dim", "self_sym_sizes", "result1"))
SORT_STABLE = _selecting_op("SortBackward1", _sort_fwd, _kept_back, ("dim", "self_sym_sizes", "result1"))
TOPK = _selecting_op("TopkBackward0", _topk_fwd, _kept_back, ("dim", "self_sym_sizes", "result1"))
KTHVALUE = _selecting_op("KthvalueBackward0", _kthvalue_fwd, _reduced_back,
                         ("dim", "keepdim", "self_sym_sizes", "result1"))
MEDIAN_DIM = _selecting_op("MedianBackward1", _median_dim_fwd, _reduced_back,
                           ("dim", "keepdim", "self_sym_sizes", "result1"))
NANMEDIAN_DIM = _selecting_op("NanmedianBackward1", _median_dim_fwd, _reduced_back,
                              ("dim", "keepdim", "self_sym_sizes", "result1"))
CUMMAX = _selecting_op("CummaxBackward0", _cum_fwd, _cum_back, ("dim", "result1", "self"))
CUMMIN = _selecting_op("CumminBackward0", _cum_fwd, _cum_back, ("dim", "result1", "self"))
MEDIAN_ALL = defop("MedianBackward0", _median_all_fwd, _evenly, saved=("self", "result"))
NANMEDIAN_ALL = defop("NanmedianBackward0", _median_all_fwd, _evenly, saved=("self", "result"))


def _dim_size(input: Tensor, dim: int) -> int:
    shape = input._data.shape
    return shape[_wrap_dim(dim, len(shape))] if shape else 1


@numpy_kwargs
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = False):
    _wrap_dim(int(dim), input._data.ndim)
    vals, idx = apply(SORT_STABLE if stable else SORT, (input,), (int(dim), bool(descending)))
    return return_types.sort((vals, idx))


@numpy_kwargs
def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    return sort(input, dim, descending, stable=stable).indices


def msort(input: Tensor) -> Tensor:
    return sort(input, 0).values


@numpy_kwargs
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``sorted=False`` returns them sorted as well: torch leaves that order unspecified."""
    k = int(k)
    if not 0 <= k <= _dim_size(input, int(dim)):
        raise RuntimeError("selected index k out of range")
    refuse_unsigned(input.dtype, "topk_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    vals, idx = apply(TOPK, (input,), (k, int(dim), bool(largest), bool(sorted)))
    return return_types.topk((vals, idx))


@numpy_kwargs
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    ndim = input._data.ndim
    d = _wrap_dim(int(dim), ndim)
    if ndim:
        _check_nonempty(input, "kthvalue", (d,))
    k = int(k)
    if not 1 <= k <= _dim_size(input, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    refuse_unsigned(input.dtype, "kthvalue_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    vals, idx = apply(KTHVALUE, (input,), (k, int(dim), bool(keepdim)))
    return return_types.kthvalue((vals, idx))


def _median(input: Tensor, dim, keepdim: bool, ignore_nan: bool):
    if dim is None:
        refuse_unsigned(input.dtype, "median_cpu")  # (uint16/32/64: see _ops/unsigned.py)
        return apply(NANMEDIAN_ALL if ignore_nan else MEDIAN_ALL, (input,), (ignore_nan,))
    ndim = input._data.ndim
    d = _wrap_dim(int(dim), ndim)
    if ndim:
        _check_nonempty(input, "median", (d,))  # (torch's nanmedian says "median()" too)
    refuse_unsigned(input.dtype, "median_out")  # (uint16/32/64: see _ops/unsigned.py)
    vals, idx = apply(NANMEDIAN_DIM if ignore_nan else MEDIAN_DIM, (input,), (int(dim), bool(keepdim), ignore_nan))
    return (return_types.nanmedian if ignore_nan else return_types.median)((vals, idx))


@numpy_kwargs
def median(input: Tensor, dim=None, keepdim: bool = False):
    return _median(input, dim, keepdim, False)


@numpy_kwargs
def nanmedian(input: Tensor, dim=None, keepdim: bool = False):
    return _median(input, dim, keepdim, True)


def _cum(input: Tensor, dim: int, which: str, kind: str):
    _wrap_dim(int(dim), input._data.ndim)
    refuse_unsigned(input.dtype, f"cum{which}_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    vals, idx = apply(CUMMAX if which == "max" else CUMMIN, (input,), (int(dim), which))
    return getattr(return_types, kind)((vals, idx))


@numpy_kwargs
def cummax(input: Tensor, dim: int):
    return _cum(input, dim, "max", "cummax")


@numpy_kwargs
def cummin(input: Tensor, dim: int):
    return _cum(input, dim, "min", "cummin")


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(MEDIAN_DIM, NANMEDIAN_DIM, CUMMAX, CUMMIN)
