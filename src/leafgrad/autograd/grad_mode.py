"""Grad modes: per thread, usable as context managers and as decorators (as torch's)."""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])  # a decorated function keeps its type
_S = TypeVar("_S")

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _ThreadState(threading.local):
    """Read once per op on the hot path; a subclass so every new thread starts with grad on."""

    def __init__(self) -> None:
        self.grad = True
        self.inference = False
        self.anomaly = False
        self.anomaly_check_nan = True
        self.in_backward = 0  # > 0 while the engine runs: ops in backward formulas are not "cuts"


STATE = _ThreadState()
# True once any thread has switched anomaly mode on (never reset): the forward tests this plain
# flag before reading ``STATE.anomaly``, as a read of a thread-local attribute costs ~700
# instructions and a recorded op would otherwise pay one for a mode that is nearly always off
ANOMALY_USED = [False]


def is_grad_enabled() -> bool:
    return STATE.grad


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _DecoratorContextManager:
    """Lets one class be both ``with no_grad():`` and ``@no_grad()`` (also bare ``@no_grad``)."""

    def __new__(cls: type[_S], *args: Any, **kwargs: Any) -> _S:  # (the bare-@no_grad form returns a function)
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])  # used as @no_grad without parentheses
        return super().__new__(cls)

    def __call__(self, func: _F) -> _F:
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        value = next(gen)
                    while True:
                        try:
                            with self.clone():
                                sent = yield value
                        except GeneratorExit:
                            gen.close()
                            raise
                        except BaseException as exc:  # forward throw() into the generator
                            with self.clone():
                                value = gen.throw(exc)
                        else:
                            with self.clone():
                                value = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
            return gen_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Ops inside record no graph; results do not require grad."""

    def __enter__(self) -> None:
        self._prev = STATE.grad
        STATE.grad = False

    def __exit__(self, *exc) -> None:
        STATE.grad = self._prev


class enable_grad(_DecoratorContextManager):
    def __enter__(self) -> None:
        self._prev = STATE.grad
        STATE.grad = True

    def __exit__(self, *exc) -> None:
        STATE.grad = self._prev


class set_grad_enabled(_DecoratorContextManager):
    """Takes effect immediately (like torch), and restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self._prev = STATE.grad
        self.mode = bool(mode)
        STATE.grad = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        STATE.grad = self._prev

    def clone(self):
        return set_grad_enabled(self.mode)

    def __call__(self, func: _F) -> _F:
        STATE.grad = self._prev  # used as a decorator: undo the immediate switch
        return super().__call__(func)


class inference_mode(_DecoratorContextManager):
    """Like no_grad here; tensors made inside are marked as inference tensors."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self._prev = (STATE.grad, STATE.inference)
        if self.mode:
            STATE.grad = False
            STATE.inference = True

    def __exit__(self, *exc) -> None:
        STATE.grad, STATE.inference = self._prev

    def clone(self):
        return inference_mode(self.mode)
