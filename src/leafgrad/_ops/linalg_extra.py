"""torch.linalg's LU family (lu_factor, lu_factor_ex, lu, lu_solve, and torch.lu / lu_unpack / lu_solve),
matrix_exp, eig / eigvals, the legacy torch.triangular_solve, and the functions torch 2.x removed
(torch.solve, lstsq, symeig, eig), which raise torch's RuntimeError pointing at their replacements.

The LU factorisation is partial pivoting as LAPACK's getrf does it (the largest |entry| of the column,
the first on a tie; 1-based int32 pivots; ``info`` the first zero pivot), vectorised over the batch.
Backward formulas are torch's (FunctionsManual.cpp) written against ``xp``: the solves they need run
through ``xp.apply`` of the triangular-solve op, so a double backward is recorded.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import linalg_decomp as LD
from .registry import _saved_value, apply, defop

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack", "matrix_exp", "eig", "eigvals",
           "triangular_solve", "torch_lu", "torch_lu_solve"]

_make = Tensor._make


# ----------------------------------------------------------------------------- the factorisation (arrays)
def _getrf(a: np.ndarray):
    """LU with partial pivoting of each matrix of ``a`` (..., m, n): (LU, 1-based int32 pivots, int32 info)."""
    lu_ = np.array(a, copy=True)
    m, n = lu_.shape[-2:]
    k = min(m, n)
    batch = lu_.shape[:-2]
    piv = np.empty(batch + (k,), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    flat = lu_.reshape((-1, m, n))
    fpiv = piv.reshape((-1, k))
    finfo = info.reshape(-1)
    rows = np.arange(flat.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)  # (the first of equal largest entries)
        fpiv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r = rows[swap]
            top = flat[r, j, :].copy()
            flat[r, j, :] = flat[r, p[swap], :]
            flat[r, p[swap], :] = top
        pivot = flat[:, j, j]
        zero = pivot == 0
        finfo[:] = np.where((finfo == 0) & zero, j + 1, finfo)
        safe = np.where(zero, 1, pivot)
        if j + 1 < m:
            flat[:, j + 1:, j] = np.where(zero[:, None], flat[:, j + 1:, j], flat[:, j + 1:, j] / safe[:, None])
            if j + 1 < n:
                flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j:j + 1] * flat[:, j:j + 1, j + 1:]
    return flat.reshape(lu_.shape), piv, info


def _perm_matrix(piv: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U, from LAPACK's row interchanges (row j swapped with row piv[j] - 1, in order)."""
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy().reshape((-1, m))
    fp = piv.reshape((-1, piv.shape[-1])) - 1
    rows = np.arange(perm.shape[0])
    for j in range(fp.shape[1]):
        pj = fp[:, j]
        a = perm[rows, j].copy()
        perm[rows, j] = perm[rows, pj]
        perm[rows, pj] = a
    P = np.zeros((perm.shape[0], m, m), dtype=dtype)
    for b in range(perm.shape[0]):
        P[b, perm[b], np.arange(m)] = 1
    return P.reshape(batch + (m, m))


def _unpack_arrays(xp, lu_, m: int, n: int):
    k = min(m, n)
    L = xp.tril(lu_, -1)[..., :, :k] + xp.eye(m, k, dtype=lu_.dtype)
    U = xp.triu(lu_)[..., :k, :]
    return L, U


def _tril_mask(rows: int, cols: int, diagonal: int) -> np.ndarray:
    return np.tril(np.ones((rows, cols), bool), diagonal)


def _triu_mask(rows: int, cols: int, diagonal: int) -> np.ndarray:
    return np.triu(np.ones((rows, cols), bool), diagonal)


def _split2(xp, a, at: int, axis: int):
    first, second = xp.split(a, [at], axis=axis)
    return first, second


# ----------------------------------------------------------------------------- backward formulas (torch's)
def _head(xp, a, length: int, axis: int):
    """The first ``length`` entries of ``a`` along ``axis`` (torch's narrow(axis, 0, length))."""
    return xp.split(a, [length], axis=axis)[0] if a.shape[axis] != length else a


