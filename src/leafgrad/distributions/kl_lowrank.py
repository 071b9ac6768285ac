"""KL pairs among MultivariateNormal and LowRankMultivariateNormal (torch's closed forms)."""
from __future__ import annotations

import leafgrad

from .kl import register_kl
from .kl_families import _batch_trace_XXT
from .lowrank_multivariate_normal import LowRankMultivariateNormal, lowrank_logdet, lowrank_mahalanobis
from .multivariate_normal import MultivariateNormal, batch_mahalanobis

__all__: list = []


def _check_events(p, q, what: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes cannot be computed")


def _q_terms(p, q):
    """log|Sigma_q| and the Mahalanobis term of q's low-rank form, and A = C^-1 W^T D^-1."""
    W, D, C = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril
    mahalanobis = lowrank_mahalanobis(W, D, q.loc - p.loc, C)
    A = leafgrad.linalg.solve_triangular(C, W.mT / D.unsqueeze(-2), upper=False)
    return lowrank_logdet(W, D, C), mahalanobis, A


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_events(p, q, "Low Rank Multivariate Normals")
    q_logdet, term3, A = _q_terms(p, q)
    term1 = q_logdet - lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    q_logdet, term3, A = _q_terms(p, q)
    term1 = q_logdet - 2 * p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term21 = _batch_trace_XXT(p._unbroadcasted_scale_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    qL = q._unbroadcasted_scale_tril
    term1 = 2 * qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - lowrank_logdet(
        p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)
    term3 = batch_mahalanobis(qL, q.loc - p.loc)
    combined = tuple(leafgrad.broadcast_shapes(qL.shape[:-2], p._unbroadcasted_cov_factor.shape[:-2]))
    n = p.event_shape[0]
    q_tril = qL.expand(combined + (n, n))
    p_factor = p._unbroadcasted_cov_factor.expand(combined + (n, p.cov_factor.size(-1)))
    p_diag = leafgrad.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(combined + (n, n))
    term21 = _batch_trace_XXT(leafgrad.linalg.solve_triangular(q_tril, p_factor, upper=False))
    term22 = _batch_trace_XXT(leafgrad.linalg.solve_triangular(q_tril, p_diag, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
