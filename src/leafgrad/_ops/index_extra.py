"""Indexed writes and reductions: index_add/copy/fill/reduce, scatter_reduce, masked_scatter, put (and their
in-place forms), and the index queries argwhere, nonzero_static and isin.

Every write is an op of its own with torch's node and saved values. The gradients are derivatives.yaml's:
a position that was overwritten passes no gradient to the old value, an added one passes it through, and
the written values read theirs back with index_select / gather / masked_select / take. scatter_reduce's
and index_reduce's prod/mean/amax/amin gradients follow torch's rules: mean divides by the count,
amax/amin share the gradient evenly between ties, prod uses the product of the others (with the single
zero case handled as torch handles it). index_reduce is scatter_reduce with its 1-d index spread along
``dim``, so both share one forward and one set of formulas.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap_dim
from .indexing import (
    GATHER,
    INDEX_SELECT,
    MASKED_SELECT,
    SCATTER_VALUE,
    TAKE,
    _along,
    _arr,
    _gather_index,
    check_scatter,
)
from .lazy import bind
from .registry import apply, defop
from .unsigned import refuse_unsigned

__all__ = [
    "argwhere",
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
    "isin",
    "masked_scatter",
    "nonzero_static",
    "put",
    "scatter_reduce",
]

_make = Tensor._make


def _dim_key(dim: int, index):
    """The NumPy key that picks positions ``index`` along ``dim``."""
    return (slice(None),) * dim + (_arr(index),)


# ----------------------------------------------------------------------------- index_fill / index_copy / index_add
def _index_fill_fwd(xp, a, dim, index, value):
    out = a.copy()
    if out.ndim:
        out[_dim_key(dim, index)] = value
    else:
        out[...] = value
    return out


def _unindexed(xp, g, dim, index):
    """``g`` with the positions ``index`` names along ``dim`` zeroed (torch's ``grad.index_fill(dim, index, 0)``)."""
    return xp.apply(INDEX_FILL, g, params=(dim, index, 0))


def _picked(xp, g, dim, index):
    """``g.index_select(dim, index)``."""
    return xp.apply(INDEX_SELECT, g, params=(dim, index)) if g.ndim else g


INDEX_FILL = defop("IndexFillBackward0", _index_fill_fwd, lambda xp, g, dim, index: _unindexed(xp, g, dim, index),
                   saved=("dim", "index"))
INDEX_FILL_T = defop("IndexFillBackward1",
                     lambda xp, a, v, dim, index: _index_fill_fwd(xp, a, dim, index, v.astype(a.dtype)),
                     (lambda xp, g, dim, index: _unindexed(xp, g, dim, index),
                      lambda xp, g, dim, index: xp.sum(_picked(xp, g, dim, index))),
                     saved=("dim", "index"), n_in=2)


def _index_copy_fwd(xp, a, src, dim, index, source_dim):
    out = a.copy()
    if out.ndim:
        out[_dim_key(dim, index)] = src
    else:
        out[...] = src
    return out


def _index_add_fwd(xp, a, src, dim, index, source_dim, alpha):
    out = a.copy()
    vals = src if alpha == 1 else src * alpha
    if out.ndim:
        xp.add.at(out, _dim_key(dim, index), vals)
    else:
        out += vals.reshape(()) if vals.ndim else vals
    return out


def _source_grad(xp, g, dim, index, source_dim, alpha=1):
    out = _picked(xp, g, dim, index)
    if source_dim == 0 and out.ndim:
        out = out.reshape(())
    return out if alpha == 1 else out * alpha


INDEX_COPY = defop("IndexCopyBackward0", _index_copy_fwd,
                   (lambda xp, g, dim, index, source_dim: _unindexed(xp, g, dim, index),
                    lambda xp, g, dim, index, source_dim: _source_grad(xp, g, dim, index, source_dim)),
                   saved=("dim", "index", "source_dim"), n_in=2)
INDEX_ADD = defop("IndexAddBackward0", _index_add_fwd,
                  (lambda xp, g, dim, index, source_dim, alpha: g,
                   lambda xp, g, dim, index, source_dim, alpha: _source_grad(xp, g, dim, index, source_dim, alpha)),
                  saved=("dim", "index", "source_dim", "alpha"), n_in=2)


def _check_index(name: str, self: Tensor, dim: int, index: Tensor, source=None) -> int:
    """torch's checks for the index_* family, each in the words and class torch uses for that op (they differ
    between ops); returns the wrapped dim."""
    d = _wrap_dim(dim, self._data.ndim)
    fn = f"{name}_()"
    kind = name.split("_")[1]  # add, copy, fill, reduce
    dt = D.scalar_type_name(index.dtype) if isinstance(index, Tensor) else type(index).__name__
    allowed = (D.int64,) if kind in ("copy", "fill") else (D.int32, D.int64)
    if not isinstance(index, Tensor) or index.dtype not in allowed:
        if kind == "fill":
            raise IndexError(f"{fn}: Expected dtype int64 for index.")
        if kind == "copy":
            raise RuntimeError(f"{fn}: Expected a long tensor for index, but got {dt}")
        raise RuntimeError(f"{fn}: Expected dtype int32/int64 for index but got: {dt}")
    idx = index._data
    if idx.ndim > 1:
        if kind == "fill":
            raise RuntimeError("Index has to be a vector/scalar")
        if kind == "copy":
            raise IndexError(f"{fn}: Index should have dimension 1 or 0 (got {idx.ndim})")
        raise IndexError(f"{fn}: Index is supposed to be a vector, but got dim: {idx.ndim} with type: {dt} and "
                         f"size: {list(idx.shape)}")
    if source is not None:
        _check_source(fn, kind, self, d, idx, source)
    n = self._data.shape[d] if self._data.ndim else 1
    lo = -n if kind == "fill" else 0  # (only index_fill takes a negative index)
    if idx.size and (idx.min() < lo or idx.max() >= n):
        bad = int(idx[(idx < lo) | (idx >= n)].reshape(-1)[0])
        if kind == "reduce":
            raise IndexError(f"index out of range in self: index_reduce got index {bad} for dim {d} of size {n}.")
        words = f"index {bad} is out of bounds for dimension {d} with size {n}"
        if kind == "copy":
            raise IndexError(f"{fn}: {words}")
        raise (RuntimeError if kind == "add" else IndexError)(words)
    return d


def _check_source(fn: str, kind: str, self: Tensor, d: int, idx: np.ndarray, source: Tensor) -> None:
    ss, sh = tuple(source._data.shape), tuple(self._data.shape)
    count = ss[d] if ss else 1
    if kind == "copy":
        if ss and sh and len(ss) != len(sh):
            raise IndexError(f"{fn}: When source and destination are not scalars, their dimensionality must match. "
                             f"Source dimensionality ({len(ss)}), destination dimensionality ({len(sh)})")
        if count != idx.size:
            raise IndexError(f"{fn}: Number of indices ({idx.size}) should be equal to source.size(dim) ({count})")
        for k, (a, b) in enumerate(zip(ss, sh)):
            if k != d and a != b:
                raise RuntimeError(f"{fn}: Source/destination tensor must have same slice shapes. Destination slice "
                                   f"shape: {b} at dimension {k} and source slice shape: {a} at dimension {k}.")
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"{fn}: self and source expected to have the same dtype, but got (self) "
                               f"{D.scalar_type_name(self.dtype)} and (source) {D.scalar_type_name(source.dtype)}")
        return
    if count != idx.size:
        raise RuntimeError(f"{fn}: Number of indices ({idx.size}) should be equal to source.size(dim): ({count}), "
                           f"for dim: {d}")
    if len(ss) != len(sh) or any(a != b for k, (a, b) in enumerate(zip(ss, sh)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(sh)} source.shape = {list(ss)}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"{fn}: self ({D.scalar_type_name(self.dtype)}) and source "
                           f"({D.scalar_type_name(source.dtype)}) must have the same scalar type. Convert source "
                           "with .to(self.dtype).")


