"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale) (infinite mean)."""
from __future__ import annotations

import math

import leafgrad

from . import constraints
from .cauchy import Cauchy
from .half_normal import folded_cdf, folded_entropy, folded_icdf, folded_log_prob
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfCauchy, _instance))

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return leafgrad.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def mode(self):
        return leafgrad.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    log_prob = folded_log_prob
    cdf = folded_cdf
    icdf = folded_icdf
    entropy = folded_entropy
