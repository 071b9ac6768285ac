"""Shape ops. Most are views (``view=True``): the result shares memory and the version
counter with its input, exactly like torch, so in-place writes are seen through both.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _wrap_dim
from .indexing import DIAG_EMBED_INTO, SELECT_BACKWARD, SLICE_BACKWARD
from .layout import check_rank, contiguous_format, is_in_format, preserve_format
from .registry import apply, defop, show_saved_as
from .numpy_kwargs import numpy_kwargs
from .unsigned import refuse_flip
from .._unsigned_array import keep_shell

_make = Tensor._make


def _infer_shape(shape, numel: int) -> tuple:
    if shape and -1 not in shape and min(shape) >= 0 and math.prod(shape) == numel:
        return tuple(shape)  # (every size given and right: the common case, no list and no loop)
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(shape):
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _size_args(args, name: str = "view") -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    for a in args:
        if a.__class__ is not int:
            break
    else:
        return tuple(args)  # (plain ints: the common case)
    for a in args:  # (int() would truncate 2.5 silently)
        if isinstance(a, bool) or not isinstance(a, (int, np.integer, Tensor)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({', '.join(type(x).__name__ for x in args)}), but expected one of: "
                            "(torch.dtype dtype) or (tuple of ints size)")
    return tuple(int(a) for a in args)


def _view_fwd(xp, a, shape):
    return a.reshape(shape, copy=False)


def _unview(xp, g, self_sym_sizes):
    """The backward of every view that only reshapes (view, squeeze, reshape's alias): the gradient
    reshaped back, itself a view on arrays."""
    return g.reshape(self_sym_sizes)


VIEW = defop("ViewBackward0", _view_fwd, _unview, saved=("self_sym_sizes",), view=True)
UNSAFE_VIEW = defop("UnsafeViewBackward0", lambda xp, a, shape: a.reshape(shape), _unview,
                    saved=("self_sym_sizes",))
ALIAS = defop("AliasBackward0", lambda xp, a: a.view(), lambda xp, g: g, view=True)


def view(input: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int, np.integer)):
        return _view_as_dtype(input, shape[0])
    shape = _infer_shape(_size_args(shape), input._data.size)
    try:
        input._data.reshape(shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead: it copies when a view is impossible.") from None
    return apply(VIEW, (input,), (shape,))


def _view_as_dtype(input: Tensor, dtype) -> Tensor:
    """``view(dtype)``: the same bytes read as another dtype, sharing memory and version counter.
    As in torch the result has no history (reinterpreting bits has no derivative)."""
    from .. import _dtype as D
    from .._tensor import vc_of
    dt = D.to_dtype(dtype)
    a = input._data
    old, new = a.dtype.itemsize, np.dtype(dt.np).itemsize
    if old != new:
        names = (D.scalar_type_name(input.dtype), D.scalar_type_name(dt))
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names[0]} as {names[1]} (different element sizes)")
        if new > old and a.shape[-1] % (new // old):
            raise RuntimeError(f"self.size(-1) must be divisible by {new // old} to view {names[0]} as {names[1]} "
                               f"(different element sizes), but got {a.shape[-1]}")
        if a.ndim and a.strides[-1] != old:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names[0]} as {names[1]} (different element "
                               "sizes), but got a strided last dimension. Call .contiguous() first.")
    out = _make(keep_shell(a.view(dt.np)))  # (uint16/32/64: their array type, _unsigned_array.py)
    out._vc = vc_of(input)
    return out


def reshape(input: Tensor, *shape) -> Tensor:
    shape = _infer_shape(_size_args(shape), input._data.size)
    try:
        input._data.reshape(shape, copy=False)
    except ValueError:
        return apply(UNSAFE_VIEW, (input.clone(),), (shape,))
    return apply(VIEW, (input,), (shape,))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, shp[:s] + (n,) + shp[e + 1:])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    shp = input._data.shape
    sizes = tuple(sizes)
    if -1 not in sizes and math.prod(sizes) != shp[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({shp[d]}) in the input tensor")
    sizes = _infer_shape(sizes, shp[d])
    return view(input, shp[:d] + sizes + shp[d + 1:])


TRANSPOSE = defop("TransposeBackward0", lambda xp, a, d0, d1: xp.swapaxes(a, d0, d1),
                  lambda xp, g, d0, d1: xp.swapaxes(g, d0, d1), saved=("d0", "d1"), view=True)
TRANSPOSE.node_cls._saved_names = ("dim0", "dim1")  # (torch's names)
T = defop("TBackward0", lambda xp, a: a.T, lambda xp, g: xp.apply(T, g), view=True)  # (torch's t(): TBackward0)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = input._data.ndim
    return apply(TRANSPOSE, (input,), (_wrap_dim(dim0, nd), _wrap_dim(dim1, nd)))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D. "
                           "Use .transpose(dim0, dim1) or .mT for batches of matrices.")
    return apply(T, (input,))


def _inverse_perm(dims) -> tuple:
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


PERMUTE = defop("PermuteBackward0", lambda xp, a, dims: a.transpose(dims),
                lambda xp, g, dims: xp.transpose(g, _inverse_perm(dims)), saved=("dims",), view=True)


def permute(input: Tensor, *dims) -> Tensor:
    dims = _size_args(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(PERMUTE, (input,), (dims,))


def movedim(input: Tensor, source, destination) -> Tensor:
    nd = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap_dim(s, nd) for s in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    for word, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{word}` ({dims})")
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


SQUEEZE = defop("SqueezeBackward0", lambda xp, a: a.reshape(tuple(s for s in a.shape if s != 1)),
                _unview, saved=("self_sym_sizes",), view=True)
SQUEEZE_DIM = defop("SqueezeBackward1", lambda xp, a, dim: a.reshape(a.shape[:dim] + a.shape[dim + 1:])
                    if a.shape[dim] == 1 else a.view(),
                    _unview, saved=("self_sym_sizes",), view=True)
# what torch records for the squeeze inside matmul(vector, matrix)
SQUEEZE_MATMUL = defop("SqueezeBackward4", lambda xp, a, dims: a.reshape(
    tuple(s for i, s in enumerate(a.shape) if not (i in dims and s == 1))),
    _unview, saved=("self_sym_sizes",), view=True)
SQUEEZE_DIMS = defop("SqueezeBackward2", lambda xp, a, dims: a.reshape(
    tuple(s for i, s in enumerate(a.shape) if not (i in dims and s == 1))),
    _unview, saved=("self_sym_sizes",), view=True)


@numpy_kwargs
def squeeze(input: Tensor, dim=None) -> Tensor:
    nd = input._data.ndim
    if dim is None:
        return apply(SQUEEZE, (input,))
    if isinstance(dim, (tuple, list)):
        return apply(SQUEEZE_DIMS, (input,), (tuple(_wrap_dim(d, nd) for d in dim),))
    return apply(SQUEEZE_DIM, (input,), (_wrap_dim(dim, nd),))


UNSQUEEZE = defop("UnsqueezeBackward0", lambda xp, a, dim: xp.expand_dims(a, dim),
                  lambda xp, g, dim: xp.squeeze(g, dim), saved=("dim",), view=True)


@numpy_kwargs
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return apply(UNSQUEEZE, (input,), (_wrap_dim(dim, input._data.ndim + 1),))


# expand's gradient is the sum over the broadcast dims: the engine reduces it, as for any
# broadcasting op, so the formula is the identity.
EXPAND = defop("ExpandBackward0", lambda xp, a, shape: xp.broadcast_to(a, shape), lambda xp, g: g, view=True)
EXPAND.node_cls._saved_self_sym_sizes = property(lambda node: node._in_meta[0][0])  # (torch's saved shape)


def expand(input: Tensor, *sizes) -> Tensor:
    return apply(EXPAND, (input,), (expanded_sizes(input, _size_args(sizes)),))


def _type_word(t: Tensor) -> str:
    """How torch's expand message names a tensor's type: its legacy name, or for uint16/32/64 (which have
    none) the dispatch key's ("CPUUInt32Type")."""
    from .. import _dtype as D
    return f"CPU{D.scalar_type_name(t.dtype)}Type" if t.dtype in D._UNSIGNED_WIDE else t.type()


def expanded_sizes(input: Tensor, sizes) -> tuple:
    """The shape ``input.expand(*sizes)`` has, or torch's error for sizes it cannot expand to."""
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand({_type_word(input)}{{{list(shp)}}}, size=[{', '.join(map(str, sizes))}]): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shp)})")
    lead = len(sizes) - len(shp)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   "non-existing dimension")
            out.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            s = cur
        if cur != 1 and cur != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shp)}")
        out.append(s)
    return tuple(out)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


