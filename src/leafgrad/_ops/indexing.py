"""Indexing: ``t[key]`` (basic keys become select/slice/unsqueeze views, as in torch),
advanced indexing, gather, index_select, masked_fill, and the scatter ops their
backward formulas need (each itself differentiable, so double backward works).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import TENSOR_TYPES, Tensor, _wrap_dim
from .pointwise import _no_derivative
from .registry import _apply_view, apply, defop
from .unsigned import refuse_unsigned

_make = Tensor._make


# ----------------------------------------------------------------------------- key handling
def _is_advanced(k) -> bool:
    return isinstance(k, (np.ndarray, list)) or (isinstance(k, Tensor) and k._data.ndim > 0) or isinstance(k, bool)


def _is_bool0(k) -> bool:
    return isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_


# the dtypes torch indexes with (int8/int16 and uint16/32/64 only as 0-dim numbers)
_INDEX_DTYPES = frozenset((D.int64, D.int32, D.uint8, D.bool))


def normalize_key(key) -> tuple:
    """Turn a user key into a tuple of ints, slices, None, Ellipsis and index arrays."""
    if not isinstance(key, tuple):
        key = tuple(key) if _sequence_as_tuple(key) else (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k._data.ndim == 0 and k.dtype._kind == 1:
                k = int(k._data)
            elif k.dtype not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            else:
                k = k._data
        elif isinstance(k, (list, tuple, range)):
            k = _list_index(k)
        elif isinstance(k, bool):  # (True: a new dim of size 1, False: one of size 0, as NumPy's)
            k = np.asarray(k)
        elif isinstance(k, np.integer):
            k = int(k)
        elif isinstance(k, np.ndarray):
            if k.dtype.kind == "f":  # (torch reads a float array as long indices, truncated)
                k = k.astype(np.int64)
        elif isinstance(k, str):
            raise TypeError(f"new(): invalid data type '{type(k).__name__}'")  # (torch's, from building a tensor)
        elif not (k is None or k is Ellipsis or isinstance(k, (int, slice, bool))):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                f"(got {type(k).__name__})")
        if isinstance(k, slice):
            for v in (k.start, k.stop, k.step):
                if isinstance(v, Tensor):
                    k = slice(*(int(x) if isinstance(x, Tensor) else x for x in (k.start, k.stop, k.step)))
                    break
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            if k.step is not None and k.step < 0:
                raise ValueError("step must be greater than zero")
        elif k is Ellipsis and any(o is Ellipsis for o in out):  # (``in`` would compare index arrays)
            continue  # torch reads a second ... as covering no dims
        out.append(k)
    return tuple(out)


def _list_index(k):
    """A list or range of indices (bools: a mask) as an array; numbers that are floats are read as
    long indices, truncated, as torch's conversion of an index sequence does."""
    vals = [int(x) if isinstance(x, Tensor) and x._data.ndim == 0 else x for x in k]
    arr = np.asarray([v._data if isinstance(v, Tensor) else v for v in vals])
    if arr.dtype.kind not in "bif" and arr.size:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr.astype(np.int64) if arr.dtype.kind != "b" else arr


def _sequence_as_tuple(key) -> bool:
    """torch's (and old NumPy's) rule for a key that is a list, not a tuple: read it as a tuple of
    indices (with torch's deprecation warning) when it is short and holds a tensor, a sequence, a
    slice, ``...`` or None; otherwise it is one index array (``x[[0, 2]]``)."""
    if not isinstance(key, (list, str)) or len(key) >= 32:
        return False
    for k in key:
        if isinstance(k, (Tensor, list, tuple, range, str, slice, np.ndarray)) or k is None or k is Ellipsis:
            import warnings
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
                          "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                          "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
                          "or a different result", UserWarning, stacklevel=4)
            return True
    return False


def _check_bool_shapes(t: Tensor, key: tuple) -> None:
    used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
               for k in key if k is not None and k is not Ellipsis)  # (a mask covers as many dims as it has)
    if used > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    dim = 0
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            shp = t._data.shape[dim:dim + k.ndim]
            if k.shape != shp:
                raise IndexError(f"The shape of the mask {list(k.shape)} at index {dim} does not match the shape of "
                                 f"the indexed tensor {list(t._data.shape)} at index {dim}")
            dim += k.ndim
        elif k is Ellipsis:
            dim += t._data.ndim - sum(1 for x in key if x is not None and x is not Ellipsis)
        elif k is not None:
            dim += 1


