"""Descriptors the probs-or-logits families share (one definition instead of one per family).

A family keeps whichever of ``probs``/``logits`` it was given and derives the other lazily;
wrappers (Multinomial, the relaxed families) forward these names to the distribution they wrap.
"""
from __future__ import annotations

from functools import reduce

from leafgrad import Size

from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["binary_logits", "binary_probs", "param_new", "param_shape", "expand_probs_or_logits", "delegate"]


def logits(self):
    return probs_to_logits(self.probs, is_binary=True)


def probs(self):
    return logits_to_probs(self.logits, is_binary=True)


binary_logits = lazy_property(logits)
binary_probs = lazy_property(probs)


def param_new(self, *args, **kwargs):
    """A new tensor like the given parameter (torch's ``_new``)."""
    return self._param.new(*args, **kwargs)


param_shape = property(lambda self: Size(self._param.size()), doc="The shape of the given parameter.")


def expand_probs_or_logits(dist, new, batch_shape) -> None:
    """Give ``new`` whichever of probs/logits ``dist`` holds, expanded to ``batch_shape``."""
    for name in ("probs", "logits"):
        if name in dist.__dict__:
            setattr(new, name, getattr(dist, name).expand(batch_shape))
            new._param = getattr(new, name)


def delegate(path: str, doc: str = "") -> property:
    """A read-only property forwarding to the dotted attribute ``path`` (``"_categorical.logits"``)."""
    parts = path.split(".")
    return property(lambda self: reduce(getattr, parts, self), doc=doc or f"``self.{path}``.")
