"""torch.linalg's decompositions and solvers (inv, solve, det, slogdet, cholesky, qr, eigh, svd,
pinv, lstsq, solve_triangular, cross) as ``defop`` ops with torch's node names and formulas.

Forwards are NumPy's LAPACK calls on the raw arrays; each backward is torch's formula from
``derivatives.yaml`` / ``FunctionsManual.cpp``, written against ``xp`` and calling the other ops
here through ``xp.apply``, so that a double backward records these very nodes again.
Real (float32 / float64) inputs are supported; complex inputs are refused clearly.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .registry import apply, defop, show_saved_as, unsigned_int64

__all__ = ["_LinAlgError", "check_square", "inv", "inv_ex", "solve", "solve_ex", "det", "slogdet", "cholesky",
           "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_rank", "cross",
           "solve_triangular", "matrix_power"]


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a singular or non-positive-definite input."""


_LinAlgError.__module__ = "leafgrad._C"


# ----------------------------------------------------------------------------- checks
def check_square(A: Tensor, name: str) -> None:
    """torch's checks of a batch of square float matrices, in torch's words."""
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions. Got {a.ndim}D: pass a "
                           "matrix or a batch of matrices.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    check_float(A, name)


def check_float(A: Tensor, name: str) -> None:
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions. Got {a.ndim}D.")
    if a.dtype.kind == "c":
        raise NotImplementedError(f"{name}: complex inputs are not supported by leafgrad yet; use float32 or "
                                  "float64.")
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(A.dtype)}")


def _pad(g, n: int) -> list:
    """A multi-output node's gradients, one per output (the engine's list ends at the last one it got)."""
    return list(g) + [None] * (n - len(g))


def _mT(xp, a):
    return xp.swapaxes(a, -1, -2)


def _first_zero_pivot(a: np.ndarray) -> np.ndarray:
    """LAPACK getrf's info per matrix: the 1-based index of the first exactly-zero pivot (0 if none)."""
    a = np.array(a, dtype=np.float64).reshape((-1,) + a.shape[-2:])
    n = a.shape[-1]
    info = np.zeros(a.shape[0], dtype=np.int32)
    for b in range(a.shape[0]):
        m = a[b]
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[k:, k])))
            if m[p, k] == 0:
                info[b] = k + 1
                break
            m[[k, p]] = m[[p, k]]
            m[k + 1:] -= np.outer(m[k + 1:, k] / m[k, k], m[k])
    return info


def _inv_info(a: np.ndarray):
    """(inverse, info): NaN in place of the inverse of a singular matrix, as a failed getri leaves garbage."""
    try:
        return np.linalg.inv(a), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = _first_zero_pivot(a).reshape(a.shape[:-2])
        out = np.full(a.shape, np.nan, dtype=a.dtype)
        flat, fin = out.reshape((-1,) + a.shape[-2:]), info.reshape(-1)
        src = a.reshape((-1,) + a.shape[-2:])
        for b in np.flatnonzero(fin == 0):
            flat[b] = np.linalg.inv(src[b])
        return flat.reshape(a.shape), info


def _raise_singular(name: str, info: np.ndarray, solver: bool = False) -> None:
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size == 0:
        return
    batch = f" (Batch element {bad[0]})" if info.ndim else ""
    if solver:
        raise _LinAlgError(f"torch.linalg.solve: The solver failed because the input matrix is singular.{batch} "
                           "Check A's rank, or use torch.linalg.lstsq for a least-squares answer.")
    raise _LinAlgError(f"{name}:{batch} The diagonal element {info.reshape(-1)[bad[0]]} is zero, the inversion could "
                       "not be completed because the input matrix is singular. Check A's rank, or use "
                       "torch.linalg.pinv.")


# ----------------------------------------------------------------------------- inverse, solve
INV = defop("LinalgInvExBackward0", lambda xp, a: xp.linalg.inv(a),
            lambda xp, g, inverse: -xp.matmul(xp.matmul(_mT(xp, inverse), g), _mT(xp, inverse)),
            saved=("result",))