# ----------------------------------------------------------------------------- ops
def _arr(t):
    """A tensor parameter's array (an index, a mask). The forwards get the user's Tensor, or the
    raw array when a backward formula runs them on arrays (``xp.apply``)."""
    return t._data if t.__class__ in TENSOR_TYPES else t


def _embed_fwd(xp, g, shape, key):
    z = xp.zeros(shape, dtype=g.dtype)
    z[key] = g
    return z


def _read_back(xp, g, key):
    """The region a basic ``key`` (ints and slices) wrote: the same select/slice views on both
    interpreters (the trailing Ellipsis keeps a 0-d result an array on NumPy)."""
    return g[key + (Ellipsis,)]


SELECT_BACKWARD = defop("SelectBackwardBackward0", _embed_fwd, _read_back, saved=("key",))
SLICE_BACKWARD = defop("SliceBackwardBackward0", _embed_fwd, _read_back, saved=("key",))


def _index_put_zeros_fwd(xp, g, shape, key):
    z = xp.zeros(shape, dtype=g.dtype)
    xp.add.at(z, key, g)
    return z


INDEX = defop("IndexBackward0", lambda xp, a, key: a[key],
              lambda xp, g, self_sym_sizes, key: xp.index_add_zeros(g, self_sym_sizes, key),
              saved=("self_sym_sizes", "key"))
INDEX_ADD_ZEROS = defop("IndexBackwardBackward0", _index_put_zeros_fwd,
                        lambda xp, g, key: xp.apply(INDEX, g, params=(key,)), saved=("key",))


def index_add_zeros(g: Tensor, shape, key) -> Tensor:
    return apply(INDEX_ADD_ZEROS, (g,), (tuple(shape), key))


_SHAPE: list = []  # the shape module, found on first use (shape imports this module: no import at the top)


def _load_shape():
    from . import shape
    _SHAPE.append(shape)
    return shape


def _check_int_index(k: int, size: int, dim: int) -> None:
    """An int key must address an element of its dim (``dim``: as torch counts it, in the indexed tensor)."""
    if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")


def getitem(t: Tensor, key) -> Tensor:
    if key.__class__ is int and t._data.ndim:  # (``y[i]``, the most common key: one select, no key normalising)
        size = t._data.shape[0]
        _check_int_index(key, size, 0)
        return _apply_view((_SHAPE[0] if _SHAPE else _load_shape()).SELECT, t, (0, key % size))  # (apply's path for views, one call less)
    if key.__class__ is tuple and _plain_basic(key):  # (``x[:, -1, :]``, ``m[:, :, :T, :T]``: nothing to normalise)
        return _basic_index(t, key, False)
    single = not isinstance(key, tuple)
    key = normalize_key(key)
    if any(_is_advanced(k) for k in key):
        _check_bool_shapes(t, key)
        # as torch: ints, slices and None first (as views), then one index op for the arrays
        # (a 0-d mask (``True``) adds a dim of size 1 (0 when False) and consumes none, as NumPy's)
        basic = tuple(None if _is_bool0(k) else slice(None) if _is_advanced(k) else k for k in key)
        rest = tuple((np.arange(int(k)) if _is_bool0(k) else k) if _is_advanced(k) or k is Ellipsis else slice(None)
                     for k in key if not isinstance(k, int))
        if any(not (isinstance(k, slice) and k == slice(None)) for k in basic if k is not Ellipsis):
            t = _basic_index(t, basic, False)
        try:
            return apply(INDEX, (t,), (rest,))
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
    return _basic_index(t, key, single)


def _plain_basic(key: tuple) -> bool:
    """A key that ``normalize_key`` would return as it is: ints, slices of ints (step None or
    positive), None, and one Ellipsis at most."""
    ellipsis = False
    for k in key:
        c = k.__class__
        if c is int or k is None:
            continue
        if c is slice:
            for v in (k.start, k.stop):
                if v is not None and v.__class__ is not int:
                    return False
            step = k.step
            if step is not None and (step.__class__ is not int or step <= 0):
                return False
        elif k is Ellipsis and not ellipsis:
            ellipsis = True
        else:
            return False
    return True


