"""The Optimizer base class: parameter groups, per-parameter state, state_dict and hooks.

An optimizer is three pieces of data and one rule:

* ``param_groups`` -- a list of dicts. Each holds ``"params"`` (leaf tensors) and that
  group's hyperparameters: what the group was given, completed from ``defaults``.
* ``state`` -- per parameter, a dict of tensors the rule keeps between steps (momentum
  buffers, running averages, a step counter). It is filled the first time a parameter
  has a gradient, so a frozen parameter costs nothing.
* ``defaults`` -- the hyperparameters given to the constructor.
* the rule, ``_update(param, grad, state, group)``, which each optimizer writes from its
  mathematics with ordinary in-place tensor ops.

:meth:`Optimizer.step` does everything that is the same for every optimizer: evaluate the
closure, turn off gradient recording, skip parameters without a gradient, apply
``maximize`` and weight decay to the gradient, and run the hooks. ``state_dict()`` names
parameters by their position (0, 1, ... across the groups) so the dict is plain data, in
the layout torch uses, and checkpoints move between the two libraries.
"""
from __future__ import annotations

import copy
import functools
import itertools
import types
import warnings
from collections import OrderedDict, defaultdict
from typing import Any, Callable

from .. import Tensor, enable_grad, float32, float64, get_default_dtype, set_grad_enabled, tensor
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _Hooks(OrderedDict):
    """Hook functions by handle id; a dict subclass so a RemovableHandle can refer to it weakly."""

    def add(self, fn: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self)
        self[handle.id] = fn
        if prepend:
            self.move_to_end(handle.id, last=False)
        return handle


