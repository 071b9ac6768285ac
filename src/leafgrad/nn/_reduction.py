"""A loss's ``reduction`` argument read as torch reads it, and the reduction applied.

Shared by every loss in ``nn.functional`` (``functional.py`` and ``_f_losses.py``) and by
the loss modules, which translate the legacy ``size_average`` / ``reduce`` flags with it.
"""
from __future__ import annotations

import warnings

from .._tensor import Tensor


def reduction_of(reduction: str, size_average=None, reduce=None) -> str:
    """'none', 'mean' or 'sum': the legacy flags (with torch's warning) win over ``reduction``."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else ("sum" if reduce else "none")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=3)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        reduction = "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """torch's apply_loss_reduction: MeanBackward0 / SumBackward0 over every element, or the loss as is."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
