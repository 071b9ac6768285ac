"""NAdam: Adam whose momentum step looks ahead, as Nesterov's momentum does for SGD."""
from __future__ import annotations

from .. import Tensor, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, scalar_state, step_counter

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Dozat's NAdam, with Adam's running averages ``m`` ("exp_avg") and ``v`` ("exp_avg_sq").

    The momentum coefficient warms up over the steps: ``μ_t = β1 (1 - ½ 0.96^(t ψ))``
    (ψ is ``momentum_decay``), and ``Π_t`` ("mu_product") is the product of all μ so far.
    With ``v̂ = v / (1 - β2^t)``::

        p <- p - lr (1 - μ_t) / (1 - Π_t)        * g / (sqrt(v̂) + eps)
               - lr μ_{t+1}   / (1 - Π_t μ_{t+1}) * m / (sqrt(v̂) + eps)

    The second term uses next step's momentum: the look-ahead. ``mu_product`` is a float32
    tensor (as torch keeps it), so its rounding is part of the result.
    ``decoupled_weight_decay`` shrinks ``p`` by ``lr * weight_decay`` instead of adding an
    L2 term to the gradient (NAdamW).
    """

    def __init__(self, params, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    _capturable_tensors = "params, mu_products and state_steps"

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "mu_product": scalar_state(1.0), "exp_avg": zeros_like(param),
                "exp_avg_sq": zeros_like(param)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, eps, psi = as_number(group["lr"]), group["eps"], group["momentum_decay"]
        state["step"] += 1
        t = state["step"].item()
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        product = state["mu_product"]
        product.mul_(mu)
        mean, square = state["exp_avg"], state["exp_avg_sq"]
        mean.lerp_(grad, 1 - beta1)
        square.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = square.div(1 - beta2 ** t).sqrt()
        if group["differentiable"]:
            # torch's differentiable branch works out of place and keeps the product a tensor
            # throughout (float32 arithmetic)
            denom = denom.add(eps)
            param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - product)), denom)
            param.addcdiv_(mean * (-lr * mu_next / (1.0 - product * mu_next)), denom)
            return
        denom.add_(eps)
        product_now = product.item()
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - product_now))
        param.addcdiv_(mean, denom, value=-lr * mu_next / (1.0 - product_now * mu_next))
