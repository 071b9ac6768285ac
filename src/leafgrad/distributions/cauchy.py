"""Cauchy(loc, scale): heavy tails, no mean or variance (nan / inf as torch), reparameterised draws."""
from __future__ import annotations

import math

import leafgrad
from leafgrad import Size

from . import constraints
from .distribution import Distribution
from .utils import expand_params, set_broadcast_params

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(set_broadcast_params(self, loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Cauchy, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self):
        return leafgrad.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return leafgrad.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = self.loc.new(shape).uniform_()
        eps = leafgrad.tan(math.pi * (u - 0.5))  # (a standard Cauchy draw by its inverse CDF)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return leafgrad.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return leafgrad.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