def _tail(xp, a, start: int, axis: int):
    return xp.split(a, [start], axis=axis)[1]


def _lu_backward(xp, gL, gU, P, L, U):
    """torch's linalg_lu_backward: A = P L U with L (m, k) unit lower and U (k, n) upper, k = min(m, n);
    gL, gU the gradients of L and U (None where absent)."""
    m, k, n = L.shape[-2], L.shape[-1], U.shape[-1]
    tri = LD.SOLVE_TRI
    if gL is not None:
        gL = xp.where(_tril_mask(m, k, -1), gL, 0.0)
    if gU is not None:
        gU = xp.where(_triu_mask(k, n, 0), gU, 0.0)
    if m == n:
        parts = []
        if gL is not None:
            parts.append(xp.where(_tril_mask(n, n, -1), xp.matmul(LD._mT(xp, L), gL), 0.0))
        if gU is not None:
            parts.append(xp.where(_triu_mask(n, n, 0), xp.matmul(gU, LD._mT(xp, U)), 0.0))
        gA = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        # gA <- gA U^{-T} (a right solve with the lower triangular U^T), then L^{-T} gA (unit upper)
        gA = xp.apply(tri, LD._mT(xp, U), gA, params=(False, False, False))
        gA = xp.apply(tri, LD._mT(xp, L), gA, params=(True, True, True))
    elif m < n:  # wide: U = [U1 U2], U1 square
        gA = None if gL is None else xp.matmul(LD._mT(xp, L), gL)
        if gU is not None:
            part = -xp.matmul(gU, LD._mT(xp, U))
            gA = part if gA is None else gA + part
        gA = xp.apply(tri, LD._mT(xp, _head(xp, U, m, -1)), xp.where(_tril_mask(m, m, -1), gA, 0.0),
                      params=(False, False, False))
        if gU is not None:
            gA = xp.concatenate([gA + _head(xp, gU, m, -1), _tail(xp, gU, m, -1)], axis=-1)
        gA = xp.apply(tri, LD._mT(xp, L), gA, params=(True, True, True))
        if gU is None:
            gA = xp.concatenate([gA, xp.zeros_like(_tail(xp, U, m, -1))], axis=-1)
    else:  # tall: L = [L1; L2], L1 square
        gA = None if gU is None else xp.matmul(gU, LD._mT(xp, U))
        if gL is not None:
            part = -xp.matmul(LD._mT(xp, L), gL)
            gA = part if gA is None else gA + part
        gA = xp.apply(tri, LD._mT(xp, _head(xp, L, n, -2)), xp.where(_triu_mask(n, n, 0), gA, 0.0),
                      params=(True, True, True))
        if gL is not None:
            gA = xp.concatenate([gA + _head(xp, gL, n, -2), _tail(xp, gL, n, -2)], axis=-2)
        gA = xp.apply(tri, LD._mT(xp, U), gA, params=(False, False, False))
        if gL is None:
            gA = xp.concatenate([gA, xp.zeros_like(_tail(xp, L, n, -2))], axis=-2)
    return xp.matmul(P, gA)


