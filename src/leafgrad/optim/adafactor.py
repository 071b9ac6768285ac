"""Adafactor: Adam-like steps whose second moments of a matrix are kept as a row and a column."""
from __future__ import annotations

from .. import Tensor, finfo, zeros, zeros_like
from .optimizer import Optimizer, as_number, step_counter

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Shazeer & Stern's Adafactor, in torch's form (no first moment; relative step sizes).

    At step t, with ``β2_t = 1 - t^beta2_decay``, for a gradient G with more than one dim::

        R <- β2_t R + (1 - β2_t) mean(G², last dim)          ("row_var", shape [..., n, 1])
        C <- β2_t C + (1 - β2_t) mean(G², next-to-last dim)  ("col_var", shape [..., 1, m])
        V  = R C / mean(R)                                     (a rank-one estimate of E[G²])

    (a vector keeps the full running mean, "variance"). Then ``U = G / sqrt(max(V, eps1²))``,
    clipped so its root mean square is at most ``d``, and the step is relative to the
    parameter's size: ``p <- p - max(eps2, rms(p)) * min(lr, 1/sqrt(t)) * U / max(1, rms(U)/d)``.
    Memory per matrix is n + m numbers instead of n m. ``eps1`` of None means the dtype's
    machine epsilon. ``weight_decay`` shrinks ``p`` by ``lr * weight_decay`` (decoupled).
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for ok, message in ((0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                            (0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
                            (eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}"),
                            (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
                            (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
                            (0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")):
            if not ok:
                raise ValueError(message)
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def _new_state(self, param: Tensor, group: dict) -> dict:
        grad = param.grad
        if grad.dim() <= 1:
            return {"step": step_counter(), "variance": zeros_like(grad)}
        rows, cols = list(grad.shape), list(grad.shape)
        rows[-1], cols[-2] = 1, 1
        return {"step": step_counter(), "row_var": zeros(rows, dtype=grad.dtype),
                "col_var": zeros(cols, dtype=grad.dtype)}

    _decays_in_update = True  # after the step size is read from the parameter's size

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        lr, (eps1, eps2), clip = as_number(group["lr"]), group["eps"], group["d"]
        if eps1 is None:
            eps1 = finfo(param.dtype).eps
        state["step"] += 1
        t = state["step"].item()
        new_weight = t ** group["beta2_decay"]  # 1 - β2_t: the running averages' weight on the new value
        step_size = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * min(lr, 1 / t ** 0.5)
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            rows, cols = state["row_var"], state["col_var"]
            rows.lerp_(grad.norm(dim=-1, keepdim=True).square().div_(grad.size(-1)), new_weight)
            cols.lerp_(grad.norm(dim=-2, keepdim=True).square().div_(grad.size(-2)), new_weight)
            estimate = (rows @ cols).div_(rows.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            estimate = state["variance"]
            estimate.lerp_(grad * grad, new_weight)
            estimate = estimate.clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        shrink = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * clip))
        param.add_(update, alpha=-step_size / shrink)