# hooks that run around the step of every optimizer (before the optimizer's own hooks)
_EVERY_OPTIMIZER_PRE: _Hooks = _Hooks()
_EVERY_OPTIMIZER_POST: _Hooks = _Hooks()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's step."""
    return _EVERY_OPTIMIZER_PRE.add(hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    return _EVERY_OPTIMIZER_POST.add(hook)


# ----------------------------------------------------------------------------- checks shared by the optimizers
_NAMES_IN_ERRORS = {"lr": "learning rate", "eps": "epsilon value"}


class at_most:
    """A hyperparameter bounded on both sides: ``0 <= value <= upper`` (Adadelta's ``rho``)."""

    __slots__ = ("value", "upper")

    def __init__(self, value, upper: float) -> None:
        self.value, self.upper = value, upper


def check_hyperparameters(**values) -> None:
    """Reject negative hyperparameters (and betas outside [0, 1)), in the order given.

    Each optimizer lists its hyperparameters in the order torch checks them, so the first
    error reported is the same one torch reports. A value wrapped in :class:`at_most` must
    also not exceed its upper bound.
    """
    for name, value in values.items():
        if name == "betas":
            _check_betas(value)
            continue
        upper = None
        if isinstance(value, at_most):
            value, upper = value.value, value.upper
        if isinstance(value, Tensor):
            if value.numel() != 1:
                raise ValueError(f"Tensor {name} must be 1-element")
            value = value.item()
        if value < 0.0 or (upper is not None and value > upper):
            raise ValueError(f"Invalid {_NAMES_IN_ERRORS.get(name, name + ' value')}: {value}")


def _check_betas(betas) -> None:
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def check_implementation_flags(foreach, fused, differentiable: bool = False) -> None:
    """``foreach`` and ``fused`` pick torch kernels; here they are accepted (one loop serves both).

    Called after the groups are built, as torch checks these combinations then.
    """
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`: the fused kernels record no graph; "
                           "pass fused=False (or None) to differentiate through the step")
    if foreach and fused:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def as_number(x) -> float:
    """A hyperparameter as a Python number (torch accepts 1-element tensors for lr and betas)."""
    return x.item() if isinstance(x, Tensor) else x


def scalar_state(value: float) -> Tensor:
    """A 0-dim float tensor of per-parameter state (a step count, ASGD's eta and mu, NAdam's
    mu_product): float32, or float64 under a float64 default dtype, as torch keeps them."""
    return tensor(float(value), dtype=float64 if get_default_dtype() is float64 else float32)


def step_counter(value: float = 0.0) -> Tensor:
    """A per-parameter step count (see :func:`scalar_state`)."""
    return scalar_state(value)


def _describe(obj) -> str:
    """The name an error gives a non-tensor argument: a function or class by its qualified
    name, a generator by the function that made it (``model.parameters()`` reads
    ``Module.parameters``), anything else by its type; built-in names stand alone."""
    if hasattr(obj, "__qualname__"):
        module, name = getattr(obj, "__module__", None), obj.__qualname__
        if isinstance(obj, types.GeneratorType):
            name = name.removesuffix(".<locals>.<genexpr>")
    else:
        module, name = type(obj).__module__, type(obj).__qualname__
    return name if module in (None, "", "builtins") else f"{module}.{name}"


# ----------------------------------------------------------------------------- step wrapping
def _stepping(step: Callable) -> Callable:
    """Wrap an optimizer's ``step`` with the hooks, and count the step for the schedulers.

    Applied to ``Optimizer.step`` and, through ``__init_subclass__``, to every ``step`` a
    subclass defines. A ``step`` that calls ``super().step()`` runs the hooks once: only
    the outermost call does the bookkeeping.
    """
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if getattr(self, "_inside_step", False):
            return step(self, *args, **kwargs)
        all_args = (self,) + args
        for hook in itertools.chain(_EVERY_OPTIMIZER_PRE.values(), self._step_pre_hooks.values()):
            replaced = hook(self, all_args, kwargs)
            if replaced is not None:
                if not (isinstance(replaced, tuple) and len(replaced) == 2):
                    raise RuntimeError(f"a step pre-hook must return None or a tuple (new_args, new_kwargs), "
                                       f"but returned {replaced!r}")
                all_args, kwargs = replaced
        self._inside_step = True
        try:
            result = step(*all_args, **kwargs)
        finally:
            self._inside_step = False
        self._steps_taken += 1
        for hook in itertools.chain(self._step_post_hooks.values(), _EVERY_OPTIMIZER_POST.values()):
            hook(self, all_args, kwargs)
        return result

    wrapper.__wrapped_step__ = True
    return wrapper


# ----------------------------------------------------------------------------- the base class
class Optimizer:
    """Base class of every optimizer; see the module docstring for the pieces.

    A subclass calls ``super().__init__(params, defaults)`` and implements
    ``_update(param, grad, state, group)`` (and ``_new_state(param, group)`` when it keeps
    state). A subclass may instead override ``step`` entirely, as with torch.
    """

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "__wrapped_step__", False):
            cls.step = _stepping(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        self._init_runtime()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {params.type()}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    def _init_runtime(self) -> None:
        """Hooks and the step count: what belongs to this session, not to a pickle or copy."""
        self._step_pre_hooks = _Hooks()
        self._step_post_hooks = _Hooks()
        self._state_dict_pre_hooks = _Hooks()
        self._state_dict_post_hooks = _Hooks()
        self._load_state_dict_pre_hooks = _Hooks()
        self._load_state_dict_post_hooks = _Hooks()
        self._steps_taken = 0  # read by the lr schedulers ("was optimizer.step() called?")

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters, each with its own hyperparameters (the rest from ``defaults``).

        The dict itself becomes the group (as in torch), so later edits to it reach the optimizer.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        names, params = _split_names(params)
        self._check_names_agree(names is not None)
        param_group["params"] = params
        if names is not None:
            param_group["param_names"] = names
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_describe(param)}")
            # a differentiable optimizer may update a non-leaf: its step is part of a graph (meta-learning)
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters: each step would "
                          "update them more than once. Pass each tensor once, e.g. list(dict.fromkeys(params)).",
                          UserWarning, stacklevel=3)
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _check_names_agree(self, named: bool) -> None:
        if self.param_groups and ("param_names" in self.param_groups[0]) is not named:
            raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                             f"{'with' if named else 'without'} names to the optimizer")

    # ------------------------------------------------------------------ stepping
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: drop them (the default), or fill them with zeros in place."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure: Callable | None = None):
        """One update of every parameter that has a gradient; returns the closure's loss.

        The update runs with gradient recording off (``differentiable=True`` keeps it on,
        for optimizers whose update itself is to be differentiated). A group's state is
        made before any of its parameters moves, as torch does, so a group refused for
        ``capturable`` keeps its fresh state and unchanged parameters.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                params = [param for param in group["params"] if param.grad is not None]
                states = []
                for param in params:
                    state = self.state.get(param) or self._new_state(param, group)
                    if state:  # an update that keeps nothing (SGD without momentum) leaves no entry
                        self.state[param] = state
                    states.append(state)
                if params and group.get("capturable", False):
                    self._refuse_capturable()
                if params and self._update_group(params, states, group):  # (a foreach form took them all)
                    continue
                for param, state in zip(params, states):
                    self._update(param, self._gradient_for_update(param, group), state, group)
                    if state:
                        self.state[param] = state
        return loss

    def _update_group(self, params: list, states: list, group: dict) -> bool:
        """Update all of a group's parameters at once (torch's foreach form: ``leafgrad._foreach_*``, one
        call per op over every parameter) and return True, or return False to update them one by one."""
        return False

    # Adafactor and Muon read the parameter before shrinking it, so they apply weight_decay themselves
    _decays_in_update = False

    # what torch's capturable check lists; its kernels for captured graphs exist only on these devices
    _capturable_tensors = "params and state_steps"
    _capturable_devices = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"

    def _refuse_capturable(self) -> None:
        raise AssertionError(f"If capturable=True, {self._capturable_tensors} must be on supported devices: "
                             f"{self._capturable_devices}. {type(self).__name__}'s parameters here are on the CPU, "
                             "where torch has no capturable kernels: pass capturable=False.")

    def _gradient_for_update(self, param: Tensor, group: dict) -> Tensor:
        """The gradient the rule descends: negated under ``maximize``, plus the L2 term
        ``weight_decay * param`` -- or, with ``decoupled_weight_decay`` (AdamW), the parameter
        is shrunk by ``lr * weight_decay`` directly and the gradient is left alone. Rules that
        decay the parameter themselves, at a point of their own (``_decays_in_update``), get
        the gradient with only ``maximize`` applied."""
        grad = param.grad
        if group.get("maximize", False):
            grad = -grad
        decay = group.get("weight_decay", 0)
        if decay != 0 and not self._decays_in_update:
            if group.get("decoupled_weight_decay", False):
                param.mul_(1 - as_number(group["lr"]) * decay)
            else:
                grad = grad.add(param, alpha=decay)
        return grad

    def _new_state(self, param: Tensor, group: dict) -> dict:
        """The state a parameter starts with (built the first time it has a gradient)."""
        return {}

    def _update(self, param: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _update() or override step()")

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters become their position across the groups; the state tensors are the
        optimizer's own (not copies), as in torch: deep-copy the dict to keep a snapshot.
        """
        for hook in self._state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        positions = itertools.count()
        groups = []
        for group in self.param_groups:
            index.update((id(p), n) for p, n in zip(group["params"], positions))  # a duplicate: its last place
            packed = {key: value for key, value in group.items() if key != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)] if isinstance(p, Tensor) else p: values for p, values in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._state_dict_post_hooks.values():
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take hyperparameters and state from ``state_dict`` (this optimizer's parameters stay).

        Floating state tensors are cast to their parameter's dtype (the step counter is kept
        as saved); a number saved as ``step`` by an old checkpoint becomes a tensor.
        """
        state_dict = dict(state_dict)
        for hook in self._load_state_dict_pre_hooks.values():
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(s["params"]) != len(g["params"]) for s, g in zip(saved_groups, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = {saved: p for s, g in zip(saved_groups, self.param_groups)
                    for saved, p in zip(s["params"], g["params"])}
        state: defaultdict = defaultdict(dict)
        for key, values in state_dict["state"].items():
            param = param_of.get(key)
            state[key if param is None else param] = values if param is None else _adopt(values, param)
        groups = []
        for saved, current in zip(saved_groups, self.param_groups):
            saved["params"] = current["params"]
            if "param_names" in current:
                saved.setdefault("param_names", current["param_names"])
            for name, default in self.defaults.items():  # keys a checkpoint from an older version lacks
                saved.setdefault(name, default)
            groups.append(saved)
        self.state, self.param_groups = state, groups
        for hook in self._load_state_dict_post_hooks.values():
            hook(self)

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each step; it may return ``(args, kwargs)``
        to replace them (``args`` starts with the optimizer, as the call sees it)."""
        return self._step_pre_hooks.add(hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each step."""
        return self._step_post_hooks.add(hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return self._state_dict_pre_hooks.add(hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)``; a returned dict replaces the state dict."""
        return self._state_dict_post_hooks.add(hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before loading; a returned dict is loaded instead."""
        return self._load_state_dict_pre_hooks.add(hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return self._load_state_dict_post_hooks.add(hook, prepend)

    # ------------------------------------------------------------------ copying and printing
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_runtime()

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)


Optimizer.step = _stepping(Optimizer.step)


def _split_names(entries: list) -> tuple[list | None, list]:
    """``[("w", w), ("b", b)]`` -> (["w", "b"], [w, b]); plain tensors -> (None, entries)."""
    named = [isinstance(e, tuple) for e in entries]
    if not any(named):
        return None, entries
    if not all(named):
        raise ValueError("all optimizer params should be with/without names. Some param names are missing")
    return [name for name, _ in entries], [param for _, param in entries]


def _adopt(values: dict, param: Tensor) -> dict:
    """One parameter's loaded state, made ready for this parameter (see load_state_dict)."""
    return {key: (value if isinstance(value, Tensor) else step_counter(value)) if key == "step"
            else _cast_like(value, param) for key, value in values.items()}


def _cast_like(value, param: Tensor):
    """State tensors take a floating parameter's dtype, inside lists and dicts too (LBFGS
    keeps lists of history tensors), as torch casts them; everything else is kept as saved."""
    if isinstance(value, Tensor):
        return value.to(param.dtype) if param.dtype.is_floating_point else value
    if isinstance(value, dict):
        return {key: _cast_like(item, param) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(item, param) for item in value)
    return value