def _basic_index(t: Tensor, key: tuple, single: bool) -> Tensor:
    shape = _SHAPE[0] if _SHAPE else _load_shape()
    n_consume = n_ellipsis = 0
    has_int = False
    for k in key:  # (one pass: what the checks below need)
        if k is Ellipsis:
            n_ellipsis += 1
        elif k is not None:
            n_consume += 1
            if isinstance(k, int):
                has_int = True
    if t._data.ndim == 0 and n_consume and has_int:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if n_consume > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = t
    dim = 0
    removed = 0  # dims the ints so far took away: dim + removed is the position in t, as torch reports it
    applied = False
    for k in key:
        if k is Ellipsis:
            dim += t._data.ndim - n_consume
        elif k is None:
            out = shape.unsqueeze(out, dim)
            dim += 1
            applied = True
        elif isinstance(k, int):
            size = out._data.shape[dim]
            _check_int_index(k, size, dim + removed)
            out = shape.select(out, dim, k)
            removed += 1
            applied = True
        else:
            full = k.start in (None, 0) and k.stop is None and k.step in (None, 1)
            if not full or single:
                out = shape.slice_dim(out, dim, k.start, k.stop, k.step or 1)
                applied = True
            dim += 1
    if not applied:
        out = apply(shape.ALIAS, (t,))
    return out


def _gather_index(xp, idx, dim):
    """The positions ``idx`` names along ``dim``, as a NumPy index into ``_along(array)``. torch
    reads a 0-d tensor as one of size 1 along dim 0: a 0-d index picks from that 1-element view."""
    if idx.ndim == 0:
        return (idx,)
    ii = list(xp.indices(idx.shape, sparse=True))
    ii[dim] = idx
    return tuple(ii)


def _along(a):
    """``a`` as gather/scatter index it: a 0-d array as a 1-element view (writes reach ``a``)."""
    return a if a.ndim else a.reshape(1)


def _scatter_add_zeros_fwd(xp, src, shape, dim, index):
    z = xp.zeros(shape, dtype=src.dtype)
    xp.add.at(_along(z), _gather_index(xp, _arr(index), dim), src)
    return z


def _gather_fwd(xp, a, dim, index):
    return _along(a)[_gather_index(xp, _arr(index), dim)]


# (gather and masked_select keep their input itself, as torch does, though the formulas read only
# its shape: an in-place change to the input before backward is then refused as torch refuses it)
# (gather's gradient is torch's scatter_add into zeros, and that one's a gather: ScatterAddBackward0 and
# GatherBackward0 under create_graph, as torch records them)
GATHER = defop("GatherBackward0", _gather_fwd,
               lambda xp, g, self, dim, index: xp.apply(SCATTER_ADD_ZEROS, g, params=(tuple(self.shape), dim, index)),
               saved=("self", "dim", "index"))
SCATTER_ADD_ZEROS = defop("ScatterAddBackward0", _scatter_add_zeros_fwd,
                          lambda xp, g, dim, index: xp.apply(GATHER, g, params=(dim, index)), saved=("dim", "index"))


def select_back(xp, grads, dim: int, keepdim: bool, self_sym_sizes, indices):
    """The gradient of an op that picked one element per slice along ``dim`` (max/min/sort/median
    over a dim): the output gradient scattered back to the picked ``indices`` of zeros."""
    g = grads[0]
    if g is None:
        return None
    idx = indices
    if not keepdim and self_sym_sizes:  # (a 0-d input's result is 0-d either way: gather/scatter take it so)
        g = xp.expand_dims(g, dim)
        idx = xp.expand_dims(idx, dim)
    return xp.apply(SCATTER_ADD_ZEROS, g, params=(tuple(self_sym_sizes), dim, idx))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    if index.dtype is not D.int64 and index.dtype is not D.int32:  # (torch's: no other integer dtype either)
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if len(_sizes(index._data)) != len(_sizes(input._data)):  # (a 0-d tensor counts as 1-d here, as in torch)
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    refuse_unsigned(input.dtype, "scatter_gather_tensor_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    idx = index._data
    if idx.size:
        shape, ishape = _sizes(input._data), _sizes(idx)
        for i, (n, m) in enumerate(zip(shape, ishape)):
            if i != d and m > n:
                raise RuntimeError(
                    f"Size does not match at dimension {i} expected index {list(idx.shape)} to be no larger than self "
                    f"{list(input._data.shape)} apart from dimension {d}: gather's result has the index's shape, and "
                    f"reads input[..., index[...], ...] at the same position in every other dim, so index.size({i}) "
                    f"may be at most input.size({i}) = {n}.")
        size = input._data.shape[d] if input._data.ndim else 1
        lo, hi = idx.min(), idx.max()  # (torch takes no negative index here: NumPy would wrap it)
        if lo < 0 or hi >= size:
            bad = int(lo if lo < 0 else hi)
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}: gather's index "
                               f"must hold positions 0 to {size - 1} along dim {d}.")
    return apply(GATHER, (input,), (d, index))


