"""Gamma(concentration, rate).

Draws are reparameterised through ``_standard_gamma`` (see ``_reparam.py``): the gradient of a
draw with respect to the concentration is the implicit one torch computes, and the rate enters
as a plain division.
"""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from ._reparam import gammainc, standard_gamma
from .exp_family import ExponentialFamily
from .utils import expand_params, set_broadcast_params

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None) -> None:
        batch_shape = set_broadcast_params(self, concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Gamma, batch_shape, ("concentration", "rate"), _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=leafgrad.finfo(value.dtype).tiny)  # (not recorded: a floor on the draw)
        return value

    def log_prob(self, value):
        value = leafgrad.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (leafgrad.xlogy(self.concentration, self.rate) + leafgrad.xlogy(self.concentration - 1, value)
                - self.rate * value - leafgrad.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - leafgrad.log(self.rate) + leafgrad.lgamma(self.concentration)
                + (1.0 - self.concentration) * leafgrad.digamma(self.concentration))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return leafgrad.lgamma(x + 1) + (x + 1) * leafgrad.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, x = leafgrad.broadcast_tensors(self.concentration, self.rate * value)
        return gammainc(a, x)
