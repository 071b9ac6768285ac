"""The rest of torch's element-wise math: inverse and hyperbolic trigonometry, the two-argument
functions (atan2, hypot, logaddexp, xlogy, heaviside), erfc/erfinv, and the small helpers
(frac, sgn, logit, deg2rad, nan_to_num, signbit).

Kept apart from pointwise.py, which holds the arithmetic every model runs through; these are
declared the same way (one ``defop`` each, formulas written against the array namespace ``xp``,
so they run on raw arrays and, recorded, on Tensors for double backward) and follow torch's
derivatives.yaml formula for formula, so edge values (0, +-1, inf, nan) give torch's gradients
and not merely the textbook ones.

Domain edges are ordinary inputs here (asin(2), logit(0), xlogy(0, 0)): torch answers them
with nan or inf silently, so the forwards that divide by zero or take a square root of a
negative number run under ``np.errstate`` rather than warn (the engine silences the formulas).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._backend import _BY_ARRAY_TYPE
from .._tensor import TENSOR_TYPES, Tensor
from ..autograd.grad_mode import STATE as _STATE
from .pointwise import (_PY_SCALAR_KIND, RSQRT, _WRAP_IT, _erf, _no_derivative, _require_tensors, _tensors_only,
                        apply_simple, binary, unary_float, unary_float_op)
from .pointwise import SGN  # noqa: E402  (defined beside abs, whose gradient uses it)
from .registry import apply, defop
from .unsigned import refuse_unsigned

__all__ = ["acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan2", "arctanh", "asin", "asinh",
           "atan2", "atanh", "cosh", "deg2rad", "erfc", "erfinv", "exp2", "frac", "heaviside", "hypot", "logaddexp",
           "logaddexp2", "logit", "nan_to_num", "rad2deg", "sgn", "signbit", "sinc", "sinh", "xlogy",
           "binary_dtype", "heaviside_check", "logit_eps"]

_make = Tensor._make
_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}
_LN2 = math.log(2.0)
_PI_180 = math.pi / 180
_180_PI = 180 / math.pi


def _in_dtype_of(r, a):
    """``r`` in ``a``'s float dtype (SciPy computes float16 in float32 or float64); from an integer
    ``a`` (an in-place write into one) the float result stays, for the write to refuse."""
    return r.astype(a.dtype, copy=False) if a.dtype.kind in "fV" else r


def _real_only(a, kernel: str) -> None:
    """torch's CPU kernels of these functions are built for real dtypes only."""
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.scalar_type_name(a.dtype)}'")


def _quiet(fn):
    """The forward ``fn(xp, a)`` without NumPy's warnings for nan/inf results (torch gives none)."""
    def fwd(xp, a):
        with np.errstate(**_QUIET):
            return fn(xp, a)
    return fwd


def _quiet2(fn):
    """``_quiet`` for a two-input forward ``fn(xp, a, b)``."""
    def fwd(xp, a, b):
        with np.errstate(**_QUIET):
            return fn(xp, a, b)
    return fwd


# ----------------------------------------------------------------------------- inverse and hyperbolic trig
def _rsqrt(xp, a):
    """torch's rsqrt (NumPy has none): its op, so a recorded backward shows RsqrtBackward0 as before."""
    return xp.apply(RSQRT, a)


def _acosh_grad(xp, g, self):
    if xp.dtype_of(self).kind == "c":  # (sqrt(x*x - 1) splits into two square roots only for real x >= 1)
        return g * xp.conj(_rsqrt(xp, self + 1) * _rsqrt(xp, self - 1))
    return g * _rsqrt(xp, self * self - 1)


def _asin_grad(xp, g, self):
    return g * xp.conj(_rsqrt(xp, 1 - self * self))


def _acos_grad(xp, g, self):
    return g * -xp.conj(_rsqrt(xp, 1 - self * self))


def _atanh_grad(xp, g, self):
    return g / xp.conj(1 - self * self)


ASIN = defop("AsinBackward0", _quiet(lambda xp, a: xp.arcsin(a)), _asin_grad, saved=("self",))
ACOS = defop("AcosBackward0", _quiet(lambda xp, a: xp.arccos(a)), _acos_grad, saved=("self",))
ASINH = defop("AsinhBackward0", lambda xp, a: xp.arcsinh(a),
              lambda xp, g, self: g * xp.conj(_rsqrt(xp, self * self + 1)), saved=("self",))
