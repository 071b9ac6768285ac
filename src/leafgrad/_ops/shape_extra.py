"""Less common shape and cumulative functions (trace, diag, cumprod, diff, rot90, ...).

Where torch gives a function its own autograd node (TraceBackward0, CumprodBackward0,
Rot90Backward0, ...) it is declared here with ``defop``; where torch builds the function
from other ops (diff is slices and a subtraction, fliplr is a flip) it is built here from
the same leafgrad ops, so the recorded graph has torch's nodes in torch's order.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap_dim
from .indexing import DIAG_EMBED_INTO, _diag_embed_fwd
from .inplace import broadcast_or_raise
from .registry import apply, defop, show_saved_as, unsigned_int64 as _unsigned
from .shape import DIAGONAL, _diagonal_fwd, _unview, narrow_xp

__all__ = ["trace", "diag", "diag_embed", "cumprod", "logcumsumexp", "diff", "rot90", "fliplr", "flipud",
           "repeat_interleave", "take_along_dim", "tensordot", "kron", "meshgrid", "tril_indices", "triu_indices"]


def _trace_back(xp, g, self_sym_sizes):
    n = min(self_sym_sizes)
    return xp.apply(DIAG_EMBED_INTO, xp.broadcast_to(g, (n,)), params=(self_sym_sizes, 0, 0, 1))


# (NumPy's trace widens small integers as torch's sum does: int32 -> int64)
TRACE = defop("TraceBackward0", lambda xp, a: xp.asarray(xp.trace(a)), _trace_back, saved=("self_sym_sizes",))


def trace(input: Tensor) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return apply(TRACE, (input,))


def _diag_embed_shape(shape, offset, d1, d2) -> tuple:
    n = (shape[-1] if shape else 1) + abs(offset)
    rest = iter(shape[:-1])
    return tuple(n if i in (d1, d2) else next(rest) for i in range(len(shape) + 1))


def _diag_embed_op_fwd(xp, a, offset, dim1, dim2):
    nd = a.ndim + 1
    dim1, dim2 = dim1 % nd, dim2 % nd
    return _diag_embed_fwd(xp, a, _diag_embed_shape(a.shape, offset, dim1, dim2), offset, dim1, dim2)


# (the dims are kept as given, and wrapped against the output's rank where used)
DIAG_EMBED = defop("DiagEmbedBackward0", _diag_embed_op_fwd,
                   lambda xp, g, offset, dim1, dim2: xp.apply(DIAGONAL, g, params=(offset, dim1 % g.ndim, dim2 % g.ndim)),
                   saved=("offset", "dim1", "dim2"))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    nd = input._data.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(DIAG_EMBED, (input,), (int(offset), int(dim1), int(dim2)))


# torch's diag of a matrix copies the diagonal out (diagonal_copy), under its own node name
DIAG_COPY = defop("DiagonalBackward0_copy",
                  lambda xp, a, offset, dim1, dim2: _diagonal_fwd(xp, a, offset, dim1, dim2).copy(),
                  lambda xp, g, self_sym_sizes, offset, dim1, dim2: xp.apply(
                      DIAG_EMBED_INTO, g, params=(self_sym_sizes, offset, dim1, dim2)),
                  saved=("self_sym_sizes", "offset", "dim1", "dim2"))
for _op, _names in ((DIAG_EMBED, ("offset", "dim1", "dim2")), (DIAG_COPY, ("offset",))):
    for _name in _names:
        show_saved_as(_op, _name, _unsigned)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal)  # (torch's own call: dims -2, -1)
    if nd == 2:
        return apply(DIAG_COPY, (input,), (int(diagonal), 0, 1))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


def _cumulative_input(input: Tensor, dtype) -> Tensor:
    """torch accumulates bool and integers in int64 unless a dtype is given (as cumsum)."""
    if dtype is not None:
        return input.to(D.to_dtype(dtype))
    if input.dtype._kind <= 1:
        return input.to(D.int64)
    return input


def _cumprod_fwd(xp, a, dim):
    return xp.cumprod(a, axis=dim % a.ndim) if a.ndim else a.copy()


def _cumprod_back(xp, g, self, dim, result):
    """derivatives.yaml's cumprod_backward: without zeros the gradient is a reversed cumulative sum
    divided by the input; with zeros, each position's gradient is built from the products that omit it
    (torch's differentiable O(n^2) form), which stays exact and is itself differentiable."""
    from .reduction import CUMSUM, PROD_DIM
    x = self
    if x.ndim == 0 or xp.numel(x) <= 1:
        return g
    dim %= x.ndim
    if not xp.any(x == 0):
        w = g * result
        return xp.flip(xp.apply(CUMSUM, xp.flip(w, dim), params=(dim,)), dim) / x
    size = x.shape[dim]
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    ones = xp.ones(tuple(ones_shape), dtype=xp.dtype_of(g))
    parts = []
    for k in range(size):
        if k == 0:
            omitted = xp.concatenate([ones, xp.apply(CUMPROD, narrow_xp(xp, x, dim, 1, size - 1), params=(dim,))],
                                     axis=dim)
        elif k == size - 1:
            omitted = xp.apply(PROD_DIM, narrow_xp(xp, x, dim, 0, k), params=((dim,), True))
        else:
            until_k = xp.apply(PROD_DIM, narrow_xp(xp, x, dim, 0, k), params=((dim,), True))
            from_k1 = xp.apply(CUMPROD, narrow_xp(xp, x, dim, k + 1, size - k - 1), params=(dim,))
            omitted = xp.concatenate([until_k, xp.broadcast_to(until_k, from_k1.shape) * from_k1], axis=dim)
        parts.append(xp.sum(narrow_xp(xp, g, dim, k, size - k) * omitted, axis=dim))
    return xp.stack(parts, axis=dim)


CUMPROD = defop("CumprodBackward0", _cumprod_fwd, _cumprod_back, saved=("self", "dim", "result"))
show_saved_as(CUMPROD, "dim", _unsigned)


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    _wrap_dim(dim, input._data.ndim)
    return apply(CUMPROD, (_cumulative_input(input, dtype),), (int(dim),))


def _logcumsumexp_fwd(xp, a, dim):
    return xp.logaddexp.accumulate(a, axis=dim % a.ndim) if a.ndim else a.copy()


def _logcumsumexp_back(xp, g, self, dim, result):
    """torch's logcumsumexp_backward: positive and negative parts of the gradient summed in log space
    (a reversed logcumsumexp), so large inputs do not overflow (the log of a zero grad is -inf: meant)."""
    if self.ndim == 0:
        return g
    dim %= self.ndim
    lowest = xp.scalar_like(float(np.finfo(xp.dtype_of(g)).min), g)
    log_abs = xp.log(xp.abs(g))
    pos = xp.where(g > 0, log_abs, lowest)
    neg = xp.where(g < 0, log_abs, lowest)

    def rev(t):
        return xp.flip(xp.apply(LOGCUMSUMEXP, xp.flip(t, dim), params=(dim,)), dim)
    return xp.exp(rev(pos - result) + self) - xp.exp(rev(neg - result) + self)


LOGCUMSUMEXP = defop("LogcumsumexpBackward0", _logcumsumexp_fwd, _logcumsumexp_back, saved=("self", "dim", "result"))
show_saved_as(LOGCUMSUMEXP, "dim", _unsigned)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    _wrap_dim(dim, input._data.ndim)
    if input.dtype._kind <= 1:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{D.scalar_type_name(input.dtype)}\'')
    return apply(LOGCUMSUMEXP, (input,), (int(dim),))


