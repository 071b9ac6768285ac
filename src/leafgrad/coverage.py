"""What of torch's API leafgrad has, and the plain error for what it lacks.

``_torch_api_names.py`` (written by ``tools/coverage.py`` from torch's own namespaces, beside
``docs/coverage.md``) lists torch 2.13's public names in ``torch``, ``torch.Tensor``,
``torch.nn`` and ``torch.nn.functional``. A lookup that misses in leafgrad's namespace asks
:func:`missing` for its error: a name torch has gets "leafgrad does not implement torch.fft yet"
rather than a bare AttributeError, which reads like a typo.
"""
from __future__ import annotations

from ._torch_api_names import NAMES as _NAMES

__all__ = ["torch_names", "missing"]

_NONE: frozenset = frozenset()


def torch_names(namespace: str) -> frozenset[str]:
    """torch 2.13's public names in ``namespace`` (``"torch"``, ``"torch.Tensor"``, ``"torch.nn"``,
    ``"torch.nn.functional"``); empty for a namespace the data module does not list."""
    return _NAMES.get(namespace, _NONE)


def missing(namespace: str, name: str, *, owner: str | None = None) -> AttributeError:
    """The AttributeError for ``namespace.name`` not found in leafgrad.

    ``owner`` is how Python names the object looked in (``"module 'leafgrad.nn'"``,
    ``"'Tensor' object"``); the message starts with the plain statement when torch has the name.
    """
    owner = owner or f"module '{namespace.replace('torch', 'leafgrad', 1)}'"
    plain = f"{owner} has no attribute '{name}'"
    if not name.startswith("_") and name in torch_names(namespace):
        err = AttributeError(f"leafgrad does not implement {namespace}.{name} yet ({plain}; "
                             f"docs/coverage.md lists what of torch's API leafgrad has)")
    else:
        err = AttributeError(plain)
    err.name = name
    return err