def _scatter_add_fwd(xp, a, src, dim, index):
    out = a.copy()
    idx = _arr(index)
    xp.add.at(_along(out), _gather_index(xp, idx, dim), src[tuple(slice(0, s) for s in idx.shape)])
    return out


# torch's ScatterAddBackward0: self passes the gradient through, src reads it back where it was added
SCATTER_ADD = defop("ScatterAddBackward0", _scatter_add_fwd,
                    (lambda xp, g, dim, index: g, lambda xp, g, dim, index: xp.apply(GATHER, g, params=(dim, index))),
                    saved=("dim", "index"), n_in=2)


def _sizes(a) -> tuple:
    """An array's sizes as torch's gather/scatter checks read them: a 0-d array counts as size 1."""
    return a.shape if a.ndim else (1,)


def _check_scatter_sizes(input: Tensor, d: int, index: Tensor, src) -> None:
    """torch's scatter shape check: index.size(i) <= input.size(i) for every dim i but ``d``, and
    index.size(i) <= src.size(i) for every dim when src is a tensor (scatter reads src where index is)."""
    shape, ishape = _sizes(input._data), _sizes(index._data)
    wrong = any(i != d and m > n for i, (n, m) in enumerate(zip(shape, ishape)))
    is_tensor = isinstance(src, Tensor)
    if is_tensor and not wrong:
        sshape = _sizes(src._data)
        for i, m in enumerate(ishape):
            if i >= len(sshape):  # (torch reads src.size(i) here: a src with fewer dims fails there)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-len(sshape)}, "
                                 f"{len(sshape) - 1}], but got {i}): src has {len(sshape)} dims, index {len(ishape)}.")
            if m > sshape[i]:
                wrong = True
    if wrong:
        tail = f" and to be no larger size than src {list(src._data.shape)}" if is_tensor else ""
        raise RuntimeError(
            f"Expected index {list(index._data.shape)} to be no larger than self {list(input._data.shape)} apart from "
            f"dimension {d}{tail}: scatter writes src[pos] to self at index[pos] along dim {d} and at pos itself in "
            "every other dim, so the index may not be larger than self in those dims" +
            (", nor larger than src in any dim." if is_tensor else "."))
    if is_tensor and src._data.ndim != index._data.ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as src tensor: index has "
                           f"{index._data.ndim}, src {src._data.ndim}; src is read at the index's positions.")