def _check_diff_operand(input: Tensor, other: Tensor, dim: int) -> None:
    if other._data.ndim != input._data.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i, (a, b) in enumerate(zip(input._data.shape, other._data.shape)):
        if i != dim and a != b:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input except "
                               f"along the differencing dimension; input.size({i}) = {a}, but got "
                               f"tensor.size({i}) = {b}")


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """As torch: ``prepend``/``append`` are concatenated on first, then ``n`` rounds of
    ``narrow(1) - narrow(0)`` (logical_xor for bool), so the graph is torch's SubBackward0 over SliceBackward0s."""
    from . import pointwise as P
    from . import shape as S
    if input._data.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input._data.ndim)
    for other in (prepend, append):
        if other is not None:
            _check_diff_operand(input, other, d)
    if prepend is not None or append is not None:
        input = S.cat([t for t in (prepend, input, append) if t is not None], d)
    size = input._data.shape[d]
    out_len = size - 1
    result = input
    for _ in range(min(n, size)):
        hi, lo = S.narrow(result, d, 1, out_len), S.narrow(result, d, 0, out_len)
        result = P.logical_xor(hi, lo) if input._data.dtype == np.bool_ else hi - lo
        out_len -= 1
    return result


def _rot90_fwd(xp, a, k, dims):
    return xp.rot90(a, k, axes=tuple(d % a.ndim for d in dims)).copy()


