"""leafgrad.special: torch.special's functions, loaded on first use (``import leafgrad`` stays lean).

Most are the ops leafgrad already has (erf, expit = sigmoid, logit, xlogy, sinc, softmax ...) under
torch.special's names; the gamma, Bessel and normal-distribution functions are the ops of
``_ops/special_ops.py`` (SciPy's kernels, with torch's backward formulas).
"""
from __future__ import annotations

from ._ops.pointwise import erf, expm1, log1p, round, sigmoid as expit
from ._ops.pointwise_math import erfc, erfinv, exp2, logit, sinc, xlogy
from ._ops.reduction import log_softmax as _log_softmax, logsumexp, softmax as _softmax
from ._ops.special_ops import (digamma, entr, i0, i0e, i1, i1e, log_ndtr, mvlgamma, ndtr, ndtri, polygamma,
                               lgamma as gammaln, xlog1py)
from ._ops.pointwise_extra import igamma as gammainc, igammac as gammaincc  # (torch's aliases)
from ._tensor import Tensor

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1", "i1e",
           "gammainc", "gammaincc", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "sinc", "softmax", "xlog1py", "xlogy"]

psi = digamma


def multigammaln(input: Tensor, p: int) -> Tensor:
    return mvlgamma(input, p)


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    return _log_softmax(input, dim, dtype=dtype)