def _lu_factor_grad(xp, g, LU, pivots, pivot):
    """torch's lu_factor_ex_backward: L and U unpacked from LU, then linalg_lu_backward."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    gLU = g[0]
    dt = xp.dtype_of(LU)
    P = xp.constant(_perm_matrix(getattr(pivots, "_data", pivots), m, dt))
    L = _head(xp, xp.where(_tril_mask(m, n, -1), LU, 0.0), k, -1) + xp.constant(np.eye(m, k, dtype=dt))
    U = _head(xp, xp.where(_triu_mask(m, n, 0), LU, 0.0), k, -2)
    return _lu_backward(xp, _head(xp, gLU, k, -1), _head(xp, gLU, k, -2), P, L, U)


def _lu_factor_fwd(xp, a, pivot):
    lu_, piv, info = _getrf(a)  # (pivot is always True here: the CPU has no LU without pivoting)
    return lu_, piv, info


LU_FACTOR = defop("LinalgLuFactorExBackward0", _lu_factor_fwd, _lu_factor_grad,
                  saved=("result0", "result1", "pivot"), n_out=3, diff_outputs=(True, False, False))
LU_FACTOR.node_cls._saved_names = ("LU", "pivots", "pivot")


def _lu_grad(xp, g, P, L, U, pivot):
    g = LD._pad(g, 3)
    return _lu_backward(xp, g[1], g[2], P, L, U)


def _lu_fwd(xp, a, pivot):
    lu_, piv, _ = _getrf(a)
    m, n = a.shape[-2:]
    L, U = _unpack_arrays(xp, lu_, m, n)
    return _perm_matrix(piv, m, a.dtype), L, U


LU = defop("LinalgLuBackward0", _lu_fwd, _lu_grad, saved=("result0", "result1", "result2", "pivot"), n_out=3,
           diff_outputs=(False, True, True))
LU.node_cls._saved_names = ("P", "L", "U", "pivot")


def _lu_unpack_fwd(xp, lu_, pivots, unpack_data, unpack_pivots):
    m, n = lu_.shape[-2:]
    piv = getattr(pivots, "_data", pivots)
    P = _perm_matrix(piv, m, lu_.dtype) if unpack_pivots else np.zeros((0,), dtype=lu_.dtype)
    if not unpack_data:
        return P, np.zeros((0,), dtype=lu_.dtype), np.zeros((0,), dtype=lu_.dtype)
    L, U = _unpack_arrays(xp, lu_, m, n)
    return P, L, U


def _lu_unpack_grad(xp, g, input0_sizes):
    """torch's lu_unpack_backward: gL's strict lower part and gU's upper part, placed back in LU's shape."""
    m, n = input0_sizes[-2:]
    k = min(m, n)
    gL, gU = LD._pad(g, 3)[1:]
    low = None if gL is None else xp.where(_tril_mask(m, k, -1), gL, 0.0)
    up = None if gU is None else xp.where(_triu_mask(k, n, 0), gU, 0.0)
    if m > n and up is not None:  # (U is the top k rows)
        up = xp.concatenate([up, xp.zeros(tuple(up.shape[:-2]) + (m - k, n), dtype=xp.dtype_of(up))], axis=-2)
    if m < n and low is not None:  # (L is the left k columns)
        low = xp.concatenate([low, xp.zeros(tuple(low.shape[:-2]) + (m, n - k), dtype=xp.dtype_of(low))], axis=-1)
    if low is None:
        return up
    return low if up is None else low + up


LU_UNPACK = defop("LuUnpackBackward0", _lu_unpack_fwd, _lu_unpack_grad, saved=("input0_sizes",), n_out=3,
                  diff_outputs=(False, True, True))
LU_UNPACK.node_cls._saved_names = ()  # (torch shows the two sizes under names of their own)
for _k, _name in ((-2, "LU_data_sym_argsize_minus_2"), (-1, "LU_data_sym_argsize_minus_1")):  # (torch's two sizes)
    type.__setattr__(LU_UNPACK.node_cls, "_saved_" + _name,
                     property(lambda self, _k=_k: tuple(_saved_value(self, 0))[_k]))


# lu_solve: X from LU and pivots (A = P L U) and B, for each of torch's four (left, adjoint) equations
def _lu_solve_fwd(xp, lu_, b, pivots, left, adjoint):
    m = lu_.shape[-1]
    A = xp.matmul(_perm_matrix(getattr(pivots, "_data", pivots), m, lu_.dtype), xp.matmul(*_unpack_arrays(
        xp, lu_, m, m)))
    op = LD._mT(xp, A) if adjoint else A
    if left:
        return xp.linalg.solve(op, b)
    return LD._mT(xp, xp.linalg.solve(LD._mT(xp, op), LD._mT(xp, b)))


def _lu_solve_gB(xp, g, LU, pivots, result, left, adjoint):
    return xp.sum_to(xp.apply(LU_SOLVE, LU, g, params=(pivots, left, not adjoint)), g.shape)


def _lu_solve_gLU(xp, g, LU, pivots, result, left, adjoint):
    """gA of the equation from gB (A's gradient), then A = P L U's chain rule onto the packed LU."""
    m = LU.shape[-1]
    gB = xp.apply(LU_SOLVE, LU, g, params=(pivots, left, not adjoint))
    X = result
    if left:
        gA = -xp.matmul(gB, LD._mT(xp, X)) if not adjoint else -xp.matmul(X, LD._mT(xp, gB))
    else:
        gA = -xp.matmul(LD._mT(xp, X), gB) if not adjoint else -xp.matmul(LD._mT(xp, gB), X)
    P = xp.constant(_perm_matrix(getattr(pivots, "_data", pivots), m, xp.dtype_of(LU)))
    L = xp.where(_tril_mask(m, m, -1), LU, 0.0) + xp.constant(np.eye(m, dtype=xp.dtype_of(LU)))
    U = xp.where(_triu_mask(m, m, 0), LU, 0.0)
    PtgA = xp.matmul(LD._mT(xp, P), gA)
    gL = xp.where(_tril_mask(m, m, -1), xp.matmul(PtgA, LD._mT(xp, U)), 0.0)
    gU = xp.where(_triu_mask(m, m, 0), xp.matmul(LD._mT(xp, L), PtgA), 0.0)
    return xp.sum_to(gL + gU, LU.shape)


LU_SOLVE = defop("LinalgLuSolveBackward0", _lu_solve_fwd, (_lu_solve_gLU, _lu_solve_gB),
                 saved=("self", "pivots", "result", "left", "adjoint"), n_in=2)
LU_SOLVE.node_cls._saved_names = ("LU", "pivots", "result", "left", "adjoint")


# ----------------------------------------------------------------------------- public LU functions
def _check_lu_input(A: Tensor, name: str, pivot: bool) -> None:
    """torch's checks, in its order: the rank (``name`` is how torch's message names the function), the
    dtype (its CPU kernel's NotImplementedError), then pivoting."""
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A._data.shape)} "
                           "instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{D.scalar_type_name(A.dtype)}'")
    if A.dtype.is_complex:
        raise RuntimeError(f"{name}: leafgrad factorises real matrices only; this one is complex.")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU: use pivot=True.")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False):
    """The packed LU factorisation with pivots and ``info`` (0, or the 1-based index of the first zero pivot)."""
    from ..return_types import linalg_lu_factor_ex
    _check_lu_input(A, "torch.lu_factor", pivot)
    LU_, piv, info = apply(LU_FACTOR, (A,), (True,))
    if check_errors:
        _raise_zero_pivot("torch.linalg.lu_factor_ex", info._data)
    return linalg_lu_factor_ex((LU_, piv, info))