def check_scatter(input: Tensor, dim: int, index: Tensor, src) -> int:
    """torch's checks for scatter/scatter_add and their in-place forms; returns the wrapped dim."""
    d = _wrap_dim(dim, input._data.ndim)
    if index.dtype._kind != 1:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype (got {input.dtype} and "
                           f"{src.dtype}). Convert src with .to(input.dtype).")
    if len(_sizes(index._data)) != len(_sizes(input._data)) and index._data.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if index._data.size:
        _check_scatter_sizes(input, d, index, src)
    size = input._data.shape[d] if input._data.ndim else 1
    if index._data.size and (index._data.max() >= size or index._data.min() < -size):
        bad = index._data.max() if index._data.max() >= size else index._data.min()
        raise RuntimeError(f"index {int(bad)} is out of bounds for dimension {d} with size {size}")
    return d


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    refuse_unsigned(input.dtype, "scatter_gather_tensor_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    d = check_scatter(input, dim, index, src)
    return apply(SCATTER_ADD, (input, src), (d, index))


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    refuse_unsigned(self.dtype, "scatter_gather_tensor_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    from .inplace import inplace
    d = check_scatter(self, dim, index, src)
    return inplace(SCATTER_ADD, self, (src,), (d, index), "scatter_add_")


def scatter_(self: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce: str | None = None) -> Tensor:
    """In place, with torch's checks and its nodes (ScatterBackward0/1); ``reduce`` goes out of place and back."""
    refuse_unsigned(self.dtype, "scatter_gather_tensor_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    from .inplace import copy_, inplace
    if reduce is not None:
        return copy_(self, scatter(self, dim, index, src, value, reduce=reduce))
    src = value if src is None else src
    d = check_scatter(self, dim, index, src)
    if isinstance(src, Tensor):
        return inplace(SCATTER, self, (src,), (d, index), "scatter_")
    return inplace(SCATTER_VALUE, self, (), (d, index, src), "scatter_")


def _masked_select_fwd(xp, a, mask):
    a_b, m_b = xp.broadcast_arrays(a, _arr(mask))
    return a_b[m_b]


def _masked_scatter_zeros_fwd(xp, g, shape, mask):
    out = xp.zeros(shape, dtype=g.dtype)
    out[xp.broadcast_to(_arr(mask), shape)] = g
    return out


# masked_select reads the (broadcast) input where the mask is set; its gradient writes back there,
# and the engine sums a broadcast input's share
MASKED_SELECT = defop("MaskedSelectBackward0", _masked_select_fwd,
                      lambda xp, g, self, mask: xp.apply(MASKED_SCATTER_ZEROS, g, params=(
                          tuple(np.broadcast_shapes(tuple(self.shape), tuple(mask.shape))), mask)),
                      saved=("self", "mask"))
MASKED_SCATTER_ZEROS = defop("MaskedScatterBackward0", _masked_scatter_zeros_fwd,
                             lambda xp, gg, mask: xp.apply(MASKED_SELECT, gg, params=(mask,)), saved=("mask",))


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    if not isinstance(mask, Tensor) or mask.dtype._kind != 0:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got "
                           f"{mask.dtype if isinstance(mask, Tensor) else type(mask).__name__}")
    from .inplace import broadcast_or_raise
    broadcast_or_raise(mask._data.shape, input._data.shape)
    refuse_unsigned(input.dtype, "masked_select")  # (uint16/32/64: see _ops/unsigned.py)
    return apply(MASKED_SELECT, (input,), (mask,))


def _scatter_src_fwd(xp, a, src, dim, index):
    out = a.copy()
    idx = _arr(index)
    _along(out)[_gather_index(xp, idx, dim)] = src[tuple(slice(0, s) for s in idx.shape)]
    return out


def _scatter_value_fwd(xp, a, dim, index, value):
    out = a.copy()
    _along(out)[_gather_index(xp, _arr(index), dim)] = value
    return out


# torch's overloads: scatter(src=tensor) is ScatterBackward0, scatter(value=number) ScatterBackward1;
# the written positions take their gradient from src, the rest from self
# (src larger than index: torch's backward refuses the index-shaped gradient, and so does the engine)
SCATTER = defop("ScatterBackward0", _scatter_src_fwd,
                (lambda xp, g, dim, index: xp.apply(SCATTER_VALUE, g, params=(dim, index, 0)),
                 lambda xp, g, dim, index: xp.apply(GATHER, g, params=(dim, index))),
                saved=("dim", "index"), n_in=2)
SCATTER_VALUE = defop("ScatterBackward1", _scatter_value_fwd,
                      lambda xp, g, dim, index: xp.apply(SCATTER_VALUE, g, params=(dim, index, 0)), saved=("dim", "index"))


def _scatter_reduce_fwd(xp, a, src, dim, index, reduce):
    out = a.copy()
    idx = _arr(index)
    vals = src[tuple(slice(0, s) for s in idx.shape)] if src.ndim else src
    (xp.add if reduce == "add" else xp.multiply).at(_along(out), _gather_index(xp, idx, dim), vals)
    return out


_no_scatter_derivative = _no_derivative(
    "scatter", "scatter with reduce= records no gradient; use torch.scatter_add for a differentiable sum, or "
    ".detach() the result.")


# scatter(..., reduce='add' | 'multiply'): torch records a node whose backward refuses
SCATTER_REDUCE = defop("torch::autograd::NotImplemented", _scatter_reduce_fwd,
                       (_no_scatter_derivative, _no_scatter_derivative), n_in=2)
SCATTER_VALUE_REDUCE = defop("torch::autograd::NotImplemented",
                             lambda xp, a, dim, index, value, reduce: _scatter_reduce_fwd(
                                 xp, a, xp.asarray(value, dtype=a.dtype), dim, index, reduce),
                             _no_scatter_derivative)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce: str | None = None) -> Tensor:
    refuse_unsigned(input.dtype, "scatter_gather_tensor_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    d = check_scatter(input, dim, index, value if src is None else src)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce!r}; for 'sum', 'prod', "
                           "'mean', 'amax' or 'amin' torch has scatter_reduce.")
    if src is None:
        src = value
    if isinstance(src, Tensor):
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype (got {input.dtype} and "
                               f"{src.dtype}). Convert src with .to(input.dtype).")
        if reduce is not None:
            import warnings
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=2)
            return apply(SCATTER_REDUCE, (input, src), (d, index, reduce))
        return apply(SCATTER, (input, src), (d, index))
    if reduce is not None:
        return apply(SCATTER_VALUE_REDUCE, (input,), (d, index, src, reduce))
    return apply(SCATTER_VALUE, (input,), (d, index, src))


