"""Rprop: move each weight by its own step size, grown or shrunk by the gradient's sign."""
from __future__ import annotations

from .. import Tensor, full_like, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, step_counter

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Riedmiller & Braun's resilient backpropagation (the variant without weight backtracking).

    Only the gradient's sign is used. Per element, with ``etas`` (η-, η+)::

        g·g_prev > 0:  s <- min(s η+, max_step)       same direction again: speed up
        g·g_prev < 0:  s <- max(s η-, min_step), g <- 0   overshot: slow down, skip this step
        p <- p - sign(g) s ;  g_prev <- g             ("step_size" s starts at lr; "prev")

    Meant for full-batch training: mini-batch noise flips the signs it relies on.
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_hyperparameters(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]} (Rprop needs 0 < etaminus < 1 < etaplus: "
                             "a sign change shrinks the step, an agreement grows it)")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "prev": zeros_like(param),
                "step_size": full_like(param.grad, as_number(group["lr"]))}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        shrink, grow = group["etas"]
        smallest, largest = group["step_sizes"]
        state["step"] += 1
        previous, sizes = state["prev"], state["step_size"]
        factor = grad.mul(previous).sign_()  # +1 agree, -1 flipped, 0 either is zero; then replaced in turn
        factor.masked_fill_(factor.gt(0), grow).masked_fill_(factor.lt(0), shrink).masked_fill_(factor.eq(0), 1)
        sizes.mul_(factor).clamp_(smallest, largest)
        grad = grad.masked_fill(factor.eq(shrink), 0)
        param.addcmul_(grad.sign(), sizes, value=-1)
        previous.copy_(grad)