INV.node_cls._saved_names = ("inverse",)


def inv_ex(A: Tensor, *, check_errors: bool = False):
    from ..return_types import linalg_inv_ex
    check_square(A, "linalg.inv_ex")
    inverse, info = _inv_info(A._data)
    if check_errors:
        _raise_singular("linalg.inv_ex", info)
    # (a singular input: its NaN-filled values, recorded as the same node)
    out = apply(INV, (A,)) if not info.any() else apply(_INV_VALUES, (A,), (inverse,))
    return linalg_inv_ex((out, Tensor._make(info)))


_INV_VALUES = defop("LinalgInvExBackward0", lambda xp, a, values: values,
                        lambda xp, g, inverse: -xp.matmul(xp.matmul(_mT(xp, inverse), g), _mT(xp, inverse)),
                    saved=("result",))
_INV_VALUES.node_cls._saved_names = ("inverse",)


def inv(A: Tensor) -> Tensor:
    check_square(A, "linalg.inv")
    _, info = _inv_info(A._data) if _maybe_singular(A._data) else (None, np.zeros(A._data.shape[:-2], np.int32))
    _raise_singular("linalg.inv", info)
    return apply(INV, (A,))


def _maybe_singular(a: np.ndarray) -> bool:
    try:
        np.linalg.inv(a)
        return False
    except np.linalg.LinAlgError:
        return True


def _solve_fwd(xp, a, b, left, vector):
    if not left:
        a = xp.swapaxes(a, -1, -2)
        b = xp.swapaxes(b, -1, -2) if not vector else b
    if vector:
        return xp.linalg.solve(a, b[..., None])[..., 0]
    x = xp.linalg.solve(a, b)
    return x if left else xp.swapaxes(x, -1, -2)


def _solve_gB(xp, g, A, left, vector):
    return xp.apply(SOLVE, xp.conj(_mT(xp, A)), g, params=(left, vector))  # (A^H: A^T for a real A)


def _solve_gA(xp, g, A, result, left, vector):
    gB = _solve_gB(xp, g, A, left, vector)
    if vector:
        gA = -(xp.expand_dims(gB, -1) * xp.expand_dims(result, -2))
    elif left:
        gA = -xp.matmul(gB, xp.conj(_mT(xp, result)))
    else:
        gA = -xp.matmul(xp.conj(_mT(xp, result)), gB)
    return xp.sum_to(gA, A.shape)


_SOLVE_FORMULAS = (lambda xp, g, A, result, left, vector: _solve_gA(xp, g, A, result, left, vector),
               lambda xp, g, A, result, left, vector: _solve_gB(xp, g, A, left, vector))  # (B comes expanded)
SOLVE = defop("LinalgSolveExBackward0", _solve_fwd, _SOLVE_FORMULAS, saved=("self", "result", "left", "vector"),
              n_in=2)
SOLVE.node_cls._saved_names = ("A", "result", "left", "vector")


def _solve_args(A: Tensor, B: Tensor, left: bool, name: str):
    check_square(A, name)
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{D.scalar_type_name(A.dtype)} and B of type {D.scalar_type_name(B.dtype)} instead. "
                           "Convert one with .to(other.dtype).")
    a, b = A._data, B._data
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    n = a.shape[-1]
    rows = b.shape[-1] if vector else (b.shape[-2] if left else b.shape[-1])
    if rows != n:
        bs = f"{b.shape[-1]}x1" if vector else f"{b.shape[-2]}x{b.shape[-1]}"
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {bs}). "
                           "B's rows must match A's size.")
    batch_a = a.shape[:-2]
    batch_b = b.shape[:-1] if vector else b.shape[:-2]
    batch = np.broadcast_shapes(batch_a, batch_b)  # (raises torch's broadcasting error below if not)
    want_b = batch + ((n,) if vector else b.shape[-2:])
    if tuple(b.shape) != want_b:
        B = B.expand(*want_b)
    return B, vector


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    from ..return_types import linalg_solve_ex
    try:
        B, vector = _solve_args(A, B, left, "linalg.solve_ex")
    except ValueError:
        raise RuntimeError(_broadcast_message(A, B)) from None
    info = _first_zero_pivot(A._data).reshape(A._data.shape[:-2]) if _maybe_singular(A._data) else \
        np.zeros(A._data.shape[:-2], np.int32)
    if info.any():
        if check_errors:
            _raise_singular("linalg.solve_ex", info, solver=True)
        out = apply(_SOLVE_NAN, (A, B), (left, vector))
    else:
        out = apply(SOLVE, (A, B), (left, vector))
    return linalg_solve_ex((out, Tensor._make(info)))


