"""ASGD: SGD with a decaying step size that also keeps a running average of the iterates."""
from __future__ import annotations

from .. import Tensor, zeros_like
from .optimizer import Optimizer, as_number, check_hyperparameters, scalar_state, step_counter

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Polyak & Juditsky's averaged SGD. At step t, with step size η ("eta", starts at lr)::

        p <- p (1 - λ η) - η g
        a <- a + μ (p - a)                      ("ax", the averaged parameters; μ starts at 1)
        η <- lr / (1 + λ lr t)^α ;  μ <- 1 / max(1, t - t0)

    Averaging starts after ``t0`` steps (before that μ = 1 and ``ax`` just copies ``p``).
    ``ax`` is the answer ASGD is after, but, as in torch, the parameters stay the plain SGD
    iterates: read ``optimizer.state[p]["ax"]`` for the average. ``eta`` and ``mu`` are
    float32 tensors, as torch keeps them, so their rounding is part of the result.
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_hyperparameters(lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    _capturable_tensors = "params, mus, etas, and state_steps"

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"step": step_counter(), "eta": scalar_state(as_number(group["lr"])), "mu": scalar_state(1.0),
                "ax": zeros_like(param)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        lr, lambd = as_number(group["lr"]), group["lambd"]
        state["step"] += 1
        eta, mu, average = state["eta"].item(), state["mu"], state["ax"]
        param.mul_(1 - lambd * eta).add_(grad, alpha=-eta)
        if mu.item() != 1:
            average.add_(param.sub(average).mul_(mu))
        else:
            average.copy_(param)
        t = state["step"].item()
        state["eta"].fill_(lr / (1 + lambd * lr * t) ** group["alpha"])
        mu.fill_(1 / max(1, t - group["t0"]))
