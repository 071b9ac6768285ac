"""Element-wise ops torch has beyond pointwise.py / pointwise_math.py: copysign, float_power, frexp,
gcd, lcm, ldexp, nextafter, igamma / igammac, angle, and the predicates isneginf, isposinf, isreal.

Each is a ``defop`` with torch's node name and its derivatives.yaml formula (written against ``xp``,
so double backward is recorded); the public functions apply torch's dtype rules first (integers to
the default float dtype where torch promotes them, torch's NotImplementedError where its kernel has
no integer or float version). gcd and lcm are integer-only and so have no gradient at all.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import inplace as IP
from .registry import apply, defop

__all__ = ["copysign", "float_power", "frexp", "gcd", "lcm", "ldexp", "nextafter", "igamma", "igammac", "angle",
           "isneginf", "isposinf", "isreal"]

_make = Tensor._make


def _not_implemented(name: str, dt: D.dtype):
    return NotImplementedError(f"\"{name}_cpu\" not implemented for '{D.scalar_type_name(dt)}'")


def _as_tensor(x, like: Tensor) -> Tensor:
    """A Python number (or array) operand as a 0-d / n-d tensor in torch's promoted dtype with ``like``."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _make(x)
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return _make(np.asarray(x).astype(D.result_type(like, x).np))
    raise TypeError(f"expected a Tensor or a number as the second operand, got {type(x).__name__}")


def _pair(name: str, input, other) -> tuple:
    """Both operands must be tensors (torch's schema for these ops has no Scalar overload)."""
    for arg, pos, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}")
    return input, other


def _float_dtype(a, b) -> D.dtype:
    """torch's promoted dtype, integers and bools taken to the default float dtype."""
    dt = D.result_type(a, b)
    return dt if dt.is_floating_point or dt.is_complex else D.get_default_dtype()


# ----------------------------------------------------------------------------- copysign
def _copysign_self_grad(xp, g, self, result, input1_sizes=None):
    # torch's copysign_tensor_self_backward: g * result / self, 0 where self is 0
    # (0/0 at a zero, then filled, as torch's: a double backward is nan there, as torch's is)
    return xp.sum_to(g * xp.masked_fill(result / self, self == 0, 0.0), self.shape)


def _zeros_for(xp, g, self, result, input1_sizes):
    return xp.zeros_like(xp.sum_to(g, input1_sizes))


COPYSIGN = defop("CopysignBackward0", lambda xp, a, b: xp.copysign(a, b),
                 (_copysign_self_grad, _zeros_for), saved=("self", "result", "input1_sizes"), n_in=2)
COPYSIGN.node_cls._saved_names = ("self", "result")
COPYSIGN_SCALAR = defop("CopysignBackward1", lambda xp, a, other: xp.copysign(a, other).astype(a.dtype, copy=False),
                        _copysign_self_grad, saved=("self", "result"))


def _check_copysign(dt: D.dtype) -> None:
    if dt.is_complex:
        raise _not_implemented("copysign", dt)


def copysign(input, other) -> Tensor:
    """``|input|`` with the sign of ``other`` (element-wise; -0.0 counts as negative), a float result."""
    if isinstance(input, Tensor) and not isinstance(other, Tensor):
        dt = _float_dtype(input, other)
        _check_copysign(dt)
        return apply(COPYSIGN_SCALAR, (input,), (float(other),), cast=dt.np)
    if not isinstance(input, Tensor):
        raise TypeError(f"copysign() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other)\n"
                        " * (Tensor input, Number other)\nThe first argument must be a Tensor.")
    a, b = input, _as_tensor(other, input)
    dt = _float_dtype(a, b)
    _check_copysign(dt)
    return apply(COPYSIGN, (a, b), cast=dt.np)


def copysign_(self: Tensor, other) -> Tensor:
    dt = _float_dtype(self, other)
    _check_copysign(dt)
    IP.check_cast(self, np.dtype(dt.np))
    if isinstance(other, Tensor):
        return IP.binary_(COPYSIGN, self, other, (), "copysign_")
    return IP.inplace(COPYSIGN_SCALAR, self, (), (float(other),), "copysign_")


