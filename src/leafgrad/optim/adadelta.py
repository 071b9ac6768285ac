"""Adadelta: step sizes from the ratio of two running averages, so no learning rate is needed."""
from __future__ import annotations

from .. import Tensor, zeros_like
from .optimizer import Optimizer, as_number, at_most, check_hyperparameters, step_counter

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Zeiler's Adadelta. With decay ``rho`` ρ::

        s <- ρ s + (1 - ρ) g²                                  ("square_avg")
        Δ  = sqrt(u + eps) / sqrt(s + eps) * g
        u <- ρ u + (1 - ρ) Δ²                                  ("acc_delta")
        p <- p - lr Δ

    The numerator carries the units of the parameter (a running size of past updates), so
    the step is dimensionally a parameter change; ``lr`` (default 1) only rescales it.
    """

    def __init__(self, params, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_hyperparameters(lr=lr, rho=at_most(rho, 1.0), eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    _capturable_devices = "['cuda', 'xpu', 'hpu', 'privateuseone']"

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "square_avg": zeros_like(param), "acc_delta": zeros_like(param)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        square, updates = state["square_avg"], state["acc_delta"]
        square.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        delta = updates.add(eps).sqrt_()
        if group["differentiable"]:  # the square root is saved for backward: divide a copy
            delta = delta.clone()
        delta.div_(square.add(eps).sqrt_()).mul_(grad)
        updates.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-as_number(group["lr"]))
