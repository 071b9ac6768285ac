"""Gamma and Dirichlet draws with implicit reparameterisation gradients, and the regularised gamma.

A Gamma(alpha) draw ``x`` has no closed-form inverse CDF, so its gradient comes from the
implicit function theorem on ``u = F(x; alpha)``: ``dx/dalpha = -(dF/dalpha) / f(x; alpha)``.
torch evaluates that ratio with piecewise approximations (a Taylor series for small ``x``, a
Rice saddle-point expansion for large ``alpha``, a fitted rational function elsewhere; the
Dirichlet case the same way through Beta marginals). The kernels below evaluate the same
approximations, vectorised over NumPy arrays, so a gradient for the same draw equals
``torch._standard_gamma_grad`` / ``torch._dirichlet_grad``. Like torch's, those gradients are
not themselves differentiable: the formulas use them as constants of the backward.
"""
from __future__ import annotations

import numpy as np

from .._creation import _rng
from .._ops.registry import apply, defop
from .._ops.special_ops import _digamma_fwd, _kernel

__all__ = ["standard_gamma", "standard_gamma_grad", "sample_dirichlet", "dirichlet_grad", "gammainc"]

# Coefficients of the rational fits torch uses (numerical constants of the published approximations).
_GAMMA_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07]])
_BETA_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _psi(a):
    return _digamma_fwd(np, np.asarray(a, dtype=np.float64))


def standard_gamma_grad(alpha, x):
    """d x / d alpha for Gamma(alpha, 1) draws ``x`` (torch._standard_gamma_grad), elementwise."""
    alpha, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    out = np.empty(alpha.shape)
    with np.errstate(all="ignore"):
        small = x < 0.8
        # Taylor series of the lower incomplete gamma in x (small x)
        numer, denom = np.ones_like(x), alpha.copy()
        s1, s2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            s1 = s1 + numer / denom
            s2 = s2 + numer / (denom * denom)
        pxa = x ** alpha
        pdf = x ** (alpha - 1) * np.exp(-x)
        cdf_alpha = (np.log(x) - _psi(alpha)) * pxa * s1 - pxa * s2
        taylor = -cdf_alpha / pdf
        taylor = np.where(np.isnan(taylor), 0.0, taylor)
        # Rice saddle point (large alpha), with its own form near the mode
        near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
        n1 = 1 + 24 * alpha * (1 + 12 * alpha)
        n2 = 1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        rice_near = n1 * n2 / (1244160 * alpha ** 4)
        d = np.sqrt(8 * alpha)
        t2 = d / (alpha - x)
        t3 = (x - alpha - alpha * np.log(x / alpha)) ** -1.5
        t23 = np.where(x < alpha, t2 - t3, t2 + t3)
        t1 = np.log(x / alpha) * t23 - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        rice = np.where(near, rice_near, -stirling * x * t1 / d)
        # the bivariate rational fit in (log(x / alpha), log(alpha))
        u, v = np.log(x / alpha), np.log(alpha)
        cv = [_GAMMA_UV[0, i] + u * (_GAMMA_UV[1, i] + u * _GAMMA_UV[2, i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = np.exp(p / q)
    out[...] = np.where(small, taylor, np.where(alpha > 8.0, rice, rational))
    return out


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _psi(alpha) - _psi(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * (1 - x) ** -beta * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_beta_small(x, alpha, beta):
    factor = _psi(alpha + beta) - _psi(beta)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -(1 - x) ** (1 - beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * ((43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
        3 * (59 + 180 * beta - 90 * x) * b2 + alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
            8 * (1 - x) * (135 * beta - 11)))))
    pre_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    pre_den = 12960 * alpha ** 3 * b2 * (1 + 12 * total)
    at_mean = pre_num / (1 - x) * poly / pre_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * b2))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = alpha * (x - 1) + beta * x
    term1 = ((2 * alpha * alpha * (x - 1) + alpha * beta * (x - 1) - x * b2)
             / (np.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx))
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / axbx
    term4 = (beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x))) ** -1.5
    away = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where(near, at_mean, away)


def dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad: the scaled reparameterised gradient of Beta(alpha, total - alpha) draws."""
    x, alpha, total = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in (x, alpha, total)))
    beta = total - alpha
    boundary = total * x * (1 - x)
    with np.errstate(all="ignore"):
        small = _beta_grad_alpha_small(x, alpha, beta)
        large = -_beta_grad_beta_small(1 - x, beta, alpha)
        mid = _beta_grad_alpha_mid(x, alpha, beta)
        u = np.log(x)
        a = np.log(alpha) - u
        b = np.log(total) - a
        pu, pa = (1.0, u, u * u), (1.0, a, a * a)
        p = q = 0.0
        for i in range(3):
            for j in range(3):
                ua = pu[i] * pa[j]
                c0, c1 = _BETA_C[0, i, j], _BETA_C[1, i, j]
                p = p + ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
                q = q + ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
        rational = p / q * (x * (_psi(total) - _psi(alpha)) / beta)
    return np.where((x <= 0.5) & (boundary < 2.5), small,
                    np.where((x >= 0.5) & (boundary < 0.75), large,
                             np.where((alpha > 6) & (beta > 6), mid, rational)))


def _gamma_fwd(xp, a):
    return np.asarray(_rng(None).standard_gamma(a)).astype(a.dtype, copy=False)


def _not_differentiable(xp, g, *saved):
    raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented: the implicit "
                              "gradient of a Gamma draw has no gradient of its own (as in torch); a second "
                              "derivative through rsample() is not available.")


STANDARD_GAMMA_GRAD = defop("StandardGammaGradBackward0",
                            lambda xp, a, x: standard_gamma_grad(a, x).astype(x.dtype, copy=False),
                            (_not_differentiable, _not_differentiable), n_in=2)
STANDARD_GAMMA = defop("StandardGammaBackward0", _gamma_fwd,
                       lambda xp, g, self, result: g * xp.apply(STANDARD_GAMMA_GRAD, self, result),
                       saved=("self", "result"))


def _dirichlet_fwd(xp, a):
    g = np.asarray(_rng(None).standard_gamma(a), dtype=np.float64)
    total = g.sum(-1, keepdims=True)
    x = np.where(total > 0, g / np.where(total > 0, total, 1.0), 0.0)
    tiny = np.finfo(a.dtype).tiny
    return np.clip(x, tiny, 1 - np.finfo(a.dtype).eps).astype(a.dtype, copy=False)


def _dirichlet_backward(xp, g, self, result):
    """Computed on the raw arrays only: torch's ``_Dirichlet`` backward is once-differentiable."""
    x, alpha, gd = xp.data(result), xp.data(self), xp.data(g)
    k = dirichlet_grad(x, alpha, alpha.sum(-1, keepdims=True))
    return xp.constant((k * (gd - (x * gd).sum(-1, keepdims=True))).astype(x.dtype, copy=False))


DIRICHLET = defop("_DirichletBackward", _dirichlet_fwd, _dirichlet_backward, saved=("self", "result"))


def _gammainc_fwd(xp, a, x):
    return np.asarray(_kernel(a, "gammainc")(a, x)).astype(np.result_type(a, x), copy=False)


def _gammainc_grad_x(xp, g, self, other):
    return xp.sum_to(g * xp.exp((self - 1.0) * xp.log(other) - other - xp.apply(_LGAMMA, self)), other.shape)


def _gammainc_grad_a(xp, g, self, other):
    raise NotImplementedError("the derivative for 'igamma: input' is not implemented: gammainc(a, x) has no "
                              "gradient in a (as in torch); detach the concentration, or differentiate in x only.")


from .._ops.special_ops import LGAMMA as _LGAMMA  # noqa: E402

GAMMAINC = defop("IgammaBackward0", _gammainc_fwd, (_gammainc_grad_a, _gammainc_grad_x),
                 saved=("self", "other"), n_in=2)


def standard_gamma(concentration):
    """torch._standard_gamma: Gamma(concentration, 1) draws; differentiable through the implicit gradient."""
    return apply(STANDARD_GAMMA, (concentration,), ())


def sample_dirichlet(concentration):
    """Dirichlet draws over the last dim, differentiable as torch's ``_Dirichlet`` function."""
    return apply(DIRICHLET, (concentration,), ())


def gammainc(a, x):
    """The regularised lower incomplete gamma P(a, x) (torch.special.gammainc)."""
    return apply(GAMMAINC, (a, x), ())
