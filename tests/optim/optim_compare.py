"""Helpers the optimizer differential tests share: an exception as data, and torch state as leafgrad's."""
from __future__ import annotations

import leafgrad as lg


def raised(fn):
    """(exception class, message) of what ``fn()`` raised, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e), str(e)
    return None


def same_class(leafgrad_class: type, torch_class: type) -> bool:
    """Exactly the same class (leafgrad raises torch's own classes, never a subclass)."""
    return leafgrad_class is torch_class


def assert_same_error(fn, torch, prefix_only: bool = False) -> None:
    """``fn(torch)`` and ``fn(leafgrad)`` raise the same class; leafgrad's message is torch's,
    optionally followed by its own explanation (or, with ``prefix_only``, starts with the
    part of torch's before the first colon)."""
    t, l = raised(lambda: fn(torch)), raised(lambda: fn(lg))
    assert t is not None, "torch did not raise"
    assert l is not None, f"leafgrad did not raise; torch raised {t}"
    assert same_class(l[0], t[0]), (l, t)
    if prefix_only:
        assert l[1].startswith(t[1].split(":")[0]), (l[1], t[1])
    else:
        assert l[1] == t[1] or l[1].startswith((t[1] + ":", t[1] + " (")), (l[1], t[1])


def to_leafgrad(obj, torch):
    """A torch state dict (tensors, lists, dicts, numbers) with every tensor made a leafgrad one."""
    if isinstance(obj, torch.Tensor):
        return lg.tensor(obj.detach().numpy())
    if isinstance(obj, dict):
        return {k: to_leafgrad(v, torch) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_leafgrad(v, torch) for v in obj)
    return obj
