"""Uniform(low, high) on [low, high): reparameterised draws ``low + u * (high - low)``."""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from .distribution import Distribution
from .utils import expand_params, set_broadcast_params

__all__ = ["Uniform"]


class Uniform(Distribution):
    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        # each bound is checked against the other: low < high everywhere
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None) -> None:
        super().__init__(set_broadcast_params(self, low=low, high=high), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Uniform, batch_shape, ('low', 'high'), _instance)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        rand = leafgrad.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return leafgrad.log(lb.mul(ub)) - leafgrad.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return leafgrad.log(self.high - self.low)
