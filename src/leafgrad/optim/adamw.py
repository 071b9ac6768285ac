"""AdamW: Adam whose weight decay shrinks the weights directly instead of joining the gradient."""
from __future__ import annotations

from .. import Tensor
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), on by default (0.01).

    ``p <- p * (1 - lr * weight_decay)`` happens before the Adam step, so the decay is not
    rescaled by Adam's per-element step sizes, as an L2 term in the gradient would be.
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
