"""Laplace(loc, scale): reparameterised by the inverse cdf of a uniform draw."""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from .distribution import Distribution
from .utils import expand_params, set_broadcast_params

__all__ = ["Laplace"]


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(set_broadcast_params(self, loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Laplace, batch_shape, ('loc', 'scale'), _instance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = leafgrad.finfo(self.loc.dtype).eps
        u = self.loc.new(shape).uniform_(eps - 1, 1)  # (-1, 1), never -1: log1p(-|u|) stays finite
        return self.loc - self.scale * u.sign() * leafgrad.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -leafgrad.log(2 * self.scale) - leafgrad.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * leafgrad.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * leafgrad.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + leafgrad.log(2 * self.scale)
