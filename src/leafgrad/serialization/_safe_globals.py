"""The user's additions to the weights-only allow-list (torch.serialization.add_safe_globals and friends).

A checkpoint names every class or function it needs as ``module.qualname``; the
weights-only loader resolves only the names in its built-in list (``_torch_names``) and
the ones registered here. Registering a name says "I trust this callable with arguments
chosen by whoever wrote the file", so it is always the user's explicit act.
"""
from __future__ import annotations

from typing import Any, Callable, Union

SafeGlobal = Union[Callable, "tuple[Callable, str]"]

_user: list = []  # as given, in order (what get_safe_globals returns)


def _name_of(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not module or not qualname:
        raise TypeError(f"add_safe_globals: {obj!r} has no __module__/__qualname__ to be found by; pass it as a "
                        "(object, 'module.name') tuple naming it as it appears in the checkpoint.")
    return f"{module}.{qualname}"


def _check(entry: Any) -> tuple[Any, str]:
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError("add_safe_globals: a tuple entry must be (function_or_class, 'module.name'), got "
                            f"{entry!r}")
        return entry[0], entry[1]
    return entry, _name_of(entry)


def add_safe_globals(safe_globals: list) -> None:
    """Allow the given functions/classes (or ``(obj, "module.name")`` pairs) in weights-only loads."""
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(f"add_safe_globals expects a list of functions or classes, got {type(safe_globals).__name__}")
    for entry in safe_globals:  # check all first: a bad entry adds nothing
        _check(entry)
    _user.extend(safe_globals)


def get_safe_globals() -> list:
    """The user-added globals, as they were given."""
    return list(_user)


def clear_safe_globals() -> None:
    """Forget every user-added global (the built-in weights-only list is unaffected)."""
    _user.clear()


def user_globals() -> dict[str, Any]:
    """``"module.qualname"`` -> object for every user-added global (a later entry wins)."""
    return dict(_check(e)[::-1] for e in _user)


class safe_globals:
    """Context manager: the given globals are allowed inside the ``with`` block only."""

    def __init__(self, safe_globals: list) -> None:
        for entry in safe_globals:
            _check(entry)
        self.safe_globals = list(safe_globals)
        self._saved: list | None = None

    def __enter__(self) -> None:
        self._saved = list(_user)
        _user.extend(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _user[:] = self._saved or []
