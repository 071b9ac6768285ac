"""L-BFGS: quasi-Newton steps from a short history of gradient changes, driven by a closure."""
from __future__ import annotations

from typing import Callable

from .. import Tensor, cat, enable_grad, no_grad, zeros
from .line_search import strong_wolfe
from .optimizer import Optimizer, as_number, check_hyperparameters

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Limited-memory BFGS over all parameters as one flat vector (one group only).

    Each iteration turns the gradient g into a direction ``d = -H g``, where H approximates
    the inverse Hessian from the last ``history_size`` pairs (s = step taken, y = change
    in gradient) by the two-loop recursion, scaled by ``H_diag = y·s / y·y``. The step
    length is ``lr`` (the first iteration: ``min(1, 1 / |g|_1) * lr``), or what the
    strong-Wolfe line search finds (``line_search_fn="strong_wolfe"``).

    ``step(closure)`` runs up to ``max_iter`` iterations and ``max_eval`` evaluations of
    the closure (which must zero the gradients, compute the loss, call ``backward`` and
    return the loss), stopping early when the gradient's largest entry is at most
    ``tolerance_grad`` or the loss or parameters change by less than ``tolerance_change``.
    It returns the loss of the first evaluation. The history lives in the state of the
    first parameter, under torch's keys, so it is checkpointed with ``state_dict``.
    """

    def __init__(self, params, lr: float | Tensor = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_hyperparameters(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups): it treats all "
                             "parameters as one vector; pass a single list of parameters")

    @property
    def _params(self) -> list[Tensor]:
        return self.param_groups[0]["params"]

    # ------------------------------------------------------------------ the parameters as one vector
    def _flat_grad(self) -> Tensor:
        return cat([zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.view(-1) for p in self._params], 0)

    def _move(self, step_size, direction: Tensor) -> None:
        """parameters += step_size * direction (``direction`` is flat)."""
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(direction[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def _evaluate_at(self, closure: Callable, x: list[Tensor], t, d: Tensor) -> tuple[float, Tensor]:
        """(loss, flat gradient) at x + t d; the parameters are put back to x afterwards."""
        self._move(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    # ------------------------------------------------------------------ the step
    def step(self, closure: Callable):
        """Run up to ``max_iter`` L-BFGS iterations; returns the closure's first loss."""
        with no_grad():
            return self._iterate(closure)

    def _iterate(self, closure: Callable):
        def evaluate():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = as_number(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        first_loss = evaluate()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:  # already optimal
            return first_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # steepest descent to begin with
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                h_diag = self._remember(flat_grad.sub(prev_flat_grad), d.mul(t), old_dirs, old_stps, ro,
                                        history_size, h_diag)
                d = self._direction(flat_grad, old_dirs, old_stps, ro, h_diag, state, history_size)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction any more
                break

            used = 0
            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x = [p.clone() for p in self._params]
                loss, flat_grad, t, used = strong_wolfe(
                    lambda x_, t_, d_: self._evaluate_at(evaluate, x_, t_, d_), x, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - evaluations)
                self._move(t, d)
                optimal = flat_grad.abs().max() <= tolerance_grad
            else:
                self._move(t, d)
                optimal = False
                if n_iter != max_iter:  # the last iteration's loss is left to the next step
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    optimal = flat_grad.abs().max() <= tolerance_grad
                    used = 1
            evaluations += used
            state["func_evals"] += used

            if n_iter == max_iter or evaluations >= max_eval or optimal:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return first_loss

    @staticmethod
    def _remember(y: Tensor, s: Tensor, old_dirs: list, old_stps: list, ro: list, history_size: int, h_diag):
        """Add the pair (s, y) to the history when it keeps H positive definite (y·s > 0)."""
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / y.dot(y)
        return h_diag

    @staticmethod
    def _direction(flat_grad: Tensor, old_dirs: list, old_stps: list, ro: list, h_diag, state: dict,
                   history_size: int) -> Tensor:
        """-H g by the two-loop recursion (Nocedal & Wright, Algorithm 7.4); the first loop's
        coefficients are kept in the state as "al", as torch keeps them."""
        al = state.setdefault("al", [None] * history_size)
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = q * h_diag
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r
