"""Element-wise ops: arithmetic, unary math, activations, comparisons, where/clamp/maximum.

Each ``defop`` below is the single definition of an op: forward on arrays, one
backward formula per input written in leafgrad ops (so it can itself be
differentiated), and the grad_fn name torch shows. Broadcast reduction and dtype
cast-back are the engine's job, never a formula's.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._backend import _BY_ARRAY_TYPE
from .._lowp import LowpArray, add_scaled, cast_array, erf_approx, keep_lowp
from .._unsigned_array import SHELL_NP, keep_shell, refuse as refuse_shell
from .._tensor import TENSOR_TYPES, Tensor
from .erf_f32 import erf_float32
from .layout import check_rank, copy_in_format, preserve_format
from .registry import apply, apply_simple, defop
from .unsigned import refuse_unsigned

_make = Tensor._make

# ----------------------------------------------------------------------------- arithmetic
def _add_fwd(xp, a, b, alpha):
    if alpha == 1:
        return a + b
    if isinstance(b, LowpArray):  # (torch: alpha in float16/bfloat16, one fused multiply-add: _lowp.add_scaled)
        return add_scaled(a, b, alpha)
    return a + alpha * b


ADD = defop("AddBackward0", _add_fwd,
            (lambda xp, g, alpha: g, lambda xp, g, alpha: g if alpha == 1 else g * alpha), saved=("alpha",), n_in=2)
def _sub_fwd(xp, a, b, alpha):
    if alpha == 1:
        return a - b
    if isinstance(b, LowpArray):
        return add_scaled(a, b, -alpha)
    return a - alpha * b


SUB = defop("SubBackward0", _sub_fwd,
            (lambda xp, g, alpha: g, lambda xp, g, alpha: -g if alpha == 1 else g * -alpha), saved=("alpha",), n_in=2)
RSUB = defop("RsubBackward0", lambda xp, a, b, alpha: b - a if alpha == 1 else b - alpha * a,
             (lambda xp, g, alpha: -g if alpha == 1 else g * -alpha, lambda xp, g, alpha: g), saved=("alpha",), n_in=2)
# ``number - tensor``: the number is not an input at all (torch's rsub.Scalar)
RSUB_SCALAR = defop("RsubBackward1", lambda xp, a, other, alpha: other - a if alpha == 1 else other - alpha * a,
                    lambda xp, g, alpha: -g if alpha == 1 else g * -alpha, saved=("alpha",))
MUL = defop("MulBackward0", lambda xp, a, b: a * b,
            (lambda xp, g, self, other: g * xp.conj(other, g), lambda xp, g, self, other: g * xp.conj(self)),
            saved=("self", "other"), n_in=2)
DIV = defop("DivBackward0", lambda xp, a, b: a / b,
            (lambda xp, g, self, other: g / xp.conj(other, g),
             lambda xp, g, self, other: -g * xp.conj((self / other) / other)),  # (torch's order; conj: its complex rule)
            saved=("self", "other"), n_in=2)


NEG = defop("NegBackward0", lambda xp, a: -a, lambda xp, g: -g)
RECIPROCAL = defop("ReciprocalBackward0", lambda xp, a: 1 / a, lambda xp, g, result: -g * xp.conj(result * result),
                   saved=("result",))


def _pow_scalar_fwd(xp, a, exponent):
    if a.dtype.kind in "iu" and isinstance(exponent, (int, np.integer)) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed. Use a float exponent "
                           f"(x ** {float(exponent)}) or a float tensor (x.float() ** {exponent}).")
    return a ** exponent


def _pow_tensor_fwd(xp, a, b):
    if a.dtype.kind in "iu" and b.dtype.kind == "i" and (b < 0).any():  # (an unsigned b is never negative)
        # integer powers with a negative exponent, element by element, as torch: 1 stays 1,
        # -1 alternates, anything else truncates to 0
        odd = (b % 2) != 0
        neg = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0)).astype(a.dtype)
        return xp.where(b < 0, neg, a ** xp.maximum(b, 0))
    with np.errstate(divide="ignore", invalid="ignore"):  # (0 ** -1 is inf, silently, as torch)
        return a ** b


def _pow_scalar_bwd(xp, g, self, exponent):
    if exponent == 0:
        return xp.zeros_like(g)  # (not g * 0: an infinite g would give nan)
    return g * xp.conj(exponent * self ** (exponent - 1))


def _pow_base_grad(xp, g, self, exponent, result):
    # d/dx x**y = y * x**(y-1), and 0 where y == 0 (torch: also at x == 0, where x**-1 is inf)
    return xp.where(exponent == 0, xp.zeros_like(g), g * xp.conj(exponent * self ** (exponent - 1)))  # (torch's order)


POW_SCALAR = defop("PowBackward0", _pow_scalar_fwd, _pow_scalar_bwd, saved=("self", "exponent"))


def _pow_exp_grad(xp, g, self, exponent, result):
    # d/dy x**y = x**y * log(x); defined as 0 where x == 0 and y >= 0 (as torch)
    if xp.dtype_of(self) != xp.dtype_of(result):  # log in the promoted dtype, as torch (float32 x, float64 y)
        self = xp.astype(self, xp.dtype_of(result))
    return g * xp.where(xp.logical_and(self == 0, exponent >= 0), xp.zeros_like(self), xp.conj(result * xp.log(self)))


POW_TENSOR = defop("PowBackward1", _pow_tensor_fwd,
                   (_pow_base_grad, _pow_exp_grad),
                   saved=("self", "input1", "result"), n_in=2)
POW_TENSOR.node_cls._saved_names = ("self", "exponent", "result")  # (torch's names)


def _pow_scalar_base_fwd(xp, e, base):
    if e.dtype.kind in "iu":  # (an integer result: negative exponents element by element, as for two tensors)
        return _pow_tensor_fwd(xp, xp.asarray(base, dtype=e.dtype), e)
    return xp.power(base, e)


POW_SCALAR_BASE = defop("PowBackward2", _pow_scalar_base_fwd,
                        lambda xp, g, result, base: g * xp.conj(result * float(np.log(base) if base > 0 else np.nan)),
                        saved=("result", "base"))
POW_SCALAR_BASE.node_cls._saved_names = ("result", "self")  # (torch's names)

# ----------------------------------------------------------------------------- unary math
# (each formula conjugates the derivative it multiplies g by: torch's rule for complex tensors;
# ``xp.conj`` returns a real array itself, with no copy)
EXP = defop("ExpBackward0", lambda xp, a: xp.exp(a), lambda xp, g, result: g * xp.conj(result), saved=("result",))
EXPM1 = defop("Expm1Backward0", lambda xp, a: xp.expm1(a), lambda xp, g, result: g * (xp.conj(result) + 1),
               saved=("result",))
LOG = defop("LogBackward0", lambda xp, a: xp.log(a), lambda xp, g, self: g / xp.conj(self), saved=("self",))
LOG2 = defop("Log2Backward0", lambda xp, a: xp.log2(a), lambda xp, g, self: g / (xp.conj(self) * float(np.log(2))),
             saved=("self",))
LOG10 = defop("Log10Backward0", lambda xp, a: xp.log10(a), lambda xp, g, self: g / (xp.conj(self) * float(np.log(10))),
              saved=("self",))
LOG1P = defop("Log1PBackward0", lambda xp, a: xp.log1p(a), lambda xp, g, self: g / xp.conj(self + 1), saved=("self",))
SQRT = defop("SqrtBackward0", lambda xp, a: xp.sqrt(a), lambda xp, g, result: g / (2 * xp.conj(result)),
              saved=("result",))
RSQRT = defop("RsqrtBackward0", lambda xp, a: 1 / xp.sqrt(a), lambda xp, g, result: -0.5 * g * xp.conj(result ** 3),
              saved=("result",))
SIN = defop("SinBackward0", lambda xp, a: xp.sin(a), lambda xp, g, self: g * xp.conj(xp.cos(self)), saved=("self",))
COS = defop("CosBackward0", lambda xp, a: xp.cos(a), lambda xp, g, self: -g * xp.conj(xp.sin(self)), saved=("self",))
TAN = defop("TanBackward0", lambda xp, a: xp.tan(a), lambda xp, g, result: g * xp.conj(1 + result * result),
             saved=("result",))
# The backward of tanh, sigmoid and relu is itself one op (as torch's tanh_backward etc.):
# one node and one pass instead of three, and still differentiable for double backward.
def _conj_of(xp, a):
    """``a``'s conjugate in a forward (``xp`` the array module itself): a real array is its own,
    where ``np.conj`` would copy it (one NumPy call fewer per tanh node of a backward)."""
    return xp.conj(a) if a.dtype.kind == "c" else a


TANH_BACKWARD = defop("TanhBackwardBackward0", lambda xp, g, r: g * _conj_of(xp, 1 - r * r),
                      (lambda xp, gg, grad_output, output: gg * (1 - output * output),
                       lambda xp, gg, grad_output, output: -2 * gg * grad_output * output),
                      saved=("input0", "input1"), n_in=2)
SIGMOID_BACKWARD = defop("SigmoidBackwardBackward0", lambda xp, g, r: g * (1 - r) * r,  # (torch's order)
                         (lambda xp, gg, grad_output, output: gg * output * (1 - output),
                          lambda xp, gg, grad_output, output: gg * grad_output * (1 - 2 * output)),
                         saved=("input0", "input1"), n_in=2)
_ZEROS: dict = {}  # NumPy dtype -> read-only 0-d positive zero (relu's backward, below)


_SAME_WIDTH_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _threshold_backward(xp, g, r):
    """torch's ``threshold_backward(g, r, 0)``, relu's backward: a positive 0 where ``r <= 0``,
    whatever ``g`` holds there (``g * (r > 0)`` gave -0.0 for a negative gradient and NaN for a
    NaN one, where torch gives 0), ``g`` itself elsewhere, NaN ``r`` included. For NumPy arrays
    the zero is a cached 0-d array of ``g``'s dtype: NumPy 2 converts a Python 0 on every call
    (W2's tiny MLP: about 2.7 k instructions fewer per relu node than ``g * (r > 0)``)."""
    if g.__class__ is np.ndarray and r.__class__ is np.ndarray:
        bits = _SAME_WIDTH_UINT.get(g.dtype) if g.size >= 1024 and g.shape == r.shape else None
        if bits is not None:
            # (the same bits, branch-free: NumPy's where with a data-dependent mask runs ~10x slower than a
            # product, 110 us against 12 us on W2's 128x256 activations; g's bits AND'ed with all-ones where
            # r > 0 or r is NaN, with zeros where r <= 0)
            m = (r <= 0).view(np.uint8).astype(bits)
            m -= 1
            return np.bitwise_and(g.view(bits), m, out=m).view(g.dtype)
        z = _ZEROS.get(g.dtype)
        if z is None:
            z = _ZEROS[g.dtype] = np.zeros((), g.dtype)
            z.flags.writeable = False
        return xp.where(r <= z, z, g)
    return xp.where(r <= 0, 0, g)


THRESHOLD_BACKWARD = defop("ThresholdBackwardBackward0", _threshold_backward,
                           (lambda xp, gg, self: gg * (self > 0), None), saved=("input1",), n_in=2)
TANH = defop("TanhBackward0", lambda xp, a: xp.tanh(a), lambda xp, g, result: xp.apply(TANH_BACKWARD, g, result),
             saved=("result",))
SIGMOID = defop("SigmoidBackward0", lambda xp, a: _sigmoid(xp, a),
                lambda xp, g, result: xp.apply(SIGMOID_BACKWARD, g, result), saved=("result",))


_ZEROS: dict = {}  # NumPy dtype -> read-only 0-d zero of it (relu's)


def _relu_fwd(xp, a):
    dt = a.dtype
    if dt.kind == "b":  # (NumPy would compute max(bool, 0) as int64)
        raise RuntimeError("Boolean inputs not supported for relu: convert the mask first, e.g. mask.float().relu().")
    # (On a tie NumPy returns its second argument and torch keeps the input, so the input goes
    # second: relu(-0.0) is -0.0.) A NumPy array gets a 0-d zero of its own dtype, made once: NumPy 2
    # converts a Python 0 to a's dtype on every call (NEP 50), ~3 k instructions, as much as the
    # maximum itself on a small array; other array types take the Python 0 (the same result).
    if a.__class__ is np.ndarray:
        z = _ZEROS.get(dt)
        if z is None:
            z = _ZEROS[dt] = np.zeros((), dt)
            z.flags.writeable = False
        return np.maximum(z, a)
    return xp.maximum(0, a)


RELU = defop("ReluBackward0", _relu_fwd,
             lambda xp, g, result: xp.apply(THRESHOLD_BACKWARD, g, result), saved=("result",))


def _abs_fwd(xp, a):
    if a.dtype.kind == "b":
        raise NotImplementedError('"abs_cpu" not implemented for \'Bool\': a bool tensor has no sign to drop. '
                                  "Convert first if a number is meant, e.g. mask.int().abs().")
    return xp.abs(a)


ABS = defop("AbsBackward0", _abs_fwd, lambda xp, g, self: g * xp.apply(SGN, self),  # (torch's sgn: 0 at nan)
            saved=("self",))


def _sign_fwd(xp, a):
    if a.dtype.kind == "b":  # (torch: the bool tensor itself)
        return a.copy()
    r = xp.sign(a)
    if a.dtype.kind in "fV":
        r = xp.nan_to_num(r, nan=0.0)  # torch: sign(nan) is 0 (so abs' gradient at nan is 0)
    return r


SIGN = defop("SignBackward0", _sign_fwd, lambda xp, g: g * 0)


def _sgn_fwd(xp, a):
    if a.dtype.kind != "c":  # x / |x| is the sign for real x (torch: sgn(nan) is 0, bool stays bool)
        if a.dtype.kind == "b":
            return a.copy()
        r = xp.sign(a)
        return xp.where(xp.isnan(r), 0, r).astype(a.dtype, copy=False) if a.dtype.kind in "fV" else r
    m = xp.abs(a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return xp.where(m == 0, 0, a / m).astype(a.dtype, copy=False)


def _sgn_grad(xp, g, self, result):
    if xp.dtype_of(self).kind != "c":  # piecewise constant (torch's zero tensor: even an infinite g gives 0)
        return xp.zeros_like(g)
    m = xp.abs(self)
    return xp.masked_fill((g - result * result * xp.conj(g)) / (2 * m), m == 0, 0)


SGN = defop("SgnBackward0", _sgn_fwd, _sgn_grad, saved=("self", "result"))
ERF = defop("ErfBackward0", lambda xp, a: _erf(xp, a),
            lambda xp, g, self: (2 / float(np.sqrt(np.pi))) * xp.exp(-(self * self)) * g, saved=("self",))
ATAN = defop("AtanBackward0", lambda xp, a: xp.arctan(a), lambda xp, g, self: g / xp.conj(1 + self * self), saved=("self",))
CONJ = defop("ConjBackward0", lambda xp, a: xp.conj(a), lambda xp, g: xp.conj(g))


def _sigmoid(xp, a):
    # SciPy's expit (the backend's optional kernel) is one pass over the array, within 3 ulp of
    # torch's float32 sigmoid; the formula below, used without it, is four passes, within 10 ulp.
    if a.dtype.kind in "fV" and a.dtype.itemsize >= 4:
        expit = _BY_ARRAY_TYPE[a.__class__].special("expit")
        if expit is not None:
            return expit(a)
    # 1 / (1 + exp(-a)) = exp(-log(1 + exp(-a))): logaddexp never overflows, tails keep full precision
    return xp.exp(-xp.logaddexp(0, -a))


def _erf(xp, a):
    if a.__class__ is np.ndarray and a.dtype == np.float32:
        return erf_float32(a)  # (vectorised, ~2x SciPy's scalar loop, within 1.5 ulp: see erf_f32.py)
    if a.__class__ is not np.ndarray and isinstance(a, LowpArray):
        # (torch's float16/bfloat16 erf kernel: see _lowp.erf_approx; gelu's erf, on float32 values
        # inside its kernel, is torch's accurate float32 one)
        return erf_approx(a)
    erf = _BY_ARRAY_TYPE[a.__class__].special("erf")  # exact where SciPy is installed
    if erf is not None:
        return erf(a).astype(a.dtype, copy=False)
    import math
    return np.vectorize(math.erf, otypes=[a.dtype])(a)


def _clamp_fwd(xp, a, min, max):
    out = a
    if min is not None:
        out = xp.maximum(min, out)  # (the input second: torch keeps it on a tie, so -0.0 stays)
    if max is not None:
        out = xp.minimum(max, out)
    return out.astype(a.dtype, copy=False) if out is not a else out.copy()


def _clamp_bwd(xp, g, self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else xp.logical_and(mask, m2)
    return xp.where(mask, g, 0.0)  # (not g * mask: a nan/inf gradient outside the bounds is 0, as torch's)


CLAMP = defop("ClampBackward1", _clamp_fwd, _clamp_bwd, saved=("self", "min", "max"))
WHERE = defop("WhereBackward0", lambda xp, a, b, condition: xp.where(condition._data, a, b),
              (lambda xp, g, condition: xp.where(condition, g, 0.0), lambda xp, g, condition: xp.where(condition, 0.0, g)),
              saved=("condition",), n_in=2)


def _max_grad(xp, g, self, other):
    return xp.masked_fill(xp.where(self == other, g / 2, g), self < other, 0.0)


# (between two tensors torch's sign of a tied zero depends on the size: its vector loop returns the
# second operand, as NumPy does, its scalar tail the first; kept in NumPy's order)
MAXIMUM = defop("MaximumBackward0", lambda xp, a, b: xp.maximum(a, b),
                (_max_grad, lambda xp, g, self, other: _max_grad(xp, g, other, self)), saved=("self", "other"), n_in=2)
def _min_grad(xp, g, self, other):
    return xp.masked_fill(xp.where(self == other, g / 2, g), self > other, 0.0)


MINIMUM = defop("MinimumBackward0", lambda xp, a, b: xp.minimum(a, b),
                (_min_grad, lambda xp, g, self, other: _min_grad(xp, g, other, self)), saved=("self", "other"), n_in=2)
# fmax/fmin ignore a nan operand; a tie, or a nan other, sends the whole gradient to self (torch)
FMAX = defop("FmaxBackward0", lambda xp, a, b: xp.fmax(a, b),
             (lambda xp, g, self, other: xp.masked_fill(g, xp.logical_not(xp.logical_or(self >= other, xp.isnan(other))), 0.0),
              lambda xp, g, self, other: xp.masked_fill(g, xp.logical_or(self >= other, xp.isnan(other)), 0.0)),
             saved=("self", "other"), n_in=2)
FMIN = defop("FminBackward0", lambda xp, a, b: xp.fmin(a, b),
             (lambda xp, g, self, other: xp.masked_fill(g, xp.logical_not(xp.logical_or(self <= other, xp.isnan(other))), 0.0),
              lambda xp, g, self, other: xp.masked_fill(g, xp.logical_or(self <= other, xp.isnan(other)), 0.0)),
             saved=("self", "other"), n_in=2)
# clamp_min / clamp_max: a tie keeps the gradient on self (maximum would split it)
# (a number bound: torch keeps the input on a tie at every size, so it goes second, as NumPy keeps that one)
CLAMP_MIN = defop("ClampMinBackward0", lambda xp, a, min: xp.maximum(min, a),
                  lambda xp, g, self, min: xp.masked_fill(g, xp.logical_not(self >= min), 0.0), saved=("self", "min"))
CLAMP_MAX = defop("ClampMaxBackward0", lambda xp, a, max: xp.minimum(max, a),
                  lambda xp, g, self, max: xp.masked_fill(g, xp.logical_not(self <= max), 0.0), saved=("self", "max"))
CLAMP_MIN_T = defop("ClampMinBackward1", lambda xp, a, b: xp.maximum(a, b),
                    (lambda xp, g, self, min: xp.masked_fill(g, xp.logical_not(self >= min), 0.0),
                     lambda xp, g, self, min: xp.masked_fill(g, xp.logical_not(self < min), 0.0)),
                    saved=("self", "input1"), n_in=2)
CLAMP_MAX_T = defop("ClampMaxBackward1", lambda xp, a, b: xp.minimum(a, b),
                    (lambda xp, g, self, max: xp.masked_fill(g, xp.logical_not(self <= max), 0.0),
                     lambda xp, g, self, max: xp.masked_fill(g, xp.logical_not(self > max), 0.0)),
                    saved=("self", "input1"), n_in=2)
CLAMP_MIN_T.node_cls._saved_names = ("self", "min")
CLAMP_MAX_T.node_cls._saved_names = ("self", "max")
# (memory_format None: torch's default, preserve_format; see _ops/layout.py)
CLONE = defop("CloneBackward0", lambda xp, a, memory_format=None: copy_in_format(a, memory_format), lambda xp, g: g)


# ----------------------------------------------------------------------------- promotion front-end
def _scalar_tensor(x, dt: D.dtype) -> Tensor:
    # through astype, so an int outside the dtype's range wraps (uint8: -1 -> 255) as in torch
    return _make(np.asarray(x).astype(dt.np))


_PY_SCALAR_KIND = {float: "f", int: "i", bool: "b"}
# (uint8 with a Python int is left to the general path: a negative int must wrap as in torch)
_KEEPS_DTYPE = {("f", "f"), ("f", "i"), ("f", "b"), ("c", "f"), ("c", "i"), ("c", "b"), ("i", "i"), ("i", "b"),
                ("u", "b"), ("b", "b"), ("V", "f"), ("V", "i"), ("V", "b")}  # (V: bfloat16, see _bfloat16.py)


_SYMBOLS = {"AddBackward0": "+", "SubBackward0": "-", "RsubBackward0": "-", "MulBackward0": "*",
            "DivBackward0": "/", "PowBackward1": "** or pow()", "RemainderBackward0": "%"}


def binary(op, a, b, params: tuple = (), out_dtype: D.dtype | None = None) -> Tensor:
    """Apply a two-input op after torch's type promotion; Python scalars become 0-dim inputs."""
    # fast path, the common case: tensor (op) Python number that keeps the tensor's dtype
    sk = _PY_SCALAR_KIND.get(b.__class__)
    if sk is not None and out_dtype is None and a.__class__ in TENSOR_TYPES:
        ad = a._data.dtype
        if (ad.kind, sk) in _KEEPS_DTYPE:
            return apply_simple(op, a, b, params)
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if ta and tb:
        ad, bd = a._data.dtype, b._data.dtype
        if out_dtype is None and (ad == bd or (bd.kind == "b" and ad.kind in "iufcV") or
                                  (ad.kind == "b" and bd.kind in "iufc" and b._data.__class__ is np.ndarray)):
            # NumPy's promotion is torch's here: no cast pass (but a bool first operand of a 16-bit float
            # one is cast: the op runs on the first array's backend, and only _lowp's rounds once)
            return apply(op, (a, b), params)
        dt = D.result_type(a, b)
    else:
        if not ta and not tb:
            raise TypeError(f"expected at least one Tensor, got {type(a).__name__} and {type(b).__name__}")
        other = b if ta else a
        if not isinstance(other, (int, float, bool, complex, np.generic)):
            if not isinstance(other, np.ndarray):  # (a list or a str: Python's own wording, as torch's)
                sym = _SYMBOLS.get(op.name, op.name.replace("Backward0", "").lower())
                raise TypeError(f"unsupported operand type(s) for {sym}: 'Tensor' and '{type(other).__name__}'"
                                if ta else f"unsupported operand type(s) for {sym}: '{type(other).__name__}' and "
                                "'Tensor'")
            other = _coerce(other)
            return binary(op, a if ta else other, other if ta else b, params, out_dtype)
        dt = D.result_type(a, b)
        if ta:
            b = _scalar_tensor(b, dt)
        else:
            a = _scalar_tensor(a, dt)
    if out_dtype is not None:
        dt = out_dtype
    return apply(op, (a, b), params, cast=dt.np)


def apply_number_param(op, input: Tensor, number, extra: tuple = ()) -> Tensor:
    """A tensor-and-number op whose number is a forward parameter (it gets no gradient): both
    take torch's promoted dtype, and the number goes through astype, so an int outside the
    dtype's range wraps as in torch (uint8: -1 is 255)."""
    dt = D.result_type(input, number)
    value = np.asarray(number).astype(dt.np)
    return apply(op, (input,), (value,) + extra, cast=None if dt is input.dtype else dt.np)


def _coerce(x) -> Tensor:
    if isinstance(x, np.ndarray):
        return _make(x)
    if isinstance(x, (list, tuple)):
        from .._creation import tensor
        return tensor(x)
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def _float_result(a) -> D.dtype:
    d = a.dtype
    return d if d.is_floating_point or d.is_complex else D.get_default_dtype()


def unary_float(op, a: Tensor, params: tuple = ()) -> Tensor:
    """Unary math on an int/bool tensor computes in the default float dtype, as torch."""
    if not isinstance(a, Tensor):
        raise TypeError(f"expected a Tensor, got {type(a).__name__}")
    if a._data.dtype.kind in "fcV":
        return apply_simple(op, a, None, params)
    return apply(op, (a,), params, cast=D.get_default_dtype().np)


def unary_float_op(op, name: str):
    """The public function of a unary float op (``exp``, ``tanh``, ...): a float tensor goes
    straight to ``apply_simple`` (one call less per op), anything else through ``unary_float``."""
    def fn(input: Tensor) -> Tensor:
        if input.__class__ in TENSOR_TYPES:
            dt = input._data.dtype
            if dt.kind in "fcV":
                return apply_simple(op, input, None, _NO_PARAMS, dt)
        return unary_float(op, input)
    fn.__name__ = fn.__qualname__ = name
    return fn


def binary_method(op, reverse: bool = False):
    """``Tensor.__mul__`` and friends: the scalar fast path inlined, one call less per op."""
    if reverse:
        def method(self, other):
            return binary(op, other, self)
        return method

    def method(self, other):
        dt = self._data.dtype  # (passed on: apply_simple reads it no more)
        if other.__class__ in TENSOR_TYPES:
            if other._data.dtype == dt:  # (binary's same-dtype case, one call less)
                return apply_simple(op, self, other, _NO_PARAMS, dt)
        else:
            sk = _PY_SCALAR_KIND.get(other.__class__)
            if sk is not None and (dt.kind, sk) in _KEEPS_DTYPE:
                return apply_simple(op, self, other, _NO_PARAMS, dt)
        return binary(op, self, other)
    return method


_NO_PARAMS = ()
_ALPHA_1 = (1,)


def binary_alpha_method(op):
    def method(self, other):
        dt = self._data.dtype  # (passed on, as in binary_method)
        if other.__class__ in TENSOR_TYPES:
            if other._data.dtype == dt:
                return apply_simple(op, self, other, _ALPHA_1, dt)
        else:
            sk = _PY_SCALAR_KIND.get(other.__class__)
            if sk is not None and (dt.kind, sk) in _KEEPS_DTYPE:
                return apply_simple(op, self, other, _ALPHA_1, dt)
        return binary(op, self, other, _ALPHA_1)
    return method


# ----------------------------------------------------------------------------- public functions
def check_alpha(input, other, alpha) -> None:
    """torch refuses a float alpha when both operands are integral (or bool)."""
    if isinstance(alpha, float) and all(not isinstance(t, Tensor) or t.dtype._kind <= 1 for t in (input, other)) \
            and not isinstance(other, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def add(input, other, *, alpha=1) -> Tensor:
    if alpha.__class__ is not int:
        check_alpha(input, other, alpha)
    return binary(ADD, input, other, (alpha,))


def _is_bool(x) -> bool:
    return x.__class__ is bool or (x.__class__ in TENSOR_TYPES and x._data.dtype.kind == "b")


def _check_bool_sub(a, b) -> None:
    """torch refuses ``-`` on bool tensors (a Python bool counts as one)."""
    if (a.__class__ in TENSOR_TYPES and a._data.dtype.kind != "b" and b.__class__ is not bool
            and (b.__class__ not in TENSOR_TYPES or b._data.dtype.kind != "b")):
        return  # (the common case, tested without a call per operand)
    if _is_bool(a) or _is_bool(b):
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(input, other, *, alpha=1) -> Tensor:
    sk = _PY_SCALAR_KIND.get(other.__class__)
    if sk is not None and sk != "b" and input.__class__ in TENSOR_TYPES:  # (no bool anywhere: nothing to refuse)
        dt = input._data.dtype
        kind = dt.kind
        if kind != "b" and (kind, sk) in _KEEPS_DTYPE:  # (alpha 1, the ``-`` operator's: the shared tuple)
            return apply_simple(SUB, input, other, _ALPHA_1 if alpha.__class__ is int and alpha == 1 else (alpha,), dt)
    _check_bool_sub(input, other)
    if alpha.__class__ is not int:
        check_alpha(input, other, alpha)
    return binary(SUB, input, other, (alpha,))


def rsub(input, other, *, alpha=1) -> Tensor:
    _check_bool_sub(input, other)
    if isinstance(input, Tensor) and other.__class__ in _PY_SCALAR_KIND:
        return apply_number_param(RSUB_SCALAR, input, other, (alpha,))
    return binary(RSUB, input, other, (alpha,))


def mul(input, other) -> Tensor:
    return binary(MUL, input, other)


class _Unset:
    """``div``'s default rounding_mode: torch records DivBackward0 for ``div(a, b)`` and DivBackward2
    (its ``div.Tensor_mode``) once ``rounding_mode`` is passed at all, even as None."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "None"


_UNSET = _Unset()


def div(input, other, *, rounding_mode=_UNSET) -> Tensor:
    if rounding_mode is None:  # (passed explicitly: true division, recorded as torch's DivBackward2)
        dt = D.result_type(input, other)
        return binary(DIV_ROUNDED, input, other, (None,),
                      out_dtype=None if dt.is_floating_point or dt.is_complex else D.get_default_dtype())
    if rounding_mode is _UNSET:
        rounding_mode = None
    if rounding_mode is None and other.__class__ in _PY_SCALAR_KIND and input.__class__ in TENSOR_TYPES \
            and (dt := input._data.dtype).kind in "fcV":
        return apply_simple(DIV, input, other, _NO_PARAMS, dt)  # float tensor / number: no promotion work
    if rounding_mode is None:
        if input.__class__ in TENSOR_TYPES and other.__class__ in TENSOR_TYPES:
            ad = input._data.dtype
            if ad == other._data.dtype and ad.kind in "fcV":
                return apply_simple(DIV, input, other)
        dt = D.result_type(input, other)
        if not (dt.is_floating_point or dt.is_complex):
            return binary(DIV, input, other, out_dtype=D.get_default_dtype())
        return binary(DIV, input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    return binary(DIV_ROUNDED, input, other, (rounding_mode,))


def _check_int_divisor(xp, a, b, what: str) -> None:
    """torch raises for an integer divisor of zero (NumPy would give 0 and a warning)."""
    if a.dtype.kind in "iub" and not xp.all(b):
        raise RuntimeError(f"ZeroDivisionError: integer {what} by zero (the divisor holds a 0)")


def _div_rounded_fwd(xp, a, b, rounding_mode):
    """Rounded division in the operands' (promoted) dtype: integers stay integers, as torch.
    (``rounding_mode=None``: true division, in the float dtype the caller promoted to.)"""
    if rounding_mode is None:
        return a / b
    if a.dtype.kind in "iub":  # (both operands have the promoted dtype by now)
        if a.dtype in SHELL_NP:  # (the array type would name div_floor_cpu for both modes)
            refuse_shell(f"div_{rounding_mode}_cpu", a.dtype)
        _check_int_divisor(xp, a, b, "division")
        q = xp.floor_divide(a, b)
        if rounding_mode == "trunc":  # floor rounds down; toward zero differs where the exact quotient is negative
            q = q + ((q < 0) & (q * b != a))
        return q
    with np.errstate(divide="ignore", invalid="ignore"):  # (x / 0 is inf or nan, silently, as torch)
        return xp.floor_divide(a, b) if rounding_mode == "floor" else xp.trunc(a / b)


# torch's div.Tensor_mode: rounded division is piecewise constant (zero gradients); with
# rounding_mode=None passed explicitly it is true division, with division's gradients
DIV_ROUNDED = defop("DivBackward2", _div_rounded_fwd,
                    (lambda xp, g, self, other, rounding_mode: xp.zeros_like(g) if rounding_mode is not None
                     else DIV.formulas[0](xp, g, self, other),
                     lambda xp, g, self, other, rounding_mode: xp.zeros_like(g) if rounding_mode is not None
                     else DIV.formulas[1](xp, g, self, other)),
                    saved=("self", "other", "rounding_mode"), n_in=2)


def _no_derivative(name: str, hint: str):
    def formula(xp, g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented (torch has none either): {hint}")
    return formula


_FLOOR_DIVIDE_HINT = ("floor_divide's result is piecewise constant; use torch.div(a, b, rounding_mode='floor') for "
                      "a zero gradient, or .detach() the result.")
_RREMAINDER_HINT = ("number % tensor has no gradient for the tensor; write it as number - tensor * "
                    "torch.div(number, tensor, rounding_mode='floor') to get one, or .detach() the result.")


# torch records floor_divide with a node whose backward refuses (torch::autograd::NotImplemented)
FLOOR_DIVIDE = defop("torch::autograd::NotImplemented", lambda xp, a, b: _div_rounded_fwd(xp, a, b, "floor"),
                     (_no_derivative("floor_divide", _FLOOR_DIVIDE_HINT), _no_derivative("floor_divide", _FLOOR_DIVIDE_HINT)),
                     n_in=2)


true_divide = divide = div


def floor_divide(input, other) -> Tensor:
    return binary(FLOOR_DIVIDE, input, other)


def _mod_fwd(ufunc_name: str):
    """Forward of remainder (Python's sign rule: the divisor's) or fmod (C's: the dividend's).

    An integer divisor of zero raises, as torch does; a float one gives nan without a warning. The
    ufunc runs first: on uint16/32/64 data it raises torch's NotImplementedError (``remainder_cpu``,
    ``fmod_cpu``: _unsigned_array.py) before any divisor is looked at, as torch's dispatch does."""
    def fwd(xp, a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = getattr(xp, ufunc_name)(a, b)
        _check_int_divisor(xp, a, b, "remainder")
        return out
    return fwd


# torch's overloads: ``tensor % number`` is RemainderBackward0 (the number gets no gradient),
# ``tensor % tensor`` RemainderBackward1; d/dother of a - other * floor(a / other) is -floor(a / other)
REMAINDER_SCALAR = defop("RemainderBackward0", _mod_fwd("mod"), lambda xp, g: g, n_in=1)
REMAINDER = defop("RemainderBackward1", _mod_fwd("mod"),
                  (lambda xp, g, self, other: g, lambda xp, g, self, other: -g * xp.apply(DIV_ROUNDED, self, other, params=("floor",))),
                  saved=("self", "other"), n_in=2)
FMOD_SCALAR = defop("FmodBackward0", _mod_fwd("fmod"), lambda xp, g: g, n_in=1)
FMOD = defop("FmodBackward1", _mod_fwd("fmod"),
             (lambda xp, g, self, other: g, lambda xp, g, self, other: -g * xp.apply(DIV_ROUNDED, self, other, params=("trunc",))),
             saved=("self", "other"), n_in=2)


def _mod(op, op_number, input, other) -> Tensor:
    if input.__class__ in TENSOR_TYPES and other.__class__ in _PY_SCALAR_KIND:
        return apply_number_param(op_number, input, other)
    if input.__class__ in _PY_SCALAR_KIND and op is REMAINDER:  # number % tensor: torch has no derivative
        return binary(REMAINDER_NUMBER_FIRST, input, other)
    return binary(op, input, other)


REMAINDER_NUMBER_FIRST = defop("torch::autograd::NotImplemented", _mod_fwd("mod"),
                               (_no_derivative("remainder", _RREMAINDER_HINT), _no_derivative("remainder", _RREMAINDER_HINT)),
                               n_in=2)


def remainder(input, other) -> Tensor:
    return _mod(REMAINDER, REMAINDER_SCALAR, input, other)


def fmod(input, other) -> Tensor:
    return _mod(FMOD, FMOD_SCALAR, input, other)


def neg(input: Tensor) -> Tensor:
    if input.dtype is D.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return apply(NEG, (input,))


negative = neg


reciprocal = unary_float_op(RECIPROCAL, "reciprocal")


def pow(input, exponent) -> Tensor:
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        if isinstance(exponent, (list, tuple, np.ndarray)):
            return binary(POW_TENSOR, input, _coerce(exponent))
        dt = D.result_type(input, exponent)
        if dt is input.dtype:
            return apply(POW_SCALAR, (input,), (exponent,))
        return apply(POW_SCALAR, (input,), (exponent,), cast=dt.np)
    if not isinstance(input, Tensor):
        dt = D.result_type(input, exponent)
        cast = None if dt is exponent.dtype else dt.np
        return apply(POW_SCALAR_BASE, (exponent,), (input,), cast=cast)
    return binary(POW_TENSOR, input, exponent)


def square(input: Tensor) -> Tensor:
    return pow(input, 2)


exp = unary_float_op(EXP, "exp")
expm1 = unary_float_op(EXPM1, "expm1")
log = unary_float_op(LOG, "log")
log2 = unary_float_op(LOG2, "log2")
log10 = unary_float_op(LOG10, "log10")
log1p = unary_float_op(LOG1P, "log1p")
sqrt = unary_float_op(SQRT, "sqrt")
rsqrt = unary_float_op(RSQRT, "rsqrt")
sin = unary_float_op(SIN, "sin")
cos = unary_float_op(COS, "cos")
tan = unary_float_op(TAN, "tan")
atan = unary_float_op(ATAN, "atan")
tanh = unary_float_op(TANH, "tanh")
sigmoid = unary_float_op(SIGMOID, "sigmoid")
erf = unary_float_op(ERF, "erf")


def relu(input: Tensor) -> Tensor:
    return apply_simple(RELU, input)


def abs(input: Tensor) -> Tensor:
    return apply_simple(ABS, input)


absolute = abs


def sign(input: Tensor) -> Tensor:
    return apply(SIGN, (input,))


def conj(input: Tensor) -> Tensor:
    if not input.dtype.is_complex:
        return input
    return apply(CONJ, (input,))


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min if isinstance(min, Tensor) else _scalar_tensor(min, input.dtype))
        if max is not None:
            out = minimum(out, max if isinstance(max, Tensor) else _scalar_tensor(max, input.dtype))
        return out
    dt = D.result_type(*(v for v in (input, min, max) if v is not None))  # (int64 with 0.5: float32, as torch)
    if dt in D._UNSIGNED_WIDE:  # (uint16/32/64: torch has no clamp kernel, see unsigned.py)
        refuse_unsigned(dt, "clamp_scalar_cpu" if min is not None and max is not None else
                        "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
    return apply(CLAMP, (input,), (min, max), cast=None if dt is input.dtype else dt.np)


clip = clamp


def _clamp_one_side(op_number, op_tensor, input: Tensor, bound) -> Tensor:
    if isinstance(bound, Tensor):
        return binary(op_tensor, input, bound)
    return apply_number_param(op_number, input, bound)  # (an int tensor with a float bound: float, as torch)


def clamp_min(input: Tensor, min) -> Tensor:
    return _clamp_one_side(CLAMP_MIN, CLAMP_MIN_T, input, min)


def clamp_max(input: Tensor, max) -> Tensor:
    return _clamp_one_side(CLAMP_MAX, CLAMP_MAX_T, input, max)


def where(condition, input=None, other=None) -> Tensor:
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    c = condition if isinstance(condition, Tensor) else _coerce(condition)
    cd = c._data.dtype
    if cd != np.bool_:
        if cd != np.uint8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{D.scalar_type_name(cd)}. Make it one with a comparison (x > 0) or "
                               f"condition.bool().")
        import warnings
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                      "a future version of PyTorch. Use a boolean condition instead: condition.bool().",
                      UserWarning, stacklevel=2)
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    dt = D.result_type(input, other)
    a = input if ta else _scalar_tensor(input, dt)
    b = other if tb else _scalar_tensor(other, dt)
    if c._data.dtype != np.bool_:
        c = _make(c._data.astype(bool))
    cast = None if a._data.dtype == b._data.dtype == dt.np else dt.np
    if cast is not None:
        a = a if a._data.dtype == cast else _cast_keep_graph(a, dt)
        b = b if b._data.dtype == cast else _cast_keep_graph(b, dt)
    if not c._data.shape == a._data.shape == b._data.shape:  # (a clash names the condition first, as torch)
        from .inplace import broadcast_or_raise
        broadcast_or_raise(c._data.shape, a._data.shape, b._data.shape)
    return apply(WHERE, (a, b), (c,))


def _cast_keep_graph(t: Tensor, dt: D.dtype) -> Tensor:
    return t.to(dt) if t.requires_grad else _make(t._data.astype(dt.np))


_WRAP_IT = "Wrap the number as a tensor first, e.g. torch.tensor(2.0)."
_NOT_A_NUMBER_HINT = {  # what to write instead, for the binary functions whose 'other' must be a tensor
    "maximum": "For a number, clamp does it: torch.clamp(input, min=value).",
    "minimum": "For a number, clamp does it: torch.clamp(input, max=value).",
}


def _tensors_only(name: str, input, other) -> None:
    """torch binds these functions for tensors alone (no overload takes a Python number)."""
    _require_tensors(name, input=input, other=other, _hint=_NOT_A_NUMBER_HINT.get(name, _WRAP_IT))


def tensors_only_method(fn, name: str):
    """The Tensor method of such a function: torch counts ``other`` as its position 1 there."""
    def method(self, other, *args, **kwargs):
        if not isinstance(other, Tensor):
            _require_tensors(name, other=other, _hint=_NOT_A_NUMBER_HINT.get(name, _WRAP_IT))
        return fn(self, other, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


def maximum(input: Tensor, other: Tensor) -> Tensor:
    _tensors_only("maximum", input, other)
    return binary(MAXIMUM, input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    _tensors_only("minimum", input, other)
    return binary(MINIMUM, input, other)


def fmax(input, other):
    _tensors_only("fmax", input, other)
    return binary(FMAX, input, other)


def fmin(input, other):
    _tensors_only("fmin", input, other)
    return binary(FMIN, input, other)


def to_dtype(t: Tensor, dt: D.dtype, copy: bool = False) -> Tensor:
    if t._data.dtype == dt.np and not copy:
        return t
    res = apply(TO_COPY, (t,), (dt.np, t.dtype))
    res._data = keep_lowp(res._data)  # (the wrapper hands a cast from float32 back as a plain array)
    if dt in D._UNSIGNED_WIDE:  # (and a cast to uint16/32/64: their own array type, _unsigned_array.py)
        res._data = keep_shell(res._data)
    return res


TO_COPY = defop("ToCopyBackward0", lambda xp, a, np_dtype, self_dtype: cast_array(a, np_dtype),
                lambda xp, g, self_dtype: xp.astype(g, self_dtype.np), saved=("self_dtype",))
TO_COPY.node_cls._saved_names = ()  # (torch's names)


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    if memory_format is None or memory_format is preserve_format:
        return apply(CLONE, (input,))
    check_rank(memory_format, input._data.ndim)
    return apply(CLONE, (input,), (memory_format,))


# ----------------------------------------------------------------------------- not differentiable
def _cmp(npfn):
    def op(input, other) -> Tensor:
        if isinstance(other, Tensor) and isinstance(input, Tensor):
            dt = D.result_type(input, other)
            a, b = input._data.astype(dt.np, copy=False), other._data.astype(dt.np, copy=False)
        elif isinstance(input, Tensor):
            a, b = input._data, other._data if isinstance(other, Tensor) else other
        else:
            a, b = input, other._data
        try:
            return _make(np.asarray(npfn(a, b)))
        except ValueError:
            if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
                raise
            from .inplace import raise_broadcast_error
            raise_broadcast_error(a.shape, b.shape)
    op.__name__ = npfn.__name__
    return op


eq = _cmp(np.equal)
ne = not_equal = _cmp(np.not_equal)
lt = less = _cmp(np.less)
le = less_equal = _cmp(np.less_equal)
gt = greater = _cmp(np.greater)
ge = greater_equal = _cmp(np.greater_equal)
def _logical(npfn):
    cmp = _cmp(npfn)
    name = npfn.__name__

    def op(input, other) -> Tensor:
        _tensors_only(name, input, other)
        return cmp(input, other)
    op.__name__ = name
    return op


logical_and = _logical(np.logical_and)
logical_or = _logical(np.logical_or)
logical_xor = _logical(np.logical_xor)


def logical_not(input: Tensor) -> Tensor:
    return _make(np.asarray(np.logical_not(input._data)))


def _bitwise(npfn, kernel: str, shifts: bool = False):
    """A bitwise op on bool/integer tensors and numbers; a float operand is torch's NotImplementedError
    (and, for the shifts, a uint16/32/64 one: see unsigned.py)."""
    def op(input, other) -> Tensor:
        for t in (input, other):
            if shifts and isinstance(t, Tensor):
                refuse_unsigned(t.dtype, kernel)
            if (isinstance(t, Tensor) and t.dtype._kind > 1) or isinstance(t, (float, complex)):
                name = D.scalar_type_name(t.dtype) if isinstance(t, Tensor) else type(t).__name__.capitalize()
                raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        try:
            return _make(keep_shell(np.asarray(npfn(a, b))))  # (uint16/32/64: their array type)
        except ValueError:
            from .inplace import raise_broadcast_error
            raise_broadcast_error(np.shape(a), np.shape(b))
    op.__name__ = npfn.__name__
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and_cpu")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or_cpu")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor_cpu")
bitwise_left_shift = _bitwise(np.left_shift, "lshift_cpu", shifts=True)
bitwise_right_shift = _bitwise(np.right_shift, "rshift_cpu", shifts=True)


def bitwise_not(input: Tensor) -> Tensor:
    if input.dtype._kind > 1:
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{D.scalar_type_name(input.dtype)}'")
    return _make(np.asarray(np.invert(input._data)))


def invert(input: Tensor) -> Tensor:
    """``~t``: torch's operator refuses a float tensor with a TypeError (bitwise_not's is NotImplementedError)."""
    if input.dtype._kind > 1:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)


def isnan(input: Tensor) -> Tensor:
    return _make(np.asarray(np.isnan(input._data)))  # (asarray: a 0-dim input gives a NumPy scalar)


def isinf(input: Tensor) -> Tensor:
    return _make(np.asarray(np.isinf(input._data)))


def isfinite(input: Tensor) -> Tensor:
    return _make(np.asarray(np.isfinite(input._data)))


def _rounding_fwd(ufunc_name: str):
    """floor / ceil / trunc / round: an integer tensor is returned as a copy, as torch; bool is refused."""
    def fwd(xp, a, decimals=0):
        if a.dtype.kind == "b":
            raise NotImplementedError(f"\"{ufunc_name}\" is not implemented for 'Bool': convert first, e.g. t.float()")
        if a.dtype.kind in "iu":
            return a.copy()
        return getattr(xp, ufunc_name)(a, decimals) if decimals else getattr(xp, ufunc_name)(a)
    return fwd


# piecewise constant: the gradient is zero everywhere (torch's zeros_like(grad), not grad * 0: no nan from inf)
FLOOR = defop("FloorBackward0", _rounding_fwd("floor"), lambda xp, g: xp.zeros_like(g))
CEIL = defop("CeilBackward0", _rounding_fwd("ceil"), lambda xp, g: xp.zeros_like(g))
TRUNC = defop("TruncBackward0", _rounding_fwd("trunc"), lambda xp, g: xp.zeros_like(g))
ROUND = defop("RoundBackward0", _rounding_fwd("round"), lambda xp, g: xp.zeros_like(g))
ROUND_DECIMALS = defop("RoundBackward1", _rounding_fwd("round"), lambda xp, g, decimals: xp.zeros_like(g),
                       saved=("decimals",))


def floor(input: Tensor) -> Tensor:
    return apply(FLOOR, (input,))


def ceil(input: Tensor) -> Tensor:
    return apply(CEIL, (input,))


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    return apply(ROUND_DECIMALS, (input,), (decimals,)) if decimals else apply(ROUND, (input,))


def trunc(input: Tensor) -> Tensor:
    return apply(TRUNC, (input,))


def equal(input: Tensor, other: Tensor) -> bool:
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    _tensors_only("allclose", input, other)
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    _tensors_only("isclose", input, other)
    return _make(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


# ----------------------------------------------------------------------------- fused updates
# addcmul, addcdiv and lerp are the "fused" updates optimizer code is written with: each is one
# op with torch's node (AddcmulBackward0, AddcdivBackward0, LerpBackward0/1) and formulas, and
# the in-place forms in methods.py write the same op into the tensor.
def _require_tensors(fn_name: str, _hint: str = "", **named) -> None:
    for pos, (name, value) in enumerate(named.items()):
        if not isinstance(value, Tensor):
            raise TypeError(f"{fn_name}(): argument '{name}' (position {pos + 1}) must be Tensor, "
                            f"not {type(value).__name__}" + (f". {_hint}" if _hint else ""))


def _value_in(dt: D.dtype, value):
    """``value`` as the result dtype sees it: torch casts it, so 0.5 scales an integer result by 0."""
    if dt.is_floating_point or dt.is_complex or isinstance(value, Tensor):
        return value
    return int(value)


def _addcmul_fwd(xp, a, t1, t2, value):
    p = t1 * t2
    return a + p if value == 1 else a + value * p


def _addcdiv_fwd(xp, a, t1, t2, value):
    q = t1 / t2
    return a + q if value == 1 else a + value * q


ADDCMUL = defop("AddcmulBackward0", _addcmul_fwd,
                (lambda xp, g, tensor1, tensor2, value: g,
                 lambda xp, g, tensor1, tensor2, value: g * xp.conj(tensor2 * value),  # (torch's order)
                 lambda xp, g, tensor1, tensor2, value: g * xp.conj(tensor1 * value)),
                saved=("input1", "input2", "value"), n_in=3)
ADDCMUL.node_cls._saved_names = ("tensor1", "tensor2", "value")
ADDCDIV = defop("AddcdivBackward0", _addcdiv_fwd,
                (lambda xp, g, tensor1, tensor2, value: g,
                 lambda xp, g, tensor1, tensor2, value: g * xp.conj(value / tensor2),  # (torch's order)
                 lambda xp, g, tensor1, tensor2, value: -g * xp.conj(value * tensor1 / (tensor2 * tensor2))),
                saved=("input1", "input2", "value"), n_in=3)
ADDCDIV.node_cls._saved_names = ("tensor1", "tensor2", "value")


def addcmul_check(input: Tensor, tensor1: Tensor, tensor2: Tensor, value=1) -> tuple[D.dtype, object]:
    """(result dtype, value as that dtype takes it), after torch's argument checks."""
    _require_tensors("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    dt = D.result_type(input, tensor1, tensor2)
    if dt is D.bool:
        raise NotImplementedError("\"addcmul\" not implemented for 'Bool': use integer or floating tensors")
    return dt, _value_in(dt, value)


def addcdiv_check(input: Tensor, tensor1: Tensor, tensor2: Tensor, value=1) -> tuple[D.dtype, object]:
    """(result dtype, value): addcdiv is ``input + value * tensor1 / tensor2``, a true division."""
    _require_tensors("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    if all(not (t.dtype.is_floating_point or t.dtype.is_complex) for t in (tensor1, tensor2)):
        raise RuntimeError("Integer division with addcdiv is no longer supported: tensor1 and tensor2 are both "
                           "integer tensors. Convert one of them to a floating dtype first, e.g. "
                           "torch.addcdiv(input, tensor1.float(), tensor2, value=value).")
    dt = D.result_type(input, tensor1, tensor2)
    return dt, _value_in(dt, value)


def _lerp_fwd(xp, a, e, weight):
    # from whichever end is nearer: a weight of exactly 1 returns ``end`` exactly
    return a + weight * (e - a) if -0.5 < weight < 0.5 else e - (e - a) * (1 - weight)


def _lerp_tensor_fwd(xp, a, e, w):
    d = e - a
    return xp.where(xp.abs(w) < 0.5, a + w * d, e - d * (1 - w))


LERP = defop("LerpBackward0", _lerp_fwd,
             (lambda xp, g, weight: g * (1 - weight), lambda xp, g, weight: g * weight), saved=("weight",), n_in=2)
LERP_TENSOR = defop("LerpBackward1", _lerp_tensor_fwd,
                    (lambda xp, g, self, end, weight: g * (1 - weight), lambda xp, g, self, end, weight: g * weight,
                     lambda xp, g, self, end, weight: g * (end - self)),
                    saved=("input0", "input1", "input2"), n_in=3)
LERP_TENSOR.node_cls._saved_names = ("self", "end", "weight")


def lerp_check(input: Tensor, end: Tensor, weight):
    """The op and its tensors for lerp(input, end, weight), after torch's argument checks."""
    _require_tensors("lerp", input=input, end=end)
    kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.scalar_type_name(input.dtype)}': "
                                  "lerp interpolates floating-point tensors")
    others = (("end", end),) + ((("weight", weight),) if isinstance(weight, Tensor) and weight._data.ndim else ())
    for name, t in others:
        if t.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {_dtype_word(input.dtype)} for `{name}` but got dtype "
                               f"{_dtype_word(t.dtype)}")
    if not isinstance(weight, Tensor):
        return LERP, (end,), (weight,)
    if weight.dtype is not input.dtype:
        weight = weight.to(input.dtype)  # a 0-dim weight of another float dtype (as torch accepts)
    return LERP_TENSOR, (end, weight), ()


def _dtype_word(dt: D.dtype) -> str:
    return D.scalar_type_name(dt).lower()


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast, with torch's type promotion)."""
    refuse_unsigned(input.dtype, "addcmul_cpu_out")  # (uint16/32/64: see _ops/unsigned.py)
    dt, value = addcmul_check(input, tensor1, tensor2, value)
    return apply(ADDCMUL, (input, tensor1, tensor2), (value,), cast=dt.np)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (broadcast, with torch's type promotion)."""
    dt, value = addcdiv_check(input, tensor1, tensor2, value)
    return apply(ADDCDIV, (input, tensor1, tensor2), (value,), cast=dt.np)


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """``input + weight * (end - input)``, evaluated from whichever end is nearer (per element
    for a tensor weight)."""
    op, others, params = lerp_check(input, end, weight)
    return apply(op, (input,) + others, params)
