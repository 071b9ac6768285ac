"""The ops behind torch's pointwise activations with a kernel of their own: the ELU family
(elu, selu, celu), mish, hardsigmoid, hardswish, softshrink, hardshrink, threshold, and glu.

Each forward op's formula calls a *backward op*: an op whose forward is torch's backward
kernel (``elu_backward``, ``hardswish_backward``, ...) and whose own formulas are torch's
double-backward formulas. Writing the first derivative as a composition of leafgrad ops
would give the same values almost everywhere, but not where torch's kernels decide a
boundary their own way: ELU's second derivative is 0 at exactly 0, hardswish's is 0 at
exactly +-3, hardsigmoid has none at all (torch raises). A backward op keeps those, and
records the backward graph under torch's names (``EluBackwardBackward0``).

Where torch's CPU kernels give a NaN input a different gradient in their vectorised loop
than in their scalar tail (elu, hardswish, the shrinks), these follow the vectorised loop:
it is what every element but the last few of a tensor gets.

The argument checks live in ``leafgrad/nn/_f_activations.py``.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .pointwise import SIGMOID, _no_derivative, _sigmoid
from .registry import apply, defop, show_saved_as, unsigned_int64


# =============================================================================== the ELU family
# torch computes elu, selu and celu with one kernel: x * scale above 0, and
# (exp(x * input_scale) - 1) * alpha * scale at or below it.
def _elu_fwd(xp, x, alpha, scale, input_scale):
    # (x clamped to <= 0 inside expm1, so the branch where() drops cannot overflow; 0 first, so -0.0 stays -0.0)
    neg = xp.expm1(xp.minimum(0, x) * input_scale) * (alpha * scale)
    return xp.where(x <= 0, neg, x * scale)


def _elu_back_fwd(xp, g, x, alpha, scale, input_scale, is_result):
    """torch's elu_backward; ``x`` is the input, or (``is_result``, after an in-place elu_) the output."""
    negcoef = alpha * scale
    with np.errstate(invalid="ignore", over="ignore"):  # (inf * 0 is nan, silently, as torch)
        if is_result:
            neg = g * input_scale * (x + negcoef)
        else:
            neg = g * input_scale * negcoef * xp.exp(xp.minimum(0, x) * input_scale)
        return xp.where(x > 0, g * scale, neg)


def _elu_back_grad_g(xp, gg, g, x, alpha, scale, input_scale, is_result):
    return xp.apply(ELU_BACK, gg, x, params=(alpha, scale, input_scale, is_result))


def _elu_back_grad_x(xp, gg, g, x, alpha, scale, input_scale, is_result):
    """torch's elu_double_backward: the second derivative is 0 at x = 0 (the mask is strict)."""
    below = x < 0
    if is_result:
        return gg * g * input_scale * below
    return xp.apply(ELU_BACK, gg * g * input_scale, x, params=(alpha, scale, input_scale, False)) * below


ELU_BACK = defop("EluBackwardBackward0", _elu_back_fwd, (_elu_back_grad_g, _elu_back_grad_x),
                 saved=("self", "input1", "alpha", "scale", "input_scale", "is_result"), n_in=2)
ELU_BACK.node_cls._saved_names = ("grad_output", "self_or_result", "alpha", "scale", "input_scale", "is_result")

ELU = defop("EluBackward0", _elu_fwd,
            lambda xp, g, self, alpha, scale, input_scale: xp.apply(
                ELU_BACK, g, self, params=(alpha, scale, input_scale, False)),
            saved=("self", "alpha", "scale", "input_scale"))
# elu_ / selu_: torch's backward then reads the output (the input is gone)
ELU_INPLACE = defop("EluBackward1", _elu_fwd,
                    lambda xp, g, result, alpha, scale, input_scale: xp.apply(
                        ELU_BACK, g, result, params=(alpha, scale, input_scale, True)),
                    saved=("result", "alpha", "scale", "input_scale"))

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _celu_fwd(xp, x, alpha):
    return _elu_fwd(xp, x, alpha, 1.0, 1.0 / alpha)


def _celu_back_params(alpha, is_result: bool) -> tuple:
    # torch's celu backward passes input_scale as 1.0 / alpha.toFloat(): alpha rounded to float32 first
    return (alpha, 1, 1.0 / float(np.float32(alpha)), is_result)


