"""Adam: a step along the running mean of the gradient, scaled per element by its running size."""
from __future__ import annotations

import math

from .. import (Tensor, _foreach_add_, _foreach_addcdiv_, _foreach_addcmul_, _foreach_div_, _foreach_lerp_,
                _foreach_mul_, _foreach_sqrt, maximum, zeros_like)
from .optimizer import Optimizer, as_number, check_hyperparameters, check_implementation_flags, step_counter

__all__ = ["Adam"]


class Adam(Optimizer):
    """Kingma & Ba's Adam (and, with ``decoupled_weight_decay=True``, Loshchilov & Hutter's AdamW).

    With ``betas`` (β1, β2), at step t::

        m <- β1 m + (1 - β1) g          running mean of the gradient    ("exp_avg")
        v <- β2 v + (1 - β2) g²         running mean of its square      ("exp_avg_sq")
        p <- p - lr / (1 - β1^t) * m / (sqrt(v / (1 - β2^t)) + eps)

    The divisions by ``1 - β^t`` undo the pull towards zero of averages that start at zero.
    ``amsgrad`` divides by the largest ``v`` seen so far ("max_exp_avg_sq") instead, so the
    per-element step size never grows. ``weight_decay`` adds ``weight_decay * p`` to the
    gradient (L2), or, decoupled, shrinks ``p`` by ``lr * weight_decay`` before the step.
    ``foreach``, ``fused`` and ``capturable`` select torch kernels and change nothing here.
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True: "
                             "the foreach kernels take lr as a number; pass a float or foreach=False")
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _check_tensor_betas(betas, foreach, capturable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        check_implementation_flags(foreach, fused, differentiable)

    def _new_state(self, param: Tensor, group: dict) -> dict:
        state = {"step": step_counter(), "exp_avg": zeros_like(param), "exp_avg_sq": zeros_like(param)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(param)
        return state

    def _update_group(self, params: list, states: list, group: dict) -> bool:
        """The step of :meth:`_update` for every parameter at once, op by op over lists (``foreach``
        unless it is False; the same arithmetic, so the same values): one ``leafgrad._foreach_*``
        call per op instead of one in-place op per parameter per op. amsgrad, maximize, L2 weight
        decay, tensor betas and ``differentiable`` take the per-parameter path."""
        if (group.get("foreach") is False or group["amsgrad"] or group["maximize"] or group["differentiable"]
                or any(isinstance(b, Tensor) for b in group["betas"])
                or (group["weight_decay"] != 0 and not group.get("decoupled_weight_decay", False))):
            return False
        lr, (beta1, beta2), decay = as_number(group["lr"]), group["betas"], group["weight_decay"]
        grads = [p.grad for p in params]
        if decay != 0:
            _foreach_mul_(params, 1 - lr * decay)
        steps = [state["step"] for state in states]
        _foreach_add_(steps, 1)
        means, squares = [state["exp_avg"] for state in states], [state["exp_avg_sq"] for state in states]
        _foreach_lerp_(means, grads, 1 - beta1)
        _foreach_mul_(squares, beta2)
        _foreach_addcmul_(squares, grads, grads, 1 - beta2)
        counts = [step.item() for step in steps]
        denoms = _foreach_sqrt(squares)
        _foreach_div_(denoms, [math.sqrt(1 - beta2 ** t) for t in counts])
        _foreach_add_(denoms, group["eps"])
        _foreach_addcdiv_(params, means, denoms, [-lr / (1 - beta1 ** t) for t in counts])
        return True

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = (as_number(b) for b in group["betas"])
        state["step"] += 1
        t = state["step"].item()
        mean, square = state["exp_avg"], state["exp_avg_sq"]
        mean.lerp_(grad, 1 - beta1)
        square.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["amsgrad"]:
            largest = state["max_exp_avg_sq"]
            largest.copy_(maximum(largest.clone() if group["differentiable"] else largest, square))
            square = largest
        if group["differentiable"]:
            _differentiable_step(param, mean, square, state["step"], beta1, beta2, group)
            return
        denom = square.sqrt().div_(math.sqrt(1 - beta2 ** t)).add_(group["eps"])
        param.addcdiv_(mean, denom, value=-as_number(group["lr"]) / (1 - beta1 ** t))


def _differentiable_step(param: Tensor, mean: Tensor, square: Tensor, step: Tensor, beta1, beta2,
                         group: dict) -> None:
    """The step as torch's differentiable branch takes it: the bias corrections are 0-dim
    tensors of the step counter's dtype (float32), and nothing saved for backward is
    modified in place."""
    step_size_neg = (group["lr"] / (1 - beta1 ** step)).neg()
    correction2_sqrt = (1 - beta2 ** step).sqrt()
    denom = (square.sqrt() / (correction2_sqrt * step_size_neg)).add_(group["eps"] / step_size_neg)
    param.addcdiv_(mean.clone(), denom)


def _check_tensor_betas(betas, foreach, capturable) -> None:
    """Betas are two floats (an int is refused, as by torch) or two 1-element tensors, but
    tensors not for the foreach kernels."""
    if not any(all(isinstance(beta, kind) for beta in betas) for kind in (float, Tensor)):
        raise ValueError("betas must be either both floats or both Tensors")
    for index, beta in enumerate(betas):
        if isinstance(beta, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{index}] as a Tensor is not supported for capturable=False and "
                                 "foreach=True: pass floats or foreach=False")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{index}] must be 1-element")
