"""The special functions torch.special needs beyond pointwise.py: gamma-family (lgamma, digamma,
polygamma, mvlgamma), modified Bessel (i0, i0e, i1, i1e), the normal distribution (ndtr, ndtri,
log_ndtr), entr and xlog1py, as ``defop`` ops with torch's node names and formulas.

Forwards use SciPy's kernels through the backend's optional ``special()`` lookup. lgamma and
digamma have pure-NumPy fallbacks; the others need SciPy and say so. Backward formulas call
these ops again through ``xp.apply`` so higher-order gradients are recorded.
"""
from __future__ import annotations

import math

import numpy as np

from .._backend import _BY_ARRAY_TYPE
from .._tensor import Tensor
from .pointwise import unary_float, unary_float_op
from .lazy import bind
from .registry import apply, defop

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr",
           "entr", "xlog1py"]

_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT1_2 = math.sqrt(0.5)


def _kernel(a, name: str, fallback=None):
    """SciPy's ``name`` for ``a``'s array type, else ``fallback``, else a clear error."""
    k = _BY_ARRAY_TYPE[a.__class__].special(name)
    if k is not None:
        return k
    if fallback is not None:
        return fallback
    raise RuntimeError(f"torch.special.{name}: leafgrad computes this function with SciPy, which is not "
                       "installed: pip install scipy.")


def _keep(a, out):
    return np.asarray(out).astype(a.dtype, copy=False)


def _lgamma_numpy(a):
    return np.vectorize(math.lgamma, otypes=[np.float64])(a)


def _digamma_numpy(a):
    """psi(x): the reflection formula below 0, the recurrence up to 10, then the asymptotic series."""
    x = np.asarray(a, dtype=np.float64)
    out = np.zeros_like(x)
    neg = x < 0.5
    xr = np.where(neg, 1.0 - x, x)
    with np.errstate(all="ignore"):
        refl = np.where(neg, -np.pi / np.tan(np.pi * x), 0.0)
    acc = np.zeros_like(x)
    while True:
        small = xr < 10.0
        if not small.any():
            break
        acc = acc - np.where(small, 1.0 / np.where(small, xr, 1.0), 0.0)
        xr = np.where(small, xr + 1.0, xr)
    f = 1.0 / (xr * xr)
    series = np.log(xr) - 0.5 / xr - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))
    out = series + acc + refl
    return np.where(x == np.floor(x), np.where(x <= 0, np.where(x == 0, -np.inf, np.nan), out), out)


def _lgamma_fwd(xp, a):
    return _keep(a, _kernel(a, "gammaln", _lgamma_numpy)(a))


def _digamma_fwd(xp, a):
    return _keep(a, np.where(a == 0, -np.inf, _kernel(a, "psi", _digamma_numpy)(a)))  # (torch: -inf at 0)


def _polygamma_fwd(xp, a, n):
    if n == 0:
        return _digamma_fwd(xp, a)
    return _keep(a, _kernel(a, "polygamma")(n, a))


LGAMMA = defop("LgammaBackward0", _lgamma_fwd, lambda xp, g, self: g * xp.apply(DIGAMMA, self), saved=("self",))
DIGAMMA = defop("DigammaBackward0", _digamma_fwd,
                lambda xp, g, self: g * xp.apply(POLYGAMMA, self, params=(1,)), saved=("self",))
POLYGAMMA = defop("PolygammaBackward0", _polygamma_fwd,
                  lambda xp, g, self, n: g * xp.apply(POLYGAMMA, self, params=(n + 1,)), saved=("self", "n"))


def _mvlgamma_fwd(xp, a, p):
    shifts = -0.5 * np.arange(p, dtype=a.dtype)
    lg = _lgamma_fwd(xp, a[..., None] + shifts)
    return _keep(a, lg.sum(-1) + p * (p - 1) / 4 * math.log(math.pi))


def _mvlgamma_grad(xp, g, self, p):
    shifts = xp.asarray((-0.5 * np.arange(p)).astype(xp.dtype_of(self)))
    return g * xp.sum(xp.apply(DIGAMMA, xp.expand_dims(self, -1) + shifts), axis=-1)


MVLGAMMA = defop("MvlgammaBackward0", _mvlgamma_fwd, _mvlgamma_grad, saved=("self", "p"))

I0 = defop("I0Backward0", lambda xp, a: _keep(a, _kernel(a, "i0", np.i0)(a)),
           lambda xp, g, self: g * xp.apply(I1, self), saved=("self",))
I0E = defop("SpecialI0EBackward0", lambda xp, a: _keep(a, _kernel(a, "i0e")(a)),
            lambda xp, g, self, result: g * (xp.apply(I1E, self) - xp.sign(self) * result),
            saved=("self", "result"))


def _i1_grad(xp, g, self, result):
    safe = xp.where(self == 0, 1.0, self)
    return g * xp.where(self == 0, 0.5, xp.apply(I0, self) - result / safe)


def _i1e_grad(xp, g, self, result):
    safe = xp.where(self == 0, 1.0, self)
    return g * xp.where(self == 0, 0.5, xp.apply(I0E, self) - result * (xp.sign(self) + 1.0 / safe))


