"""The remaining loss modules of torch.nn: each an ``nn.functional`` loss of
``_f_losses_more.py`` plus its options (the base classes of ``loss.py`` store and pass them)."""
from __future__ import annotations

import math
import warnings
from typing import Callable

from .. import functional as F
from .distance import PairwiseDistance
from .linear import Linear
from .loss import _Loss, _WeightedLoss, NLLLoss

__all__ = ["CTCLoss", "GaussianNLLLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "PoissonNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d",
           "LinearCrossEntropyLoss"]


class CTCLoss(_Loss):
    """Connectionist Temporal Classification: the loss of an unsegmented sequence of log-probabilities
    (T, N, C) against shorter target label sequences; ``blank`` is the class meaning "no label"."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(None, None, reduction, blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class GaussianNLLLoss(_Loss):
    """The negative log-likelihood of ``target`` under Gaussians of mean ``input`` and variance ``var``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction, full=full, eps=eps)

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """A hinge loss between every target class and every other class (targets: index lists ended by -1)."""

    _function = staticmethod(F.multilabel_margin_loss)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class binary cross-entropy from logits, averaged over classes (targets 0/1 per class)."""

    _function = staticmethod(F.multilabel_soft_margin_loss)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss ``max(0, margin - x[y] + x[j])**p`` (p 1 or 2), averaged over classes."""

    _function = staticmethod(F.multi_margin_loss)

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                             "instead")
        super().__init__(weight, size_average, reduce, reduction, p=p, margin=margin)


class PoissonNLLLoss(_Loss):
    """The negative log-likelihood of counts ``target`` under Poisson rates ``input`` (log rates by default)."""

    _function = staticmethod(F.poisson_nll_loss)

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction, log_input=log_input, full=full, eps=eps)


class TripletMarginLoss(_Loss):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with the pairwise p-norm distance."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        super().__init__(size_average, reduce, reduction, margin=margin, p=p, eps=eps, swap=swap)

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """TripletMarginLoss with any distance (a function or a module; PairwiseDistance() by default)."""

    def __init__(self, *, distance_function: Callable | None = None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """NLLLoss under its old name for (N, C, H, W) inputs (deprecated: NLLLoss takes any number of dims)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement "
                      "and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
                      FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear layer (in_features -> num_classes x out_features, no bias by default) and cross entropy in
    one module, as torch's (the weight is kept 2-d in ``self.linear`` and reshaped in forward)."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (), bias: bool = False,
                 device=None, dtype=None, reduction: str = "mean", weight=None, ignore_index: int | None = None,
                 label_smoothing: float = 0.0, options=None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        weight = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        bias = None if self.linear.bias is None else self.linear.bias.reshape((self.num_classes, *self.out_features))
        return F.linear_cross_entropy(input, weight, target, linear_bias=bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