def broadcast_to(input: Tensor, shape) -> Tensor:
    return expand(input, tuple(shape))


def _slice_fwd(xp, a, dim, start, end, step):
    key = (slice(None),) * dim + (slice(start, end, step),)
    return a[key]


# (their gradients are written into zeros: SliceBackwardBackward0 / SelectBackwardBackward0, as torch's)
SLICE = defop("SliceBackward0", _slice_fwd,
              lambda xp, g, self_sym_sizes, dim, start, end, step: xp.apply(
                  SLICE_BACKWARD, g, params=(self_sym_sizes, (slice(None),) * dim + (slice(start, end, step),))),
              saved=("self_sym_sizes", "dim", "start", "end", "step"), view=True)
# the trailing Ellipsis makes NumPy return a 0-d view rather than a scalar copy
SELECT = defop("SelectBackward0", lambda xp, a, dim, index: a[(slice(None),) * dim + (index, Ellipsis)],
               lambda xp, g, self_sym_sizes, dim, index: xp.apply(
                   SELECT_BACKWARD, g, params=(self_sym_sizes, (slice(None),) * dim + (index,))),
               saved=("self_sym_sizes", "dim", "index"), view=True)


def narrow_xp(xp, a, dim: int, start: int, length: int):
    """``narrow`` inside a backward formula, on either interpreter (a SliceBackward0 on Tensors)."""
    return xp.apply(SLICE, a, params=(dim, start, start + length, 1))