# ----------------------------------------------------------------------------- float_power
def _float_power_dtype(input, exponent) -> D.dtype:
    complex_ = any(isinstance(x, complex) or (isinstance(x, Tensor) and x.dtype.is_complex)
                   for x in (input, exponent))
    return D.complex128 if complex_ else D.float64


def float_power(input, exponent) -> Tensor:
    """``input ** exponent`` computed in double precision (complex128 if either side is complex), as
    torch: both operands converted to float64 / complex128, then ``pow`` (PowBackward0/1/2)."""
    from .pointwise import pow as _pow
    dt = _float_power_dtype(input, exponent)
    if isinstance(input, Tensor):
        input = input.to(dt)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dt)
    elif not isinstance(exponent, (bool, int, float, complex)):
        raise TypeError(f"float_power(): argument 'exponent' must be Tensor or Number, not {type(exponent).__name__}")
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return _pow(input, exponent)


def float_power_(self: Tensor, exponent) -> Tensor:
    dt = _float_power_dtype(self, exponent)
    if self.dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype {D.scalar_type_name(self.dtype)} but the "
                           f"operation's result requires dtype {D.scalar_type_name(dt)}: float_power_ computes in "
                           "double precision, so call it on a float64 (complex128) tensor, or use float_power.")
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dt)
    return self.pow_(exponent)


# ----------------------------------------------------------------------------- frexp
def _frexp_fwd(xp, a):
    m, e = xp.frexp(a)
    return m.astype(a.dtype, copy=False), e.astype(np.int32)


FREXP = defop("FrexpBackward0", _frexp_fwd, lambda xp, g, exponent: g[0] / xp.power(2.0, xp.astype(
    exponent, xp.dtype_of(g[0]))), saved=("result1",), n_out=2, diff_outputs=(True, False))
FREXP.node_cls._saved_names = ("exponent",)


def frexp(input: Tensor):
    """The mantissa in (-1, 1) and the int32 exponent with ``input = mantissa * 2 ** exponent``."""
    from ..return_types import frexp as _frexp
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes: convert the tensor first "
                           f"(it has dtype {input.dtype}), e.g. x.double().")
    return _frexp(apply(FREXP, (input,)))


# ----------------------------------------------------------------------------- gcd, lcm (integers only)
def _int_binary(name: str, fn, input, other) -> Tensor:
    a, b = _pair(name, input, other)
    dt = D.result_type(a, b)
    if dt.is_floating_point or dt.is_complex or dt is D.bool:
        raise _not_implemented(name, dt)
    return _make(np.asarray(fn(a._data.astype(dt.np), b._data.astype(dt.np))).astype(dt.np, copy=False))


def gcd(input, other) -> Tensor:
    """The greatest common divisor, element-wise, of two integer tensors (non-negative; gcd(0, 0) = 0)."""
    return _int_binary("gcd", np.gcd, input, other)


def lcm(input, other) -> Tensor:
    """The least common multiple, element-wise, of two integer tensors (non-negative)."""
    return _int_binary("lcm", np.lcm, input, other)


GCD_WRITE = defop("GcdBackward0", lambda xp, a, b: xp.gcd(a, b), saved=(), n_in=2)
LCM_WRITE = defop("LcmBackward0", lambda xp, a, b: xp.lcm(a, b), saved=(), n_in=2)


def _int_binary_(name: str, op, self: Tensor, other) -> Tensor:
    _, o = _pair(name, self, other)
    dt = D.result_type(self, o)
    if dt.is_floating_point or dt.is_complex or dt is D.bool:
        raise _not_implemented(name, dt)
    IP.check_cast(self, np.dtype(dt.np))
    return IP.binary_(op, self, o.to(self.dtype), (), name + "_")


def gcd_(self: Tensor, other) -> Tensor:
    return _int_binary_("gcd", GCD_WRITE, self, other)


def lcm_(self: Tensor, other) -> Tensor:
    return _int_binary_("lcm", LCM_WRITE, self, other)