def _raise_zero_pivot(name: str, info: np.ndarray) -> None:
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        i = int(info.reshape(-1)[bad[0]])
        batch = f" (Batch element {bad[0]}):" if info.ndim else ""
        raise RuntimeError(f"{name}:{batch} U[{i},{i}] is zero and using it on lu_solve would result in a "
                              "division by zero. If you still want to perform the factorization, consider calling "
                              "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A: Tensor, *, pivot: bool = True):
    """The packed LU factorisation and its pivots; a singular matrix raises torch's LinAlgError."""
    from ..return_types import linalg_lu_factor
    _check_lu_input(A, "torch.lu_factor", pivot)
    LU_, piv, info = apply(LU_FACTOR, (A,), (True,))
    _raise_zero_pivot("torch.linalg.lu_factor", info._data)
    return linalg_lu_factor((LU_, piv))


def lu(A: Tensor, *, pivot: bool = True):
    """P, L, U with A = P L U (return_types.linalg_lu)."""
    from ..return_types import linalg_lu
    _check_lu_input(A, "linalg.lu", pivot)
    return linalg_lu(tuple(apply(LU, (A,), (True,))))


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True):
    """P, L, U from lu_factor's packed LU and pivots (return_types.lu_unpack)."""
    from ..return_types import lu_unpack as _lu_unpack
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data._data.shape)} instead")
    if LU_pivots.dtype is not D.int32:
        raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                           f"Got {LU_pivots.dtype}: pass the pivots lu_factor returned.")
    return _lu_unpack(tuple(apply(LU_UNPACK, (LU_data,), (LU_pivots._data, bool(unpack_data), bool(unpack_pivots)))))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """The solution X of A X = B (or X A = B, or with A's transpose) from A's LU factorisation."""
    if LU._data.ndim < 2 or LU._data.shape[-1] != LU._data.shape[-2]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU to be square. Got a {list(LU._data.shape)} tensor: pass "
                           "the LU of a square matrix.")
    if B._data.ndim < 2:
        raise RuntimeError(f"linalg.lu_solve: Expected B to have at least 2 dimensions, but it has "
                           f"{B._data.ndim} dimensions: make a vector a column with B.unsqueeze(-1).")
    n = LU._data.shape[-1]
    if (B._data.shape[-2] if left else B._data.shape[-1]) != n:
        side = "rows" if left else "columns"
        raise RuntimeError(f"linalg.lu_solve: Number of {side} of B must match the order of LU. Got {n} and "
                           f"{B._data.shape[-2] if left else B._data.shape[-1]}")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{D.scalar_type_name(LU.dtype)} and B of type {D.scalar_type_name(B.dtype)} instead")
    return apply(LU_SOLVE, (LU, B), (pivots, bool(left), bool(adjoint)))


