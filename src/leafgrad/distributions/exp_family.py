"""ExponentialFamily: distributions whose density is exp(<natural params, T(x)> - A(params)) * h(x).

Normal, Bernoulli and Exponential are members, as in torch: KL between two members of different
families is refused (torch's registry reaches that rule for such pairs), and within one family it
is the Bregman divergence of the log normaliser ``A``.
"""
from __future__ import annotations

import leafgrad

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the log normaliser and its gradient (families override it with a closed form)."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = leafgrad.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