def select(input: Tensor, dim: int, index: int) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at "
                         f"dimension {d}")
    return apply(SELECT, (input,), (d, index % size if size else index))


def slice_dim(input: Tensor, dim: int, start, end, step: int = 1) -> Tensor:
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    s, e, st = slice(start, end, step).indices(size)
    e = max(e, s)
    return apply(SLICE, (input,), (d, s, e, st))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(start, Tensor):
        start = start.item()
    if start < 0:
        start += size
    if start < 0 or start + length > size or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply(SLICE, (input,), (d, start, start + length, 1))


def _diagonal_fwd(xp, a, offset, dim1, dim2):
    """A writable strided view of the diagonal (NumPy's own np.diagonal is read-only)."""
    idx = [slice(None)] * a.ndim
    idx[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    s = a[tuple(idx)]
    n = max(0, min(s.shape[dim1], s.shape[dim2]))
    rest = [i for i in range(a.ndim) if i not in (dim1, dim2)]
    shape = tuple(s.shape[i] for i in rest) + (n,)
    strides = tuple(s.strides[i] for i in rest) + (s.strides[dim1] + s.strides[dim2],)
    return xp.lib.stride_tricks.as_strided(s, shape, strides, writeable=s.flags.writeable)


DIAGONAL = defop("DiagonalBackward0", _diagonal_fwd,
                 lambda xp, g, self_sym_sizes, offset, dim1, dim2: xp.apply(
                     DIAG_EMBED_INTO, g, params=(self_sym_sizes, offset, dim1, dim2)),
                 saved=("self_sym_sizes", "offset", "dim1", "dim2"), view=True)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    nd = input._data.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(DIAGONAL, (input,), (offset, d1, d2))


FLIP = defop("FlipBackward0", lambda xp, a, dims: xp.flip(a, dims).copy(), lambda xp, g, dims: xp.flip(g, dims),
             saved=("dims",))


def flip(input: Tensor, *dims) -> Tensor:
    dims = tuple(_wrap_dim(d, input._data.ndim) for d in _size_args(dims))
    refuse_flip(input.dtype, input._data, dims)  # (uint16/32/64: torch's rule, see unsigned.py)
    return apply(FLIP, (input,), (dims,))


def _cat_back(xp, g, i, dim, sizes):
    start = 0
    for s in sizes[:i]:
        start += s
    return narrow_xp(xp, g, dim, start, sizes[i])


def _legacy_empty(a) -> bool:
    """A 1-d array of shape (0,): torch's cat leaves these out of its shape checks and its result."""
    return a.ndim == 1 and a.shape[0] == 0


def _cat_fwd(xp, arrays, dim, sizes):
    kept = [a for a in arrays if not _legacy_empty(a)]  # (they still get their empty gradient)
    return xp.concatenate(kept if kept else arrays[:1], axis=dim)


CAT = defop("CatBackward0", _cat_fwd, _cat_back, saved=("dim", "sizes"), variadic=True)
CAT.node_cls._saved_names = ("dim",)  # (torch's names)
STACK = defop("StackBackward0", lambda xp, arrays, dim: xp.stack(arrays, axis=dim),
              lambda xp, g, i, dim: xp.apply(SELECT, g, params=(dim, i)), saved=("dim",), variadic=True)


def _tensors(tensors, name: str) -> tuple:
    """The tensors of cat/stack, refused as torch refuses them (cat's empty list is a ValueError)."""
    short = name.replace("torch.", "")
    if isinstance(tensors, Tensor):
        raise TypeError(f"{short}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    if not tensors:
        if short == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


@numpy_kwargs
def cat(tensors, dim: int = 0) -> Tensor:
    from .. import _dtype as D
    tensors = _tensors(tensors, "torch.cat")
    # torch skips legacy empty 1-d tensors of shape (0,) in the shape checks and the result; they
    # stay inputs (so they get an empty gradient) and take part in type promotion
    shaped = [(i, t) for i, t in enumerate(tensors) if not _legacy_empty(t._data)] or [(0, tensors[0])]
    nd = shaped[0][1]._data.ndim
    if nd == 0:
        raise RuntimeError(f"zero-dimensional tensor (at position {shaped[0][0]}) cannot be concatenated")
    d = _wrap_dim(dim, nd)
    ref = shaped[0][1]._data.shape
    head, tail = ref[:d], ref[d + 1:]
    for i, t in shaped:
        s = t._data.shape
        if len(s) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(s)}")
        if s[:d] == head and s[d + 1:] == tail:  # (the usual case: one comparison of each side)
            continue
        bad = next((k for k, (a, b) in enumerate(zip(s, ref)) if k != d and a != b), None)
        if bad is not None:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {ref[bad]} but "
                               f"got size {s[bad]} for tensor number {i} in the list.")
    first = tensors[0]._data.dtype
    for t in tensors:
        if t._data.dtype != first:
            dt = D.result_type(*tensors)
            cast = None if all(t._data.dtype == dt.np for t in tensors) else dt.np
            break
    else:
        cast = None  # (one dtype: the result's, as type promotion would find)
    sizes = tuple(t._data.shape[d] if t._data.ndim == nd else 0 for t in tensors)
    return apply(CAT, tensors, (d, sizes), cast=cast)