# ----------------------------------------------------------------------------- ldexp
def _ldexp_self_grad(xp, g, other, result, input0_sizes):
    # torch's grad * pow(2, other): in integer arithmetic for an integer exponent, so 2 ** -k is 0 there
    if xp.dtype_of(other).kind in "iub":
        scale = xp.where(other < 0, 0.0, xp.power(2.0, xp.astype(other, xp.dtype_of(g))))
    else:
        scale = xp.power(2.0, other)
    return xp.sum_to(g * scale, input0_sizes)


def _ldexp_other_grad(xp, g, other, result, input0_sizes):
    return xp.sum_to(g * result * math.log(2.0), other.shape)


def _ldexp_fwd(xp, a, b):
    return a * xp.power(2.0, b.astype(a.dtype, copy=False) if b.dtype.kind in "iub" else b).astype(a.dtype,
                                                                                                copy=False)


LDEXP = defop("LdexpBackward0", _ldexp_fwd, (_ldexp_self_grad, _ldexp_other_grad),
              saved=("other", "result", "input0_sizes"), n_in=2)
LDEXP.node_cls._saved_names = ("other", "result")


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` in torch's promoted float dtype (an integer exponent stays integer: see above)."""
    a, b = _pair("ldexp", input, other)
    dt = _float_dtype(a, b)
    if b.dtype.is_floating_point or b.dtype.is_complex:
        return apply(LDEXP, (a, b), cast=dt.np)
    return apply(LDEXP, (a.to(dt), b))


def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    _, o = _pair("ldexp", self, other)
    IP.check_cast(self, np.dtype(_float_dtype(self, o).np))
    return IP.binary_(LDEXP, self, o.to(self.dtype), (), "ldexp_")


# ----------------------------------------------------------------------------- nextafter
NEXTAFTER = defop("NextafterBackward0", lambda xp, a, b: xp.nextafter(a, b),
                  (lambda xp, g, self, other: xp.sum_to(xp.where(self != other, g, 0.0), self.shape),
                   lambda xp, g, self, other: xp.zeros_like(xp.sum_to(g, other.shape))),
                  saved=("self", "other"), n_in=2)


def _nextafter_dtype(a: Tensor, b: Tensor) -> D.dtype:
    dt = D.result_type(a, b)
    if not dt.is_floating_point or dt in (D.float16, D.bfloat16):
        raise _not_implemented("nextafter", dt)
    return dt


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable float after ``input`` towards ``other``, element-wise."""
    a, b = _pair("nextafter", input, other)
    return apply(NEXTAFTER, (a, b), cast=_nextafter_dtype(a, b).np)


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    _, o = _pair("nextafter", self, other)
    IP.check_cast(self, np.dtype(_nextafter_dtype(self, o).np))
    return IP.binary_(NEXTAFTER, self, o.to(self.dtype), (), "nextafter_")


# ----------------------------------------------------------------------------- igamma, igammac
def _gammainc(name: str):
    def fwd(xp, a, x):
        from .special_ops import _kernel, _keep
        return _keep(a, _kernel(a, name)(a, x))
    return fwd


def _no_input_grad(name: str):
    def f(xp, g, self, other):
        raise NotImplementedError(f"the derivative for '{name}: input' is not implemented. torch has no gradient of the "
                           "incomplete gamma function with respect to its first argument either: detach it.")
    return f


def _igamma_other_grad(sign: float):
    def f(xp, g, self, other):
        from .special_ops import LGAMMA
        return xp.sum_to(g * sign * xp.exp((self - 1.0) * xp.log(other) - other - xp.apply(LGAMMA, self)),
                         other.shape)
    return f


IGAMMA = defop("IgammaBackward0", _gammainc("gammainc"), (_no_input_grad("igamma"), _igamma_other_grad(1.0)),
               saved=("self", "other"), n_in=2)
IGAMMAC = defop("IgammacBackward0", _gammainc("gammaincc"), (_no_input_grad("igammac"), _igamma_other_grad(-1.0)),
                saved=("self", "other"), n_in=2)


def _igamma_dtype(name: str, a: Tensor, b: Tensor) -> D.dtype:
    dt = D.result_type(a, b)
    if not dt.is_floating_point or dt in (D.float16, D.bfloat16):
        raise _not_implemented(name, dt)
    return dt


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function P(input, other) (torch.special.gammainc)."""
    a, b = _pair("igamma", input, other)
    return apply(IGAMMA, (a, b), cast=_igamma_dtype("igamma", a, b).np)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function Q(input, other) (torch.special.gammaincc)."""
    a, b = _pair("igammac", input, other)
    return apply(IGAMMAC, (a, b), cast=_igamma_dtype("igammac", a, b).np)


def _igamma_(name: str, op):
    def m(self: Tensor, other: Tensor) -> Tensor:
        _, o = _pair(name, self, other)
        IP.check_cast(self, np.dtype(_igamma_dtype(name, self, o).np))
        return IP.binary_(op, self, o.to(self.dtype), (), name + "_")
    m.__name__ = name + "_"
    return m


igamma_ = _igamma_("igamma", IGAMMA)
igammac_ = _igamma_("igammac", IGAMMAC)


# ----------------------------------------------------------------------------- angle
def _angle_fwd(xp, a):
    if a.dtype.kind == "c":
        return xp.angle(a)
    # (real: 0 for x >= 0, pi below, nan kept, as torch's kernel)
    return xp.where(xp.isnan(a), a, xp.where(a < 0, math.pi, 0.0)).astype(a.dtype, copy=False)


def _angle_grad(xp, g, self):
    if xp.dtype_of(self).kind != "c":
        return xp.zeros_like(g)
    # torch's angle_backward for complex: g * self / |self|^2 * i, 0 where self is 0
    zero = self == 0
    safe = xp.where(zero, 1.0, self)
    return xp.where(zero, 0.0, g * safe / (xp.abs(safe) ** 2) * 1j)


ANGLE = defop("AngleBackward0", _angle_fwd, _angle_grad, saved=("self",))


def angle(input: Tensor) -> Tensor:
    """The argument of each element: atan2(imag, real) for complex, 0 or pi for real (nan kept)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        return apply(ANGLE, (input,), cast=D.get_default_dtype().np)
    return apply(ANGLE, (input,))


# ----------------------------------------------------------------------------- predicates (no gradient)
def _real_only(name: str, input: Tensor) -> None:
    if input.dtype.is_complex:
        raise RuntimeError(f"{name} does not support complex inputs. Compare the real and imaginary parts "
                           "(x.real, x.imag) separately.")


def isneginf(input: Tensor) -> Tensor:
    _real_only("isneginf", input)
    return _make(np.asarray(np.isneginf(input._data)) if input._data.dtype.kind == "f"
                 else np.zeros(input._data.shape, dtype=bool))


def isposinf(input: Tensor) -> Tensor:
    _real_only("isposinf", input)
    return _make(np.asarray(np.isposinf(input._data)) if input._data.dtype.kind == "f"
                 else np.zeros(input._data.shape, dtype=bool))


def isreal(input: Tensor) -> Tensor:
    """True where the element has no imaginary part (everywhere for a real tensor)."""
    d = input._data
    return _make(np.asarray(d.imag == 0) if d.dtype.kind == "c" else np.ones(d.shape, dtype=bool))


# ----------------------------------------------------------------------------- Tensor methods
METHODS = {"copysign": copysign, "copysign_": copysign_, "float_power": float_power, "float_power_": float_power_,
           "frexp": frexp, "gcd": gcd, "gcd_": gcd_, "lcm": lcm, "lcm_": lcm_, "ldexp": ldexp, "ldexp_": ldexp_,
           "nextafter": nextafter, "nextafter_": nextafter_, "igamma": igamma, "igamma_": igamma_,
           "igammac": igammac, "igammac_": igammac_, "angle": angle, "isneginf": isneginf, "isposinf": isposinf,
           "isreal": isreal}
TOP_LEVEL = ("copysign", "float_power", "frexp", "gcd", "gcd_", "lcm", "lcm_", "ldexp", "ldexp_", "nextafter",
             "igamma", "igammac", "angle", "isneginf", "isposinf", "isreal")