CELU = defop("CeluBackward0", _celu_fwd,
             lambda xp, g, self, alpha: xp.apply(ELU_BACK, g, self, params=_celu_back_params(alpha, False)),
             saved=("self", "alpha"))
CELU_INPLACE = defop("CeluBackward1", _celu_fwd,
                     lambda xp, g, result, alpha: xp.apply(ELU_BACK, g, result, params=_celu_back_params(alpha, True)),
                     saved=("result", "alpha"))


# =============================================================================== mish
def _mish_fwd(xp, x):
    with np.errstate(over="ignore", invalid="ignore"):  # (exp(x) may overflow to inf: tanh(inf) is 1; -inf * 0 is nan)
        return x * xp.tanh(xp.log1p(xp.exp(x)))


def _mish_grad(xp, g, self):
    """torch's infinitely differentiable mish backward, in ops: its own derivative is recorded."""
    return xp.kernel(_mish_dx, g, self)  # (torch's mish_backward: one kernel)


def _mish_dx(xp, g, self):
    s = xp.apply(SIGMOID, self)  # (NumPy has no sigmoid: torch's op, its overflow-safe forward on arrays)
    t = xp.tanh(xp.log1p(xp.exp(self)))  # (exp overflows to inf for large x, as in torch)
    return g * (t + self * s * (1 - t * t))


MISH = defop("MishBackward0", _mish_fwd, _mish_grad, saved=("self",))


# =============================================================================== hardsigmoid, hardswish
def _hardsigmoid_fwd(xp, x):
    return xp.minimum(xp.maximum(x + 3, 0), 6) / 6


_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))  # (torch's backward kernel uses 1.0f / 6.0f, for doubles too)


def _hardsigmoid_back_fwd(xp, g, x):
    return xp.where((x > -3) & (x < 3), g * _ONE_SIXTH, 0)


_HARDSIGMOID_HINT = "hardsigmoid has no second derivative in torch; use hardswish or sigmoid for one"
HARDSIGMOID_BACK = defop("torch::autograd::NotImplemented", _hardsigmoid_back_fwd,
                         (_no_derivative("hardsigmoid_backward", _HARDSIGMOID_HINT),
                          _no_derivative("hardsigmoid_backward", _HARDSIGMOID_HINT)), n_in=2)
HARDSIGMOID = defop("HardsigmoidBackward0", _hardsigmoid_fwd,
                    lambda xp, g, self: xp.apply(HARDSIGMOID_BACK, g, self), saved=("self",))


def _hardswish_fwd(xp, x):
    with np.errstate(invalid="ignore"):  # (-inf * 0 is nan, silently, as torch)
        return x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def _hardswish_back_fwd(xp, g, x):
    # 0 up to -3, g from 3 on, g * (x / 3 + 1/2) strictly between (and for NaN)
    return xp.where(x <= -3, 0, xp.where(x >= 3, g, g * (x / 3 + 0.5)))


def _hardswish_back_grad_x(xp, gg, g, x):
    return xp.where(xp.logical_and(x > -3, x < 3), gg * g / 3, 0.0)


HARDSWISH_BACK = defop("HardswishBackwardBackward0", _hardswish_back_fwd,
                       (lambda xp, gg, g, x: xp.apply(HARDSWISH_BACK, gg, x), _hardswish_back_grad_x),
                       saved=("self", "input1"), n_in=2)
HARDSWISH_BACK.node_cls._saved_names = ("grad_output", "self")
HARDSWISH = defop("HardswishBackward0", _hardswish_fwd,
                  lambda xp, g, self: xp.apply(HARDSWISH_BACK, g, self), saved=("self",))


# =============================================================================== shrinks, threshold
# Their derivatives are piecewise constant: each backward op's gradient in the input is zero.
def _softshrink_fwd(xp, x, lambd):
    return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, xp.where(x != x, x, 0)))


def _hardshrink_fwd(xp, x, lambd):
    return xp.where((x >= -lambd) & (x <= lambd), 0, x)


def _shrink_back_fwd(xp, g, x, lambd):
    """softshrink's and hardshrink's backward: g outside [-lambd, lambd], 0 inside (and for NaN)."""
    return xp.where((x > lambd) | (x < -lambd), g, 0)


def _backward_op(name: str, forward, param: str):
    """A backward op whose forward is linear in g and constant in x: its formulas are itself and zero."""
    op = defop(name, forward, (lambda xp, gg, x, p: xp.apply(op, gg, x, params=(p,)),
                               lambda xp, gg, x, p: xp.zeros_like(gg)),
               saved=("input1", param), n_in=2)
    op.node_cls._saved_names = ("self", param)
    return op


