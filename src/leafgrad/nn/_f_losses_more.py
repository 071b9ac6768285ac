"""More losses of ``nn.functional``: gaussian_nll_loss, poisson_nll_loss,
multilabel_soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss (compositions,
as in torch's Python or C++, so the grad_fn graph is torch's), and multi_margin_loss,
multilabel_margin_loss and ctc_loss (one kernel each, in ``leafgrad/_ops/nn_more.py``).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import _dtype as D
from .._ops import nn_more as K
from .._ops import nn_ops as O
from .._tensor import Tensor
from ._f_losses import pairwise_distance
from ._reduction import reduce_loss, reduction_of

__all__ = ["gaussian_nll_loss", "poisson_nll_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss",
           "linear_cross_entropy"]


def _check_reduction(reduction: str, suffix: str = "is not valid") -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} {suffix}")


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """``0.5 * (log(var) + (input - target)**2 / var)`` (plus ``0.5 * log(2 pi)`` when ``full``), with
    var clamped to ``eps`` outside autograd; var may have one dim fewer, or one dim of size 1."""
    from .. import ones_like
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim
                  and sum(b for a, b in zip(input.size(), var.size()) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    _check_reduction(reduction)
    from ..autograd.grad_mode import no_grad
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``, plus
    Stirling's approximation of ``log(target!)`` for targets above 1 when ``full``."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of("mean", size_average, reduce)
    _check_reduction(reduction, "is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * O.add_scalar(input, eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """The binary cross-entropy of every class (targets 0/1) from logits, averaged over the classes."""
    from .functional import logsigmoid
    if size_average is not None or reduce is not None:
        reduction = reduction_of("mean", size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    _check_reduction(reduction)
    return reduce_loss(loss, reduction)


def _check_long(target: Tensor) -> None:
    if target.dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.scalar_type_name(target.dtype)}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``sum_{j != y} max(0, margin - x[y] + x[j])**p / C`` per sample (scaled by ``weight[y]``)."""
    reduction = reduction_of(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    shape = tuple(input.shape)
    nframe = 1 if len(shape) <= 1 else shape[0]
    dim = input.numel() if len(shape) <= 1 else shape[1]
    if input.numel() == 0 or len(shape) > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                           f"input samples (batch size). Expected target size [{nframe}], but got "
                           f"{list(target.shape)}. Input has shape {list(shape)}.")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    _check_long(target)
    t = target._data
    if t.size and (t.min() < 0 or t.max() >= dim):
        raise RuntimeError(f"target out of range: the class indices must lie in [0, {dim}), got "
                           f"{int(t.min())}..{int(t.max())}")
    w = None if weight is None else weight.detach()
    return K.multi_margin_loss(input, target, p, margin, w, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """``sum_{j in targets} sum_{d not in targets} max(0, 1 - (x[j] - x[d])) / C`` per sample; each
    row of ``target`` lists class indices and ends at its first -1."""
    reduction = reduction_of(reduction, size_average, reduce)
    shape, tshape = list(input.shape), list(target.shape)
    if len(shape) <= 1:
        dim = input.numel()
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = len(shape) == 2 and tshape == shape
        if len(shape) > 2 or input.shape[1] == 0:
            raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                               f"{shape}")
    if not ok:
        raise RuntimeError(f"inconsistent target size: {tshape} for input of size: {shape}")
    _check_long(target)
    t = target._data
    c = shape[-1] if shape else 1
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range: its entries must be class indices in "
                           f"[0, {c}) or -1 (the end of a row's list)")
    return K.multilabel_margin_loss(input, target, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with d the pairwise p-norm distance (``swap``: d(a, n)
    replaced by d(p, n) where that is smaller)."""
    reduction = reduction_of(reduction, size_average, reduce)
    _check_ndims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return reduce_loss((O.add_scalar(dist_pos, margin) - dist_neg).clamp_min(0), reduction)


def _check_ndims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any distance function (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_ndims(anchor, positive, negative)
    dist = pairwise_distance if distance_function is None else distance_function
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(dist(positive, negative))
    return reduce_loss((margin + dist_pos - dist_neg).clamp_min(0), reduction)


# =============================================================================== CTC
def _lengths(x, name: str, n: int) -> np.ndarray:
    arr = np.asarray(x._data if isinstance(x, Tensor) else x)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"{name} must be integers (a list or an int64 tensor), got {arr.dtype}")
    return arr.reshape(-1).astype(np.int64)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The Connectionist Temporal Classification loss: ``-log`` of the total probability of every
    alignment of the targets to the (T, N, C) log-probabilities; 'mean' divides each sample's loss by
    its target length (at least 1) before averaging."""
    reduction = reduction_of(reduction)
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or unbatched (T, C), got shape "
                           f"{list(log_probs.shape)}")
    if not lp.dtype.is_floating_point:
        raise RuntimeError(f"\"ctc_loss_cpu\" not implemented for '{D.scalar_type_name(lp.dtype)}'")
    t_max, n, c = lp.shape
    tg = targets._data if isinstance(targets, Tensor) else np.asarray(targets)
    if unbatched and tg.ndim == 1 and isinstance(target_lengths, Tensor) and target_lengths.dim() == 0:
        tg = tg.reshape(1, -1)
    il = _lengths(input_lengths, "input_lengths", n)
    tl = _lengths(target_lengths, "target_lengths", n)
    if len(il) != n:
        raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value "
                           f"of size {len(il)} for a batch of {n}")
    if len(tl) != n:
        raise RuntimeError(f"Expected tensor to have size at least {n} at dimension 0 for target_lengths, "
                           f"but got {len(tl)}")
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    for b in range(n):
        if il[b] > t_max or il[b] < 0:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {il[b]} "
                               f"(while checking arguments for ctc_loss_allocate_outputs)")
    if tg.ndim == 2:
        for b in range(n):
            if tl[b] > tg.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {tl[b]} at dimension 1, but got size "
                                   f"{tg.shape[1]} for argument #2 'targets' (while checking arguments for "
                                   f"ctc_loss_allocate_outputs)")
    elif tg.size < tl.sum():
        raise RuntimeError(f"Expected tensor to have size at least {int(tl.sum())} at dimension 0, but got size "
                           f"{tg.size} for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
    res = K.ctc(lp, tg.astype(np.int64), il, tl, int(blank), bool(zero_infinity))
    if zero_infinity:
        from .._ops.pointwise import where
        res = where(res == float("inf"), Tensor._make(np.zeros((), res._data.dtype)), res)
    if reduction == "none":
        return res.squeeze(0) if unbatched else res
    if reduction == "mean":
        lengths = Tensor._make(np.maximum(tl, 1).reshape(res._data.shape))
        return (res / lengths).mean()
    if reduction == "sum":
        return res.sum()


# =============================================================================== linear + cross entropy
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``; a weight of shape
    (C, d_1, ..., in_features) gives K-dimensional logits (N, C, d_1, ...). torch's ``options`` pick a
    chunked, memory-saving evaluation of the same values; leafgrad always computes it in one piece."""
    from .functional import cross_entropy, linear
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)
