"""Loss modules: each one is an ``nn.functional`` loss plus the options it is called with.

A loss module holds its options (``reduction``, ``ignore_index``, ...) so that a training
loop can build the criterion once and call ``criterion(output, target)``. Every option
given to the base class is stored as an attribute and passed on to the function by
keyword. Class weights are registered as buffers, so they follow ``model.to(dtype)`` and
appear in the state_dict, as in torch.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "CosineEmbeddingLoss"]


class _Loss(Module):
    _function = None  # the nn.functional loss, set by each subclass

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", *, buffers: dict | None = None,
                 **options) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:  # the legacy flags, translated (with a warning)
            reduction = F._reduction("mean", size_average, reduce)
        self.reduction = reduction
        for name, value in (buffers or {}).items():
            self.register_buffer(name, value)
        for name, value in options.items():
            setattr(self, name, value)
        self._passed = ("reduction", *(buffers or {}), *options)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Compute the loss of ``input`` against ``target`` with the module's reduction and options (weights,
        ignore_index, label_smoothing, ...): a scalar for ``'mean'``/``'sum'``, the per-element (or per-sample)
        losses for ``'none'``.

        It is the matching ``nn.functional`` loss, so the node recorded is that function's: e.g. MSELoss gives
        ``MseLossBackward0`` (saving input and target) for every reduction; CrossEntropyLoss gives
        ``NllLossBackward0`` over ``LogSoftmaxBackward0`` for class-index targets (shapes ``(N, C)`` /
        ``(N, C, d1, ...)`` input with ``(N)`` / ``(N, d1, ...)`` targets, or class probabilities shaped like
        the input).
        """
        return self._function(input, target, **{name: getattr(self, name) for name in self._passed})


class _WeightedLoss(_Loss):
    """A loss with an optional per-class ``weight`` (a buffer)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", **options) -> None:
        super().__init__(size_average, reduce, reduction, buffers={"weight": weight}, **options)


class L1Loss(_Loss):
    """Mean (or sum) absolute error."""

    _function = staticmethod(F.l1_loss)


class MSELoss(_Loss):
    """Mean (or sum) squared error."""

    _function = staticmethod(F.mse_loss)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above it (scaled by 1/beta), so outliers pull less."""

    _function = staticmethod(F.smooth_l1_loss)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction, beta=beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, linear above it; SmoothL1Loss times ``delta``."""

    _function = staticmethod(F.huber_loss)

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(None, None, reduction, delta=delta)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices, given log-probabilities (pair it with LogSoftmax)."""

    _function = staticmethod(F.nll_loss)

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index)


class CrossEntropyLoss(_WeightedLoss):
    """LogSoftmax and NLLLoss in one step, from raw scores (logits); targets are class indices or probabilities."""

    _function = staticmethod(F.cross_entropy)

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities in [0, 1] (after a Sigmoid)."""

    _function = staticmethod(F.binary_cross_entropy)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid and BCELoss in one numerically stable step; ``pos_weight`` up-weights the positive class."""

    _function = staticmethod(F.binary_cross_entropy_with_logits)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None) -> None:
        super().__init__(size_average, reduce, reduction, buffers={"weight": weight, "pos_weight": pos_weight})


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from the log-probabilities ``input``; use ``reduction='batchmean'`` for the
    divergence per sample (``'mean'`` also divides by the number of classes)."""

    _function = staticmethod(F.kl_div)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction, log_target=log_target)


class _PairLoss(_Loss):
    """A loss of two inputs and a target of +-1 (a ranking or a similarity), with a ``margin``."""

    def __init__(self, margin: float, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction, margin=margin)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return self._function(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_PairLoss):
    """``max(0, -target * (input1 - input2) + margin)``: target 1 asks for input1 ranked above input2."""

    _function = staticmethod(F.margin_ranking_loss)

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)


class CosineEmbeddingLoss(_PairLoss):
    """``1 - cos`` for pairs marked similar (target 1), ``max(0, cos - margin)`` for dissimilar ones (-1)."""

    _function = staticmethod(F.cosine_embedding_loss)

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` where target is 1, ``max(0, margin - x)`` where it is -1 (x is usually a distance)."""

    _function = staticmethod(F.hinge_embedding_loss)

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction, margin=margin)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * input))``: a logistic loss for targets of +-1."""

    _function = staticmethod(F.soft_margin_loss)