def _lu_with_info() -> type:
    """torch.return_types._lu_with_info (torch.lu's type with get_infos=True): private in torch, so made here
    and set on leafgrad.return_types (where pickle finds it) without joining its all_return_types."""
    from .. import return_types
    cls = vars(return_types).get("_lu_with_info")
    if cls is None:
        cls = return_types._lu_with_info = return_types._make("_lu_with_info", ("LU", "pivots", "info"))
    return cls


def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False):
    """torch.lu (deprecated in torch): (LU, pivots) or, with ``get_infos``, (LU, pivots, infos)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                  "be removed in a future PyTorch release: use LU, pivots = torch.linalg.lu_factor(A).",
                  UserWarning, stacklevel=2)
    _check_lu_input(A, "torch.lu_factor", pivot)
    LU_, piv, info = apply(LU_FACTOR, (A,), (True,))
    if get_infos:
        return _lu_with_info()((LU_, piv, info))
    _raise_zero_pivot("torch.linalg.lu_factor", info._data)
    return LU_, piv


def torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """torch.lu_solve (deprecated; arguments in the old order)."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release. Note that torch.linalg.lu_solve has its arguments reversed: "
                  "X = torch.linalg.lu_solve(LU, pivots, B).", UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, b)


# ----------------------------------------------------------------------------- matrix_exp
def _expm_fwd(xp, a):
    from scipy.linalg import expm
    return np.asarray(expm(a)).astype(a.dtype, copy=False)


def _expm_grad(xp, g, self):
    """torch's linalg_matrix_exp_differential (adjoint): the top-right block of exp([[A^T, G], [0, A^T]])."""
    n = self.shape[-1]
    At = LD._mT(xp, self)
    top = xp.concatenate([At, g], axis=-1)
    bottom = xp.concatenate([xp.zeros_like(At), At], axis=-1)
    big = xp.apply(MATRIX_EXP, xp.concatenate([top, bottom], axis=-2))
    upper, _ = _split2(xp, big, n, -2)
    _, right = _split2(xp, upper, n, -1)
    return right