concat = concatenate = cat


@numpy_kwargs
def stack(tensors, dim: int = 0) -> Tensor:
    from .. import _dtype as D
    tensors = _tensors(tensors, "torch.stack")
    ref = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                               f"{list(t._data.shape)} at entry {i}")
    d = _wrap_dim(dim, len(ref) + 1)
    dt = D.result_type(*tensors)
    cast = None if all(t._data.dtype == dt.np for t in tensors) else dt.np
    return apply(STACK, tensors, (d,), cast=cast)


def hstack(tensors) -> Tensor:
    tensors = _tensors(tensors, "torch.hstack")
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    return cat([t if t._data.ndim > 1 else t.reshape(1, -1) for t in _tensors(tensors, "torch.vstack")], 0)


def _zeros_for(xp, g_list, shapes, ref):
    """Fill in zeros for outputs that received no gradient (the engine's list may be short)."""
    g_list = list(g_list) + [None] * (len(shapes) - len(g_list))
    dtype = xp.dtype_of(ref)
    return [g if g is not None else xp.zeros(s, dtype=dtype) for g, s in zip(g_list, shapes)]


def _first(grads):
    for g in grads:
        if g is not None:
            return g
    return None


def _split_back(xp, grads, dim, split_sizes, self_sym_sizes):
    ref = _first(grads)
    shapes = [self_sym_sizes[:dim] + (s,) + self_sym_sizes[dim + 1:] for s in split_sizes]
    return xp.concatenate(_zeros_for(xp, grads, shapes, ref), axis=dim)


def _split_fwd(xp, a, dim, split_sizes):
    bounds = np.cumsum(split_sizes)[:-1]
    return tuple(xp.split(a, bounds, axis=dim))


SPLIT = defop("SplitBackward0", _split_fwd, _split_back, saved=("dim", "split_sizes", "self_sym_sizes"),
              n_out=-1, view=True)
SPLIT.node_cls._saved_names = ("dim", "split_size", "self_sym_sizes")  # (torch's: one size, the last chunk may be
show_saved_as(SPLIT, "split_size", lambda sizes: sizes[0])  # smaller; the formula takes every chunk's size)
SPLIT_SIZES = defop("SplitWithSizesBackward0", _split_fwd, _split_back,
                    saved=("dim", "split_sizes", "self_sym_sizes"), n_out=-1, view=True)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0):
    d = _wrap_dim(dim, tensor._data.ndim)
    size = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes={list(sizes)}")
        return apply(SPLIT_SIZES, (tensor,), (d, sizes))
    step = int(split_size_or_sections)
    if step <= 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    sizes = tuple(min(step, size - s) for s in range(0, size, step)) if size else (0,)
    return apply(SPLIT, (tensor,), (d, sizes))