ACOSH = defop("AcoshBackward0", _quiet(lambda xp, a: xp.arccosh(a)), _acosh_grad, saved=("self",))
ATANH = defop("AtanhBackward0", _quiet(lambda xp, a: xp.arctanh(a)), _atanh_grad, saved=("self",))
SINH = defop("SinhBackward0", _quiet(lambda xp, a: xp.sinh(a)), lambda xp, g, self: g * xp.conj(xp.cosh(self)),
             saved=("self",))
COSH = defop("CoshBackward0", _quiet(lambda xp, a: xp.cosh(a)), lambda xp, g, self: g * xp.conj(xp.sinh(self)),
             saved=("self",))


def _no_inplace_derivative(name: str):
    def formula(xp, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not implemented. torch "
                                  f"records {name}_ without one; use the out-of-place form (y = y.{name}()) "
                                  "where a gradient flows through it.")
    return formula


# torch's asinh_, acosh_ and atanh_ record these nodes, whose backward refuses (derivatives.yaml's
# not_implemented("inplace version of ...")): the in-place forms write these ops
ASINH_INPLACE = defop("AsinhBackward1", ASINH.forward, _no_inplace_derivative("asinh"))
ACOSH_INPLACE = defop("AcoshBackward1", ACOSH.forward, _no_inplace_derivative("acosh"))
ATANH_INPLACE = defop("AtanhBackward1", ATANH.forward, _no_inplace_derivative("atanh"))

asin = arcsin = unary_float_op(ASIN, "asin")
acos = arccos = unary_float_op(ACOS, "acos")
asinh = arcsinh = unary_float_op(ASINH, "asinh")
acosh = arccosh = unary_float_op(ACOSH, "acosh")
atanh = arctanh = unary_float_op(ATANH, "atanh")
sinh = unary_float_op(SINH, "sinh")
cosh = unary_float_op(COSH, "cosh")


# ----------------------------------------------------------------------------- exponential and error functions
def _erfc(xp, a):
    _real_only(a, "erfc_vml_cpu")
    kernel = _BY_ARRAY_TYPE[a.__class__].special("erfc")
    if kernel is not None:
        return _in_dtype_of(kernel(a), a)
    return np.vectorize(math.erfc, otypes=[a.dtype if a.dtype.kind in "fV" else np.float64])(a)


# Giles' single-precision erfinv ("Approximating the erfinv function", 2010): the start for Newton
# steps on erf when SciPy is not installed; its two branches meet at w = 5.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erfinv_newton(xp, y):
    """erfinv of a float64 array from erf alone: Giles' start, then two Newton steps (each
    doubles the correct digits, so float64 precision from single's)."""
    w = -xp.log((1 - y) * (1 + y))
    central, tail = w - 2.5, xp.sqrt(w) - 3
    p = xp.where(w < 5, _ERFINV_CENTRAL[0], _ERFINV_TAIL[0])
    for c_central, c_tail in zip(_ERFINV_CENTRAL[1:], _ERFINV_TAIL[1:]):
        p = xp.where(w < 5, c_central + p * central, c_tail + p * tail)
    x = p * y
    for _ in range(2):
        x = x - (_erf(xp, x) - y) / (2 / math.sqrt(math.pi) * xp.exp(-x * x))
    return xp.where(xp.abs(y) == 1, xp.copysign(xp.inf, y), x)  # (+-1: the start is inf there, Newton nan)


def _erfinv(xp, a):
    _real_only(a, "erfinv_vml_cpu")
    kernel = _BY_ARRAY_TYPE[a.__class__].special("erfinv")
    with np.errstate(**_QUIET):
        r = kernel(a) if kernel is not None else _erfinv_newton(xp, a.astype(np.float64))
    return _in_dtype_of(xp.where(a == 0, a, r), a)  # (erfinv(-0.0) is -0.0, as torch; SciPy gives 0.0)


ERFC = defop("ErfcBackward0", _erfc,
             lambda xp, g, self: g * (-2 / math.sqrt(math.pi)) * xp.exp(-(self * self)), saved=("self",))
