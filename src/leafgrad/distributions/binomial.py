"""Binomial(total_count, probs= or logits=): successes in total_count coin flips."""
from __future__ import annotations

import leafgrad
from leafgrad import Size

from . import constraints
from ._draws import binomial
from .bernoulli import _probs_or_logits
from .distribution import Distribution
from ._params import binary_logits, binary_probs, expand_probs_or_logits, param_new, param_shape
from .utils import broadcast_all

__all__ = ["Binomial", "count_and_param", "expand_count_and_param"]


def count_and_param(dist, total_count, probs, logits) -> None:
    """Broadcast total_count with whichever of probs/logits is given, in its dtype (torch's rule)."""
    _probs_or_logits(probs, logits)
    name, param = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, param)
    setattr(dist, name, param)
    dist.total_count = count.type_as(param)
    dist._param = param


def expand_count_and_param(dist, cls, batch_shape, _instance=None):
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    new.total_count = dist.total_count.expand(batch_shape)
    expand_probs_or_logits(dist, new, batch_shape)
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new


def _clamp_by_zero(x):
    """max(x, 0) with gradient 1/2 at 0 (torch's form, so gradients agree there too)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_count_and_param(self, Binomial, batch_shape, _instance)

    _new = param_new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    logits = binary_logits
    probs = binary_probs
    param_shape = param_shape

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with leafgrad.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = leafgrad.lgamma(self.total_count + 1)
        log_factorial_k = leafgrad.lgamma(value + 1)
        log_factorial_nmk = leafgrad.lgamma(self.total_count - value + 1)
        # log(1 + exp(logits)) * n, computed stably as torch does
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * leafgrad.log1p(leafgrad.exp(-leafgrad.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(leafgrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total_count = self._homogeneous_count("enumerate_support")
        values = leafgrad.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