ROT90 = defop("Rot90Backward0", _rot90_fwd, lambda xp, g, k, dims: xp.apply(ROT90, g, params=(-k, dims)),
              saved=("k", "dims"))
# torch keeps the dims as given and shows them as unsigned 64-bit numbers (-1 -> 2**64 - 1)
show_saved_as(ROT90, "dims", lambda dims: tuple(_unsigned(d) for d in dims))
show_saved_as(ROT90, "k", _unsigned)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    dims = tuple(int(d) for d in dims)
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == nd:  # (checked before wrapping, as torch)
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    for d in dims:
        _wrap_dim(d, nd)
    if input.dtype in D._UNSIGNED_WIDE:  # (torch's rot90 is a flip, then a transpose)
        from .unsigned import refuse_flip
        turns = int(k) % 4
        refuse_flip(input.dtype, input._data, tuple(_wrap_dim(d, nd) for d in
                                                    ((), (dims[1],), dims, (dims[0],))[turns]))
    return apply(ROT90, (input,), (int(k), dims))


def fliplr(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def _repeats_index(repeats: Tensor) -> np.ndarray:
    """``repeat_interleave(repeats)`` alone: each position ``i`` written ``repeats[i]`` times."""
    r = repeats._data
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype.kind not in "iu":
        name = D.scalar_type_name(repeats.dtype)
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{name}\'')
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    return np.repeat(np.arange(r.shape[0], dtype=np.int64), r)


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size=None) -> Tensor:
    """As torch: an int repeat is unsqueeze -> expand -> clone -> flatten (its graph's nodes); a tensor
    of repeats becomes an index for index_select. With no dim the input is flattened first."""
    from .indexing import index_select
    from . import shape as S
    if repeats is None:  # torch.repeat_interleave(repeats)
        return Tensor._make(_repeats_index(input))
    if dim is None:
        input = S.flatten(input)
        d = 0
    else:
        d = _wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        r = repeats
        if r._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = input._data.shape[d] if input._data.ndim else 1
        if r._data.ndim == 0 or r._data.shape[0] == 1:
            r = r.reshape(1).expand(size)
        elif r._data.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{r._data.shape[0]} and input.size({d}) = {size}")
        index = Tensor._make(_repeats_index(r))
        if output_size is not None and index._data.shape[0] != output_size:
            raise RuntimeError("allocated size does not match required size")
        return index_select(input, d, index)
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    size = input._data.shape[d] if input._data.ndim else 1
    if output_size is not None and output_size != size * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {size * repeats} but got {output_size}")
    x = input.unsqueeze(d + 1)
    shape = list(x._data.shape)
    shape[d + 1] = repeats
    return S.flatten(x.expand(tuple(shape)).clone(), d, d + 1)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """torch's composition: both sides broadcast (ExpandBackward0) except along ``dim``, then gather;
    with no dim, a gather from the flattened input (ViewBackward0)."""
    from .indexing import gather
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input._data.ndim} dimensions for input, and {indices._data.ndim} dimensions "
                           "for indices")
    if indices._data.dtype != np.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{D.scalar_type_name(indices.dtype)}")
    d = _wrap_dim(dim, input._data.ndim)
    self_sizes = list(input._data.shape)
    if self_sizes:
        self_sizes[d] = indices._data.shape[d]
    idx = indices.broadcast_to(broadcast_or_raise(tuple(self_sizes), indices._data.shape))
    idx_sizes = list(indices._data.shape)
    if idx_sizes:
        idx_sizes[d] = input._data.shape[d]
    src = input.broadcast_to(broadcast_or_raise(tuple(idx_sizes), input._data.shape))
    return gather(src, d, idx)


RESHAPE_ALIAS = defop("ReshapeAliasBackward0", lambda xp, a, shape: a.reshape(shape, copy=False),
                      _unview, saved=("self_sym_sizes",), view=True)


def _reshape(t: Tensor, shape: tuple) -> Tensor:
    """torch's reshape node by node: ViewBackward0 for a contiguous input, ReshapeAliasBackward0 for a
    strided one that can still be viewed, otherwise a clone and UnsafeViewBackward0."""
    from . import shape as S
    a = t._data
    if not a.flags.c_contiguous:
        try:
            a.reshape(shape, copy=False)
        except ValueError:
            pass
        else:
            return apply(RESHAPE_ALIAS, (t,), (tuple(shape),))
    return S.reshape(t, shape)


