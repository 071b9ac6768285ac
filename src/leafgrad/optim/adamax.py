"""Adamax: Adam with the running mean square replaced by a decaying running maximum."""
from __future__ import annotations

from .. import Tensor, maximum, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, step_counter

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Kingma & Ba's Adamax (the infinity-norm variant of Adam). At step t::

        m <- β1 m + (1 - β1) g                          ("exp_avg")
        u <- max(β2 u, |g| + eps)                       ("exp_inf")
        p <- p - lr / (1 - β1^t) * m / u

    The running maximum needs no bias correction: it does not start biased towards zero
    the way a running average does.
    """

    def __init__(self, params, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "exp_avg": zeros_like(param), "exp_inf": zeros_like(param)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        state["step"] += 1
        mean, largest = state["exp_avg"], state["exp_inf"]
        mean.lerp_(grad, 1 - beta1)
        largest.copy_(maximum(largest.mul_(beta2), grad.abs().add_(group["eps"])))
        step_size = as_number(group["lr"]) / (1 - beta1 ** state["step"].item())
        param.addcdiv_(mean, largest, value=-step_size)
