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
from .reduction import _grad_to_input, _norm_fwd
from .xp import TENSORS
from .registry import apply, apply_binary, defop, show_saved_as, unsigned_int64

_make = Tensor._make


# =============================================================================== soft margin loss
def _soft_margin_fwd(xp, x, target, reduction):
    # torch: neg_out(out, x).mul_(target).exp_().log1p_(), all in x's dtype; exp may overflow to inf
    z = ((-x) * target._data).astype(x.dtype, copy=False)
    with np.errstate(over="ignore"):
        return _reduce_fwd(xp, xp.log1p(xp.exp(z)), reduction)


def _soft_margin_back_fwd(xp, g, x, target, reduction):
    """torch's soft_margin_loss_backward: -norm * t * z / (1 + z) * g with z = exp(-t x), written
    into x's dtype step by step as its kernel does (an overflowing z gives inf / inf = nan there)."""
    t = target._data
    n = x.size
    norm = (1.0 / n if n else float("inf")) if reduction == "mean" else 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        z = xp.exp(-t * x)
        gi = (t * z).astype(x.dtype, copy=False) * -norm
        gi = (gi / (z + 1)).astype(x.dtype, copy=False)
        return (gi * g).astype(x.dtype, copy=False)


def _soft_margin_back_grad_g(gg, g, x, target, reduction):
    """torch's soft_margin_loss_double_backward_grad_output (the backward is linear in g)."""
    if reduction == "none":
        return apply_binary(SOFT_MARGIN_BACK, gg, x, (target, reduction))
    ones = _make(np.ones(g._data.shape, dtype=g._data.dtype))
    return (apply_binary(SOFT_MARGIN_BACK, ones, x, (target, reduction)) * gg).sum()


def _soft_margin_back_grad_x(gg, g, x, target, reduction):
    """torch's soft_margin_loss_double_backward, given grad * grad_output."""
    z = (x * -target).exp()
    zp1 = z + 1
    out = gg * g * (target * target) * z / (zp1 * zp1)
    return out / x._data.size if reduction == "mean" else out


SOFT_MARGIN_BACK = defop("SoftMarginLossBackwardBackward0", _soft_margin_back_fwd,
                         (_soft_margin_back_grad_g, _soft_margin_back_grad_x),
                         saved=("self", "input1", "target", "reduction"), n_in=2)
SOFT_MARGIN_BACK.node_cls._saved_names = ("grad_output", "self", "target", "reduction")
SOFT_MARGIN = defop("SoftMarginLossBackward0", _soft_margin_fwd,
                    lambda g, self, target, reduction: apply_binary(SOFT_MARGIN_BACK, g, self, (target, reduction)),
                    saved=("self", "target", "reduction"))


def soft_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    return apply(SOFT_MARGIN, (input,), (target, reduction))


# =============================================================================== norm over one dim
def _norm_p_fwd(xp, a, p, dims, keepdim):
    return _norm_fwd(xp, a, p, dims if a.ndim else None, keepdim)  # (a 0-d input: dim -1 is the whole of it)


def _norm_p_grad(g, self, p, dims, keepdim, result):
    """torch's norm_backward, case by case (p = 0 has no gradient: None, as torch's undefined one)."""
    if p == 0:
        return None
    shape = self._data.shape
    if not shape:
        dims = None
    g = _grad_to_input(TENSORS, g, shape, dims, keepdim)
    norm = _grad_to_input(TENSORS, result, shape, dims, keepdim)
    if p == 1:
        return self.sgn() * g
    if p == 2:
        return g * (self / norm).masked_fill(norm == 0, 0)
    if p in (float("inf"), float("-inf")):
        a = self.abs()
        mask = (a == norm).logical_or(a.isnan())
        count = mask.sum(dims, keepdim=True) if dims is not None else mask.sum()
        return self.sgn() * ((g / count) * mask)
    if p < 1:
        scaled = self.sgn() * self.abs().pow(p - 1).masked_fill(self == 0, 0)
        return scaled * g * norm.pow(1 - p)
    scaled = self.sgn() * self.abs().pow(p - 1) if p < 2 else self * self.abs().pow(p - 2)
    return scaled * (g / norm.pow(p - 1)).masked_fill(norm == 0, 0)


NORM_P = defop("NormBackward1", _norm_p_fwd, _norm_p_grad, saved=("self", "p", "dims", "keepdim", "result"))
NORM_P.node_cls._saved_names = ("self", "p", "dim", "keepdim", "result")
show_saved_as(NORM_P, "dim", lambda dims: tuple(map(unsigned_int64, dims)))


def norm_p(input: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """``at::norm(input, p, dim, keepdim)``: p kept a float (torch's saved ``p`` is a double here)."""
    return apply(NORM_P, (input,), (float(p), (dim,), keepdim))