def _tensordot_dims(a: Tensor, b: Tensor, dims) -> tuple:
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        dims = int(dims)
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._data.ndim or dims > b._data.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return tuple(range(-dims, 0)), tuple(range(dims))  # (as torch: the error names dims so)
    d1, d2 = dims
    d1 = [d1] if isinstance(d1, (int, np.integer)) else list(d1)
    d2 = [d2] if isinstance(d2, (int, np.integer)) else list(d2)
    return tuple(d1), tuple(d2)


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """torch's tensordot: contracted dims of size 1 on one side are summed away first, then each side
    is permuted and reshaped to a matrix for one mm (a dot when both sides keep nothing)."""
    from . import linalg as L
    from . import shape as S
    dims1, dims2 = _tensordot_dims(a, b, dims)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    na, nb = a._data.ndim, b._data.ndim
    raw1, raw2 = dims1, dims2
    dims1 = tuple(_wrap_dim(d, na) for d in dims1)
    dims2 = tuple(_wrap_dim(d, nb) for d in dims2)
    t1, t2 = a, b
    csize = 1
    for i, j, ri, rj in zip(dims1, dims2, raw1, raw2):
        s1, s2 = a._data.shape[i], b._data.shape[j]
        if s2 == 1:  # (a broadcast dim can be summed right away)
            t1 = t1.sum(i, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(j, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {ri} and "
                                   f"second has size {s2} in dim {rj}")
            csize *= s1
    p1 = [i for i in range(na) if i not in dims1]
    p2 = [i for i in range(nb) if i not in dims2]
    rsizes = tuple(t1._data.shape[i] for i in p1) + tuple(t2._data.shape[i] for i in p2)
    size1 = int(np.prod([t1._data.shape[i] for i in p1], dtype=np.int64))
    size2 = int(np.prod([t2._data.shape[i] for i in p2], dtype=np.int64))
    t1 = S.permute(t1, tuple(p1) + dims1)
    t2 = S.permute(t2, dims2 + tuple(p2))
    if size1 == 1 and size2 == 1:
        out = L.dot(_reshape(t1, (csize,)), _reshape(t2, (csize,)))
    else:
        out = L.mm(_reshape(t1, (size1, csize)), _reshape(t2, (csize, size2)))
    return _reshape(out, rsizes)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """torch's KronImpl: each side viewed with its sizes interleaved with ones, one broadcast multiply,
    and the pairs of dims merged (UnsafeViewBackward0 over MulBackward0 over UnsafeViewBackward0s)."""
    from .linalg import _unsafe_view
    sa, sb = input._data.shape, other._data.shape
    nd = max(len(sa), len(sb))
    pa, pb = (1,) * (nd - len(sa)) + tuple(sa), (1,) * (nd - len(sb)) + tuple(sb)
    a_shape = tuple(v for s in pa for v in (s, 1))
    b_shape = tuple(v for s in pb for v in (1, s))
    return _unsafe_view(_unsafe_view(input, a_shape) * _unsafe_view(other, b_shape),
                        tuple(x * y for x, y in zip(pa, pb)))


def meshgrid(*tensors, indexing: str | None = None):
    """torch's composition: each input viewed along its own dim, then expanded (view, expand), with
    ``indexing="xy"`` swapping the first two inputs and outputs; no indexing warns as torch does."""
    import warnings
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    n = len(tensors)
    if n == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i in range(n - 1):
        if tensors[i]._data.dtype != tensors[i + 1]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    refs = list(tensors)
    swap = False
    if indexing == "xy":
        swap = n >= 2
        if swap:
            refs[0], refs[1] = refs[1], refs[0]
    elif indexing != "ij":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in refs:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}")
    shape = tuple(int(t._data.size) for t in refs)
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * n
        view_shape[i] = -1
        grids.append(t.view(tuple(view_shape)).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, upper: bool) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = D.to_dtype(dtype) if dtype is not None else D.int64
    if dt not in (D.int64, D.int32):
        raise NotImplementedError(f'"{name}" not implemented for \'{D.scalar_type_name(dt)}\'')
    rows, cols = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return Tensor._make(np.stack([rows, cols]).astype(dt.np).reshape(2, -1))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (row, column) positions on and below diagonal ``offset``, row by row, as a 2 x N tensor."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, False)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (row, column) positions on and above diagonal ``offset``, row by row, as a 2 x N tensor."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, True)


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(CUMPROD, LOGCUMSUMEXP)
