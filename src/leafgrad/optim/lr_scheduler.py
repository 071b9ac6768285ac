"""Learning-rate schedulers with torch.optim.lr_scheduler's API and numbers.

A scheduler owns a counter, ``last_epoch``, and a rule for the learning rate of each
parameter group. ``step()`` advances the counter and writes the new rates into the
optimizer's groups; the constructor takes the first step, so the rate for epoch 0 is in
place before training starts.

Most rules are *relative*: the new rate is the group's current rate times a factor
(``StepLR`` multiplies by ``gamma`` at each boundary). Rules written that way compose:
several schedulers stepping the same optimizer multiply their effects, which is what
torch users rely on when they chain schedulers. Where the schedule also has a closed form
in the epoch (``base_lr * gamma ** (epoch // step_size)``), that form serves an explicit
``step(epoch)``, which can jump anywhere. Both forms are written so that the floating-
point results are the ones torch produces, step for step.

``state_dict()`` uses torch's keys, so a scheduler checkpoint moves between the two.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Iterable, Sequence

from .. import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]

_EXPLICIT_EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Call `scheduler.step()` without it once per epoch (or per batch); with an explicit epoch leafgrad jumps to "
    "that epoch with the schedule's closed form where it has one, as torch does, so chained schedulers do not "
    "compose.")


# ----------------------------------------------------------------------------- helpers
def _require_optimizer(optimizer) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(name: str, optimizer: Optimizer, value, mismatch: Callable[[int, int], str] | None = None) -> list:
    """One value per parameter group: a list/tuple must have one per group; a single value is repeated.

    ``mismatch(groups, given)`` words the error where torch words it differently for ``name``.
    """
    _require_optimizer(optimizer)
    n = len(optimizer.param_groups)
    if not isinstance(value, (list, tuple)):
        return [value] * n
    if len(value) != n:
        raise ValueError(mismatch(n, len(value)) if mismatch else
                         f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                         f"values, param_groups has {n}.")
    return list(value)


def _callable_state(fn) -> dict | None:
    """What a state_dict keeps of a user function: a callable object's attributes; nothing of
    a plain function or lambda (code is not data)."""
    if fn is None or isinstance(fn, types.FunctionType):
        return None
    return fn.__dict__.copy()


def _restore_callable(fn, saved: dict | None) -> None:
    if saved is not None and fn is not None:
        fn.__dict__.update(saved)


def _momentum_range(optimizer: Optimizer, base_momentum, max_momentum, last_epoch: int) -> tuple[bool, list, list]:
    """For the schedulers that cycle momentum against the rate: (whether momentum is
    ``betas[0]``, as in Adam; the low ends; the high ends). A fresh run starts each group at
    its high end and records both ends in the group."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    use_beta1 = "betas" in optimizer.defaults
    lows = _per_group("base_momentum", optimizer, base_momentum)
    highs = _per_group("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for group, low, high in zip(optimizer.param_groups, lows, highs):
            _set_momentum(group, high, use_beta1)
            group["max_momentum"], group["base_momentum"] = high, low
    return use_beta1, lows, highs


def _set_momentum(group: dict, value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _as_float(x) -> float:
    return x.item() if isinstance(x, Tensor) else x


# ----------------------------------------------------------------------------- the base class
class LRScheduler:
    """Base class: ``last_epoch``, ``base_lrs``, ``get_last_lr()``, ``step()`` and the state_dict.

    A subclass sets its own attributes, calls ``super().__init__(optimizer, last_epoch)``
    and defines ``_next_lr(lr, base_lr, index)`` -- the rate of group ``index`` at epoch
    ``self.last_epoch`` given its current rate -- and, when the schedule has one,
    ``_closed_form_lr(base_lr, index)``. (A torch-style subclass that overrides
    ``get_lr()`` works as well.)
    """

    _closed_form_lr: Callable | None = None

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                               "with last_epoch >= 0. Load the optimizer's state_dict (it carries initial_lr) "
                               "before creating the scheduler, or leave last_epoch at -1 for a fresh run.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        # torch starts watching optimizer.step() when the first scheduler attaches to the optimizer,
        # so a scheduler added later (SWALR after a warm-up schedule) does not warn
        self._optimizer_steps_at_start = vars(optimizer).setdefault("_steps_when_first_scheduled",
                                                                    getattr(optimizer, "_steps_taken", 0))
        self._in_step = False
        self._first_step()

    def _first_step(self) -> None:
        """The constructor's step: it sets the rate of epoch ``last_epoch + 1`` (usually 0).
        Rules that scale the current rate leave it as it is on this step."""
        self._step_count = 0
        self._constructing = True
        try:
            self.step()
        finally:
            self._constructing = False

    # ------------------------------------------------------------------ reading the rates
    def get_last_lr(self) -> list:
        """The rates this scheduler last wrote, one per parameter group."""
        return self._last_lr

    def get_lr(self) -> list:
        """The rates for epoch ``last_epoch`` computed from the groups' current rates.

        ``step()`` calls this; called by hand it usually answers a different question than
        the one asked, hence the warning.
        """
        if not self._in_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`. "
                          "get_lr() computes the next rate from the current one and is meant for step().",
                          UserWarning, stacklevel=2)
        return [self._next_lr(_as_float(group["lr"]), base_lr, i)
                for i, (group, base_lr) in enumerate(zip(self.optimizer.param_groups, self.base_lrs))]

    def _next_lr(self, lr: float, base_lr: float, index: int) -> float:
        raise NotImplementedError(f"{type(self).__name__} must define _next_lr() or get_lr()")

    def _rule(self) -> list:
        self._in_step = True
        try:
            return self.get_lr()
        finally:
            self._in_step = False

    # ------------------------------------------------------------------ stepping
    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or, deprecated, jump to ``epoch``) and write the new rates."""
        if self._step_count == 1:
            self._warn_if_optimizer_has_not_stepped()
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            self._write(self._rule())
        else:
            warnings.warn(_EXPLICIT_EPOCH_WARNING, UserWarning, stacklevel=2)
            self._jump_to(epoch)

    def _jump_to(self, epoch: int) -> None:
        """Set the rates of ``epoch`` directly: by the closed form when there is one."""
        self.last_epoch = epoch
        if self._closed_form_lr is not None:
            self._write([self._closed_form_lr(base_lr, i) for i, base_lr in enumerate(self.base_lrs)])
        else:
            self._write(self._rule())

    def _write(self, lrs: Iterable) -> None:
        for group, lr in zip(self.optimizer.param_groups, lrs):
            if isinstance(group["lr"], Tensor):
                group["lr"].fill_(_as_float(lr))
            else:
                group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_optimizer_has_not_stepped(self) -> None:
        # the rate of epoch 0 is only used if optimizer.step() runs before scheduler.step()
        if "step" in vars(self.optimizer):
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                          "initialization, so leafgrad cannot tell whether it ran before `lr_scheduler.step()`. "
                          "Call `optimizer.step()` first.", UserWarning, stacklevel=3)
        elif getattr(self.optimizer, "_steps_taken", 0) == self._optimizer_steps_at_start:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call "
                          "`optimizer.step()` first in each iteration: stepping the scheduler first skips the "
                          "first value of the learning-rate schedule.", UserWarning, stacklevel=3)

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer (saved on its own) and this run's bookkeeping.

        Attributes keep the order they were set in -- a subclass's settings, then
        ``base_lrs``, ``last_epoch``, ``_step_count``, ``_last_lr`` -- which is torch's
        layout, so checkpoints move between the two libraries. A subclass's own attributes
        are saved too, as torch users expect of their schedulers.
        """
        state = {}
        for key, value in vars(self).items():
            if key not in _NOT_SAVED:
                state[key] = value
                if key == "_step_count":
                    state.update(_TORCH_FLAGS)
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the scheduler's state from ``state_dict()``'s output (to resume training).

        Load it after the optimizer's own ``load_state_dict``; the optimizer itself is not part of
        the scheduler's state."""
        for key, value in state_dict.items():
            if key not in _TORCH_FLAGS:
                setattr(self, key, value)


# this run's bookkeeping, never saved (the sub-schedulers of SequentialLR are saved by their own state_dict)
_NOT_SAVED = frozenset({"optimizer", "_optimizer_steps_at_start", "_in_step", "_constructing", "_schedulers"})
# two flags torch's scheduler dicts carry after _step_count; they are False whenever no step is running
_TORCH_FLAGS = {"_is_initial": False, "_get_lr_called_within_step": False}


# ----------------------------------------------------------------------------- rules in the epoch
class _FunctionsPerGroup(LRScheduler):
    """LambdaLR and MultiplicativeLR: one user function of the epoch per parameter group."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.lr_lambdas = _per_group("lr_lambda", optimizer, lr_lambda,
                                     lambda groups, given: f"Expected {groups} lr_lambdas, but got {given}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        del state["lr_lambdas"]  # listed last, and as data: see _callable_state
        return {**state, "lr_lambdas": [_callable_state(fn) for fn in self.lr_lambdas]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        saved = state_dict.pop("lr_lambdas", [])
        super().load_state_dict(state_dict)
        for fn, attributes in zip(self.lr_lambdas, saved):
            _restore_callable(fn, attributes)


class LambdaLR(_FunctionsPerGroup):
    """``lr = base_lr * lr_lambda(epoch)``: the function gives the factor directly."""

    def _next_lr(self, lr, base_lr, index):
        return base_lr * self.lr_lambdas[index](self.last_epoch)


class MultiplicativeLR(_FunctionsPerGroup):
    """``lr <- lr * lr_lambda(epoch)`` at every step: the function gives a per-step factor."""

    def _next_lr(self, lr, base_lr, index):
        return lr if self._constructing else lr * self.lr_lambdas[index](self.last_epoch)


class StepLR(LRScheduler):
    """Multiply by ``gamma`` every ``step_size`` epochs: ``base_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        at_boundary = self.last_epoch != 0 and self.last_epoch % self.step_size == 0
        return lr * self.gamma if at_boundary else lr

    def _closed_form_lr(self, base_lr, index):
        return base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """Multiply by ``gamma`` at each milestone (twice at a milestone listed twice)."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        times = self.milestones.get(self.last_epoch, 0)
        return lr * self.gamma ** times if times else lr

    def _closed_form_lr(self, base_lr, index):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return base_lr * self.gamma ** passed


class ConstantLR(LRScheduler):
    """``base_lr * factor`` for the first ``total_iters`` epochs, then ``base_lr``."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if not 0 <= factor <= 1.0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        if self.last_epoch == 0:
            return lr * self.factor
        return lr * (1.0 / self.factor) if self.last_epoch == self.total_iters else lr

    def _closed_form_lr(self, base_lr, index):
        return base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))


class LinearLR(LRScheduler):
    """The factor on ``base_lr`` moves linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs, then stays."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if not 0 <= end_factor <= 1:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        e, span = self.last_epoch, self.end_factor - self.start_factor
        if e == 0:
            return lr * self.start_factor
        if self._constructing or e > self.total_iters:
            return lr
        # factor(e) / factor(e - 1), with factor(e) = start + span * e / total_iters
        return lr * (1.0 + span / (self.total_iters * self.start_factor + (e - 1) * span))

    def _closed_form_lr(self, base_lr, index):
        span = self.end_factor - self.start_factor
        return base_lr * (self.start_factor + span * min(self.total_iters, self.last_epoch) / self.total_iters)


class ExponentialLR(LRScheduler):
    """Multiply by ``gamma`` every epoch: ``base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        return lr if self._constructing else lr * self.gamma

    def _closed_form_lr(self, base_lr, index):
        return base_lr * self.gamma ** self.last_epoch


class PolynomialLR(LRScheduler):
    """``base_lr * (1 - epoch / total_iters) ** power``, reaching 0 at ``total_iters``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        e, n = self.last_epoch, self.total_iters
        if self._constructing or e > n:
            return lr
        return lr * ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power

    def _closed_form_lr(self, base_lr, index):
        return base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from ``base_lr`` down to ``eta_min`` over ``T_max`` epochs (SGDR without restarts):
    ``eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``. Past ``T_max`` the
    curve continues, back up and down again."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        e, period = self.last_epoch, self.T_max
        if self._constructing:
            return lr
        if (e - 1 - period) % (2 * period) == 0:
            # leaving a trough, where the ratio below would be 0/0: add the first rise outright
            return lr + (base_lr - self.eta_min) * (1 - math.cos(math.pi / period)) / 2
        ratio = (1 + math.cos(math.pi * e / period)) / (1 + math.cos(math.pi * (e - 1) / period))
        return ratio * (lr - self.eta_min) + self.eta_min

    def _closed_form_lr(self, base_lr, index):
        return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter): cosine annealing restarted every ``T_i`` epochs, the period
    growing by ``T_mult`` after each restart. ``step(epoch)`` accepts fractional epochs
    (``epoch + batch / batches``) for per-batch annealing."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, last_epoch
        super().__init__(optimizer, last_epoch)

    def _next_lr(self, lr, base_lr, index):
        return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to ``epoch`` (any non-negative number, not deprecated here)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is not None:
            self._jump_to(epoch)
            return
        self.T_cur += 1
        if self.T_cur >= self.T_i:
            self.T_cur -= self.T_i
            self.T_i *= self.T_mult
        self.last_epoch += 1
        self._write(self._rule())

    def _jump_to(self, epoch: float) -> None:
        self._locate(epoch)
        self.last_epoch = math.floor(epoch)
        self._write(self._rule())

    def _locate(self, epoch: float) -> None:
        """Find the period containing ``epoch`` and the position in it."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # restarts at T_0 * (T_mult**n - 1) / (T_mult - 1): solve for the last n reached
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n


# ----------------------------------------------------------------------------- cycles
class CyclicLR(LRScheduler):
    """Smith's cyclical learning rates: a triangle between ``base_lr`` and ``max_lr`` (up in
    ``step_size_up`` steps, down in ``step_size_down``), its height scaled per cycle
    (``triangular2`` halves it) or per step (``exp_range``: ``gamma ** step``). Momentum, when
    cycled, moves the opposite way between ``max_momentum`` and ``base_momentum``. Step it
    once per batch."""

    _SCALE_MODES = {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}

    def __init__(self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float = 0.8, max_momentum: float = 0.9,
                 last_epoch: int = -1) -> None:
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if scale_fn is None and mode not in self._SCALE_MODES:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = self._SCALE_MODES[mode] if scale_fn is None else scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _momentum_range(
                optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The height multiplier at cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        if self.mode == "exp_range":
            return self.gamma ** x
        return 1.0

    def _position(self) -> tuple[float, float]:
        """(fraction of the full height at this step, the scale_fn multiplier)."""
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # where in the cycle, 0..1
        rising = x <= self.step_ratio
        height = x / self.step_ratio if rising else (x - 1) / (self.step_ratio - 1)
        return height, self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)

    def get_lr(self) -> list:
        lrs = super().get_lr()
        if self.cycle_momentum:
            height, scale = self._position()
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, high - (high - low) * height * scale, self.use_beta1)
        return lrs

    def _next_lr(self, lr, base_lr, index):
        height, scale = self._position()
        return base_lr + (self.max_lrs[index] - base_lr) * height * scale

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        del state["_scale_fn_custom"]  # listed last, and as data: see _callable_state
        return {**state, "_scale_fn_custom": _callable_state(self._scale_fn_custom)}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        saved = state_dict.pop("_scale_fn_custom", None)
        state_dict.pop("_scale_fn_ref", None)  # a reference some torch checkpoints carry: not data
        super().load_state_dict(state_dict)
        _restore_callable(self._scale_fn_custom, saved)


class OneCycleLR(LRScheduler):
    """Smith's 1cycle policy: warm up from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of the run, then anneal to ``initial_lr / final_div_factor`` (cosine or
    linear); with ``three_phase`` the warm-up is mirrored first. Momentum moves the opposite
    way. Step it once per batch, ``total_steps`` times in all."""

    def __init__(self, optimizer: Optimizer, max_lr, total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum=0.85, max_momentum=0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False, last_epoch: int = -1) -> None:
        _require_optimizer(optimizer)
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        self._schedule_phases = _one_cycle_phases(self.total_steps, pct_start, three_phase)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, peak in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_range(optimizer, base_momentum, max_momentum, last_epoch)[0]
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}: create the scheduler with total_steps (or epochs and "
                             "steps_per_epoch) covering the whole run.")
        phase, pct = self._phase_at(step)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                _set_momentum(group, momentum, self.use_beta1)
        return lrs

    def _phase_at(self, step: int) -> tuple[dict, float]:
        """The phase ``step`` falls in (the last one takes any overshoot) and how far into it."""
        start = 0
        for i, phase in enumerate(self._schedule_phases):
            end = phase["end_step"]
            if step <= end or i == len(self._schedule_phases) - 1:
                return phase, (step - start) / (end - start)
            start = end
        raise AssertionError("unreachable: the last phase always matches")


def _total_steps(total_steps, epochs, steps_per_epoch) -> int:
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    for name, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
        if value <= 0 or not isinstance(value, int):
            raise ValueError(f"Expected positive integer {name}, but got {value}")
    return epochs * steps_per_epoch


def _one_cycle_phases(total: int, pct_start: float, three_phase: bool) -> list[dict]:
    """The phases of 1cycle: where each ends and which group keys it moves between."""
    def phase(end, lr_from, lr_to, momentum_from, momentum_to):
        return {"end_step": end, "start_lr": lr_from, "end_lr": lr_to, "start_momentum": momentum_from,
                "end_momentum": momentum_to}

    warm_end = float(pct_start * total) - 1
    if not three_phase:
        return [phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
    return [phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            phase(float(2 * pct_start * total) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
            phase(total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]


# ----------------------------------------------------------------------------- schedulers of schedulers
class _SchedulerOfSchedulers(LRScheduler):
    """SequentialLR and ChainedScheduler: they drive other schedulers and save their state dicts."""

    _schedulers: list

    def _adopt(self, schedulers: Sequence, optimizer: Optimizer) -> None:
        kind = type(self).__name__
        for i, sched in enumerate(schedulers):
            if not hasattr(sched, "optimizer"):
                raise TypeError(f"{kind} at index {i} should have `optimizer` as its attribute.")
            if isinstance(sched, ReduceLROnPlateau):
                raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                                 "kwargs to be specified when calling `step`, but got one at index "
                                 f"{i} in the given schedulers sequence.")
            if sched.optimizer is not optimizer:
                raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(sched).__name__} at index {i} has {sched.optimizer}, which is "
                                 f"different from {type(optimizer).__name__}.")
        self._schedulers, self.optimizer = list(schedulers), optimizer

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "_schedulers": [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        for sched, saved in zip(self._schedulers, state_dict.pop("_schedulers")):
            sched.load_state_dict(saved)
        super().load_state_dict(state_dict)


class SequentialLR(_SchedulerOfSchedulers):
    """Hand over from one scheduler to the next at each milestone epoch.

    At a milestone the next scheduler starts from its epoch 0 (its closed form, when it has
    one, so it starts from its own base rate rather than where the previous one left off).
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        self._adopt(schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._milestones, self.last_epoch = milestones, last_epoch + 1
        # each scheduler took its own first step when it was made: undo those, start the first one afresh
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for sched in schedulers:
            sched.last_epoch -= 1
        schedulers[0]._first_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            sched._jump_to(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_SchedulerOfSchedulers):
    """Step several schedulers together; their relative rules multiply."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        self._adopt(schedulers, optimizer)
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self) -> None:
        for sched in self._schedulers:
            sched.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


# ----------------------------------------------------------------------------- driven by a metric
class ReduceLROnPlateau(LRScheduler):
    """Multiply the rates by ``factor`` when a metric has stopped improving.

    ``step(metric)`` once per evaluation. An improvement must beat the best value so far
    by ``threshold`` (relative: ``best * (1 - threshold)`` in min mode; absolute: ``best -
    threshold``). After more than ``patience`` evaluations without one, the rates are cut
    (never below ``min_lr``, and not at all when the cut would be smaller than ``eps``),
    then ``cooldown`` evaluations pass before bad epochs count again.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor, self.optimizer = factor, optimizer
        # a single min_lr also serves param groups added later; a list is tied to the groups of now
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.min_lrs = _per_group("min_lr", optimizer, min_lr,
                                  lambda groups, given: f"expected {groups} min_lrs, got {given}")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._forget_history()

    @property
    def mode_worse(self) -> float:
        """A value every metric improves on: where ``best`` starts."""
        return math.inf if self.mode == "min" else -math.inf

    def _forget_history(self) -> None:
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    @property
    def in_cooldown(self) -> bool:
        """True while the scheduler waits ``cooldown`` epochs after a reduction before counting bad epochs again."""
        return self.cooldown_counter > 0

    def _improves(self, a: float, best: float) -> bool:
        """Does ``a`` improve on ``best`` by more than the threshold?"""
        if self.threshold_mode == "rel":
            if self.mode == "min":
                return a < best * (1.0 - self.threshold)
            return a > best * (self.threshold + 1.0)
        return a < best - self.threshold if self.mode == "min" else a > best + self.threshold

    def step(self, metrics, epoch: int | None = None) -> None:
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EXPLICIT_EPOCH_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._improves(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._cut_rates()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _cut_rates(self) -> None:
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):  # groups were added since
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                                   f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                                   "to a new param group being added to the optimizer. Give min_lr as a single "
                                   "number, or make the scheduler after adding the groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                if isinstance(group["lr"], Tensor):
                    group["lr"].fill_(new)
                else:
                    group["lr"] = new

    def state_dict(self) -> dict[str, Any]:
        names = ("factor", "default_min_lr", "min_lrs", "patience", "cooldown", "eps", "last_epoch", "_last_lr",
                 "mode_worse", "mode", "threshold", "threshold_mode", "best", "cooldown_counter", "num_bad_epochs")
        return {name: getattr(self, name) for name in names}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        for key, value in state_dict.items():
            if key != "mode_worse":  # follows from mode
                setattr(self, key, value)
