"""The strong-Wolfe line search LBFGS uses: bracket a step length, then zoom in on it.

A step length ``t`` along a descent direction ``d`` is accepted when it satisfies both
strong Wolfe conditions, with ``φ(t) = f(x + t d)``::

    φ(t) <= φ(0) + c1 t φ'(0)        enough decrease (Armijo)
    |φ'(t)| <= -c2 φ'(0)             the slope has flattened enough (curvature)

The search first grows ``t`` until an interval is known to contain such a point, then
shrinks that interval with safeguarded cubic interpolation (Nocedal & Wright, Algorithms
3.5 and 3.6, in the form of minFunc, as torch does). Values stay tensors where torch's
do (slopes are 0-dim tensors from ``dot``), so the rounding is the same.
"""
from __future__ import annotations

from typing import Callable

from .. import Tensor

__all__ = ["cubic_interpolate", "strong_wolfe"]


def cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
    clamped to ``bounds`` (default: between x1 and x2); the midpoint if it has none."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


class _Point:
    """One evaluated step length: t, φ(t), the gradient there and the slope φ'(t)."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def strong_wolfe(evaluate: Callable, x, t, d: Tensor, f: float, g: Tensor, gtd: Tensor, c1: float = 1e-4,
                 c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25):
    """Search along ``d`` from the parameters ``x`` (loss ``f``, gradient ``g``, slope ``gtd``).

    ``evaluate(x, t, d)`` returns (loss, flat gradient) at ``x + t d``. Returns the loss,
    gradient and step length found, and how many evaluations it took.
    """
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)
    f_new, g_new = evaluate(x, t, d)
    evaluations = 1
    new = _Point(t, f_new, g_new, g_new.dot(d))
    prev = start
    done = False
    iteration = 0
    bracket = None
    # phase 1: grow the step until [prev, new] brackets an acceptable point (or new is one)
    while iteration < max_ls:
        if new.f > (f + c1 * new.t * gtd) or (iteration > 1 and new.f >= prev.f):
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        if abs(new.gtd) <= -c2 * gtd:
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        t_next = cubic_interpolate(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                                   bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev = _Point(new.t, new.f, new.g.clone(), new.gtd)
        f_new, g_new = evaluate(x, t_next, d)
        evaluations += 1
        new = _Point(t_next, f_new, g_new, g_new.dot(d))
        iteration += 1
    if iteration == max_ls:
        bracket = [_Point(0, f, start.g, None), _Point(new.t, new.f, new.g, None)]
    # phase 2: zoom: shrink the bracket, keeping its low end the best point so far
    insufficient_progress = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not done and iteration < max_ls:
        ends = [point.t for point in bracket]
        if abs(ends[1] - ends[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(ends[0], bracket[0].f, bracket[0].gtd, ends[1], bracket[1].f, bracket[1].gtd)
        # keep away from the ends: a trial too close to one makes too little progress
        eps = 0.1 * (max(ends) - min(ends))
        if min(max(ends) - t, t - min(ends)) < eps:
            if insufficient_progress or t >= max(ends) or t <= min(ends):
                t = max(ends) - eps if abs(t - max(ends)) < abs(t - min(ends)) else min(ends) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(x, t, d)
        evaluations += 1
        gtd_new = g_new.dot(d)
        iteration += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket[low].f:
            bracket[high] = _Point(t, f_new, g_new.clone(), gtd_new)
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = _Point(t, f_new, g_new.clone(), gtd_new)
    best = bracket[low]
    return best.f, best.g, best.t, evaluations