def _write(op, name: str, self: Tensor, others: tuple, params: tuple, inplace: bool) -> Tensor:
    if inplace:
        from .inplace import inplace as run_inplace
        return run_inplace(op, self, others, params, name)
    return apply(op, (self,) + others, params)


def _index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha, inplace: bool) -> Tensor:
    d = _check_index("index_add", self, dim, index, source)
    return _write(INDEX_ADD, "index_add_", self, (source,), (d, index, source._data.ndim, alpha), inplace)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source`` added at the positions ``index`` names along ``dim`` (repeats add up)."""
    refuse_unsigned(input.dtype, "index_add_")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_add(input, dim, index, source, alpha, False)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    refuse_unsigned(self.dtype, "index_add_")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_add(self, dim, index, source, alpha, True)


def _index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor, inplace: bool) -> Tensor:
    d = _check_index("index_copy", self, dim, index, source)
    return _write(INDEX_COPY, "index_copy_", self, (source,), (d, index, source._data.ndim), inplace)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices ``index`` names along ``dim`` replaced by ``source``'s."""
    refuse_unsigned(input.dtype, "index_copy_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_copy(input, dim, index, source, False)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    refuse_unsigned(self.dtype, "index_copy_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_copy(self, dim, index, source, True)


def _index_fill(self: Tensor, dim: int, index: Tensor, value, inplace: bool) -> Tensor:
    d = _check_index("index_fill", self, dim, index)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return _write(INDEX_FILL_T, "index_fill_", self, (value,), (d, index), inplace)
    return _write(INDEX_FILL, "index_fill_", self, (), (d, index, value), inplace)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``input`` with the slices ``index`` names along ``dim`` set to ``value`` (a number or a 0-d tensor)."""
    refuse_unsigned(input.dtype, "index_fill_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_fill(input, dim, index, value, False)


def index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    refuse_unsigned(self.dtype, "index_fill_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return _index_fill(self, dim, index, value, True)


# ----------------------------------------------------------------------------- scatter_reduce / index_reduce
_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _identity(reduce: str, dtype):
    """The value a position starts from when ``include_self=False``."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _counts(shape: tuple, key, include_self: bool):
    """How many values each position of the result reduces (itself when included, and what lands there)."""
    n = np.ones(shape, dtype=np.int64)
    if not include_self:
        _along(n)[key] = 0
    np.add.at(_along(n), key, 1)
    return n


def _reduce_fwd(xp, a, src, dim, index, reduce, include_self):
    out = a.copy()
    idx = _arr(index)
    if not idx.size:
        return out
    key = _gather_index(np, idx, dim)
    vals = src[tuple(slice(0, s) for s in idx.shape)] if src.ndim else src
    view = _along(out)
    if not include_self:
        view[key] = _identity(reduce, out.dtype)
    getattr(np, _UFUNC[reduce]).at(view, key, vals)
    if reduce == "mean":
        n = _counts(out.shape, key, include_self)
        if out.dtype.kind in "fc":
            out /= n
        else:
            out //= n.astype(out.dtype)
    return out


def _np_gather(arr, dim, index):
    return _along(arr)[_gather_index(np, _arr(index), dim)]


def _broadcasts(src, idx) -> None:
    """torch's formulas compare src with values gathered at ``index``: a src larger than the index fails there."""
    if src.ndim and tuple(src.shape) != tuple(idx.shape):
        from .inplace import broadcast_or_raise
        broadcast_or_raise(tuple(src.shape), tuple(idx.shape))


def _reduce_grads(xp, g, self, src, result, dim, index, reduce, include_self, which: int, op=None):
    """torch's scatter_reduce backward: self's gradient (``which`` 0) or src's (1)."""
    data, const = xp.data, xp.constant
    idx = _arr(index)
    key = _gather_index(np, idx, dim)
    dt = xp.dtype_of(g)

    def gather(t):
        return xp.apply(GATHER, t, params=(dim, index))

    if reduce == "sum":
        gs, gsrc = (g, None) if which == 0 else (None, gather(g))
    elif reduce == "mean":
        n = const(_counts(tuple(g.shape), key, include_self).astype(dt))
        gs, gsrc = (g / n, None) if which == 0 else (None, gather(g) / const(_np_gather(data(n), dim, idx)))
    elif reduce in ("amax", "amin"):
        _broadcasts(data(src), idx)
        s, r = data(self), data(result)
        self_is = s == r
        src_is = data(src) == _np_gather(r, dim, idx)
        n = self_is.astype(dt)
        np.add.at(_along(n), key, src_is.astype(dt))
        share = g / const(n)
        gs, gsrc = (xp.masked_fill(share, const(~self_is), 0.0), None) if which == 0 else \
            (None, xp.masked_fill(gather(share), const(~src_is), 0.0))
    else:  # prod: the product of the others, computed without dividing by a zero
        if which == 0:
            masked_self = xp.masked_fill(self, const(data(self) == 0), 1.0)
            others = xp.apply(SCATTER_REDUCE, masked_self, src, params=(dim, index, reduce, include_self))
            gs, gsrc = g * others / masked_self, None
        else:
            _broadcasts(data(src), idx)
            src_zero = data(src) == 0
            zeros_there = np.zeros(tuple(g.shape), dtype=np.int64)
            np.add.at(_along(zeros_there), key, src_zero.astype(np.int64))
            single = src_zero & (_np_gather(zeros_there, dim, idx) == 1)
            masked_src = xp.masked_fill(src, const(single), 1.0)
            others = xp.apply(SCATTER_REDUCE, self, masked_src, params=(dim, index, reduce, include_self))
            plain = gather(g * result) / xp.masked_fill(src, const(src_zero), 1.0)
            gs, gsrc = None, xp.where(const(single), gather(g * others), plain)
            if xp.tensors and (zeros_there > 1).any():  # (torch's gradient here has no gradient of its own)
                gsrc = xp.apply(op or NO_DOUBLE_BACKWARD, gsrc)
    if which == 1:
        return gsrc
    return gs if include_self else xp.apply(SCATTER_VALUE, gs, params=(dim, index, 0))


def _refusal(name: str, src: str):
    def formula(xp, g):
        raise RuntimeError(f"{name}(): Double backward is unsupported for {src} when >1 zeros in {src} are scattered "
                           "to the same position in self: the product's second derivative there needs the zeros "
                           "apart. Avoid create_graph through this product, or keep at most one zero per position.")
    return formula


# the node torch puts on that gradient (torch::autograd::Error): it passes the value, and refuses a backward
NO_DOUBLE_BACKWARD = defop("torch::autograd::Error", lambda xp, a: a.copy(), _refusal("scatter_reduce", "src"))
NO_DOUBLE_BACKWARD_INDEX = defop("torch::autograd::Error", lambda xp, a: a.copy(),
                                 _refusal("index_reduce", "source"))


SCATTER_REDUCE = defop(
    "ScatterReduceBackward0", _reduce_fwd,
    (lambda xp, g, self, src, result, dim, index, reduce, include_self: _reduce_grads(
        xp, g, self, src, result, dim, index, reduce, include_self, 0),
     lambda xp, g, self, src, result, dim, index, reduce, include_self: _reduce_grads(
        xp, g, self, src, result, dim, index, reduce, include_self, 1)),
    saved=("self", "input1", "result", "dim", "index", "reduce", "include_self"), n_in=2)
SCATTER_REDUCE.node_cls._saved_names = ("self", "src", "result", "dim", "index", "reduce", "include_self")

# index_reduce: the 1-d index spread along dim to the source's shape (``spread``, kept but not shown)
INDEX_REDUCE = defop(
    "IndexReduceBackward0",
    lambda xp, a, src, dim, index, reduce, include_self, spread: _reduce_fwd(xp, a, src, dim, spread, reduce,
                                                                           include_self),
    (lambda xp, g, self, source, result, dim, index, reduce, include_self, spread: _reduce_grads(
        xp, g, self, source, result, dim, spread, reduce, include_self, 0),
     lambda xp, g, self, source, result, dim, index, reduce, include_self, spread: _reduce_grads(
        xp, g, self, source, result, dim, spread, reduce, include_self, 1, NO_DOUBLE_BACKWARD_INDEX)),
    saved=("self", "input1", "result", "dim", "index", "reduce", "include_self", "spread"), n_in=2)
INDEX_REDUCE.node_cls._saved_names = ("self", "source", "result", "dim", "index", "reduce", "include_self")


def _scatter_reduce(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool,
                    inplace: bool) -> Tensor:
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (torch takes the old names too)
    if reduce not in _UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    d = check_scatter(self, dim, index, src)
    ish, ssh = index._data.shape, src._data.shape
    if index._data.size and src._data.ndim and any(i > s for i, s in zip(ish, ssh)):
        raise RuntimeError(f"Expected index {list(ish)} to be no larger than self {list(self._data.shape)} apart "
                           f"from dimension {d} and to be no larger size than src {list(ssh)}")
    return _write(SCATTER_REDUCE, "scatter_reduce_", self, (src,), (d, index, reduce, bool(include_self)), inplace)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``input`` with ``src``'s values reduced (sum/prod/mean/amax/amin) into the positions ``index`` names."""
    return _scatter_reduce(input, dim, index, src, reduce, include_self, False)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    return _scatter_reduce(self, dim, index, src, reduce, include_self, True)


_WARNED: list = []


def _index_reduce(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool,
                  inplace: bool) -> Tensor:
    if not _WARNED:  # (torch says so once per process)
        _WARNED.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _check_index("index_reduce", self, dim, index, source)
    idx = index._data.reshape(-1)
    if source._data.ndim:
        shape = [1] * source._data.ndim
        shape[d] = idx.size
        spread = np.broadcast_to(idx.reshape(shape), source._data.shape).copy()
    else:
        spread = idx.reshape(())
    spread = np.where(spread < 0, spread + (self._data.shape[d] if self._data.ndim else 1), spread)
    return _write(INDEX_REDUCE, "index_reduce_", self, (source,), (d, index, reduce, bool(include_self), spread),
                  inplace)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """``input`` with ``source``'s slices reduced (prod/mean/amax/amin) into the slices ``index`` names."""
    return _index_reduce(input, dim, index, source, reduce, include_self, False)


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    return _index_reduce(self, dim, index, source, reduce, include_self, True)


# ----------------------------------------------------------------------------- masked_scatter
def _masked_scatter_fwd(xp, a, src, mask):
    m = _arr(mask)
    shape = np.broadcast_shapes(a.shape, m.shape)
    out = np.broadcast_to(a, shape).copy()
    mb = np.broadcast_to(m, shape)
    out[mb] = src.reshape(-1)[:int(mb.sum())]
    return out


def _masked_scatter_source_grad(xp, g, mask, source_sym_sizes):
    """The gradient where the mask is set, in source's order, padded with zeros to source's size."""
    picked = xp.apply(MASKED_SELECT, g, params=(mask,))
    n = 1
    for s in source_sym_sizes:
        n *= s
    k = picked.shape[0]
    if k < n:
        picked = xp.concatenate([picked, xp.zeros((n - k,), dtype=xp.dtype_of(g))])
    return picked.reshape(tuple(source_sym_sizes))


MASKED_SCATTER = defop("MaskedScatterBackward0", _masked_scatter_fwd,
                       (lambda xp, g, mask, source_sym_sizes: xp.masked_fill(g, mask, 0.0),
                        _masked_scatter_source_grad),
                       saved=("mask", "input1_sizes"), n_in=2)
MASKED_SCATTER.node_cls._saved_names = ("mask", "source_sym_sizes")


def _masked_scatter(self: Tensor, mask: Tensor, source: Tensor, inplace: bool) -> Tensor:
    name = "masked_scatter_" if inplace else "masked_scatter"
    if not isinstance(mask, Tensor) or mask.dtype._kind != 0:
        got = D.scalar_type_name(mask.dtype) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {got}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{D.scalar_type_name(self.dtype)} and {D.scalar_type_name(source.dtype)}")
    from .inplace import broadcast_or_raise
    if inplace:
        _check_expands(mask._data.shape, self._data.shape)
    shape = broadcast_or_raise(mask._data.shape, self._data.shape)
    if int(np.broadcast_to(mask._data, tuple(shape)).sum()) > source._data.size:
        raise RuntimeError(f"Number of elements of source < number of ones in mask ({source._data.size} < "
                           f"{int(np.broadcast_to(mask._data, tuple(shape)).sum())}): masked_scatter fills each set "
                           "position with the next element of source.")
    return _write(MASKED_SCATTER, name, self, (source,), (mask,), inplace)


def _check_expands(have: tuple, target: tuple) -> None:
    """masked_scatter_ expands the mask to the tensor's shape: torch's expand errors when it cannot."""
    if len(have) > len(target):
        raise RuntimeError(f"expand(CPUBoolType{{{list(have)}}}, size={list(target)}): the number of sizes provided "
                           f"({len(target)}) must be greater or equal to the number of dimensions in the tensor "
                           f"({len(have)}). masked_scatter_ cannot grow the tensor it writes into to the mask's shape.")
    lead = len(target) - len(have)
    for k, h in enumerate(have):
        if h not in (1, target[lead + k]):
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + k]}) must match the existing size "
                               f"({h}) at non-singleton dimension {lead + k}.  Target sizes: {list(target)}.  Tensor "
                               f"sizes: {list(have)}")


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with the positions where ``mask`` is set filled, in order, from ``source``."""
    refuse_unsigned(input.dtype, "masked_scatter")  # (uint16/32/64: see _ops/unsigned.py)
    return _masked_scatter(input, mask, source, False)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    refuse_unsigned(self.dtype, "masked_scatter")  # (uint16/32/64: see _ops/unsigned.py)
    return _masked_scatter(self, mask, source, True)


# ----------------------------------------------------------------------------- put
def _put_fwd(xp, a, src, index, accumulate):
    out = a.copy()
    flat = out.reshape(-1)
    idx = _arr(index).reshape(-1)
    if accumulate:
        np.add.at(flat, idx, src.reshape(-1))
    else:
        flat[idx] = src.reshape(-1)
    return out


PUT = defop("PutBackward0", _put_fwd,
            (lambda xp, g, index, source, accumulate: g if accumulate else
             xp.apply(PUT, g, xp.zeros(tuple(index.shape), dtype=xp.dtype_of(g)), params=(index, False)),
             lambda xp, g, index, source, accumulate: xp.apply(TAKE, g, params=(index,)).reshape(tuple(source.shape))),
            saved=("index", "input1", "accumulate"), n_in=2)
PUT.node_cls._saved_names = ("index", "source", "accumulate")


def _put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool, inplace: bool) -> Tensor:
    if not isinstance(index, Tensor) or index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{D.scalar_type_name(index.dtype) if isinstance(index, Tensor) else type(index).__name__}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{D.scalar_type_name(self.dtype)} and source.dtype = {D.scalar_type_name(source.dtype)}")
    if source._data.size != index._data.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source._data.size}, index.numel() = {index._data.size}")
    n = self._data.size
    idx = index._data
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx[(idx < -n) | (idx >= n)].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return _write(PUT, "put_", self, (source,), (index, bool(accumulate)), inplace)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` read as flat, with ``source`` written (or added, ``accumulate=True``) at ``index``."""
    return _put(input, index, source, accumulate, False)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    refuse_unsigned(self.dtype, "take_put_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    return _put(self, index, source, accumulate, True)


# ----------------------------------------------------------------------------- index queries
def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row each (torch.nonzero's result)."""
    from .indexing import nonzero
    return nonzero(input)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero's rows, cut or padded with ``fill_value`` to exactly ``size`` rows (a shape known in advance)."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    from .indexing import nonzero
    rows = nonzero(input)._data[:size]
    nd = input._data.ndim
    pad = np.full((size - rows.shape[0], nd), fill_value, dtype=np.int64)
    return _make(np.concatenate([rows, pad], axis=0) if pad.size or rows.shape[0] < size else rows.copy())


def _values(x):
    if isinstance(x, Tensor):
        return x._data
    return np.asarray(x)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements`` (either may be a number)."""
    refuse_unsigned(getattr(elements, "dtype", None), "isin_default_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
                        f"{type(test_elements).__name__}), but expected one of:\n * (Tensor elements, Tensor "
                        "test_elements), (Number element, Tensor test_elements) or (Tensor elements, Number "
                        "test_element): at least one of the two must be a Tensor.")
    a, b = _values(elements), _values(test_elements)
    if isinstance(elements, Tensor) and isinstance(test_elements, Tensor):
        dt = D.promote_types(elements.dtype, test_elements.dtype)
        a, b = a.astype(dt.np), b.astype(dt.np)
    return _make(np.asarray(np.isin(a, b, invert=bool(invert))))


def _bind_methods() -> None:
    methods = {
        "index_add": index_add, "index_add_": index_add_, "index_copy": index_copy, "index_copy_": index_copy_,
        "index_fill": index_fill, "index_fill_": index_fill_, "index_reduce": index_reduce,
        "index_reduce_": index_reduce_, "scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_,
        "masked_scatter": masked_scatter, "masked_scatter_": masked_scatter_, "put": put, "put_": put_,
        "argwhere": argwhere,
        "nonzero_static": lambda self, *, size, fill_value=-1: nonzero_static(self, size=size, fill_value=fill_value),
    }
    bind("index_extra", methods)


#: torch's top-level forms, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in ("argwhere", "index_add", "index_copy", "index_fill", "index_reduce",
                                                "isin", "masked_scatter", "nonzero_static", "put", "scatter_reduce")}

_bind_methods()