def _index_select_back(xp, g, self_sym_sizes, dim, index):
    if not len(self_sym_sizes):  # (a 0-dim input was selected whole)
        return g
    key = (slice(None),) * dim + (_arr(index),)
    return xp.index_add_zeros(g, self_sym_sizes, key)


INDEX_SELECT = defop("IndexSelectBackward0",
                     lambda xp, a, dim, index: xp.take(a, _arr(index), axis=dim) if a.ndim else a.copy(),
                     _index_select_back, saved=("self_sym_sizes", "dim", "index"))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    refuse_unsigned(input.dtype, "index_select")  # (uint16/32/64: see _ops/unsigned.py)
    if index.dtype._kind != 1:
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index (got {index.dtype})")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if not input._data.ndim and index._data.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index._data.size} value(s)")
    if index._data.size and (index._data.max() >= size or index._data.min() < -size):
        raise IndexError(f"index out of range in self")
    return apply(INDEX_SELECT, (input,), (d, index.reshape(-1) if index._data.ndim == 0 else index))


def _mf_fwd(xp, a, mask, value):
    m = _arr(mask)
    if a.__class__ is m.__class__ is np.ndarray and a.ndim and (m.shape == a.shape or np.broadcast_shapes(
            m.shape, a.shape) == a.shape):
        # (a copy written where the mask is set: for a regular mask such as a causal attention mask,
        # about half the time of np.where's three-way select)
        out = a.copy(order="K")  # (np.where's layout: a transposed input gives a transposed result)
        np.copyto(out, np.asarray(value, dtype=a.dtype), where=m)
        return out
    return xp.where(m, xp.asarray(value, dtype=a.dtype), a)


def _unfilled(xp, g, mask):
    """``g`` with the filled positions zeroed (torch's ``grad.masked_fill(mask, 0)``: MaskedFillBackward0)."""
    return xp.apply(MASKED_FILL, g, params=(mask, 0))


MASKED_FILL = defop("MaskedFillBackward0", _mf_fwd, lambda xp, g, mask, value: _unfilled(xp, g, mask),
                    saved=("mask", "value"))
MASKED_FILL.node_cls._saved_names = ("mask",)  # (torch's names)
MASKED_FILL_T = defop("MaskedFillBackward1", lambda xp, a, v, mask: xp.where(_arr(mask), v.astype(a.dtype), a),
                      (_unfilled, lambda xp, g, mask: xp.sum(_unfilled(xp, g, ~mask))),
                      saved=("mask",), n_in=2)


