"""torch's older top-level linear-algebra names (torch.inverse, torch.det, torch.logdet, torch.svd with ``some``,
torch.pinverse, torch.qr, torch.cholesky_solve ...) and the Tensor methods torch has for them, all on the
torch.linalg ops of ``linalg_decomp.py``."""
from __future__ import annotations

from .._tensor import Tensor
from . import linalg_decomp as LD
from .lazy import bind

__all__ = ["inverse", "det", "logdet", "slogdet", "svd", "pinverse", "qr", "matrix_power", "cholesky_solve",
           "cholesky_inverse"]


def inverse(input: Tensor) -> Tensor:
    return LD.inv(input)


def det(input: Tensor) -> Tensor:
    return LD.det(input)


def slogdet(input: Tensor):
    return LD.slogdet(input)


def logdet(input: Tensor) -> Tensor:
    """log det: NaN for a negative determinant, as torch's where over slogdet (WhereBackward0)."""
    from .pointwise import where
    sign, logabs = LD.slogdet(input)
    return where(sign < 0, float("nan"), logabs)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """torch.svd: U, S, V (not Vh), reduced unless ``some=False``; zeros for U and V without compute_uv."""
    from ..return_types import svd as _svd
    if not compute_uv:
        from .._creation import zeros
        s = LD.svdvals(input)
        m, n = input._data.shape[-2:]
        batch = tuple(input._data.shape[:-2])
        return _svd((zeros(*batch, m, m if not some else min(m, n), dtype=input.dtype), s,
                     zeros(*batch, n, n if not some else min(m, n), dtype=input.dtype)))
    U, S, Vh = LD.svd(input, full_matrices=not some)
    return _svd((U, S, Vh.mT))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    return LD.pinv(input, rtol=rcond)


def qr(input: Tensor, some: bool = True):
    from ..return_types import qr as _qr
    return _qr(tuple(LD.qr(input, "reduced" if some else "complete")))


def matrix_power(input: Tensor, n: int) -> Tensor:
    return LD.matrix_power(input, n)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """The solution of A X = B given A's Cholesky factor, as two triangular solves (torch's one node differs)."""
    if upper:
        Y = LD.solve_triangular(L.mT, B, upper=False)
        return LD.solve_triangular(L, Y, upper=True)
    Y = LD.solve_triangular(L, B, upper=False)
    return LD.solve_triangular(L.mT, Y, upper=True)


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    from .._creation import eye
    return cholesky_solve(eye(L._data.shape[-1], dtype=L.dtype), L, upper)


def _bind_methods() -> None:
    methods = {"inverse": inverse, "det": det, "logdet": logdet, "slogdet": slogdet, "svd": svd,
               "pinverse": pinverse, "qr": qr, "matrix_power": matrix_power, "cholesky_solve": cholesky_solve,
               "cholesky_inverse": cholesky_inverse,
               "cholesky": lambda self, upper=False: LD.cholesky(self, upper=upper)}
    bind("linalg_legacy", methods)  # (with their public names and docstrings, as methods.py gives the others)


#: torch's top-level forms (``torch.inverse``, ``torch.svd(some=)``, ...), served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in ("inverse", "det", "logdet", "slogdet", "svd", "pinverse", "qr",
                                                "matrix_power", "cholesky_solve", "cholesky_inverse")}

_bind_methods()
