"""RAdam: Adam that takes plain momentum steps until its variance estimate can be trusted."""
from __future__ import annotations

from .. import Tensor, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, step_counter

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Liu et al.'s rectified Adam, with Adam's ``m`` ("exp_avg") and ``v`` ("exp_avg_sq").

    ``ρ∞ = 2 / (1 - β2) - 1`` and ``ρ_t = ρ∞ - 2 t β2^t / (1 - β2^t)`` measure how many
    gradients the average ``v`` effectively holds. With ``m̂ = m / (1 - β1^t)``::

        ρ_t > 5:  p <- p - lr m̂ * sqrt(1 - β2^t) / (sqrt(v) + eps) * r_t,
                  r_t = sqrt((ρ_t - 4)(ρ_t - 2) ρ∞ / ((ρ∞ - 4)(ρ∞ - 2) ρ_t))
        else:     p <- p - lr m̂                          (SGD with momentum)

    The rectification ``r_t`` undoes the large variance of Adam's step size in the first
    steps, which is what warm-up schedules otherwise work around. ``decoupled_weight_decay``
    shrinks ``p`` by ``lr * weight_decay`` instead of adding an L2 term (RAdamW).
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "exp_avg": zeros_like(param), "exp_avg_sq": zeros_like(param)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr = as_number(group["lr"])
        state["step"] += 1
        t = state["step"].item()
        mean, square = state["exp_avg"], state["exp_avg_sq"]
        mean.lerp_(grad, 1 - beta1)
        square.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        correction2 = 1 - beta2 ** t
        step = mean / (1 - beta1 ** t) * lr
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2 ** t / correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            step = step * (correction2 ** 0.5 / square.sqrt().add_(group["eps"])) * rect
        param.add_(step, alpha=-1.0)