SOFTSHRINK_BACK = _backward_op("SoftshrinkBackwardBackward0", _shrink_back_fwd, "lambd")
HARDSHRINK_BACK = _backward_op("HardshrinkBackwardBackward0", _shrink_back_fwd, "lambd")
SOFTSHRINK = defop("SoftshrinkBackward0", _softshrink_fwd,
                   lambda xp, g, self, lambd: xp.apply(SOFTSHRINK_BACK, g, self, params=(lambd,)),
                   saved=("self", "lambd"))
HARDSHRINK = defop("HardshrinkBackward0", _hardshrink_fwd,
                   lambda xp, g, self, lambd: xp.apply(HARDSHRINK_BACK, g, self, params=(lambd,)),
                   saved=("self", "lambd"))


def _threshold_fwd(xp, x, threshold, value):
    if x.dtype.kind not in "fV":  # torch converts both numbers to an integer tensor's dtype first
        threshold, value = np.asarray(threshold).astype(x.dtype), np.asarray(value).astype(x.dtype)
    return xp.where(x <= threshold, value, x).astype(x.dtype, copy=False)


THRESHOLD_BACK = _backward_op("ThresholdBackwardBackward0",
                              lambda xp, g, x, threshold: xp.where(x <= threshold, 0, g), "threshold")


def _threshold_grad(xp, g, self, threshold):
    return xp.apply(THRESHOLD_BACK, g, self, params=(threshold,))


THRESHOLD = defop("ThresholdBackward0", _threshold_fwd, _threshold_grad, saved=("self", "threshold"))
# threshold_ keeps a copy of the input it overwrites (torch's clone of self), under another name
THRESHOLD_INPLACE = defop("ThresholdBackward1", _threshold_fwd, _threshold_grad, saved=("self", "threshold"))


# =============================================================================== glu
def _halves(xp, t, dim: int):
    return xp.split(t, [t.shape[dim] // 2], axis=dim)


def _glu_fwd(xp, x, dim, wrapped):
    a, b = _halves(xp, x, wrapped)
    return a * _sigmoid(xp, b)


def _glu_back_fwd(xp, g, x, dim, wrapped):
    a, b = _halves(xp, x, wrapped)
    s = _sigmoid(xp, b)
    return xp.concatenate([s * g, (1 - s) * s * a * g], axis=wrapped)


def _glu_back_grad_g(xp, gg, g, x, dim, wrapped):
    """torch's glu_double_backward_grad_output: gg times glu_backward of ones, its halves summed."""
    ones = xp.ones_like(g, dtype=xp.dtype_of(x))
    t = gg * xp.apply(GLU_BACK, ones, x, params=(dim, wrapped))
    first, second = _halves(xp, t, wrapped)
    return first + second


def _glu_back_grad_x(xp, gg, g, x, dim, wrapped):
    """torch's glu_double_backward."""
    a, b = _halves(xp, x, wrapped)
    gg_a, gg_b = _halves(xp, gg, wrapped)
    s = xp.apply(SIGMOID, b)
    one_minus_s = 1 - s
    s_1ms = s * one_minus_s
    second_order = s_1ms * one_minus_s - s * s_1ms
    return xp.concatenate([gg_b * g * s_1ms, gg_b * a * g * second_order + gg_a * g * s_1ms], axis=wrapped)


GLU_BACK = defop("GluBackwardBackward0", _glu_back_fwd, (_glu_back_grad_g, _glu_back_grad_x),
                 saved=("self", "input1", "dim", "wrapped"), n_in=2)
GLU_BACK.node_cls._saved_names = ("grad_output", "self", "dim")
GLU = defop("GluBackward0", _glu_fwd,
            lambda xp, g, self, dim, wrapped: xp.apply(GLU_BACK, g, self, params=(dim, wrapped)),
            saved=("self", "dim", "wrapped"))
GLU.node_cls._saved_names = ("self", "dim")  # (``wrapped``, the dim made non-negative, is the formula's own)
for _op in (GLU, GLU_BACK):
    show_saved_as(_op, "dim", unsigned_int64)


def glu(x: Tensor, dim: int, wrapped: int) -> Tensor:
    return apply(GLU, (x,), (dim, wrapped))
