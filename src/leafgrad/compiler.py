"""torch.compile and torch.compiler, as torch's eager fallback: the compiled callable runs eagerly.

leafgrad has no graph compiler. ``torch.compile`` validates its arguments as torch does (mode,
options, backend names, a callable to compile) and returns a callable that runs the original
one unchanged: a function comes back wrapped (``functools.wraps``), an ``nn.Module`` inside an
``OptimizedModule`` whose parameters are the original's (state_dict keys ``_orig_mod.*``, as
torch's). Results and gradients are therefore exactly the eager ones, which is what torch's
compiled code is meant to reproduce.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "reset",
           "list_backends", "allow_in_graph", "InvalidBackend"]

# torch 2.13's registered backend names (torch._dynamo.list_backends(exclude_tags=()))
_BACKENDS = frozenset({"aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner", "aot_ts",
                       "cudagraphs", "eager", "eager_debug", "eager_noexcept", "inductor", "openxla",
                       "openxla_eval", "pre_dispatch_eager", "ts", "tvm"})
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend: a backend name torch does not know."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    return ["cudagraphs", "inductor", "openxla", "tvm"] if exclude_tags else sorted(_BACKENDS)


def is_compiling() -> bool:
    """Always False: code never runs under a tracer here."""
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def reset() -> None:
    """Nothing is cached: there is no compiled code to forget."""


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """``@torch.compiler.disable``: the function already runs eagerly, so it is returned as it is."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def allow_in_graph(fn):
    return fn


def _optimized_module_class():
    from .nn.modules.module import Module

    class OptimizedModule(Module):
        """What torch.compile(module) returns: calls run the original module's forward."""

        def __init__(self, mod: Module) -> None:
            super().__init__()
            self._orig_mod = mod
            self.training = mod.training

        def forward(self, *args: Any, **kwargs: Any):
            return self._orig_mod(*args, **kwargs)

        def __getattr__(self, name: str):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self.__dict__["_modules"]["_orig_mod"], name)

    OptimizedModule.__module__ = "torch._dynamo.eval_frame"
    return OptimizedModule


_OPTIMIZED: list = []


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: str | Callable = "inductor", mode: str | None = None, options: dict | None = None,
            disable: bool = False) -> Callable:
    """torch.compile: returns a callable that runs ``model`` eagerly (also usable as a decorator)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        def fn(model: Callable) -> Callable:
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return fn
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    from .nn.modules.module import Module
    if isinstance(model, Module):
        if not _OPTIMIZED:
            _OPTIMIZED.append(_optimized_module_class())
        return _OPTIMIZED[0](model)

    @functools.wraps(model)
    def compiled(*args: Any, **kwargs: Any):
        return model(*args, **kwargs)
    compiled._torchdynamo_orig_callable = model
    return compiled