ERFINV = defop("ErfinvBackward0", _erfinv,  # (NumPy has no erfinv: the op itself, on arrays its forward)
               lambda xp, g, self: g * (0.5 * math.sqrt(math.pi)) * xp.exp(xp.apply(ERFINV, self) ** 2),
               saved=("self",))
EXP2 = defop("Exp2Backward0", _quiet(lambda xp, a: xp.exp2(a)), lambda xp, g, result: g * xp.conj(result) * _LN2,
             saved=("result",))

erfc = unary_float_op(ERFC, "erfc")
erfinv = unary_float_op(ERFINV, "erfinv")
exp2 = unary_float_op(EXP2, "exp2")


# ----------------------------------------------------------------------------- sinc
def _sinc_fwd(xp, a):
    with np.errstate(**_QUIET):
        x = a * math.pi  # (pi in the tensor's dtype, as torch's kernel)
        return xp.where(a == 0, 1, xp.sin(x) / x)


def _sinc_grad(xp, g, self):
    # torch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (pi x^2), and 0 where pi x^2 is 0
    self_pi = self * math.pi
    self_squared_pi = self * self * math.pi
    out = g * xp.conj((self_pi * xp.cos(self_pi) - xp.sin(self_pi)) / self_squared_pi)
    return xp.where(self_squared_pi == 0, 0.0, out)


SINC = defop("SincBackward0", _sinc_fwd, _sinc_grad, saved=("self",))
sinc = unary_float_op(SINC, "sinc")


# ----------------------------------------------------------------------------- logit
def _logit_fwd(xp, a, eps):
    _real_only(a, "logit_cpu")
    with np.errstate(**_QUIET):
        if eps is not None and eps >= 0:  # (a negative eps clamps nothing, as torch)
            lo = xp.asarray(eps, dtype=a.dtype)
            hi = 1 - lo  # (in the tensor's dtype: logit(x, 0.1) is not symmetric in float32, as in torch)
            a = xp.where(a < lo, lo, xp.where(a > hi, hi, a))  # (not clip: lo > hi sends x < lo to lo)
        return xp.log(a / (1 - a))


def _logit_grad(xp, g, self, eps):
    slope = g / (self * (1 - self))
    if _STATE.grad:  # recorded (create_graph, on Tensors): torch's infinitely_differentiable_logit_backward
        if eps is None:
            return xp.where(xp.logical_and(self >= 0, self <= 1), slope, math.nan)
        return xp.where(xp.logical_and(self >= eps, self <= 1 - eps), slope, 0.0)
    # torch's logit_backward kernel, which differs at nan and for a negative eps
    if eps is None or eps < 0:
        return xp.where(xp.logical_or(self < 0, self > 1), math.nan, slope)
    return xp.where(xp.logical_or(self < eps, self > 1 - eps), 0.0, slope)


LOGIT = defop("LogitBackward0", _logit_fwd, _logit_grad, saved=("self", "eps"))


def logit_eps(eps):
    """``eps`` as torch's ``float? eps`` takes it: None, or a number made a float."""
    if eps is None:
        return None
    if eps.__class__ not in _PY_SCALAR_KIND and not isinstance(eps, (np.integer, np.floating)):
        raise TypeError(f"logit(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")
    return float(eps)


def logit(input: Tensor, eps=None) -> Tensor:
    return unary_float(LOGIT, input, (logit_eps(eps),))


# ----------------------------------------------------------------------------- degrees, fractions, signs
def _angle_fwd(name: str, factor: float):
    def fwd(xp, a):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return a * factor  # (factor in the tensor's dtype, as torch's multiply by a wrapped number)
    return fwd


def _frac_fwd(xp, a):
    if a.dtype.kind not in "fV":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{D.scalar_type_name(a.dtype)}': frac is "
                                  "x - trunc(x), which is 0 for integers; convert first, e.g. t.float().frac()")
    with np.errstate(invalid="ignore"):  # (frac(inf) is nan)
        return a - xp.trunc(a)


DEG2RAD = defop("Deg2RadBackward0", _angle_fwd("deg2rad", _PI_180), lambda xp, g: g * _PI_180)
RAD2DEG = defop("Rad2DegBackward0", _angle_fwd("rad2deg", _180_PI), lambda xp, g: g * _180_PI)
FRAC = defop("FracBackward0", _frac_fwd, lambda xp, g: g)


