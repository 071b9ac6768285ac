"""Poisson(rate): counts; log_prob is differentiable in the rate, draws are not (torch has no rsample)."""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from ._draws import poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all, expand_params, set_broadcast_params

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None) -> None:
        super().__init__(set_broadcast_params(self, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Poisson, batch_shape, ("rate",), _instance)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        with leafgrad.no_grad():
            return poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple:
        return (leafgrad.log(self.rate),)

    def _log_normalizer(self, x):
        return leafgrad.exp(x)
