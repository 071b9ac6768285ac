"""``nn.Module``: a tree of layers that owns parameters, buffers and child modules.

How it is built, and why
------------------------
A module keeps three tables in its ``__dict__``: ``_parameters``, ``_buffers`` and
``_modules`` (name -> value). Assigning an attribute files the value in the table its
type calls for (``__setattr__``); reading a name that is not an ordinary attribute looks
in the tables (``__getattr__``). Because everything a model owns is in those tables,
every whole-model operation (listing parameters, ``state_dict``, ``to(dtype)``,
``train()``, ``repr``) is one walk over the tree of ``_modules``.

Hooks are kept in the same weakly-referenceable ordered dicts that tensor hooks use, so a
handle's ``remove()`` works the same everywhere.
"""
from __future__ import annotations

import warnings

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Iterator, ParamSpec, Protocol, TypeVar

import numpy as np

from ... import _dtype as D
from ..._backend import backend_for_device, device as Device
from ..._tensor import Tensor
from ...autograd.graph import _HookDict, _add_hook, _legacy_type_name
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter

__all__ = ["Module"]

_TABLES = ("_parameters", "_buffers", "_modules")


def parameter_of(module: "Module", name: str):
    """``module.<name>`` for a name registered as a parameter, read from ``_parameters`` directly.

    An ordinary read of a parameter fails its ordinary lookup first and reaches ``Module.__getattr__``
    through the AttributeError CPython builds for that failure, message and all: about 10 k instructions,
    which layers read on every call (``Linear``: a quarter of its forward on a small matrix). A registered
    parameter is never also in the instance dict or the class (``Module.__setattr__`` and
    ``register_parameter`` refuse or move it, parametrize deletes it before adding its property), so the
    entry is what the ordinary read would find; anything else (None, a name moved to a buffer or a plain
    attribute) takes the ordinary read.
    """
    p = module._parameters.get(name)
    return p if p is not None else getattr(module, name)
_HOOK_TABLES = ("_forward_pre_hooks", "_forward_hooks", "_state_dict_hooks", "_load_state_dict_post_hooks")


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys the model wanted but did not get, and the reverse."""

    __slots__ = ()

    def __repr__(self) -> str:
        if self.missing_keys or self.unexpected_keys:
            return super().__repr__()
        return "<All keys matched successfully>"

    __str__ = __repr__


def _indent(text: str, spaces: int, blank_empty_lines: bool = False) -> str:
    """Shift every line but the first right by ``spaces`` (a child's repr nested in its parent's)."""
    first, *rest = text.split("\n")
    pad = " " * spaces
    if blank_empty_lines:
        rest = [pad + line if line.strip() else "" for line in rest]
    else:
        rest = [pad + line for line in rest]
    return "\n".join([first, *rest])


def _typename(obj) -> str:
    """The type name torch prints in its assignment errors ('torch.FloatTensor', 'int', 'pkg.Cls')."""
    if isinstance(obj, Tensor):
        return _legacy_type_name(obj.dtype)
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ in (None, "builtins") else f"{cls.__module__}.{cls.__qualname__}"


def _settings(*positional, **named) -> str:
    """``a, b, name=value, ...``: the shape of almost every layer's extra_repr."""
    return ", ".join([*map(str, positional), *(f"{name}={value}" for name, value in named.items())])


def _changed(module, **defaults) -> dict:
    """The attributes of ``module`` that differ from the given defaults (what a compact repr shows)."""
    return {name: getattr(module, name) for name, default in defaults.items() if getattr(module, name) != default}