MATRIX_EXP = defop("LinalgMatrixExpBackward0", _expm_fwd, _expm_grad, saved=("self",))


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix of ``A`` (SciPy's scaling and squaring)."""
    LD.check_square(A, "linalg.matrix_exp")
    if A.dtype.is_complex:
        raise RuntimeError("linalg.matrix_exp: leafgrad computes the exponential of real matrices only.")
    try:
        import scipy.linalg  # noqa: F401
    except ImportError:
        raise RuntimeError("linalg.matrix_exp: leafgrad computes this with SciPy, which is not installed: "
                           "pip install scipy.") from None
    return apply(MATRIX_EXP, (A,))


# ----------------------------------------------------------------------------- eig, eigvals
def _eig_fwd(xp, a):
    w, v = np.linalg.eig(a)
    cdt = np.complex64 if a.dtype == np.float32 else np.complex128
    return w.astype(cdt), v.astype(cdt)


def _eig_grad(xp, g, eigenvalues, eigenvectors):
    """torch's linalg_eig_backward (not Hermitian), real part for a real input (handle_r_to_c)."""
    gL, gV = LD._pad(g, 2)
    L, V = eigenvalues, eigenvectors
    Vh = xp.conj(LD._mT(xp, V))
    if gV is not None:
        VhgV = xp.matmul(Vh, gV)
        n = V.shape[-1]
        eye = np.eye(n, dtype=bool)
        diag_re = xp.sum(xp.where(eye, xp.real(VhgV), 0.0), axis=-2, keepdims=True)  # (real(V^H gV)'s diagonal, a row)
        gA = VhgV - xp.matmul(Vh, V * diag_re)
        Lc = xp.conj(L)
        E = xp.expand_dims(Lc, -2) - xp.expand_dims(Lc, -1)
        E = xp.where(eye, 1.0, E)
        gA = gA / E
        diag = 0.0 if gL is None else xp.expand_dims(gL, -1) * xp.constant(np.eye(n))
        gA = xp.where(eye, diag, gA)
    else:
        gA = xp.expand_dims(gL, -1) * Vh
    out = xp.apply(LD.SOLVE, Vh, xp.matmul(gA, Vh) if gV is not None else gA, params=(True, False))
    return xp.real(out)


EIG = defop("LinalgEigBackward0", _eig_fwd, _eig_grad, saved=("result0", "result1"), n_out=2)
EIG.node_cls._saved_names = ("eigenvalues", "eigenvectors")


def _check_eig(A: Tensor, name: str) -> None:
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {D.scalar_type_name(A.dtype)}: {name} needs a floating "
                           "point matrix (its eigenvalues are complex); convert it first, e.g. A.double().")
    LD.check_square(A, name)
    if A.dtype.is_complex:
        raise RuntimeError(f"{name}: leafgrad computes the eigen-decomposition of real matrices only.")


def eig(A: Tensor):
    """The (complex) eigenvalues and unit eigenvectors of each square matrix (return_types.linalg_eig)."""
    from ..return_types import linalg_eig
    _check_eig(A, "linalg.eig")
    return linalg_eig(tuple(apply(EIG, (A,))))


def eigvals(A: Tensor) -> Tensor:
    """The (complex) eigenvalues of each square matrix (the eigenvalues of linalg.eig)."""
    _check_eig(A, "linalg.eigvals")
    return apply(EIG, (A,))[0]


# ----------------------------------------------------------------------------- triangular_solve (legacy)
def _trisolve_fwd(xp, b, a, upper, transpose, unitriangular):
    T = LD._tri(xp, a, upper, unitriangular)
    op = LD._mT(xp, T) if transpose else T
    shape = np.broadcast_shapes(op.shape[:-2], b.shape[:-2])
    x = xp.linalg.solve(xp.broadcast_to(op, shape + op.shape[-2:]), xp.broadcast_to(b, shape + b.shape[-2:]))
    return x, xp.broadcast_to(a, shape + a.shape[-2:]).copy()


def _trisolve_gb(xp, g, self, A, result0, upper, transpose, unitriangular):
    gx = LD._pad(g, 2)[0]
    if gx is None:
        return None
    # solve op(A)^T y = gx: op(A)^T is A^T (lower when A is upper) without transpose, A itself with it
    if transpose:
        return xp.sum_to(xp.apply(LD.SOLVE_TRI, A, gx, params=(upper, True, unitriangular)), self.shape)
    return xp.sum_to(xp.apply(LD.SOLVE_TRI, LD._mT(xp, A), gx, params=(not upper, True, unitriangular)), self.shape)


