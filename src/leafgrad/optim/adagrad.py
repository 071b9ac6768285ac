"""Adagrad: per-element step sizes that shrink with the sum of all past squared gradients."""
from __future__ import annotations

from .. import Tensor, full_like
from .optimizer import Optimizer, as_number, check_hyperparameters, check_implementation_flags, step_counter

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Duchi, Hazan & Singer's Adagrad, with an optional decay of the learning rate.

    At step t::

        S <- S + g²                                  ("sum", starts at initial_accumulator_value)
        p <- p - lr / (1 + (t - 1) lr_decay) * g / (sqrt(S) + eps)

    Elements that have had large gradients take small steps. Unlike the other optimizers,
    the state of every parameter is created with the optimizer (as torch does), so a
    state_dict lists frozen parameters too.
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                              initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        check_implementation_flags(foreach, fused, differentiable)
        for group in self.param_groups:
            for param in group["params"]:
                self.state[param] = self._new_state(param, group)

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "sum": full_like(param, group["initial_accumulator_value"])}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        state["step"] += 1
        decayed_lr = as_number(group["lr"]) / (1 + (state["step"].item() - 1) * group["lr_decay"])
        total = state["sum"]
        total.addcmul_(grad, grad)
        root = total.sqrt()
        # differentiable=True: out of place, the square root is saved for backward
        root = root + group["eps"] if group["differentiable"] else root.add_(group["eps"])
        param.addcdiv_(grad, root, value=-decayed_lr)
