"""HalfNormal(scale): |X| for X ~ Normal(0, scale); its density is twice the base's on [0, inf).

The folded-density helpers here serve HalfCauchy too.
"""
from __future__ import annotations

import math

import leafgrad

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


def folded_log_prob(self, value):
    """log(2 f(value)) on value >= 0, -inf below (f the centred base density)."""
    if self._validate_args:
        self._validate_sample(value)
    value = leafgrad.as_tensor(value, dtype=self.base_dist.scale.dtype)
    log_prob = self.base_dist.log_prob(value) + math.log(2)
    return leafgrad.where(value >= 0, log_prob, -math.inf)


def folded_cdf(self, value):
    if self._validate_args:
        self._validate_sample(value)
    return 2 * self.base_dist.cdf(value) - 1


def folded_icdf(self, prob):
    return self.base_dist.icdf((prob + 1) / 2)


def folded_entropy(self):
    return self.base_dist.entropy() - math.log(2)


class HalfNormal(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfNormal, _instance))

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return leafgrad.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    log_prob = folded_log_prob
    cdf = folded_cdf
    icdf = folded_icdf
    entropy = folded_entropy
