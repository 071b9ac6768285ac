"""torch.jit, as far as it can honestly go without a TorchScript compiler.

``script`` and ``trace`` return the eager object (``trace`` first runs it once on the example
inputs, as tracing does), so code that scripts a function or a model for speed computes exactly
the same numbers and gradients. What only a real TorchScript object has — ``.graph``, ``.code``,
``torch.jit.save``/``load`` of a TorchScript archive, ``freeze`` — is not pretended: ``save`` and
``load`` raise RuntimeError, and the returned object has none of those attributes.
``is_scripting()``/``is_tracing()`` are False, since nothing runs under the compiler.
"""
from __future__ import annotations

import warnings
from typing import Any

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "annotate", "Final",
           "save", "load", "ScriptModule", "ScriptFunction", "fork", "wait", "interface"]

_NO_TS = ("leafgrad has no TorchScript compiler: torch.jit.{name} cannot write or read a TorchScript archive. "
          "Save the weights with torch.save(model.state_dict(), path) and rebuild the model in Python instead.")


class ScriptModule:
    """Named so isinstance checks against it work; leafgrad never makes one."""


class ScriptFunction:
    """Named so isinstance checks against it work; leafgrad never makes one."""


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """Return ``obj`` itself: it runs eagerly with the same results (see the module docstring)."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True, check_inputs=None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None, _store_inputs: bool = True):
    """Run ``func`` once on the example inputs (as tracing does), then return it for eager use."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be specified to trace a function")
    import leafgrad
    with leafgrad.no_grad():
        if example_kwarg_inputs is not None:
            func(**example_kwarg_inputs)
        else:
            func(*(example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)))
    return func


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type, the_value):
    return the_value


class _FinalAlias:
    def __getitem__(self, item):
        return item


Final: Any = _FinalAlias()


class _Future:
    __slots__ = ("_value",)

    def __init__(self, value) -> None:
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs) -> _Future:
    """Runs ``func`` at once (there is no async interpreter); ``wait`` returns its result."""
    return _Future(func(*args, **kwargs))


def wait(future: _Future):
    return future.wait()


def save(m, f, _extra_files=None) -> None:
    raise RuntimeError(_NO_TS.format(name="save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes: bool = False):
    raise RuntimeError(_NO_TS.format(name="load"))
