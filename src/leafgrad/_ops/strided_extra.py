"""Strided views and their scatter forms: as_strided(_), unfold, as_strided_scatter, diagonal_scatter,
select_scatter, slice_scatter, and fill_diagonal_.

torch's sizes, strides and storage offsets count elements of the tensor's storage. Here the storage of a
tensor is the array of the tensor it is a view of (or its own array), read flat, and every position is an
element index into it; ``as_strided`` builds a NumPy strided view on that memory, so writes through it
reach the tensor as torch's do. The gradients work on those positions: a view's gradient is added into a
zero storage at the positions the view reads and read back at the positions the input occupies; a
``*_scatter`` op's gradient is the output gradient with the written positions zeroed (for the input) and
read at them (for the written values).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap_dim
from .indexing import INDEX
from .lazy import bind
from .registry import apply, defop, show_saved_as, unsigned_int64

__all__ = ["as_strided", "as_strided_", "as_strided_scatter", "diagonal_scatter", "select_scatter", "slice_scatter"]


# ----------------------------------------------------------------------------- storage positions
def _storage(t: Tensor):
    """(the flat storage array, ``t``'s storage offset, ``t``'s strides) in elements."""
    root = (t._base if t._base is not None else t)._data
    while not root.flags.c_contiguous and isinstance(root.base, np.ndarray):
        root = root.base
    flat = root.reshape(-1)
    item = t._data.itemsize
    offset = (t._data.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // item \
        if t._data.size else 0
    return flat, offset, tuple(s // item for s in t._data.strides)


def _positions(size, stride, offset: int) -> np.ndarray:
    """The storage position of each element of a (size, stride, offset) view."""
    pos = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return pos


def _check_geometry(size, stride, offset: int, storage_size: int, itemsize: int) -> None:
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: as_strided got {len(size)} sizes and "
                           f"{len(stride)} strides.")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = 0 if any(n == 0 for n in size) else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > storage_size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {need * itemsize} are out of bounds for "
                           f"storage of size {storage_size * itemsize}")


# ----------------------------------------------------------------------------- as_strided, unfold
def _as_strided_fwd(xp, a, size, stride, storage_offset, storage, input_positions):
    start = storage[storage_offset:] if storage_offset < storage.size else storage[:0]
    item = storage.itemsize
    return xp.lib.stride_tricks.as_strided(start, tuple(size), tuple(s * item for s in stride),
                                           writeable=storage.flags.writeable)


def _restride_grad(xp, g, size, stride, storage_offset, input_positions):
    """The input's gradient: ``g`` added into a zero storage where the view reads, read where the input sits."""
    out_pos = _positions(size, stride, storage_offset).reshape(-1)
    n = int(max(out_pos.max(initial=-1), input_positions.max(initial=-1))) + 1
    store = xp.index_add_zeros(g.reshape((-1,)), (n,), (out_pos,))
    return xp.apply(INDEX, store, params=((input_positions,),))


AS_STRIDED = defop("AsStridedBackward0", _as_strided_fwd,
                   lambda xp, g, size, stride, storage_offset, input_positions: _restride_grad(
                       xp, g, size, stride, storage_offset, input_positions),
                   saved=("size", "stride", "storage_offset", "input_positions"), view=True)
AS_STRIDED.node_cls._saved_names = ("size", "stride", "storage_offset")
AS_STRIDED_ = defop("AsStridedBackward1", _as_strided_fwd,  # (as_strided_: torch's in-place overload's node)
                    lambda xp, g, size, stride, storage_offset, input_positions: _restride_grad(
                        xp, g, size, stride, storage_offset, input_positions),
                    saved=("size", "stride", "storage_offset", "input_positions"))
AS_STRIDED_.node_cls._saved_names = ("size", "stride", "storage_offset")


def _geometry(input: Tensor, size, stride, storage_offset):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    flat, own_offset, own_stride = _storage(input)
    offset = own_offset if storage_offset is None else int(storage_offset)
    _check_geometry(size, stride, offset, flat.size, flat.itemsize)
    return size, stride, offset, flat, _positions(input._data.shape, own_stride, own_offset)


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s storage with the given sizes, strides and offset (in elements)."""
    size, stride, offset, flat, in_pos = _geometry(input, size, stride, storage_offset)
    return apply(AS_STRIDED, (input,), (size, stride, offset, flat, in_pos))


def as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``self`` itself given the new geometry (an in-place op: its version moves on); its history goes
    through AsStridedBackward1, as torch's."""
    from .._tensor import _STATE, vc_of
    from ..provenance import user_line
    from .inplace import _check_allowed
    size, stride, offset, flat, in_pos = _geometry(self, size, stride, storage_offset)
    if _STATE.grad and (self._requires_grad or self._grad_fn is not None):
        _check_allowed(self, "as_strided_")
    out = apply(AS_STRIDED_, (self,), (size, stride, offset, flat, in_pos))
    self._data = out._data
    if out._grad_fn is not None:
        self._grad_fn, self._output_nr, self._requires_grad = out._grad_fn, 0, True
    (self._vc or vc_of(self)).bump(user_line(2))
    return self


