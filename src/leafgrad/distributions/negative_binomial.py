"""NegativeBinomial(total_count, probs= or logits=): successes before total_count failures.

Draws are a Gamma-Poisson mixture, as torch's.
"""
from __future__ import annotations

import leafgrad
import leafgrad.nn.functional as F
from leafgrad import Size

from . import constraints
from ._draws import poisson
from .binomial import count_and_param, expand_count_and_param
from .distribution import Distribution
from .gamma import Gamma
from ._params import binary_logits, binary_probs, param_new, param_shape
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None) -> None:
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_count_and_param(self, NegativeBinomial, batch_shape, _instance)

    _new = param_new

    @property
    def mean(self):
        return self.total_count * leafgrad.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / leafgrad.sigmoid(-self.logits)

    logits = binary_logits
    probs = binary_probs
    param_shape = param_shape

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=leafgrad.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with leafgrad.no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (-leafgrad.lgamma(self.total_count + value) + leafgrad.lgamma(1.0 + value)
                             + leafgrad.lgamma(self.total_count))
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