def _own_dtype_op(op, name: str):
    """The public function of an op computed in the input's own dtype: an integer sgn stays an
    integer, and frac's forward refuses one itself (so no promotion step, unlike unary_float_op)."""
    def fn(input: Tensor) -> Tensor:
        return apply_simple(op, input)
    fn.__name__ = fn.__qualname__ = name
    return fn


deg2rad = unary_float_op(DEG2RAD, "deg2rad")
rad2deg = unary_float_op(RAD2DEG, "rad2deg")
frac = _own_dtype_op(FRAC, "frac")
sgn = _own_dtype_op(SGN, "sgn")


def signbit(input: Tensor) -> Tensor:
    """Set for negative numbers, -0.0 and a nan whose sign bit is set; never differentiable."""
    d = input._data
    if d.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if d.dtype.kind == "b":
        return _make(np.zeros(d.shape, dtype=bool))
    return _make(np.asarray(np.signbit(d)))


# ----------------------------------------------------------------------------- nan_to_num
def _nan_to_num_fwd(xp, a, nan, posinf, neginf):
    if a.dtype.kind not in "fcV":  # (integers and bools hold no nan or inf: a copy, as torch)
        return a.copy()
    with np.errstate(**_QUIET):  # (a replacement beyond the dtype's range becomes inf, silently)
        return xp.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


NAN_TO_NUM = defop("NanToNumBackward0", _nan_to_num_fwd, lambda xp, g, self: g * xp.isfinite(self), saved=("self",))


def nan_to_num(input: Tensor, nan=0.0, posinf=None, neginf=None) -> Tensor:
    if input.requires_grad and input.dtype.is_complex and _STATE.grad:  # (torch's nan_to_num_ does record one)
        raise RuntimeError("nan_to_num does not support automatic differentiation for outputs with complex dtype. "
                           "Apply it to the real and imaginary parts (x.real, x.imag) separately.")
    return apply_simple(NAN_TO_NUM, input, None, (nan, posinf, neginf))


# ----------------------------------------------------------------------------- two-argument functions
# (promotes integers to the default float dtype, takes complex): torch's kernels for the others
# refuse integer (and complex) operands outright
_BINARY_RULES = {"atan2": (True, False), "hypot": (False, False), "logaddexp": (False, True),
                 "logaddexp2": (False, False), "xlogy": (True, False)}


def binary_dtype(name: str, input, other) -> D.dtype:
    """The dtype torch computes the two-argument function ``name`` in, after its dtype checks."""
    promotes_integers, takes_complex = _BINARY_RULES[name]
    dt = D.result_type(input, other)
    if dt._kind <= 1 and promotes_integers:
        return D.get_default_dtype()
    if dt._kind <= 1 or (dt.is_complex and not takes_complex):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{D.scalar_type_name(dt)}'")
    return dt


def _float_binary(op, name: str, input, other) -> Tensor:
    _tensors_only(name, input, other)
    return binary(op, input, other, out_dtype=binary_dtype(name, input, other))


def _ints_as_grad(xp, g, *operands):
    """The saved operands of a two-argument op, an integer or bool one in the gradient's (float) dtype:
    torch's ops take it to the float operand's dtype, where NumPy makes int64 with float32 a float64.
    (Float operands stay: NumPy and torch promote two of them alike, but for a 0-d one.)"""
    return [xp.astype(a, xp.dtype_of(g)) if xp.dtype_of(a).kind in "iub" else a for a in operands]


def _atan2_grad(xp, g, for_self: bool, self, other):
    # torch's atan2_backward: g * factor / (y^2 + x^2), the reciprocal 0 where both are 0 (so the gradient is)
    self, other = _ints_as_grad(xp, g, self, other)
    denom = self * self + other * other
    return g * (other if for_self else -self) * xp.masked_fill(xp.reciprocal(denom), denom == 0, 0)


def _logaddexp_fwd(xp, a, b):
    if a.dtype.kind == "c":
        return _logaddexp_complex(xp, a, b)
    with np.errstate(**_QUIET):  # (inf and -inf: nan)
        return xp.logaddexp(a, b)


