"""Dropout layers: a regulariser that is on in ``train()`` mode and a no-op in ``eval()`` mode.

During training each element (Dropout) or each whole channel (Dropout1d/2d) is zeroed
with probability ``p`` and the survivors are scaled by ``1 / (1 - p)``, so the expected
activation is the same in both modes and nothing has to be rescaled at test time.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module, _settings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["Dropout", "Dropout1d", "Dropout2d"]


class _Dropout(Module):
    _function = None  # the nn.functional op, set by each subclass

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p} ({type(self).__name__} "
                             "takes the probability of zeroing, not of keeping)")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """Zero random elements of an input of any shape (whole channels for Dropout1d/2d/3d) with
        probability ``p`` and scale the rest by ``1 / (1 - p)``, only in training mode; in eval mode the input
        comes back unchanged.

        The output is shaped like the input; Dropout records ``MulBackward0`` (the input times a 0-or-scale
        mask, which the gradient is multiplied by too). With ``inplace=True`` the input is overwritten (its
        version counter bumped), so it must not be a leaf that requires grad.
        """
        return self._function(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return _settings(p=self.p, inplace=self.inplace)


class Dropout(_Dropout):
    """Zeroes single elements."""

    _function = staticmethod(F.dropout)


class Dropout1d(_Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs, for features that are correlated along L."""

    _function = staticmethod(F.dropout1d)


class Dropout2d(_Dropout):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) inputs: neighbouring pixels are too alike to drop alone."""

    _function = staticmethod(F.dropout2d)
