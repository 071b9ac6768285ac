"""The ops behind the distance and margin losses of ``nn.functional`` that torch records
as ops of their own: ``soft_margin_loss`` (SoftMarginLossBackward0, with its backward as
an op, so the double backward is torch's) and the p-norm over one dim that
``pairwise_distance`` ends with (NormBackward1, not the LinalgVectorNormBackward0 of
``torch.norm`` called from Python).

The rest of those losses are compositions of existing ops (kl_div's xlogy among them),
written in ``leafgrad/nn/_f_losses.py`` as torch's C++ writes them.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .nn_ops import _reduce_fwd
from .pointwise_math import SGN
from .reduction import _norm_fwd
from .registry import apply, defop, show_saved_as, unsigned_int64


def _array_of(target):
    """A target parameter's array: a Tensor in the forward, already its array when a formula
    on raw arrays runs the backward op's forward (``xp.apply``)."""
    return target._data if isinstance(target, Tensor) else target


def _target_for(xp, target, x):
    """The target as torch's promotion takes it into an op with ``x``: an integer or bool target
    in ``x``'s float dtype (NumPy would make int64 with float32 a float64)."""
    return target if xp.dtype_of(target).kind in "fcV" else xp.astype(target, xp.dtype_of(x))


# =============================================================================== soft margin loss
def _soft_margin_fwd(xp, x, target, reduction):
    # torch: neg_out(out, x).mul_(target).exp_().log1p_(), all in x's dtype; exp may overflow to inf
    z = ((-x) * target._data).astype(x.dtype, copy=False)
    with np.errstate(over="ignore"):
        return _reduce_fwd(xp, xp.log1p(xp.exp(z)), reduction)


def _soft_margin_back_fwd(xp, g, x, target, reduction):
    """torch's soft_margin_loss_backward: -norm * t * z / (1 + z) * g with z = exp(-t x), written
    into x's dtype step by step as its kernel does (an overflowing z gives inf / inf = nan there)."""
    t = _array_of(target)
    if t.dtype.kind == "b":  # (torch's kernel negates the target, and says so; NumPy would raise a TypeError)
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported: soft_margin_loss's "
                           "backward negates its target. Give the target as -1/+1 numbers, e.g. "
                           "target.float() * 2 - 1.")
    n = x.size
    norm = (1.0 / n if n else float("inf")) if reduction == "mean" else 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        z = xp.exp(-t * x)
        gi = (t * z).astype(x.dtype, copy=False) * -norm
        gi = (gi / (z + 1)).astype(x.dtype, copy=False)
        return (gi * g).astype(x.dtype, copy=False)


def _soft_margin_back_grad_g(xp, gg, g, x, target, reduction):
    """torch's soft_margin_loss_double_backward_grad_output (the backward is linear in g)."""
    if reduction == "none":
        return xp.apply(SOFT_MARGIN_BACK, gg, x, params=(target, reduction))
    ones = xp.ones_like(g)
    return xp.sum(xp.apply(SOFT_MARGIN_BACK, ones, x, params=(target, reduction)) * gg)


def _soft_margin_back_grad_x(xp, gg, g, x, target, reduction):
    """torch's soft_margin_loss_double_backward, given grad * grad_output."""
    target = _target_for(xp, target, x)
    z = xp.exp(x * -target)
    zp1 = z + 1
    out = gg * g * (target * target) * z / (zp1 * zp1)
    return out / xp.numel(x) if reduction == "mean" else out


SOFT_MARGIN_BACK = defop("SoftMarginLossBackwardBackward0", _soft_margin_back_fwd,
                         (_soft_margin_back_grad_g, _soft_margin_back_grad_x),
                         saved=("self", "input1", "target", "reduction"), n_in=2)
SOFT_MARGIN_BACK.node_cls._saved_names = ("grad_output", "self", "target", "reduction")
SOFT_MARGIN = defop("SoftMarginLossBackward0", _soft_margin_fwd,
                    lambda xp, g, self, target, reduction: xp.apply(SOFT_MARGIN_BACK, g, self,
                                                                    params=(target, reduction)),
                    saved=("self", "target", "reduction"))


def soft_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    return apply(SOFT_MARGIN, (input,), (target, reduction))


# =============================================================================== norm over one dim
def _norm_p_fwd(xp, a, p, dims, keepdim):
    return _norm_fwd(xp, a, p, dims if a.ndim else None, keepdim)  # (a 0-d input: dim -1 is the whole of it)


def _unreduce(xp, g, ndim: int, dims, keepdim: bool):
    """A reduced value (the gradient, the norm) with its reduced dims put back, to broadcast
    against the input (unsqueezed one by one, as torch's norm_backward)."""
    if dims is None:
        return g.reshape((1,) * ndim) if ndim else g
    if not keepdim:
        for d in dims:
            g = xp.expand_dims(g, d)
    return g


def _norm_p_grad(xp, g, self, p, dims, keepdim, result):
    """torch's norm_backward, case by case (p = 0 has no gradient: None, as torch's undefined one)."""
    if p == 0:
        return None
    ndim = self.ndim
    if not ndim:
        dims = None
    g = _unreduce(xp, g, ndim, dims, keepdim)
    norm = _unreduce(xp, result, ndim, dims, keepdim)
    if p == 1:
        return xp.apply(SGN, self) * g
    if p == 2:
        return g * xp.masked_fill(self / norm, norm == 0, 0)
    if p in (float("inf"), float("-inf")):
        a = xp.abs(self)
        mask = xp.logical_or(a == norm, xp.isnan(a))
        # (the count in g's dtype: torch divides a float by an integer tensor in the float's dtype)
        count = xp.astype(xp.sum(mask, axis=dims, keepdims=True), xp.dtype_of(g))
        return xp.apply(SGN, self) * ((g / count) * mask)
    # (|self| as an array: NumPy gives a 0-d input's abs as a scalar, whose ** rounds otherwise in float32)
    a = xp.asarray(xp.abs(self))
    if p < 1:
        scaled = xp.apply(SGN, self) * xp.masked_fill(a ** (p - 1), self == 0, 0)
        return scaled * g * norm ** (1 - p)
    scaled = xp.apply(SGN, self) * a ** (p - 1) if p < 2 else self * a ** (p - 2)
    return scaled * xp.masked_fill(g / norm ** (p - 1), norm == 0, 0)


NORM_P = defop("NormBackward1", _norm_p_fwd, _norm_p_grad, saved=("self", "p", "dims", "keepdim", "result"))
NORM_P.node_cls._saved_names = ("self", "p", "dim", "keepdim", "result")
show_saved_as(NORM_P, "dim", lambda dims: tuple(map(unsigned_int64, dims)))


def norm_p(input: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """``at::norm(input, p, dim, keepdim)``: p kept a float (torch's saved ``p`` is a double here)."""
    return apply(NORM_P, (input,), (float(p), (dim,), keepdim))


# torch's kernels for these return a contiguous result for an input of any layout (see _ops/layout.py)
from .layout import contiguous_output as _contiguous_output  # noqa: E402

_contiguous_output(NORM_P)
