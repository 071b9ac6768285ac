"""Stochastic gradient descent, with momentum, dampening and Nesterov's look-ahead."""
from __future__ import annotations

from .. import Tensor, _foreach_add_, _foreach_mul_
from .optimizer import Optimizer, as_number, check_hyperparameters, check_implementation_flags

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p <- p - lr * d`` where ``d`` is the gradient, or a velocity built from it.

    With ``momentum`` m and ``dampening`` τ the velocity is ``v <- m v + (1 - τ) g``; its
    first value is the gradient itself (no dampening on the first step). Nesterov's form
    steps along ``g + m v``, the gradient plus a look-ahead, instead of ``v``. The
    velocity is the state ``"momentum_buffer"``, kept only when ``momentum`` is non-zero.
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float | Tensor = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        check_hyperparameters(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        check_implementation_flags(foreach, fused, differentiable)

    def _update_group(self, params: list, states: list, group: dict) -> bool:
        """:meth:`_update` for every parameter at once, op by op over lists (``foreach`` unless it is False;
        the same arithmetic, so the same values): plain SGD is one ``_foreach_add_`` for the group, momentum
        two more over the velocities. Each tensor's own ``add_`` costs a few times the arithmetic on a small
        model (the in-place path's checks, alpha's check): about 9 k instructions a parameter less here.
        maximize, weight decay, Nesterov, ``differentiable`` and a first step with momentum (it makes the
        velocities) take the per-parameter path."""
        if (group.get("foreach") is False or group["maximize"] or group["differentiable"] or group["nesterov"]
                or group["weight_decay"] != 0):
            return False
        momentum = group["momentum"]
        grads = [p.grad for p in params]
        if momentum != 0:
            velocities = [state.get("momentum_buffer") for state in states]
            if any(v is None for v in velocities):
                return False
            _foreach_mul_(velocities, momentum)
            _foreach_add_(velocities, grads, alpha=1 - group["dampening"])
            grads = velocities
        _foreach_add_(params, grads, alpha=-as_number(group["lr"]))
        return True

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        momentum = group["momentum"]
        if momentum != 0:
            velocity = state.get("momentum_buffer")
            if velocity is None:
                # detached, as torch's: under differentiable=True the graph runs through later steps only
                velocity = state["momentum_buffer"] = grad.clone().detach()
            else:
                velocity.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(velocity, alpha=momentum) if group["nesterov"] else velocity
        param.add_(grad, alpha=-as_number(group["lr"]))