def _trisolve_gA(xp, g, self, A, result0, upper, transpose, unitriangular):
    gx, gm = LD._pad(g, 2)
    out = None
    if gx is not None:
        gb = _trisolve_gb(xp, [gx, None], result0, A, result0, upper, transpose, unitriangular)
        ga = -xp.matmul(result0, LD._mT(xp, gb)) if transpose else -xp.matmul(gb, LD._mT(xp, result0))
        n = A.shape[-1]
        keep = _triu_mask(n, n, int(unitriangular)) if upper else _tril_mask(n, n, -int(unitriangular))
        out = xp.where(keep, ga, 0.0)
    if gm is not None:
        out = gm if out is None else out + gm
    return None if out is None else xp.sum_to(out, A.shape)


TRISOLVE = defop("TriangularSolveBackward0", _trisolve_fwd, (_trisolve_gb, _trisolve_gA),
                 saved=("self", "input1", "result0", "upper", "transpose", "unitriangular"), n_in=2, n_out=2)
TRISOLVE.node_cls._saved_names = ("self", "A", "solution", "upper", "transpose", "unitriangular")


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    """torch.triangular_solve (deprecated): X with op(A) X = input, and a copy of A (return_types)."""
    from ..return_types import triangular_solve as _rt
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be "
                  "removed in a future PyTorch release: X = torch.linalg.solve_triangular(A, B, upper=...).",
                  UserWarning, stacklevel=2)
    if input._data.ndim < 2 or A._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{input._data.ndim} dimensions instead" if input._data.ndim < 2 else
                           f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A._data.ndim} dimensions instead")
    if not A.dtype.is_floating_point and not A.dtype.is_complex:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{D.scalar_type_name(A.dtype)}'")
    LD.check_square(A, "torch.triangular_solve")
    if input.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{D.scalar_type_name(input.dtype)} and A of type {D.scalar_type_name(A.dtype)} instead.")
    if input._data.shape[-2] != A._data.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A._data.shape[-1]} by "
                           f"{A._data.shape[-1]} but each b matrix is {input._data.shape[-2]} by "
                           f"{input._data.shape[-1]}")
    return _rt(tuple(apply(TRISOLVE, (input, A), (bool(upper), bool(transpose), bool(unitriangular)))))


# ----------------------------------------------------------------------------- removed in torch 2.x
_REMOVED = {
    "solve": "`torch.solve` was replaced by `torch.linalg.solve`, whose arguments are reversed: "
             "X = torch.linalg.solve(A, B); for the LU factors use torch.linalg.lu_factor.",
    "lstsq": "`torch.lstsq` was replaced by `torch.linalg.lstsq`, whose arguments are reversed: "
             "X = torch.linalg.lstsq(A, B).solution (the residuals are its 'residuals' field).",
    "symeig": "`torch.symeig` was replaced by `torch.linalg.eigh` (eigenvalues and vectors) and "
              "`torch.linalg.eigvalsh` (eigenvalues only), which read the lower triangle unless UPLO='U'.",
    "eig": "`torch.eig` was replaced by `torch.linalg.eig` and `torch.linalg.eigvals`, which return complex "
           "tensors: L_complex, V_complex = torch.linalg.eig(A).",
}


def _removed(name: str):
    def fn(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. {_REMOVED[name]}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed in torch 2.x: raises RuntimeError naming the replacement ({_REMOVED[name]})"
    return fn


solve, lstsq, symeig = _removed("solve"), _removed("lstsq"), _removed("symeig")
legacy_eig = _removed("eig")

METHODS = {"lu": torch_lu, "lu_solve": torch_lu_solve, "matrix_exp": matrix_exp, "triangular_solve": triangular_solve,
           "solve": solve, "lstsq": lstsq, "symeig": symeig, "eig": legacy_eig}
TOP_LEVEL = {"lu": torch_lu, "lu_solve": torch_lu_solve, "lu_unpack": lu_unpack, "matrix_exp": matrix_exp,
             "triangular_solve": triangular_solve, "solve": solve, "lstsq": lstsq, "symeig": symeig,
             "eig": legacy_eig}
LINALG = {"lu_factor": lu_factor, "lu_factor_ex": lu_factor_ex, "lu": lu, "lu_solve": lu_solve,
          "matrix_exp": matrix_exp, "eig": eig, "eigvals": eigvals}