def _logaddexp_complex(xp, a, b):
    """torch's _log_add_exp_helper (NumPy's logaddexp is real only): the operand of larger real part
    factored out, so exp cannot overflow; equal infinite real parts and nan handled apart."""
    a_lower = a.real < b.real
    lo, hi = xp.where(a_lower, a, b), xp.where(a_lower, b, a)
    with np.errstate(**_QUIET):
        out = xp.log1p(xp.exp(lo - hi)) + hi
        both_inf = ~xp.isfinite(lo.real) & (lo.real == hi.real)  # (-inf: lo itself; inf: no log1p, no inf - inf)
        out = xp.where(both_inf, xp.where(lo.real < 0, lo, xp.log(xp.exp(lo) + xp.exp(hi))), out)
    return xp.where(xp.isnan(a) | xp.isnan(b), complex(xp.nan, xp.nan), out).astype(a.dtype, copy=False)


def _logaddexp_grad(xp, g, this, that, base2: bool = False):
    # torch: g / (1 + exp(that - this)) for each operand, pow(2, that - this) for logaddexp2
    this, that = _ints_as_grad(xp, g, this, that)
    gap = that - this  # (two infinities of one sign: nan)
    # (xp.power, not 2 ** gap: a 0-d gap is a NumPy scalar on arrays, whose ** rounds otherwise in float32)
    return g / xp.conj(1 + (xp.power(2, gap) if base2 else xp.exp(gap)))


def _hypot_grad(xp, g, operand, result):
    (operand,) = _ints_as_grad(xp, g, operand)
    return g * operand / result


ATAN2 = defop("Atan2Backward0", lambda xp, a, b: xp.arctan2(a, b),
              (lambda xp, g, self, other: _atan2_grad(xp, g, True, self, other),
               lambda xp, g, self, other: _atan2_grad(xp, g, False, self, other)),
              saved=("self", "other"), n_in=2)
HYPOT = defop("HypotBackward0", lambda xp, a, b: xp.hypot(a, b),
              (lambda xp, g, self, other, result: _hypot_grad(xp, g, self, result),
               lambda xp, g, self, other, result: _hypot_grad(xp, g, other, result)),
              saved=("self", "other", "result"), n_in=2)
LOGADDEXP = defop("LogaddexpBackward0", _logaddexp_fwd,
                  (lambda xp, g, self, other: _logaddexp_grad(xp, g, self, other),
                   lambda xp, g, self, other: _logaddexp_grad(xp, g, other, self)),
                  saved=("self", "other"), n_in=2)
LOGADDEXP2 = defop("Logaddexp2Backward0", _quiet2(lambda xp, a, b: xp.logaddexp2(a, b)),
                   (lambda xp, g, self, other: _logaddexp_grad(xp, g, self, other, base2=True),
                    lambda xp, g, self, other: _logaddexp_grad(xp, g, other, self, base2=True)),
                   saved=("self", "other"), n_in=2)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    return _float_binary(ATAN2, "atan2", input, other)


arctan2 = atan2


