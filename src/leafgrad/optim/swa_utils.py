"""Weight averaging (SWA and EMA): an averaged copy of a model, its schedule, and its BatchNorm statistics.

Stochastic weight averaging keeps the running mean of the weights a model passes through
late in training (usually under a constant or cyclic rate, see :class:`SWALR`); an
exponential moving average (EMA) weights recent ones more. :class:`AveragedModel` holds the
averaged copy; since BatchNorm's running statistics belong to the weights they were measured
with, :func:`update_bn` recomputes them for the averaged weights with one pass over the data.
"""
from __future__ import annotations

import copy
import itertools
import math
import warnings
from typing import Any, Callable, Iterable, Sequence

from .. import Tensor, int64, is_complex, is_floating_point, no_grad, tensor
from ..nn import Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _floating(t: Tensor) -> bool:
    return is_floating_point(t) or is_complex(t)


# ----------------------------------------------------------------------------- averaging rules
def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """``ema <- decay * ema + (1 - decay) * current`` for lists of tensors, in place."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_params: Sequence[Tensor], current_params: Sequence[Tensor], _num_averaged) -> None:
        floating = _floating(ema_params[0])
        for ema, current in zip(ema_params, current_params):
            if floating:
                ema.lerp_(current, 1 - decay)
            else:  # integer tensors cannot lerp: the same mix, rounded into the integer dtype by copy_
                ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The running mean for lists of tensors, in place: ``avg <- avg + (current - avg) / (n + 1)``."""
    @no_grad()
    def swa_update(averaged_params: Sequence[Tensor], current_params: Sequence[Tensor], num_averaged) -> None:
        if _floating(averaged_params[0]):
            weight = 1 / (num_averaged + 1)
            for averaged, current in zip(averaged_params, current_params):
                averaged.lerp_(current, weight)
            return
        for averaged, current in zip(averaged_params, current_params):
            difference = current.sub(averaged)
            if isinstance(num_averaged, Tensor):
                averaged.addcdiv_(difference, num_averaged + 1)
            else:
                averaged.add_(difference, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """One tensor's exponential moving average, returned: ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """One tensor's running mean after ``num_averaged`` earlier values, returned."""
    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


# ----------------------------------------------------------------------------- the averaged model
class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters are the average of the ones it is shown.

    ``update_parameters(model)`` folds in the model's current parameters: the first call
    copies them, later calls apply ``avg_fn(averaged, current, n_averaged)`` per tensor (it
    returns the new average) or ``multi_avg_fn(averaged_list, current_list, n_averaged)``
    per dtype (it updates in place); by default the plain running mean (SWA). Buffers are
    copied from the model, or averaged too with ``use_buffers=True``. ``n_averaged`` (an
    int64 buffer) counts the updates; calling the module runs the averaged copy.
    """

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided: avg_fn averages one "
                                 "tensor at a time, multi_avg_fn a list of them in place")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model: Module) -> tuple[Iterable[Tensor], Iterable[Tensor]]:
        if self.use_buffers:
            return (itertools.chain(self.module.parameters(), self.module.buffers()),
                    itertools.chain(model.parameters(), model.buffers()))
        # self.parameters() is the copy's parameters (n_averaged is a buffer, not among them)
        return self.parameters(), model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers) into the average."""
        mine, theirs = self._averaged_tensors(model)
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(mine, theirs):
            p_model = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model)
            if first:
                p_averaged.detach().copy_(p_model)
        if self.n_averaged > 0:
            self._fold_in(averaged, current)
        if not self.use_buffers:
            for b_averaged, b_model in zip(self.module.buffers(), model.buffers()):
                b_averaged.detach().copy_(b_model.detach().to(b_averaged.device))
        self.n_averaged += 1

    def _fold_in(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.avg_fn is not None:
            for p_averaged, p_model in zip(averaged, current):
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
            return
        by_dtype: dict = {}  # multi_avg_fn sees one dtype at a time, as torch groups its lists
        for p_averaged, p_model in zip(averaged, current):
            pair = by_dtype.setdefault(p_averaged.dtype, ([], []))
            pair[0].append(p_averaged)
            pair[1].append(p_model)
        for averaged_list, current_list in by_dtype.values():
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged_list, current_list, self.n_averaged)
                continue
            # the default on the CPU: torch's per-tensor running mean (its list kernels are for GPUs)
            mean = get_swa_avg_fn()
            for p_averaged, p_model in zip(averaged_list, current_list):
                p_averaged.copy_(mean(p_averaged, p_model, self.n_averaged))


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute every BatchNorm's running mean and variance with one pass over ``loader``.

    The statistics are reset and then gathered as a plain average over the batches
    (momentum None) in training mode; each module's momentum and the model's mode are put
    back afterwards. A batch given as a list or tuple contributes its first item.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


# ----------------------------------------------------------------------------- the schedule
def _linear_anneal(t: float) -> float:
    return t


def _cosine_anneal(t: float) -> float:
    return (1 - math.cos(math.pi * t)) / 2


class SWALR(LRScheduler):
    """Anneal each group's rate to ``swa_lr`` over ``anneal_epochs`` epochs, then hold it.

    The rate moves along ``anneal_strategy`` ("cos" or "linear") from wherever the group's
    rate is when annealing starts, as ``lr = swa_lr * α + lr_start * (1 - α)`` with α going
    from 0 to 1; ``lr_start`` is recovered from the current rate each step, so another
    scheduler may have set it. The target goes into each group as ``"swa_lr"``.
    """

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for target, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = target.clone() if isinstance(target, Tensor) else target
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @property
    def anneal_func(self) -> Callable[[float], float]:
        """α as a function of the annealing progress t in [0, 1]."""
        return _cosine_anneal if self._anneal_strategy == "cos" else _linear_anneal

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The starting rate that, mixed with swa_lr by alpha, gives ``lr``."""
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._in_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`. "
                          "get_lr() computes the next rate from the current one and is meant for step().",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        previous_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        alpha = self.anneal_func(max(0, min(1, step / span)))
        groups = self.optimizer.param_groups
        starts = [self._get_initial_lr(group["lr"], group["swa_lr"], previous_alpha) for group in groups]
        return [group["swa_lr"] * alpha + start * (1 - alpha) for group, start in zip(groups, starts)]