def chunk(input: Tensor, chunks: int, dim: int = 0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    step = -(-size // chunks) if size else 1
    return split(input, step, d)


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0):
    """``sections`` pieces as even as possible, or the pieces between ``indices`` (sliced as Python
    slices: clipped to the dim, empty where an index goes backwards), each a slice of the input."""
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.dtype._kind != 1 or t._data.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor of dtype long, but got a tensor with {t._data.ndim} dims")
        indices_or_sections = int(t._data) if t._data.ndim == 0 else [int(i) for i in t._data]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        bounds, at = [], 0
        for k in range(sections - 1):
            at += base + (1 if k < extra else 0)
            bounds.append(at)
    else:
        bounds = [int(i) for i in indices_or_sections]
    starts = [0] + bounds
    ends = bounds + [size]
    key = [slice(None)] * input._data.ndim
    pieces = []
    for lo, hi in zip(starts, ends):
        key[d] = slice(lo, hi)  # (Python's slice rules, as torch: negative indices count from the end)
        pieces.append(input[tuple(key)])
    return tuple(pieces)


def _unbind_back(xp, grads, dim, self_sym_sizes):
    ref = _first(grads)
    shape = self_sym_sizes[:dim] + self_sym_sizes[dim + 1:]
    return xp.stack(_zeros_for(xp, grads, [shape] * self_sym_sizes[dim], ref), axis=dim)


UNBIND = defop("UnbindBackward0", lambda xp, a, dim: tuple(xp.moveaxis(a, dim, 0)), _unbind_back,
               saved=("dim", "self_sym_sizes"), n_out=-1, view=True)
UNBIND.node_cls._saved_names = ("dim",)  # (torch's names)


def unbind(input: Tensor, dim: int = 0):
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return apply(UNBIND, (input,), (_wrap_dim(dim, input._data.ndim),))


def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """``input`` itself when it is laid out as ``memory_format`` says (row-major by default), else a
    copy so laid out (recorded as torch records it: CloneBackward0)."""
    if memory_format is None:
        if input._data.flags.c_contiguous:
            return input
        memory_format = contiguous_format
    elif memory_format is not preserve_format:
        check_rank(memory_format, input._data.ndim)
    if memory_format is preserve_format or is_in_format(input._data, memory_format):
        return input
    return input.clone(memory_format=memory_format)


def _repeat_fwd(xp, a, repeats):
    lead = len(repeats) - a.ndim
    return xp.tile(a.reshape((1,) * lead + a.shape), repeats)


def _repeat_back(xp, g, repeats, self_sym_sizes):
    lead = len(repeats) - len(self_sym_sizes)
    shape = (1,) * lead + tuple(self_sym_sizes)
    split_shape = []
    for r, s in zip(repeats, shape):
        split_shape += [r, s]
    g = xp.sum(g.reshape(tuple(split_shape)), axis=tuple(range(0, 2 * len(shape), 2)))
    return g.reshape(self_sym_sizes)


REPEAT = defop("RepeatBackward0", _repeat_fwd, _repeat_back, saved=("repeats", "self_sym_sizes"))


def repeat(input: Tensor, *repeats) -> Tensor:
    repeats = _size_args(repeats)
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(r < 0 for r in repeats):  # (torch names the output shape it would have made)
        sizes = (1,) * (len(repeats) - input._data.ndim) + input._data.shape
        out = [r * n for r, n in zip(repeats, sizes)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {out}")
    return apply(REPEAT, (input,), (repeats,))


def tile(input: Tensor, *args, **kwargs) -> Tensor:
    dims = _size_args(kwargs["dims"] if "dims" in kwargs else args, "tile")
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def _roll_fwd(xp, a, shifts, dims):
    return xp.roll(a, shifts, axis=dims)


# torch's RollBackward0: the gradient rolls back by the same shifts
ROLL = defop("RollBackward0", _roll_fwd,
             lambda xp, g, shifts, dims: xp.apply(ROLL, g, params=(
                 tuple(-s for s in shifts) if isinstance(shifts, tuple) else -shifts, dims)), saved=("shifts", "dims"))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    if dims is not None:
        shifts = (int(shifts),) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
        dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        dims = tuple(_wrap_dim(d, input._data.ndim) for d in dims)
    elif not isinstance(shifts, (int, np.integer)):
        shifts = tuple(int(s) for s in shifts)
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    else:
        shifts = int(shifts)  # (no dims: the flattened tensor rolls, and keeps its shape)
    return apply(ROLL, (input,), (shifts, dims))


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import common_format_output as _common_format_output, contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(STACK, ROLL)
_common_format_output(CAT)  # (channels-last when every input is: torch's cat)
