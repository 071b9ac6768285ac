"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""
from __future__ import annotations

from .. import Tensor, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, step_counter

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Hinton's RMSprop, optionally centered (Graves) and with momentum.

    With smoothing constant ``alpha`` α::

        s <- α s + (1 - α) g²               ("square_avg")
        ḡ <- α ḡ + (1 - α) g                ("grad_avg", only when centered)
        r  = sqrt(s - ḡ²) + eps  if centered,  else  sqrt(s) + eps
        b <- momentum b + g / r ;  p <- p - lr b      ("momentum_buffer", when momentum > 0)
        p <- p - lr g / r                             (without momentum)

    Centering divides by an estimate of the gradient's standard deviation rather than its
    root mean square.
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_hyperparameters(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _new_state(self, param: Tensor, group: dict) -> dict:
        state = {"step": step_counter(), "square_avg": zeros_like(param)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = zeros_like(param)
        return state

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        alpha, lr = group["alpha"], as_number(group["lr"])
        state["step"] += 1
        square = state["square_avg"]
        square.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            mean = state["grad_avg"]
            mean.lerp_(grad, 1 - alpha)
            rms = square.addcmul(mean, mean, value=-1).sqrt_()
        else:
            rms = square.sqrt()
        # differentiable=True: out of place, the square root is saved for backward
        rms = rms.add(group["eps"]) if group["differentiable"] else rms.add_(group["eps"])
        if group["momentum"] > 0:
            velocity = state["momentum_buffer"]
            velocity.mul_(group["momentum"]).addcdiv_(grad, rms)
            param.add_(velocity, alpha=-lr)
        else:
            param.addcdiv_(grad, rms, value=-lr)
