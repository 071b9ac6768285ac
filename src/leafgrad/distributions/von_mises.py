"""VonMises(loc, concentration): the circular normal on angles (mod 2 pi).

log I0 / log I1 come from the same polynomial approximations torch uses (Abramowitz & Stegun
9.8.1-9.8.4), so log_prob, variance and their gradients agree with torch's; draws use Best and
Fisher's rejection sampler in double precision.
"""
from __future__ import annotations

import math

import numpy as np

import leafgrad
from leafgrad import Size

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])
_COEF_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
                -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
                0.1787654e-1, -0.420059e-2])


def _eval_poly(y, coef):
    """Horner's rule, highest coefficient last."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


@np.errstate(invalid="ignore", divide="ignore")  # (each branch is also evaluated where the other is kept)
def log_modified_bessel_fn(x, order: int = 0):
    """log I_order(x) for x > 0 and order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75) * (x / 3.75)
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return leafgrad.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    with np.errstate(invalid="ignore", divide="ignore"):  # (log of a negative c is a rejection, as in torch)
        return _rejection_loop(loc, concentration, proposal_r, x)


def _rejection_loop(loc, concentration, proposal_r, x):
    done = leafgrad.zeros(x.shape, dtype=leafgrad.bool)
    while not bool(done.all()):
        u1, u2, u3 = leafgrad.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = leafgrad.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = leafgrad.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * leafgrad.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self):
        return self.loc.to(leafgrad.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(leafgrad.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return leafgrad.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=Size()):
        with leafgrad.no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            x = leafgrad.zeros(shape, dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                              validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance, 1 - I1(k) / I0(k)."""
        return 1 - (log_modified_bessel_fn(self.concentration, order=1)
                    - log_modified_bessel_fn(self.concentration, order=0)).exp()
