"""ContinuousBernoulli(probs= or logits=): the normalised Bernoulli density on [0, 1] (VAE pixels).

Its normaliser, mean and variance have a removable singularity at probs = 1/2; inside the window
``lims`` torch evaluates Taylor expansions instead, and so does this, so values and gradients agree.
"""
from __future__ import annotations

import math
from numbers import Number

import leafgrad
import leafgrad.nn.functional as F
from leafgrad import Size

from . import constraints
from ._params import binary_logits, expand_probs_or_logits, param_new, param_shape
from .bernoulli import _probs_or_logits
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    _new = param_new
    param_shape = param_shape
    logits = binary_logits

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return leafgrad.max(leafgrad.le(self.probs, self._lims[0]), leafgrad.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return leafgrad.where(self._outside_unstable_region(), self.probs,
                              self._lims[0] * leafgrad.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalising constant as a function of probs."""
        cut = self._cut_probs()
        below = leafgrad.where(leafgrad.le(cut, 0.5), cut, leafgrad.zeros_like(cut))
        above = leafgrad.where(leafgrad.ge(cut, 0.5), cut, leafgrad.ones_like(cut))
        log_norm = leafgrad.log(leafgrad.abs(leafgrad.log1p(-cut) - leafgrad.log(cut))) - leafgrad.where(
            leafgrad.le(cut, 0.5), leafgrad.log1p(-2.0 * below), leafgrad.log(2.0 * above - 1.0))
        x = leafgrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return leafgrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (leafgrad.log1p(-cut) - leafgrad.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * leafgrad.pow(x, 2)) * x
        return leafgrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return leafgrad.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        var = (cut * (cut - 1.0) / leafgrad.pow(1.0 - 2.0 * cut, 2)
               + 1.0 / leafgrad.pow(leafgrad.log1p(-cut) - leafgrad.log(cut), 2))
        x = leafgrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return leafgrad.where(self._outside_unstable_region(), var, taylor)

    def sample(self, sample_shape=Size()):
        u = leafgrad.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        with leafgrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        return self.icdf(leafgrad.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (leafgrad.pow(cut, value) * leafgrad.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = leafgrad.where(self._outside_unstable_region(), cdfs, value)
        return leafgrad.where(leafgrad.le(value, 0.0), leafgrad.zeros_like(value),
                              leafgrad.where(leafgrad.ge(value, 1.0), leafgrad.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        return leafgrad.where(self._outside_unstable_region(),
                              (leafgrad.log1p(-cut + value * (2.0 * cut - 1.0)) - leafgrad.log1p(-cut))
                              / (leafgrad.log(cut) - leafgrad.log1p(-cut)), value)

    def entropy(self):
        log_probs0 = leafgrad.log1p(-self.probs)
        log_probs1 = leafgrad.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalising constant as a function of the natural parameter."""
        outside = leafgrad.max(leafgrad.le(x, self._lims[0] - 0.5), leafgrad.gt(x, self._lims[1] - 0.5))
        cut = leafgrad.where(outside, x, (self._lims[0] - 0.5) * leafgrad.ones_like(x))
        log_norm = leafgrad.log(leafgrad.abs(leafgrad.special.expm1(cut))) - leafgrad.log(leafgrad.abs(cut))
        taylor = 0.5 * x + leafgrad.pow(x, 2) / 24.0 - leafgrad.pow(x, 4) / 2880.0
        return leafgrad.where(outside, log_norm, taylor)
