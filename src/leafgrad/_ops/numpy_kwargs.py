"""NumPy's keyword names as aliases: ``keepdims=`` for ``keepdim=`` and ``axis=`` for ``dim=``.

torch's argument parser accepts both NumPy spellings on every function whose signature has a
``keepdim`` or ``dim`` parameter (``x.sum(axis=1, keepdims=True)`` runs, and lecture notebooks
written against NumPy rely on it); giving an alias together with its own name is a TypeError.
Functions written in Python in torch (``torch.norm``) have no aliases: they are not wrapped.
"""
from __future__ import annotations

import functools

_ALIASES = (("keepdims", "keepdim"), ("axis", "dim"))


def numpy_kwargs(fn=None, *, name: str | None = None):
    """Decorate ``fn`` so that ``keepdims=``/``axis=`` reach it as ``keepdim=``/``dim=``.

    The check costs one dict test on the common call with no keyword arguments.
    """
    if fn is None:
        return lambda f: numpy_kwargs(f, name=name)
    shown = name or fn.__name__.strip("_")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs and ("keepdims" in kwargs or "axis" in kwargs):
            for alias, own in _ALIASES:
                if alias in kwargs:
                    if own in kwargs:
                        raise TypeError(f"{shown}() got an unexpected keyword argument '{alias}': '{alias}' is "
                                        f"NumPy's name for '{own}'; pass one of them, not both.")
                    kwargs[own] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return wrapper
