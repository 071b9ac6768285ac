"""The similarity, divergence and margin losses of ``nn.functional`` (kl_div, soft_margin_loss,
margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss) and the two distances
(cosine_similarity, pairwise_distance); ``functional.py`` re-exports them.

Most of them are compositions in torch's C++ (``aten/src/ATen/native/Loss.cpp``,
``Distance.cpp``), and are composed here step for step, so the recorded graph shows the
grad_fn names torch's does: a number added in C++ is ``AddBackward1`` (not the
``AddBackward0`` of Python's ``x + 1``), ``1 - x`` there is a filled tensor minus x, and
the in-place ``clamp_min_`` / ``sqrt_`` of that code are in-place here too.
``soft_margin_loss`` and pairwise_distance's norm are ops of their own
(``leafgrad/_ops/nn_loss_ops.py``); kl_div's ``xlogy`` is torch.xlogy's op.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._ops import nn_ops as O
from .._ops import pointwise as P
from .._ops.inplace import broadcast_or_raise, check_broadcast_into
from .._ops.nn_loss_ops import norm_p, soft_margin_loss as _soft_margin_loss
from .._ops.pointwise_math import xlogy
from .._tensor import Tensor, _STATE
from ..autograd.grad_mode import no_grad
from ..linalg import vector_norm
from ._reduction import reduce_loss, reduction_of

__all__ = ["cosine_similarity", "pairwise_distance", "kl_div", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "cosine_embedding_loss"]

_make = Tensor._make
_EPSILON = 1e-12  # cosine_embedding_loss's guard on the squared norms (torch's EPSILON)


def _filled_like(t: Tensor, value) -> Tensor:
    """C++'s ``number - t`` starts from a copy of t's shape and dtype filled with the number."""
    return _make(np.full(t._data.shape, value).astype(t._data.dtype, copy=False))


# =============================================================================== distances
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``, as torch computes it: each
    input divided by its clamped norm first (the clamp is not differentiated through)."""
    common = D.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{D.scalar_type_name(common)}")
    if x1.dtype._kind <= 1:
        x1 = x1.to(common)
    if x2.dtype._kind <= 1:
        x2 = x2.to(common)
    if x1._data.shape != x2._data.shape:  # torch's expand_outplace: both expanded
        shape = broadcast_or_raise(x1._data.shape, x2._data.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = vector_norm(x1, 2, dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim of the broadcast inputs."""
    last = max(x1._data.ndim, x2._data.ndim) - 1
    return norm_p(O.add_scalar(x1 - x2, eps), p, last, keepdim)


# =============================================================================== divergence
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """``target * (log(target) - input)`` (input holds log-probabilities), summed and divided as asked;
    ``'batchmean'`` divides the sum by the batch size, the KL divergence per sample."""
    if size_average is not None or reduce is not None:
        how = reduction_of("mean", size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        how = "sum" if reduction == "batchmean" else reduction_of(reduction)
    if input.dtype._kind == 3 or target.dtype._kind == 3:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if input.dtype._kind <= 1 or target.dtype._kind <= 1:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    with np.errstate(invalid="ignore", over="ignore"):
        if log_target:
            out = target.exp() * (target - input)
        else:
            out = xlogy(target, target) - target * input
        reduced = reduce_loss(out, how)
        if reduction == "batchmean" and input._data.ndim != 0:
            with np.errstate(divide="ignore"):
                reduced = reduced / input._data.shape[0]
    return reduced


# =============================================================================== margin losses
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``, for targets of +-1."""
    reduction = reduction_of(reduction, size_average, reduce)
    if target._requires_grad and _STATE.grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    check_broadcast_into(input, target)  # (torch writes the loss into a tensor of the input's shape)
    if input.dtype._kind != 2:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{D.scalar_type_name(input.dtype)}")
    return _soft_margin_loss(input, target, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: target 1 wants input1 ranked higher."""
    reduction = reduction_of(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    out = O.add_scalar(-target * (input1 - input2), margin).clamp_min_(0)
    return reduce_loss(out, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1."""
    reduction = reduction_of(reduction, size_average, reduce)
    zeros = _filled_like(input, 0)
    margin_clamp = (_filled_like(input, margin) - input).clamp_min_(0)
    output_margin = P.where(target != 1, margin_clamp, zeros)
    output_self = P.where(target != -1, input, zeros)
    return reduce_loss(output_margin + output_self, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where target is 1, ``max(0, cos - margin)`` where it is -1."""
    reduction = reduction_of(reduction, size_average, reduce)
    tdim = target._data.ndim
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if input1._data.ndim != want or input2._data.ndim != want:
        raise RuntimeError(f"{tdim}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(input1._data.shape)} and {list(input2._data.shape)}.")
    prod_sum = (input1 * input2).sum(tdim)
    mag_square1 = O.add_scalar((input1 * input1).sum(tdim), _EPSILON)
    mag_square2 = O.add_scalar((input2 * input2).sum(tdim), _EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt_()
    zeros = _filled_like(cos, 0)
    pos = _filled_like(cos, 1) - cos
    neg = O.sub_scalar(cos, margin).clamp_min_(0)
    output = P.where(target == 1, pos, zeros) + P.where(target == -1, neg, zeros)
    return reduce_loss(output, reduction)

