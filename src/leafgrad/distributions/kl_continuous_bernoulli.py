"""KL pairs torch registers with ContinuousBernoulli on either side."""
from __future__ import annotations

import math

import leafgrad

from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .kl_families import INFINITE_KL
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

__all__: list = []


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + leafgrad.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - leafgrad.log1p(-q.probs)
    return t1 + t2 + t3


def _cross_entropy_part(p, q):
    """-H(p) - E_p[log q] for a q of ContinuousBernoulli, when E_p[x] is p.mean."""
    return -p.entropy() - p.mean * q.logits - leafgrad.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _cross_entropy_part(p, q)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - leafgrad.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + leafgrad.square(q.loc / q.scale)) + leafgrad.log(q.scale)
    t3 = (p.variance + leafgrad.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * leafgrad.square(q.scale))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = leafgrad.max(leafgrad.ge(q.low, p.support.lower_bound), leafgrad.le(q.high, p.support.upper_bound))
    return leafgrad.where(outside, leafgrad.ones_like(result) * math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = _cross_entropy_part(p, q)
    outside = leafgrad.max(leafgrad.ge(p.high, q.support.upper_bound), leafgrad.le(p.low, q.support.lower_bound))
    return leafgrad.where(outside, leafgrad.ones_like(result) * math.inf, result)


for _p, _q, _attr in [(ContinuousBernoulli, Pareto, "probs"), (Exponential, ContinuousBernoulli, "rate"),
                      (Gamma, ContinuousBernoulli, "concentration"), (Gumbel, ContinuousBernoulli, "loc"),
                      (Laplace, ContinuousBernoulli, "loc"), (Normal, ContinuousBernoulli, "loc"),
                      (Pareto, ContinuousBernoulli, "scale")]:
    register_kl(_p, _q)(INFINITE_KL[_attr])
