"""leafgrad.linalg: torch.linalg's norms, on the one vector-norm op.

``vector_norm`` is the op itself (LinalgVectorNormBackward0). ``matrix_norm`` is the
Frobenius norm (that same op over two dims, as in torch) or, for ord 1, -1, inf and -inf,
torch's own composition of abs, sum and amax/amin, so the recorded graph is torch's. The
2-norm and the nuclear norm reduce the singular values (``_ops/linalg_decomp.py``), as torch.
``norm`` picks between the two by ``ord`` and ``dim`` exactly as torch.linalg.norm does.
"""
from __future__ import annotations

import numbers

from . import _dtype as D
from ._ops.reduction import norm as _vector_norm, require_float_norm_input
from ._tensor import Tensor
from ._ops.linalg_decomp import (_LinAlgError as LinAlgError, cholesky, cholesky_ex, cross, det, eigh,  # noqa: F401
                                 eigvalsh, inv, inv_ex, lstsq, matrix_power, matrix_rank, pinv, qr, slogdet, solve,
                                 solve_ex, solve_triangular, svd, svdvals, vecdot)
from ._ops import linalg_legacy as _legacy  # noqa: F401  (binds Tensor.inverse, Tensor.det, ...)
from ._ops.linalg_extra import eig, eigvals, lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp  # noqa: E402,F401

__all__ = ["vector_norm", "matrix_norm", "norm", "LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigh",
           "eigvalsh", "inv", "inv_ex", "lstsq", "matrix_power", "matrix_rank", "pinv", "qr", "slogdet", "solve",
           "solve_ex", "solve_triangular", "svd", "svdvals", "vecdot",
           "eig", "eigvals", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp"]

_INF = float("inf")


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The ``ord``-norm of ``x`` flattened (``dim=None``) or over ``dim``."""
    if isinstance(ord, bool) or not isinstance(ord, numbers.Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}."
                        " A vector norm takes a number (2, 1, inf, ...); for 'fro' use torch.linalg.matrix_norm.")
    require_float_norm_input(x, "linalg.vector_norm")  # (checked before dtype=, as torch does)
    if dtype is not None:
        x = x.to(D.to_dtype(dtype))
    return _vector_norm(x, ord, dim, keepdim)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """The ``ord``-norm of the matrices over the two dims in ``dim``."""
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions. Got "
                           f"{A._data.ndim}D: for a vector use torch.linalg.vector_norm.")
    require_float_norm_input(A, "linalg.matrix_norm")
    if dtype is not None:
        A = A.to(D.to_dtype(dtype))
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
    if ord == "fro":
        return _vector_norm(A, 2, dim, keepdim)
    if ord in (1, -1, _INF, -_INF):
        # torch's composition: sum |a| along one dim, then the largest (or smallest) of those sums
        nd = A._data.ndim
        row, col = dim[0] % nd, dim[1] % nd
        if ord in (_INF, -_INF):
            row, col = col, row
        sums = A.abs().sum(row, keepdim=keepdim)
        if not keepdim and col > row:  # (the summed dim is gone)
            col -= 1
        return sums.amax(col, keepdim=keepdim) if ord > 0 else sums.amin(col, keepdim=keepdim)
    if ord in (2, -2, "nuc"):  # (torch's composition: the singular values, then amax / amin / sum)
        from ._ops.linalg_decomp import matrix_norm_svd
        return matrix_norm_svd(A, ord, dim, keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported. Use 'fro', 'nuc', 1, -1, 2, -2, inf or -inf.")


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.norm: a vector norm or a matrix norm, chosen by ``ord`` and ``dim``."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:  # (the 2-norm of every element, whatever the rank)
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    nd = A._data.ndim
    if nd not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {nd}D."
                           " Pass dim= to pick the dims to reduce.")
    if nd == 1:
        if isinstance(ord, str):
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)  # (raises torch's error for a vector)
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