def check_masked_fill(input: Tensor, mask: Tensor, value, inplace: bool) -> None:
    """masked_fill's checks, the same for the in-place form, before anything is computed or written."""
    if not isinstance(mask, Tensor) or mask.dtype._kind != 0:
        name = D.CPP_NAMES.get(mask.dtype.name, mask.dtype.name) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
    elif not isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"masked_fill() received an invalid combination of arguments - got (Tensor, "
                        f"{type(value).__name__}), but expected one of: (Tensor mask, Tensor value) or "
                        "(Tensor mask, Number value)")
    from .inplace import broadcast_or_raise, check_broadcast_into
    if inplace:
        check_broadcast_into(input, mask)
    else:
        broadcast_or_raise(mask._data.shape, input._data.shape)
    refuse_unsigned(input.dtype, "masked_fill")  # (uint16/32/64, after torch's checks: see _ops/unsigned.py)


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    check_masked_fill(input, mask, value, inplace=False)
    if isinstance(value, Tensor):
        return apply(MASKED_FILL_T, (input, value), (mask,))
    return apply(MASKED_FILL, (input,), (mask, value))


def _diag_embed_fwd(xp, g, shape, offset, d1, d2):
    from .shape import _diagonal_fwd
    z = xp.zeros(shape, dtype=g.dtype)
    _diagonal_fwd(xp, z, offset, d1, d2)[...] = g
    return z


DIAG_EMBED_INTO = defop("DiagonalBackwardBackward0", _diag_embed_fwd,
                        lambda xp, g, offset, d1, d2: xp.apply(_diagonal_op(), g, params=(offset, d1, d2)),
                        saved=("offset", "d1", "d2"))


def _diagonal_op():
    from .shape import DIAGONAL  # (shape imports this module)
    return DIAGONAL


def nonzero(input: Tensor, *, as_tuple: bool = False):
    nz = np.nonzero(input._data) if input._data.ndim else ()  # (NumPy refuses a 0-dim array)
    if as_tuple:
        return tuple(_make(np.asarray(i, dtype=np.int64)) for i in nz) if input._data.ndim else \
            (_make(np.zeros(int(bool(input._data)), dtype=np.int64)),)
    return _make(np.stack(nz, axis=1).astype(np.int64) if input._data.ndim else
                 np.zeros((int(bool(input._data)), 0), dtype=np.int64))


def _take_back_fwd(xp, g, shape, index):
    out = xp.zeros(shape, dtype=g.dtype)
    xp.add.at(out.reshape(-1), _arr(index).reshape(-1), g.reshape(-1))  # (a repeated index adds up)
    return out


# take reads the input as flat; its gradient puts (adding) the gradient back at those positions
TAKE = defop("TakeBackward0", lambda xp, a, index: xp.take(a, _arr(index)),
             lambda xp, g, self_sym_sizes, index: xp.apply(TAKE_BACK, g, params=(tuple(self_sym_sizes), index)),
             saved=("self_sym_sizes", "index"))
TAKE_BACK = defop("PutBackward0", _take_back_fwd, lambda xp, gg, index: xp.apply(TAKE, gg, params=(index,)),
                  saved=("index",))


def take(input: Tensor, index: Tensor) -> Tensor:
    refuse_unsigned(input.dtype, "take_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    if not isinstance(index, Tensor) or index.dtype._kind != 1:
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{index.dtype if isinstance(index, Tensor) else type(index).__name__}")
    n = input._data.size
    idx = index._data
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx[(idx < -n) | (idx >= n)].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return apply(TAKE, (input,), (index,))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype is not None and tensor.dtype._kind != 1:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._data
    if num_classes == -1:
        num_classes = int(idx.max()) + 1 if idx.size else 0
    if idx.size and (idx.min() < 0 or idx.max() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if idx.size and idx.max() >= num_classes
                           else "Class values must be non-negative.")
    return _make((idx[..., None] == np.arange(num_classes)).astype(np.int64))


# the gradient of keeping a triangle is the same triangle of the gradient
TRIL = defop("TrilBackward0", lambda xp, a, diagonal: xp.tril(a, diagonal),
             lambda xp, g, diagonal: xp.apply(TRIL, g, params=(diagonal,)), saved=("diagonal",))
TRIU = defop("TriuBackward0", lambda xp, a, diagonal: xp.triu(a, diagonal),
             lambda xp, g, diagonal: xp.apply(TRIU, g, params=(diagonal,)), saved=("diagonal",))


def _triangle(op, input: Tensor, diagonal: int, name: str) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return apply(op, (input,), (int(diagonal),))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(TRIL, input, diagonal, "tril")


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(TRIU, input, diagonal, "triu")


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(MASKED_FILL, MASKED_FILL_T, TRIL, TRIU)