def _joined(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


_P = ParamSpec("_P")
_R = TypeVar("_R", covariant=True)


class _HasForward(Protocol[_P, _R]):
    """What a type checker matches a module against to read the result of calling it."""

    def forward(self, *args: _P.args, **kwargs: _P.kwargs) -> _R: ...


def _forward_unimplemented(self, *input: Any) -> None:
    """What calling the module computes: every subclass defines ``forward(self, *inputs)``.

    Call the module (``model(x)``), not ``forward`` directly: ``__call__`` runs the forward
    pre-hooks and hooks around it. The base class has none, so calling a Module subclass that
    does not define ``forward`` raises NotImplementedError naming the class."""
    name = type(self).__name__
    raise NotImplementedError(f'Module [{name}] is missing the required "forward" function: define '
                              f"{name}.forward(self, ...) to say what calling the module computes")


def _as_tensor(value):
    """A checkpoint entry as a leafgrad Tensor (leafgrad tensors, NumPy arrays, torch tensors, numbers); else None."""
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, (np.ndarray, np.generic, float, int)):
        return Tensor._make(np.asarray(value))
    return None


class Module:
    """The base class of every layer and model: subclass it, create parts in ``__init__``, define ``forward``."""

    training: bool
    _version: int = 1  # stored in state_dict metadata, so subclasses can upgrade old checkpoints
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        cls = type(self).__name__
        if kwargs:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}': "
                            f"nn.Module.__init__ takes no arguments, so {cls}.__init__ should use its own arguments "
                            "and call super().__init__() without them")
        if args:
            raise TypeError(f"{cls}.__init__() takes 1 positional argument but {len(args) + 1} were given: "
                            f"nn.Module.__init__ takes no arguments, so call super().__init__() without them")
        state = self.__dict__  # written directly: __setattr__ needs these tables to exist first
        state["training"] = True
        for table in _TABLES:
            state[table] = {}
        state["_non_persistent_buffers_set"] = set()
        for table in _HOOK_TABLES:
            state[table] = _HookDict()
        state["_hook_flags"] = {}  # hook id -> {"kwargs", "always"}: how that forward (pre-)hook is called

    forward: Callable[..., Any] = _forward_unimplemented

    # ------------------------------------------------------------------ registering members
    def _require_init(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call: call super().__init__() at "
                                 f"the start of {type(self).__name__}.__init__")

    def _check_member_name(self, kind: str, name, table: str) -> None:
        """The rules every registered name obeys: a non-empty string without dots, not taken by another attribute."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            # (torch's exact words: a KeyError prints its repr, so nothing can follow them; modules add the name)
            raise KeyError(f"{kind} name can't contain \".\"" + (f", got: {name}" if kind == "module" else ""))
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists on {type(self).__name__}: pick another {kind} name, "
                           "or delete the attribute first")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` with the module: it follows ``to()`` and, if persistent, is saved in the state_dict."""
        self._require_init("buffer")
        self._check_member_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        self._mark_persistent(name, persistent)

    def _mark_persistent(self, name: str, persistent: bool) -> None:
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """File ``param`` under ``name``; ``None`` reserves the name (as ``bias=False`` layers do)."""
        self._require_init("parameter")
        self._check_member_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required): wrap it as nn.Parameter(tensor), or use "
                            "register_buffer for state that is not trained")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. A parameter must be a leaf "
                             f"the optimiser can update: create it from data (nn.Parameter(t.detach())), or compute "
                             f"'{name}' from other tensors inside forward() instead.")
        self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Make ``module`` a child: its parameters and buffers become part of this module's."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass, so it cannot be added as child '{name}'")
        self._require_init("module")
        self._check_member_name("module", name, "_modules")
        self._modules[name] = module

    def register_module(self, name: str, module: "Module | None") -> None:
        """Add ``module`` as a child called ``name`` (the same as ``add_module``; ``None`` leaves a named gap)."""
        self.add_module(name, module)

    def _lookup(self, target: str, kind: str):
        """Follow a dotted path: the module that holds the last name, and that name's value."""
        owner_path, _, leaf = target.rpartition(".")
        owner = self.get_submodule(owner_path)
        if not hasattr(owner, leaf):
            raise AttributeError(f"{owner._get_name()} has no attribute `{leaf}` (looking up the {kind} '{target}')")
        return owner, getattr(owner, leaf)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at the dotted path ``target`` (``"encoder.layers.0"``); ``""`` is the module itself.

        Raises AttributeError naming the first part of the path that is missing or not a Module."""
        module = self
        for part in target.split(".") if target else ():
            if not hasattr(module, part):
                raise AttributeError(f"{module._get_name()} has no attribute `{part}` (looking up the submodule "
                                     f"'{target}'; named_modules() lists the valid paths)")
            module = getattr(module, part)
            if not isinstance(module, Module):
                raise AttributeError(f"`{part}` is not an nn.Module, so '{target}' names no submodule")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"fc1.weight"``).

        Raises AttributeError if the path does not lead to a Parameter."""
        _, value = self._lookup(target, "parameter")
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{target.rpartition('.')[2]}` is not an nn.Parameter (named_parameters() lists "
                                 "the parameters)")
        return value

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``).

        Raises AttributeError if the path does not lead to a registered buffer."""
        owner, value = self._lookup(target, "buffer")
        leaf = target.rpartition(".")[2]
        if leaf not in owner._buffers:
            raise AttributeError(f"`{leaf}` is not a buffer (named_buffers() lists the buffers)")
        return value

    # ------------------------------------------------------------------ attribute routing
    def __getattr__(self, name: str):
        # only reached when ordinary lookup fails: look in the member tables
        state = self.__dict__
        for table in _TABLES:
            members = state.get(table)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _forget(self, name: str, *tables: str) -> None:
        """Drop ``name`` from the instance dict and the given member tables (before it is filed elsewhere)."""
        self.__dict__.pop(name, None)
        for table in tables:
            self.__dict__[table].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __setattr__(self, name: str, value) -> None:
        state = self.__dict__
        params, buffers, modules = (state.get(t) for t in _TABLES)
        if isinstance(value, Parameter):
            self._require_init("parameters")
            self._forget(name, "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected); to change its values in place, use "
                                f"`with torch.no_grad(): module.{name}.copy_(value)`")
            params[name] = None
        elif isinstance(value, Module):
            self._require_init("module")
            self._forget(name, "_parameters", "_buffers")
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected); delete it first (del module.{name}) to reuse "
                                "the name for something else")
            modules[name] = None
        elif isinstance(value, Buffer) or (buffers is not None and name in buffers):
            self._assign_buffer(name, value)
        else:
            object.__setattr__(self, name, value)

    def _assign_buffer(self, name: str, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)")
        self._require_init("buffer")
        if isinstance(value, Buffer):  # nn.Buffer(t, persistent=...) says how it is saved
            persistent = value.__dict__.get("persistent", True)
            self._forget(name, "_parameters", "_modules")
        else:  # replacing a buffer keeps its persistence
            persistent = name not in self._non_persistent_buffers_set
        self._buffers[name] = value
        self._mark_persistent(name, persistent)

    def __delattr__(self, name: str) -> None:
        for table in _TABLES:
            if name in self.__dict__[table]:
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = set(dir(type(self))) | set(self.__dict__)
        for table in _TABLES:
            names.update(self.__dict__[table])
        return sorted(n for n in names if not n[0].isdigit())

    def __getstate__(self):
        # hook tables pickle as plain OrderedDicts (as torch's do), so torch.save(model) files pass the
        # weights-only loader's allowlist once the user's module classes are allowed (word_language_model)
        state = dict(self.__dict__)
        for table in _HOOK_TABLES:
            if table in state:
                state[table] = OrderedDict(state[table])
        return state

    def __setstate__(self, state) -> None:
        state = dict(state)
        for table in _HOOK_TABLES:
            if table in state and not isinstance(state[table], _HookDict):
                state[table] = _HookDict(state[table])
        self.__dict__.update(state)
        self.__dict__.setdefault("_hook_flags", {})  # absent from modules pickled by older leafgrad versions

    # ------------------------------------------------------------------ walking the tree
    def _named_members(self, table: str, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """(dotted name, value) of every non-None entry of ``table`` in this module (and below, with recurse)."""
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen: set[int] = set()
        for owner_name, owner in owners:
            for name, value in owner.__dict__[table].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:  # a tensor shared by two layers is listed once, under its first name
                    seen.add(id(value))
                yield _joined(owner_name, name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterate ``(dotted name, Parameter)`` pairs of this module and, with ``recurse``, all submodules.

        Args:
            prefix: prepended to every name (with a dot).
            recurse: include submodules' parameters (default) or only this module's own.
            remove_duplicate: a parameter shared by two modules is yielded once, under its first name.

        Example::

            >>> [n for n, _ in leafgrad.nn.Linear(2, 3).named_parameters()]
            ['weight', 'bias']"""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Iterate the parameters (each once), e.g. to hand them to an optimizer.

        ``recurse=False`` yields only this module's own parameters. The result is a one-shot
        iterator: call ``parameters()`` again, or make a list, to go over them twice."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterate ``(dotted name, buffer)`` pairs (e.g. ``running_mean``); arguments as in ``named_parameters``."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Iterate the registered buffers (tensors saved in ``state_dict`` that are not parameters)."""
        return (b for _, b in self.named_buffers(recurse=recurse))

    def named_children(self):
        """Iterate ``(name, module)`` for the direct children, each module once."""
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator["Module"]:
        """Iterate the direct child modules, each once."""
        return (child for _, child in self.named_children())

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        """This module and every module below it, depth first, each with its dotted path."""
        memo = set() if memo is None else memo
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(memo, _joined(prefix, name), remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator["Module"]:
        """Iterate this module and every submodule below it, depth first, each once (unless ``remove_duplicate=False``)."""
        return (m for _, m in self.named_modules(remove_duplicate=remove_duplicate))

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule, children before parents (the usual way to run a custom init)."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode: bool = True) -> "Module":
        """Set training mode (``mode=True``) or evaluation mode on this module and all submodules.

        The mode changes layers such as Dropout and BatchNorm; it does not turn autograd off (use
        ``leafgrad.no_grad()`` for that). ``mode`` must be a bool (else ValueError). Returns ``self``."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got {mode!r}: call .train() / .train(False) "
                             "or .eval()")
        self.training = mode
        for child in self.children():
            child.train(mode)  # through train(), so a child that overrides it is asked too
        return self

    def eval(self) -> "Module":
        """Evaluation mode: ``train(False)``. Returns ``self``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set ``requires_grad`` on every parameter (e.g. ``False`` to freeze a pretrained part). Returns ``self``."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the accumulated gradients: drop them (the default) or fill them with zeros."""
        for p in self.parameters():
            grad = p.grad
            if grad is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            if grad.grad_fn is not None:  # a gradient that is itself part of a graph: cut it loose first
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

    def share_memory(self) -> "Module":
        """Returns ``self``: leafgrad runs in one process, so there is nothing to move to shared memory."""
        return self  # one process only: nothing to share

    # ------------------------------------------------------------------ dtype and device
    def _apply(self, fn, recurse: bool = True) -> "Module":
        """Replace every parameter's and buffer's value by ``fn(value)``.

        Parameters keep their identity (only ``.data`` changes), so an optimiser built
        before ``model.double()`` still updates the model's parameters.
        """
        if recurse:
            for child in self.children():
                child._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """``to(dtype)``, ``to(device)``, ``to(tensor)``: cast the floating-point parameters and buffers;
        ``to(memory_format=torch.channels_last)`` lays out the 4-d and 5-d ones (conv weights) so."""
        fmt = kwargs.pop("memory_format", None)
        dev, dtype = _parse_to_arguments(args, kwargs)
        if dev is not None:
            backend_for_device(dev)  # a clear error for 'cuda' without a GPU backend
        if fmt is not None:
            self._apply(lambda t: t.to(memory_format=fmt) if t.dim() in (4, 5) else t)
        if dtype is None:
            return self
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype!r}; integer buffers (such as num_batches_tracked) keep their dtype "
                            "anyway, so pass the floating-point dtype you want the weights in")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex() else t)

    def cpu(self) -> "Module":
        """Returns ``self`` with its tensors on the CPU (where leafgrad keeps them already)."""
        return self.to("cpu")

    def cuda(self, device=None) -> "Module":
        """Move to a CUDA device: this CPU-only build raises torch's error for a missing CUDA device."""
        if device is None:
            return self.to("cuda")
        return self.to(f"cuda:{device}" if isinstance(device, int) else device)

    def type(self, dst_type) -> "Module":
        """Cast every parameter and buffer (integer ones too) to ``dst_type``: a dtype, a legacy type or its name."""
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dtype) -> "Module":
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> "Module":
        """Cast floating-point parameters and buffers to float32, in place; returns ``self``."""
        return self._cast_floating(D.float32)

    def double(self) -> "Module":
        """Cast floating-point parameters and buffers to float64, in place; returns ``self``."""
        return self._cast_floating(D.float64)

    def half(self) -> "Module":
        """Cast floating-point parameters and buffers to float16, in place; returns ``self``."""
        return self._cast_floating(D.float16)

    def bfloat16(self) -> "Module":
        """Cast floating-point parameters and buffers to bfloat16, in place; returns ``self``."""
        return self._cast_floating(D.bfloat16)

    # ------------------------------------------------------------------ hooks and calling
    def _add_forward_hook(self, table: _HookDict, hook, prepend: bool, **flags: bool):
        handle = _add_hook(table, hook)
        if prepend:
            table.move_to_end(handle.id, last=False)
        live = set(self._forward_pre_hooks) | set(self._forward_hooks)
        self._hook_flags = {i: f for i, f in self._hook_flags.items() if i in live}  # forget removed hooks
        chosen = {flag for flag, on in flags.items() if on}
        if chosen:
            self._hook_flags[handle.id] = chosen
        return handle

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) runs before forward and may replace its inputs."""
        return self._add_forward_hook(self._forward_pre_hooks, hook, prepend, kwargs=with_kwargs)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` runs after forward and may replace the output."""
        return self._add_forward_hook(self._forward_hooks, hook, prepend, kwargs=with_kwargs, always=always_call)

    if TYPE_CHECKING:  # type checkers read model(x) as returning what the model's forward returns
        def __call__(self: _HasForward[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R: ...
    else:
        def __call__(self, *args, **kwargs):
            if self._forward_hooks or self._forward_pre_hooks:
                return self._call_with_hooks(args, kwargs)
            return self.forward(*args, **kwargs)  # the common case costs one check

    _call_impl = __call__

    def _flags(self, hook_id: int) -> set:
        return self._hook_flags.get(hook_id, ())

    def _run_pre_hooks(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if "kwargs" not in self._flags(hook_id):
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
                continue
            out = hook(self, args, kwargs)
            if out is None:
                continue
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), but "
                                   f"got {out}. (A hook registered with with_kwargs=True replaces both at once.)")
            args, kwargs = out
        return args, kwargs

    def _run_post_hook(self, hook_id: int, hook, args: tuple, kwargs: dict, output):
        if "kwargs" in self._flags(hook_id):
            return hook(self, args, kwargs, output)
        return hook(self, args, output)

    def _call_with_hooks(self, args: tuple, kwargs: dict):
        args, kwargs = self._run_pre_hooks(args, kwargs)
        done: set[int] = set()
        output = None
        try:
            output = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                done.add(hook_id)
                replaced = self._run_post_hook(hook_id, hook, args, kwargs, output)
                if replaced is not None:
                    output = replaced
        except Exception:
            # hooks registered with always_call=True still see the call, then the error goes on
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id not in done and "always" in self._flags(hook_id):
                    try:
                        self._run_post_hook(hook_id, hook, args, kwargs, output)
                    except Exception as e:  # the forward's error is the one to raise; say this one was lost
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}", UserWarning,
                                      stacklevel=2)
            raise
        return output

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Write this module's own (not its children's) parameters and persistent buffers."""
        saved = [*self._parameters.items(),
                 *((k, b) for k, b in self._buffers.items() if k not in self._non_persistent_buffers_set)]
        for name, value in saved:
            if value is not None:
                destination[prefix + name] = value if keep_vars else value.detach()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Every parameter and persistent buffer by dotted name: what a checkpoint stores."""
        if args:  # the old positional form: state_dict(destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        own_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = own_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            replaced = hook(self, destination, prefix, own_metadata)
            if replaced is not None:
                destination = replaced
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Load this module's own entries from ``state_dict``; record problems in the three lists."""
        own = {name: value for name, value in self._parameters.items() if value is not None}
        own.update((name, value) for name, value in self._buffers.items()
                   if value is not None and name not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in own.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            problem = self._load_one(name, key, current, state_dict[key], assign)
            if problem:
                error_msgs.append(problem)
        if not strict:
            return
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            belongs = head in self._modules if dot else head in own
            if not belongs:
                unexpected_keys.append(key)

    def _load_one(self, name: str, key: str, current: Tensor, value, assign: bool) -> str | None:
        """Copy (or, with ``assign``, install) one checkpoint value; the error text, if it cannot."""
        incoming = _as_tensor(value)
        if incoming is None:
            return (f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object from '
                    f"checkpoint but received {type(value)}")
        if current.dim() == 0 and tuple(incoming.shape) == (1,):  # old checkpoints stored scalars as shape (1,)
            incoming = incoming[0]
        if incoming.shape != current.shape:
            return (f"size mismatch for {key}: copying a param with shape {incoming.shape} from checkpoint, "
                    f"the shape in current model is {current.shape}.")
        try:
            with no_grad():
                if not assign:
                    current.copy_(incoming)
                elif isinstance(current, Parameter):
                    fresh = incoming if isinstance(incoming, Parameter) else Parameter(incoming)
                    setattr(self, name, fresh.requires_grad_(current.requires_grad))
                else:
                    setattr(self, name, incoming)
        except Exception as ex:
            return (f'While copying the parameter named "{key}" (shape {tuple(current.shape)} in the model, '
                    f"{tuple(incoming.shape)} in the checkpoint), an exception occurred : {ex.args}.")
        return None

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy a state_dict's values into this model's tensors; with strict, the keys must match exactly."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}. Pass the mapping that "
                            "model.state_dict() (or leafgrad.load) returns.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", None) or {}

        def load(module: Module, entries: dict, prefix: str) -> None:
            module_metadata = dict(metadata.get(prefix[:-1], {}))
            if assign:
                module_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(entries, prefix, module_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:  # a child is shown only the entries under its own prefix
                    child_prefix = f"{prefix}{name}."
                    load(child, {k: v for k, v in entries.items() if k.startswith(child_prefix)}, child_prefix)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, _IncompatibleKeys(missing, unexpected))

        load(self, dict(state_dict), "")
        if strict and unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if strict and missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after the module wrote its entries."""
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after a load_state_dict reached the module."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ printing
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside its parentheses; subclasses override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        own = extra.split("\n") if extra else []
        children = [f"({name}): {_indent(repr(child), 2, blank_empty_lines=True)}"
                    for name, child in self._modules.items()]
        if not own and not children:
            return f"{self._get_name()}()"
        if len(own) == 1 and not children:  # a leaf layer prints on one line
            return f"{self._get_name()}({own[0]})"
        body = "\n  ".join(own + children)
        return f"{self._get_name()}(\n  {body}\n)"


def _parse_to_arguments(args: tuple, kwargs: dict):
    """The (device, dtype) that a ``Module.to(...)`` call asks for; None for what it leaves alone."""
    dev, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    for ignored in ("non_blocking", "memory_format", "copy"):
        kwargs.pop(ignored, None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword argument "
                        f"'{next(iter(kwargs))}'; Module.to accepts device=, dtype= and non_blocking=")
    for arg in args:
        if arg is None or isinstance(arg, bool):  # bool: the positional non_blocking flag
            continue
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, D.dtype):
            dtype = arg
        elif isinstance(arg, int):
            dev = f"cuda:{arg}"
        elif isinstance(arg, (str, Device)):
            dev = arg
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(arg).__name__}); "
                            "pass a dtype, a device, or a tensor whose dtype to copy")
    return dev, (None if dtype is None else D.to_dtype(dtype))
