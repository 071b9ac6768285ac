"""Muon: momentum SGD for weight matrices whose step is the momentum made orthogonal."""
from __future__ import annotations

import math

from .. import Tensor, addmm, zeros_like
from .optimizer import Optimizer, as_number

__all__ = ["Muon"]

_ADJUSTMENTS = (None, "original", "match_rms_adamw")


def orthogonalize(matrix: Tensor, coefficients: tuple[float, float, float], steps: int, eps: float) -> Tensor:
    """An approximately orthogonal matrix with ``matrix``'s singular vectors (U S' Vᵀ, S' near 1).

    Scaled to spectral norm at most 1, the matrix goes through ``steps`` rounds of the odd
    quintic ``X <- a X + (b A + c A²) X`` with ``A = X Xᵀ``, which pushes every singular
    value towards 1 (Newton-Schulz; the default coefficients trade exactness for speed).
    torch computes this in bfloat16, and so does leafgrad (each op in float32, rounded to
    bfloat16 once, as torch's CPU kernels: see leafgrad/_bfloat16.py).
    """
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency: Newton-Schulz "
                         "converges in a handful (the default is 5)")
    if matrix.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values (a, b, c)")
    a, b, c = coefficients
    x = matrix.bfloat16()
    tall = matrix.size(0) > matrix.size(1)
    if tall:  # iterate on the wide orientation: X Xᵀ is then the smaller Gram matrix
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr: float, adjustment: str | None, shape) -> float:
    """The rate scaled so updates of differently shaped matrices have comparable size."""
    rows, cols = shape[:2]
    if adjustment is None or adjustment == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjustment == "match_rms_adamw":  # Moonshot's: the RMS AdamW's update would have
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    """Jordan et al.'s Muon, for the 2-d parameters of hidden layers (use e.g. AdamW for the rest).

    With momentum μ::

        B <- μ B + (1 - μ) g                      ("momentum_buffer")
        U  = orthogonalize(g + μ (B - g))  if nesterov, else orthogonalize(B)
        p <- p (1 - lr λ) - lr' U                 (λ = weight_decay, decoupled; lr' from adjust_lr_fn)

    Orthogonalizing sets every singular value of the step to about 1, so no direction of
    the matrix dominates the update.
    """

    _decays_in_update = True  # after the update is computed, as torch orders it

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
                 eps: float = 1e-7, ns_steps: int = 5, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for ok, message in ((0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                            (0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}"),
                            (0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}"),
                            (adjust_lr_fn in _ADJUSTMENTS,
                             f"Adjust learning rate function {adjust_lr_fn} is not supported")):
            if not ok:
                raise ValueError(message)
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _new_state(self, param: Tensor, group: dict) -> dict:
        return {"momentum_buffer": zeros_like(param.grad)}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        lr, momentum = as_number(group["lr"]), group["momentum"]
        buffer = state["momentum_buffer"]
        buffer.lerp_(grad, 1 - momentum)
        update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
        update = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))