def _unfold_fwd(xp, a, dimension, size, step):
    if not a.ndim:  # (a 0-d tensor reads as one element: its one window has ``size`` (0 or 1) of it)
        return xp.lib.stride_tricks.as_strided(a, (size,), (0,), writeable=a.flags.writeable)
    arr = a
    n = arr.shape[dimension]
    shape = list(arr.shape)
    shape[dimension] = (n - size) // step + 1
    strides = list(arr.strides)
    strides[dimension] = arr.strides[dimension] * step
    return xp.lib.stride_tricks.as_strided(arr, tuple(shape) + (size,), tuple(strides) + (arr.strides[dimension],),
                                           writeable=arr.flags.writeable)


def _unfold_grad(xp, g, self_sym_sizes, dimension, size, step):
    shape = tuple(self_sym_sizes)
    n = 1
    for s in shape:
        n *= s
    pos = _unfold_fwd(np, np.arange(n, dtype=np.int64).reshape(shape), dimension, size, step)
    return xp.index_add_zeros(g.reshape((-1,)), (n,), (pos.reshape(-1),)).reshape(shape)


UNFOLD = defop("UnfoldBackward0", _unfold_fwd, _unfold_grad,
               saved=("self_sym_sizes", "dimension", "size", "step"), view=True)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements, ``step`` apart, along ``dimension``, as a new last dim (a view)."""
    nd = self._data.ndim
    d = _wrap_dim(dimension, max(nd, 1))
    n = self._data.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply(UNFOLD, (self,), (d, int(size), int(step)))


# ----------------------------------------------------------------------------- the scatter forms
def _embed_fwd(xp, a, src, positions):
    out = a.copy()
    out.reshape(-1)[positions.reshape(-1)] = src.reshape(-1)
    return out


def _written(positions, shape: tuple) -> np.ndarray:
    mask = np.zeros(int(np.prod(shape)), dtype=bool)
    mask[positions.reshape(-1)] = True
    return mask.reshape(shape)


def _kept_grad(xp, g, positions):
    return xp.masked_fill(g, xp.constant(_written(positions, tuple(g.shape))), 0.0)


def _slice_grad(xp, g, positions):
    """torch 2.13's gradient of as_strided_scatter's input: the output gradient at the written positions,
    zero elsewhere (its as_strided_scatter_backward copies the slice, where the other *_scatter ops zero it).
    Kept as torch computes it, so code ported from torch sees the same numbers."""
    return xp.masked_fill(g, xp.constant(~_written(positions, tuple(g.shape))), 0.0)


def _src_grad(xp, g, positions):
    return xp.apply(INDEX, g.reshape((-1,)), params=((positions.reshape(-1),),)).reshape(tuple(positions.shape))


# (each op's forward and formulas name its own parameters: defop reads them, and shows them as torch's
# saved values; ``positions``, the flat positions written, is kept but not shown)
DIAGONAL_SCATTER = defop(
    "DiagonalScatterBackward0", lambda xp, a, src, offset, dim1, dim2, positions: _embed_fwd(xp, a, src, positions),
    (lambda xp, g, offset, dim1, dim2, positions: _kept_grad(xp, g, positions),
     lambda xp, g, offset, dim1, dim2, positions: _src_grad(xp, g, positions)),
    saved=("offset", "dim1", "dim2", "positions"), n_in=2)
SELECT_SCATTER = defop(
    "SelectScatterBackward0", lambda xp, a, src, dim, index, positions: _embed_fwd(xp, a, src, positions),
    (lambda xp, g, dim, index, positions: _kept_grad(xp, g, positions),
     lambda xp, g, dim, index, positions: _src_grad(xp, g, positions)),
    saved=("dim", "index", "positions"), n_in=2)
SLICE_SCATTER = defop(
    "SliceScatterBackward0", lambda xp, a, src, dim, start, end, step, positions: _embed_fwd(xp, a, src, positions),
    (lambda xp, g, dim, start, end, step, positions: _kept_grad(xp, g, positions),
     lambda xp, g, dim, start, end, step, positions: _src_grad(xp, g, positions)),
    saved=("dim", "start", "end", "step", "positions"), n_in=2)
AS_STRIDED_SCATTER = defop(
    "AsStridedScatterBackward0",
    lambda xp, a, src, size, stride, storage_offset, positions: _embed_fwd(xp, a, src, positions),
    (lambda xp, g, size, stride, storage_offset, positions: _slice_grad(xp, g, positions),
     lambda xp, g, size, stride, storage_offset, positions: _src_grad(xp, g, positions)),
    saved=("size", "stride", "storage_offset", "positions"), n_in=2)
for _op in (DIAGONAL_SCATTER, SELECT_SCATTER, SLICE_SCATTER, AS_STRIDED_SCATTER):
    _op.node_cls._saved_names = _op.node_cls._saved_names[:-1]
show_saved_as(SELECT_SCATTER, "index", unsigned_int64)  # (torch reads its int64 back unsigned: -1 -> 2**64 - 1)


def _grid(t: Tensor) -> np.ndarray:
    return np.arange(t._data.size, dtype=np.int64).reshape(t._data.shape)


def _scatter(op, input: Tensor, src: Tensor, params: tuple, positions: np.ndarray, what: str) -> Tensor:
    if tuple(src._data.shape) != tuple(positions.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(positions.shape)} ({what}).")
    if src._data.dtype != input._data.dtype:
        src = src.to(input.dtype)
    return apply(op, (input, src), params + (positions,))


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input`` with its diagonal (as ``input.diagonal(offset, dim1, dim2)`` reads it) replaced by ``src``."""
    from .shape import _diagonal_fwd
    nd = input._data.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    pos = np.ascontiguousarray(_diagonal_fwd(np, _grid(input), offset, d1, d2))
    return _scatter(DIAGONAL_SCATTER, input, src, (offset, d1, d2), pos, "the diagonal")


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at "
                         f"dimension {d}")
    pos = np.take(_grid(input), index % n, axis=d)
    return _scatter(SELECT_SCATTER, input, src, (d, int(index)), pos, f"index {index} of dim {d}")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """``input`` with the slice ``start:end:step`` of ``dim`` replaced by ``src``."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = _wrap_dim(dim, input._data.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    pos = np.ascontiguousarray(_grid(input)[key])
    return _scatter(SLICE_SCATTER, input, src, (d, start, end, step), pos, f"slice {start}:{end}:{step} of dim {d}")


def _dense_strides(shape: tuple, strides: tuple) -> tuple:
    """The strides of torch's layout-preserving clone: dense, with the dims in ``strides``' order."""
    order = sorted(range(len(shape)), key=lambda d: -strides[d])  # (stable: ties keep their order)
    dense = [0] * len(shape)
    step = 1
    for d in reversed(order):
        dense[d] = step
        step *= shape[d]
    return tuple(dense)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``input`` with the (size, stride, offset) view of its clone's storage replaced by ``src``. torch's clone
    keeps the input's dim order (a transposed input's storage runs down its columns), and so do the positions
    here; the result itself is C-contiguous."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    a = input._data
    _check_geometry(size, stride, offset, a.size, a.itemsize)
    where = _positions(a.shape, _dense_strides(a.shape, tuple(s // a.itemsize for s in a.strides)), 0).reshape(-1)
    element_at = np.empty(a.size, dtype=np.int64)
    element_at[where] = np.arange(a.size, dtype=np.int64)
    pos = element_at[_positions(size, stride, offset)]
    return _scatter(AS_STRIDED_SCATTER, input, src, (size, stride, storage_offset), pos, "the strided view")


# ----------------------------------------------------------------------------- fill_diagonal_
def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal in place (every dim the same length past 2-d); ``wrap`` restarts it below a tall
    matrix's square. Written through a strided view of ``self``, so the history is torch's CopySlices."""
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    sh = self._data.shape
    if nd > 2 and len(set(sh)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    _, offset, strides = _storage(self)
    n = min(sh)
    step = sum(strides)
    if wrap and nd == 2 and sh[0] > sh[1] + 1:
        total = self._data.size
        count = (total - 1) // step + 1 if self.is_contiguous() else n
        view = as_strided(self, (count,), (step,), offset)
    else:
        view = as_strided(self, (n,), (step,), offset)
    from .inplace import fill_
    fill_(view, fill_value)
    return self


def _bind_methods() -> None:
    methods = {"as_strided": as_strided, "as_strided_": as_strided_, "as_strided_scatter": as_strided_scatter,
               "unfold": unfold, "diagonal_scatter": diagonal_scatter, "select_scatter": select_scatter,
               "slice_scatter": slice_scatter, "fill_diagonal_": fill_diagonal_}
    bind("strided_extra", methods)


#: torch's top-level forms, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in ("as_strided", "as_strided_", "as_strided_scatter", "diagonal_scatter",
                                                "select_scatter", "slice_scatter")}

_bind_methods()