def _nan_solve(xp, a, b, left, vector):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-1] if vector else b.shape[:-2]) + \
        (b.shape[-1:] if vector else b.shape[-2:])
    return xp.full(shape, np.nan, dtype=a.dtype)


_SOLVE_NAN = defop("LinalgSolveExBackward0", _nan_solve, _SOLVE_FORMULAS,
                   saved=("self", "result", "left", "vector"), n_in=2)
_SOLVE_NAN.node_cls._saved_names = ("A", "result", "left", "vector")


def _broadcast_message(A: Tensor, B: Tensor) -> str:
    return (f"The size of tensor a ({A._data.shape[0]}) must match the size of tensor b ({B._data.shape[0]}) at "
            "non-singleton dimension 0: A's and B's batch dims must broadcast.")


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    try:
        B, vector = _solve_args(A, B, left, "linalg.solve")
    except ValueError:
        raise RuntimeError(_broadcast_message(A, B)) from None
    if _maybe_singular(A._data):
        _raise_singular("linalg.solve", _first_zero_pivot(A._data).reshape(A._data.shape[:-2]), solver=True)
    return apply(SOLVE, (A, B), (left, vector))


# ----------------------------------------------------------------------------- determinants
def _cofactor(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix of every matrix of ``a`` from its SVD: det(U) det(Vh) U diag(prod_{j != i} s_j) Vh,
    which stays finite for a singular matrix (where det(A) A^{-T} does not exist)."""
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = np.cumprod(np.concatenate([ones, s[..., :-1]], -1), -1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(s, -1)[..., :-1]], -1), -1), -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * ((u * (left * right)[..., None, :]) @ vh)


def _det_grad(xp, g, A, result):
    # d det(A) = det(A) tr(A^{-1} dA): the gradient is g det(A) A^{-T} (A invertible)
    gg = xp.expand_dims(xp.expand_dims(g, -1), -1)
    a = xp.data(A)
    if _maybe_singular(a):  # (torch's SVD path; here the cofactors enter as a constant of the backward)
        return gg * xp.constant(_cofactor(a))
    return gg * xp.expand_dims(xp.expand_dims(result, -1), -1) * _mT(xp, xp.apply(INV, A))


DET = defop("LinalgDetBackward0", lambda xp, a: xp.asarray(xp.linalg.det(a)), _det_grad, saved=("self", "result"))
DET.node_cls._saved_names = ("A", "result")


def det(A: Tensor) -> Tensor:
    check_square(A, "linalg.det")
    return apply(DET, (A,))


def _slogdet_grad(xp, g, A, sign):
    """g A^{-T} (real A). torch keeps ``sign`` for the complex formula; a real one does not need it."""
    if g is None:  # (only the sign was used: it is locally constant)
        return xp.zeros_like(A)
    return xp.expand_dims(xp.expand_dims(g, -1), -1) * _mT(xp, xp.apply(INV, A))


def _slogdet_fwd(xp, a):
    sign, logabs = xp.linalg.slogdet(a)
    return xp.asarray(sign), xp.asarray(logabs)


SLOGDET = defop("LinalgSlogdetBackward0", _slogdet_fwd,
                lambda xp, g, A, sign: _slogdet_grad(xp, _pad(g, 2)[1], A, sign), saved=("self", "result0"), n_out=2)
SLOGDET.node_cls._saved_names = ("A", "sign")


def slogdet(A: Tensor):
    from ..return_types import linalg_slogdet
    check_square(A, "linalg.slogdet")
    return linalg_slogdet(tuple(apply(SLOGDET, (A,))))


# ----------------------------------------------------------------------------- cholesky
def _tril_half(xp, m):
    """The lower triangle of ``m`` with its diagonal halved (the inverse of X -> X + X^T on triangles)."""
    n = m.shape[-1]
    w = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return m * xp.asarray(w.astype(xp.dtype_of(m)))


def _cholesky_grad(xp, g, L, upper):
    if upper:  # (A = U^T U: the formula on L = U^T)
        L, g = _mT(xp, L), _mT(xp, g)
    phi = _tril_half(xp, xp.matmul(_mT(xp, L), g))
    Linv = xp.apply(INV, L)
    S = xp.matmul(xp.matmul(_mT(xp, Linv), phi), Linv)
    return 0.5 * (S + _mT(xp, S))


def _cholesky_fwd(xp, a, upper):
    L = xp.linalg.cholesky(a)
    return xp.swapaxes(L, -1, -2).copy() if upper else L


CHOLESKY = defop("LinalgCholeskyExBackward0", _cholesky_fwd, _cholesky_grad, saved=("result", "upper"))
CHOLESKY.node_cls._saved_names = ("L", "upper")


def _cholesky_info(a: np.ndarray) -> np.ndarray:
    flat = a.reshape((-1,) + a.shape[-2:])
    info = np.zeros(flat.shape[0], np.int32)
    for b in range(flat.shape[0]):
        try:
            np.linalg.cholesky(flat[b])
        except np.linalg.LinAlgError:
            for k in range(1, a.shape[-1] + 1):
                try:
                    np.linalg.cholesky(flat[b, :k, :k])
                except np.linalg.LinAlgError:
                    info[b] = k
                    break
    return info.reshape(a.shape[:-2])


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    from ..return_types import linalg_cholesky_ex
    check_square(A, "linalg.cholesky_ex")
    info = _cholesky_info(A._data) if _not_pd(A._data) else np.zeros(A._data.shape[:-2], np.int32)
    if info.any():
        if check_errors:
            _raise_not_pd("linalg.cholesky_ex", info)
        out = apply(_CHOL_NAN, (A,), (upper,))
    else:
        out = apply(CHOLESKY, (A,), (upper,))
    return linalg_cholesky_ex((out, Tensor._make(info)))


_CHOL_NAN = defop("LinalgCholeskyExBackward0", lambda xp, a, upper: xp.full(a.shape, np.nan, dtype=a.dtype),
                  _cholesky_grad, saved=("result", "upper"))
_CHOL_NAN.node_cls._saved_names = ("L", "upper")


def _not_pd(a: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(a)
        return False
    except np.linalg.LinAlgError:
        return True


def _raise_not_pd(name: str, info: np.ndarray) -> None:
    bad = np.flatnonzero(info.reshape(-1))
    batch = f" (Batch element {bad[0]}):" if info.ndim else ":"
    raise _LinAlgError(f"{name}{batch} The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {info.reshape(-1)[bad[0]]} is not "
                       "positive-definite). Check that A is symmetric positive-definite (A @ A.mT + eps * I is).")


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    check_square(A, "linalg.cholesky")
    if _not_pd(A._data):
        _raise_not_pd("linalg.cholesky", _cholesky_info(A._data))
    return apply(CHOLESKY, (A,), (upper,))


# ----------------------------------------------------------------------------- qr
def _qr_grad_tall(xp, gQ, gR, Q, R):
    """A = QR with m >= n: gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q."""
    M = 0.0
    if gR is not None:
        M = xp.matmul(R, _mT(xp, gR))
    if gQ is not None:
        M = M - xp.matmul(_mT(xp, gQ), Q)
    k = R.shape[-1]
    low = M * xp.asarray(np.tril(np.ones((k, k)), -1).astype(xp.dtype_of(R)))
    M = low + _mT(xp, low) + M * xp.asarray(np.eye(k, dtype=xp.dtype_of(R)))
    b = xp.matmul(Q, M) if gQ is None else gQ + xp.matmul(Q, M)
    return xp.matmul(b, _mT(xp, xp.apply(INV, R)))


def _qr_grad(xp, g, Q, R, mode):
    gQ, gR = _pad(g, 2)
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_grad_tall(xp, gQ, gR, Q, R)
    # wide: A = Q [X | Y] with X = Q R_X square and R_Y = Q^T Y
    RX, RY = R[..., :, :m], R[..., :, m:]
    Y = xp.matmul(Q, RY)
    gRX = None if gR is None else gR[..., :, :m]
    gQ2 = gQ
    if gR is not None:
        extra = xp.matmul(Y, _mT(xp, gR[..., :, m:]))
        gQ2 = extra if gQ is None else gQ + extra
    gX = _qr_grad_tall(xp, gQ2, gRX, Q, RX)
    gY = xp.zeros_like(Y) if gR is None else xp.matmul(Q, gR[..., :, m:])
    return xp.concatenate([gX, gY], axis=-1)


def _qr_fwd(xp, a, mode):
    if mode == "r":
        r = xp.linalg.qr(a, mode="r")
        return xp.zeros((0,), dtype=a.dtype), r
    return tuple(xp.linalg.qr(a, mode=mode))


QR = defop("LinalgQrBackward0", _qr_fwd, _qr_grad, saved=("result0", "result1", "mode"), n_out=2)
QR.node_cls._saved_names = ("Q", "R", "mode")


def qr(A: Tensor, mode: str = "reduced"):
    from ..return_types import linalg_qr
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    check_float(A, "linalg.qr")
    return linalg_qr(tuple(apply(QR, (A,), (mode,))))


# ----------------------------------------------------------------------------- eigh
def _eigh_grad(xp, g, eigenvalues, eigenvectors):
    gL, gV = _pad(g, 2)
    V = eigenvectors
    n = V.shape[-1]
    eye = xp.asarray(np.eye(n, dtype=bool))
    if gV is None:
        inner = xp.zeros_like(V)
    else:
        VhgV = xp.matmul(_mT(xp, V), gV)
        VhgV = 0.5 * (VhgV - _mT(xp, VhgV))  # (projected on the skew-symmetric matrices, as torch)
        E = xp.expand_dims(eigenvalues, -2) - xp.expand_dims(eigenvalues, -1)
        inner = xp.where(eye, 0.0, VhgV / xp.where(eye, 1.0, E))
    if gL is not None:
        inner = inner + xp.expand_dims(gL, -1) * xp.asarray(np.eye(n, dtype=xp.dtype_of(V)))
    return xp.matmul(xp.matmul(V, inner), _mT(xp, V))


def _eigh_fwd(xp, a, uplo):
    w, v = xp.linalg.eigh(a, UPLO=uplo)
    return w, v


EIGH = defop("LinalgEighBackward0", _eigh_fwd, _eigh_grad, saved=("result0", "result1"), n_out=2)
EIGH.node_cls._saved_names = ("eigenvalues", "eigenvectors")


def _uplo(UPLO: str, name: str) -> str:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


def eigh(A: Tensor, UPLO: str = "L"):
    from ..return_types import linalg_eigh
    check_square(A, "linalg.eigh")
    return linalg_eigh(tuple(apply(EIGH, (A,), (_uplo(UPLO, "linalg.eigh"),))))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    check_square(A, "linalg.eigvalsh")
    return apply(EIGH, (A,), (_uplo(UPLO, "linalg.eigvalsh"),))[0]


# ----------------------------------------------------------------------------- svd
def _svd_grad(xp, g, U, S, Vh, full_matrices):
    gU, gS, gVh = _pad(g, 3)
    k = S.shape[-1]
    if full_matrices:  # (only the first k columns of U and rows of Vh enter A)
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :, :k]
        gVh = None if gVh is None else gVh[..., :k, :]
    eye = np.eye(k)
    if gU is None and gVh is None:
        return xp.matmul(U * xp.expand_dims(gS, -2), Vh)
    m, n = U.shape[-2], Vh.shape[-1]
    mask = xp.asarray(eye.astype(bool))
    S2 = S * S
    E = xp.expand_dims(S2, -2) - xp.expand_dims(S2, -1)
    E = xp.where(mask, 1.0, E)
    inner = 0.0
    if gU is not None:
        UhgU = xp.matmul(_mT(xp, U), gU)
        inner = (UhgU - _mT(xp, UhgU)) / E * xp.expand_dims(S, -2)
    if gVh is not None:
        VhgV = xp.matmul(Vh, _mT(xp, gVh))
        inner = inner + xp.expand_dims(S, -1) * ((VhgV - _mT(xp, VhgV)) / E)
    if gS is not None:
        inner = inner + xp.expand_dims(gS, -1) * xp.asarray(eye.astype(xp.dtype_of(S)))
    gA = xp.matmul(xp.matmul(U, inner), Vh)
    if gU is not None and m > k:
        gA = gA + xp.matmul((gU - xp.matmul(U, UhgU)) / xp.expand_dims(S, -2), Vh)
    if gVh is not None and n > k:
        gV = _mT(xp, gVh)
        gA = gA + xp.matmul(U, _mT(xp, (gV - xp.matmul(_mT(xp, Vh), VhgV)) / xp.expand_dims(S, -2)))
    return gA


def _svd_fwd(xp, a, full_matrices):
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh


SVD = defop("LinalgSvdBackward0", _svd_fwd, _svd_grad, saved=("result0", "result1", "result2", "full_matrices"),
            n_out=3)
SVD.node_cls._saved_names = ("U", "S", "Vh", "full_matrices")


def svd(A: Tensor, full_matrices: bool = True, *, driver=None):
    from ..return_types import linalg_svd
    check_float(A, "linalg.svd")
    return linalg_svd(tuple(apply(SVD, (A,), (bool(full_matrices),))))


def svdvals(A: Tensor, *, driver=None) -> Tensor:
    check_float(A, "linalg.svdvals")
    return apply(SVD, (A,), (False,))[1]


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, tol=None) -> Tensor:
    check_float(A, "linalg.matrix_rank")
    a = A._data
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    smax = s.max(axis=-1, initial=0.0) if s.shape[-1] else np.zeros(s.shape[:-1])
    atol = tol if tol is not None else atol
    if rtol is None:
        rtol = max(a.shape[-2:]) * float(np.finfo(a.dtype).eps) if atol is None or _is_zero(atol) else 0.0
    tol_ = np.maximum(_tol_array(atol), _tol_array(rtol) * smax)
    return Tensor._make(np.sum(s > tol_[..., None], axis=-1).astype(np.int64))


def _is_zero(v) -> bool:
    return not isinstance(v, Tensor) and v == 0


def _tol_array(v):
    return np.asarray(0.0 if v is None else (v._data if isinstance(v, Tensor) else v), dtype=np.float64)


# ----------------------------------------------------------------------------- pinv, lstsq
def _pinv_grad_of(xp, gP, A, P):
    """torch's pinv_backward (real): -P^T gP P^T + (I - A P) gP^T P P^T + P^T P gP^T (I - P A)."""
    Pt, gPt = _mT(xp, P), _mT(xp, gP)
    first = -xp.matmul(xp.matmul(Pt, gP), Pt)
    t2 = xp.matmul(xp.matmul(gPt, P), Pt)
    t2 = t2 - xp.matmul(xp.matmul(A, P), t2)
    t3 = xp.matmul(xp.matmul(Pt, P), gPt)
    t3 = t3 - xp.matmul(t3, xp.matmul(P, A))
    return first + t2 + t3


PINV = defop("LinalgPinvBackward0", lambda xp, a, rtol, hermitian: xp.linalg.pinv(a, rcond=rtol, hermitian=hermitian),
             lambda xp, g, self, result: _pinv_grad_of(xp, g, self, result), saved=("self", "result"))


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    check_float(A, "linalg.pinv")
    if atol is not None and not _is_zero(atol):
        raise NotImplementedError("linalg.pinv: atol= is not supported by leafgrad yet; pass rtol= only.")
    if rtol is None:
        rtol = max(A._data.shape[-2:]) * float(np.finfo(A._data.dtype).eps)
    return apply(PINV, (A,), (float(rtol), bool(hermitian)))


def _lstsq_fwd(xp, a, b):
    return xp.matmul(xp.linalg.pinv(a), b)


LSTSQ = defop("LinalgLstsqBackward0", _lstsq_fwd,
              (lambda xp, g, self, b: _pinv_grad_of(xp, xp.matmul(g, _mT(xp, b)), self,
                                                    xp.apply(PINV_DEFAULT, self)),
               lambda xp, g, self, b: xp.matmul(_mT(xp, xp.apply(PINV_DEFAULT, self)), g)),
              saved=("self", "input1"), n_in=2)
LSTSQ.node_cls._saved_names = ("self", "b")
PINV_DEFAULT = defop("LinalgPinvBackward0", lambda xp, a: xp.linalg.pinv(a),
                     lambda xp, g, self, result: _pinv_grad_of(xp, g, self, result), saved=("self", "result"))


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The least-squares solution (LAPACK's gelsy answer for a full-rank A); residuals as torch's default driver."""
    from ..return_types import linalg_lstsq
    check_float(A, "linalg.lstsq")
    if B._data.ndim < 1 or B._data.shape[-2 if B._data.ndim >= 2 else -1] != A._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2). Give B as many rows "
                           "as A.")
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {A.dtype} and other's dtype {B.dtype}")
    sol = apply(LSTSQ, (A, B))
    rank = int(np.linalg.matrix_rank(A._data)) if A._data.ndim == 2 else np.linalg.matrix_rank(A._data)
    empty = Tensor._make(np.zeros((0,), A._data.dtype))
    return linalg_lstsq((sol, empty, Tensor._make(np.asarray(rank, np.int64)), Tensor._make(
        np.zeros((0,), A._data.dtype))))


# ----------------------------------------------------------------------------- triangular solve
def _tri_mask(n: int, upper: bool, unitriangular: bool) -> np.ndarray:
    """The entries of A that solve_triangular reads (the diagonal too unless ``unitriangular``)."""
    return np.triu(np.ones((n, n), bool), 1 if unitriangular else 0) if upper else \
        np.tril(np.ones((n, n), bool), -1 if unitriangular else 0)


def _tri(xp, a, upper, unitriangular):
    n = a.shape[-1]
    out = xp.where(_tri_mask(n, upper, unitriangular), a, 0.0)
    return out + xp.eye(n, dtype=a.dtype) if unitriangular else out


def _solve_tri_fwd(xp, a, b, upper, left, unitriangular):
    return _solve_fwd(xp, _tri(xp, a, upper, unitriangular), b, left, False)


def _tri_gB(xp, g, self, upper, left, unitriangular):
    return xp.apply(SOLVE_TRI, _mT(xp, self), g, params=(not upper, left, unitriangular))


def _tri_gA(xp, g, self, result, upper, left, unitriangular):
    gB = _tri_gB(xp, g, self, upper, left, unitriangular)
    gA = -xp.matmul(gB, _mT(xp, result)) if left else -xp.matmul(_mT(xp, result), gB)
    keep = xp.asarray(_tri_mask(gA.shape[-1], upper, unitriangular))
    return xp.sum_to(xp.where(keep, gA, 0.0), self.shape)


SOLVE_TRI = defop("LinalgSolveTriangularBackward0", _solve_tri_fwd,
                  (lambda xp, g, self, result, upper, left, unitriangular: _tri_gA(xp, g, self, result, upper, left,
                                                                                   unitriangular),
                   lambda xp, g, self, result, upper, left, unitriangular: _tri_gB(xp, g, self, upper, left,
                                                                                   unitriangular)),
                  saved=("self", "result", "upper", "left", "unitriangular"), n_in=2)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    check_square(A, "linalg.solve_triangular")
    if B._data.ndim < 2:
        raise RuntimeError(f"linalg.solve_triangular: The input tensor B must have at least 2 dimensions. Got "
                           f"{B._data.ndim}D: make B a column with B.unsqueeze(-1).")
    n = A._data.shape[-1]
    if (B._data.shape[-2] if left else B._data.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B._data.shape[-2]}x{B._data.shape[-1]})")
    return apply(SOLVE_TRI, (A, B), (bool(upper), bool(left), bool(unitriangular)))


# ----------------------------------------------------------------------------- cross, matrix_power
def _cross_fwd(xp, a, b, dim):
    return xp.cross(a, b, axis=dim)


CROSS = defop("LinalgCrossBackward0", _cross_fwd,
              (lambda xp, g, self, other, dim: xp.sum_to(xp.apply(CROSS, other, g, params=(dim,)), self.shape),
               lambda xp, g, self, other, dim: xp.sum_to(xp.apply(CROSS, g, self, params=(dim,)), other.shape)),
              saved=("self", "other", "dim"), n_in=2)
show_saved_as(CROSS, "dim", unsigned_int64)  # (torch keeps the dim as given: -1 reads back as 2**64 - 1)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. Got {a.ndim} and "
                           f"{b.ndim}")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[dim]} and "
                           f"{b.shape[dim]}")
    return apply(CROSS, (input, other), (dim,))


def matrix_power(A: Tensor, n: int) -> Tensor:
    """A^n by torch's binary exponentiation of matmuls (A^{-1} first for n < 0), so the nodes are torch's."""
    from . import linalg as L
    a = A._data
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.ndim >= 2 else 1} by {a.shape[-1]} matrices")
    if n == 0:
        from .._creation import eye
        return eye(a.shape[-1], dtype=A.dtype).expand(*a.shape).clone()
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return A.clone()
    if n == 2:
        return L.matmul(A, A)
    if n == 3:
        return L.matmul(L.matmul(A, A), A)
    z = result = None
    while n > 0:
        z = A if z is None else L.matmul(z, z)
        if n & 1:
            result = z if result is None else L.matmul(result, z)
        n >>= 1
    return result


def matrix_norm_svd(A: Tensor, ord, dim: tuple, keepdim: bool) -> Tensor:
    """matrix_norm's ord 2, -2 and 'nuc': the singular values of the two dims moved last, then the largest,
    the smallest or their sum (the nodes torch records: AmaxBackward0 / AminBackward0 / SumBackward1)."""
    nd = A._data.ndim
    r, c = dim[0] % nd, dim[1] % nd
    if r == c:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    perm = [d for d in range(nd) if d not in (r, c)] + [r, c]
    s = svdvals(A.permute(*perm))  # (torch permutes even when the dims are already last)
    reduce = {"nuc": s.sum, 2: s.amax, -2: s.amin}[ord]
    if not keepdim:
        return reduce(-1)
    out = reduce(-1, keepdim=True).unsqueeze(-1)
    inverse = [perm.index(d) for d in range(nd)]
    return out.permute(*inverse)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """Sum over ``dim`` of ``x.conj() * y``, torch's composition (MulBackward0, then SumBackward1)."""
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{D.scalar_type_name(x.dtype)} and y of type {D.scalar_type_name(y.dtype)} instead")
    return (x.conj() * y).sum(dim)