I1 = defop("SpecialI1Backward0", lambda xp, a: _keep(a, _kernel(a, "i1")(a)), _i1_grad, saved=("self", "result"))
I1E = defop("SpecialI1EBackward0", lambda xp, a: _keep(a, _kernel(a, "i1e")(a)), _i1e_grad,
            saved=("self", "result"))

NDTRI = defop("SpecialNdtriBackward0", lambda xp, a: _keep(a, _kernel(a, "ndtri")(a)),
              lambda xp, g, result: g * _SQRT_2PI * xp.exp(0.5 * result * result), saved=("result",))
LOG_NDTR = defop("SpecialLogNdtrBackward0", lambda xp, a: _keep(a, _kernel(a, "log_ndtr")(a)),
                 lambda xp, g, self, result: g / _SQRT_2PI * xp.exp(-(result + 0.5 * self * self)),
                 saved=("self", "result"))
ENTR = defop("SpecialEntrBackward0", lambda xp, a: _keep(a, _kernel(a, "entr")(a)),
             lambda xp, g, self: g * -(1.0 + xp.log(self)), saved=("self",))


def _xlog1py_fwd(xp, x, y):
    return _keep(x, _kernel(x, "xlog1py")(x, y))


XLOG1PY = defop("SpecialXlog1PyBackward0", _xlog1py_fwd,
                (lambda xp, g, self, other: xp.sum_to(
                    xp.where((self == 0) & (other <= -1), 0.0, xp.apply(XLOG1PY, g, other)), self.shape),
                 lambda xp, g, self, other: xp.sum_to(g * self / (other + 1.0), other.shape)),
                saved=("self", "other"), n_in=2)
XLOG1PY_NUMBER_SELF = defop("SpecialXlog1PyBackward1", lambda xp, y, number: _xlog1py_fwd(
    xp, xp.asarray(number, dtype=y.dtype), y), lambda xp, g, other, self: g * self / (other + 1.0),
    saved=("input0", "number"))
XLOG1PY_NUMBER_SELF.node_cls._saved_names = ("other", "self")
XLOG1PY_NUMBER_OTHER = defop("SpecialXlog1PyBackward2", lambda xp, x, number: _xlog1py_fwd(
    xp, x, xp.asarray(number, dtype=x.dtype)), lambda xp, g, self, other: xp.where(
        (self == 0) & (other <= -1), 0.0, xp.apply(XLOG1PY, g, xp.scalar_like(other, g))),
    saved=("self", "number"))
XLOG1PY_NUMBER_OTHER.node_cls._saved_names = ("self", "other")

lgamma = unary_float_op(LGAMMA, "lgamma")
digamma = unary_float_op(DIGAMMA, "digamma")
i0 = unary_float_op(I0, "i0")
i0e = unary_float_op(I0E, "i0e")
i1 = unary_float_op(I1, "i1")
i1e = unary_float_op(I1E, "i1e")


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF as torch composes it, (1 + erf(x / sqrt 2)) / 2 (its nodes are torch's)."""
    from .nn_ops import ADD_SCALAR, mul_scalar
    from .pointwise import erf
    if not input.dtype.is_floating_point:
        from .. import _dtype as D
        input = input.to(D.get_default_dtype())
    return mul_scalar(apply(ADD_SCALAR, (erf(mul_scalar(input, _SQRT1_2)),), (1.0,)), 0.5)


ndtri = unary_float_op(NDTRI, "ndtri")
log_ndtr = unary_float_op(LOG_NDTR, "log_ndtr")
entr = unary_float_op(ENTR, "entr")


def polygamma(n: int, input: Tensor) -> Tensor:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n. Use n >= 0 (n = 0 is digamma).")
    return unary_float(POLYGAMMA, input, (n,))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1, got p = {p}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("mvlgamma is not implemented for integer tensors: pass a floating point tensor.")
    return apply(MVLGAMMA, (input,), (p,))


def xlog1py(input, other) -> Tensor:
    """x * log1p(y); a Python number on either side is its own node, as torch's (Backward1 / Backward2)."""
    from .. import _dtype as D
    if not isinstance(input, Tensor):
        dt = other.dtype if other.dtype.is_floating_point else D.get_default_dtype()
        return apply(XLOG1PY_NUMBER_SELF, (other.to(dt),), (float(input),))
    if not isinstance(other, Tensor):
        dt = input.dtype if input.dtype.is_floating_point else D.get_default_dtype()
        return apply(XLOG1PY_NUMBER_OTHER, (input.to(dt),), (float(other),))
    dt = D.promote_types(input.dtype, other.dtype)
    if not dt.is_floating_point:
        dt = D.get_default_dtype()
    return apply(XLOG1PY, (input.to(dt), other.to(dt)))


def _bind_methods() -> None:
    methods = {"lgamma": lgamma, "digamma": digamma, "i0": i0,
               "polygamma": lambda self, n: polygamma(n, self), "mvlgamma": lambda self, p: mvlgamma(self, p)}
    bind("special_ops", methods)  # (with their public names and docstrings, as methods.py gives the others)


#: torch's top-level forms (``torch.lgamma``, ...), served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {"lgamma": lgamma, "digamma": digamma, "polygamma": polygamma, "mvlgamma": mvlgamma, "i0": i0}

_bind_methods()