def hypot(input: Tensor, other: Tensor) -> Tensor:
    return _float_binary(HYPOT, "hypot", input, other)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    return _float_binary(LOGADDEXP, "logaddexp", input, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    return _float_binary(LOGADDEXP2, "logaddexp2", input, other)


# ----------------------------------------------------------------------------- xlogy
def _xlogy_fwd(xp, x, y):
    # torch: nan where y is nan, else 0 where x is 0 (even for y <= 0), else x * log(y)
    with np.errstate(**_QUIET):
        out = xp.where(x == 0, 0, x * xp.log(y))
        return xp.where(xp.isnan(y), xp.nan, out)


def _xlogy_self_grad(xp, g, self, other):
    # torch: xlogy(g, other), 0 where self is 0 and other <= 0. That xlogy computes in the promoted
    # dtype, g's: on Tensors the public xlogy promotes as torch (recording no cast of other), on
    # arrays other is taken to g's dtype for the op's forward (NumPy would take log(other) in its own)
    if xp.tensors:
        out = xlogy(g, other)
    else:
        out = xp.apply(XLOGY, g, xp.astype(other, xp.dtype_of(g)))
    return xp.masked_fill(out, xp.logical_and(self == 0, other <= 0.0), 0)  # (0.0: a uint other compares in float)


def _xlogy_other_grad(xp, g, self, other):
    self, other = _ints_as_grad(xp, g, self, other)
    return g * self / other


def _xlogy_number_other_grad(xp, g, self, other):
    out = xp.apply(XLOGY_NUMBER_OTHER, g, params=(other,))
    return out if other > 0 else xp.masked_fill(out, self == 0, 0)


# torch's three overloads: xlogy.Tensor, xlogy.Scalar_Self (number, tensor), xlogy.Scalar_Other
# (tensor, number); the number is a forward parameter, made an array of the tensor's dtype there
XLOGY = defop("XlogyBackward0", _xlogy_fwd, (_xlogy_self_grad, _xlogy_other_grad), saved=("self", "other"), n_in=2)
XLOGY_NUMBER_SELF = defop("XlogyBackward1", lambda xp, y, number: _xlogy_fwd(xp, xp.asarray(number, dtype=y.dtype), y),
                          lambda xp, g, self, other: g * self / other,  # (self: the number, weakly typed)
                          saved=("number", "input0"))
XLOGY_NUMBER_SELF.node_cls._saved_names = ("self", "other")  # (torch's names: the number is its self)
XLOGY_NUMBER_OTHER = defop("XlogyBackward2",
                           lambda xp, x, number: _xlogy_fwd(xp, x, xp.asarray(number, dtype=x.dtype)),
                           _xlogy_number_other_grad, saved=("self", "number"))
XLOGY_NUMBER_OTHER.node_cls._saved_names = ("self", "other")


def xlogy(input, other) -> Tensor:
    """``input * log(other)``, with 0 where ``input`` is 0: the x log x terms of entropies stay finite."""
    if input.__class__ not in TENSOR_TYPES and other.__class__ not in TENSOR_TYPES:
        raise TypeError(f"xlogy() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected one of: (Tensor input, Tensor other), (Number self, "
                        "Tensor other), (Tensor input, Number other). At least one of them must be a tensor.")
    input, other = (v.item() if isinstance(v, np.generic) else v for v in (input, other))  # (torch: a Scalar too)
    dt = binary_dtype("xlogy", input, other)
    if other.__class__ in _PY_SCALAR_KIND:
        return apply(XLOGY_NUMBER_OTHER, (input,), (other,), cast=None if input.dtype is dt else dt.np)
    if input.__class__ in _PY_SCALAR_KIND:
        return apply(XLOGY_NUMBER_SELF, (other,), (input,), cast=None if other.dtype is dt else dt.np)
    return binary(XLOGY, input, other, out_dtype=dt)


# ----------------------------------------------------------------------------- heaviside
_HEAVISIDE_HINT = ("heaviside is a step, with a zero derivative wherever it has one; .detach() its inputs, or "
                   "use a smooth step such as torch.sigmoid(k * x) where a gradient is wanted.")
HEAVISIDE = defop("torch::autograd::NotImplemented",
                  lambda xp, a, values: xp.where(a == 0, values, a > 0).astype(a.dtype, copy=False),
                  (_no_derivative("heaviside", _HEAVISIDE_HINT),) * 2, n_in=2)
HEAVISIDE_INPLACE = defop("torch::autograd::NotImplemented", HEAVISIDE.forward,  # (torch's message names heaviside_)
                          (_no_derivative("heaviside_", _HEAVISIDE_HINT),) * 2, n_in=2)


def heaviside_check(input: Tensor, values: Tensor, position: int = 2) -> None:
    """torch's checks: two tensors (no number, no promotion), of one real dtype."""
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position {position}) must be Tensor, not "
                        f"{type(values).__name__}. {_WRAP_IT}")
    if input.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes. Convert one "
                           f"first, e.g. values.to({input.dtype}).")


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 for negative ``input``, 1 for positive (and 0 for nan), ``values`` where ``input`` is 0."""
    refuse_unsigned(input.dtype, "heaviside_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    _require_tensors("heaviside", input=input, _hint=_WRAP_IT)
    heaviside_check(input, values)
    return binary(HEAVISIDE, input, values)
