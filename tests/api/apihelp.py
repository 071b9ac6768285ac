"""Helpers for the API-surface tests: run one call on torch and on leafgrad, compare the outcome."""
from __future__ import annotations

import warnings


def _torch_class(exc: BaseException) -> type:
    """The exception's own class: leafgrad raises torch's classes exactly, never a subclass."""
    return type(exc)


def outcome(fn):
    """('ok', value) or ('raise', exception class name); warnings are recorded as (category, first words)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 - the class itself is what is compared
            result = ("raise", _torch_class(exc).__name__, str(exc).split(":")[0][:40])
    cats = sorted({w.category.__name__ for w in caught if w.category is not DeprecationWarning})
    return result, cats


def same_outcome(torch_fn, lg_fn, compare_message: bool = False):
    (t, tw), (l, lw) = outcome(torch_fn), outcome(lg_fn)
    if t[0] == "raise" and not compare_message:
        t, l = t[:2], l[:2]
    assert t == l, (t, l)
    assert tw == lw, (tw, lw)
    return t
