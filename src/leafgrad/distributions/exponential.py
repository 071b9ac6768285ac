"""Exponential(rate): reparameterised draws ``E / rate`` with E a unit exponential."""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from .exp_family import ExponentialFamily
from .utils import expand_params, set_broadcast_params

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None) -> None:
        super().__init__(set_broadcast_params(self, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Exponential, batch_shape, ('rate',), _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return leafgrad.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.rate.new(shape).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - leafgrad.exp(-self.rate * value)

    def icdf(self, value):
        return -leafgrad.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - leafgrad.log(self.rate)

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -leafgrad.log(-x)
