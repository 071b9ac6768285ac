"""torch.torch_version.TorchVersion: a version string that compares as a version, not as text.

``torch.__version__ >= "2.0"``, ``torch.__version__ < (2, 14)`` and
``packaging.version.parse(torch.__version__)`` all work on it, and it is still a ``str``
(``.split('.')`` and f-strings see "2.13.0+cpu"). Comparisons use ``packaging`` when it is
installed, and otherwise a reading of the release numbers and local label that agrees with it for
versions of the form torch uses (``2.13.0``, ``2.13.0+cpu``).
"""
from __future__ import annotations

import re
from typing import Any

__all__ = ["TorchVersion"]

_PLAIN = r"^v?(\d+(?:\.\d+)*)(?:\+([a-z0-9.]+))?$"  # (compiled on first use: `import leafgrad` stays fast)


def _key(text: str):
    """A sort key for the plain forms ("2.13", "2.13.0+cpu"), or None for anything else."""
    m = re.match(_PLAIN, text.strip(), re.IGNORECASE)
    if m is None:
        return None
    release = [int(p) for p in m.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()  # 2.13 == 2.13.0
    return tuple(release), m.group(2) is not None, (m.group(2) or "").lower()


class TorchVersion(str):
    """A ``str`` whose comparisons with strings, tuples and packaging Versions are version comparisons."""

    __slots__ = ()

    def _convert(self, inp: Any):
        if isinstance(inp, tuple):
            return ".".join(str(x) for x in inp)
        if isinstance(inp, str):
            return str(inp)
        if type(inp).__name__ == "Version":  # packaging.version.Version
            return str(inp)
        raise TypeError(f"'{type(inp).__name__}' is not a version string, tuple or Version")

    def _cmp(self, other: Any, op: str):
        try:
            other_text = self._convert(other)
        except TypeError:
            return NotImplemented
        try:
            from packaging.version import InvalidVersion, Version
        except ImportError:
            a, b = _key(str(self)), _key(other_text)
            if a is None or b is None:
                raise ValueError(f"cannot compare versions {str(self)!r} and {other_text!r} without "
                                 "the 'packaging' package") from None
        else:
            try:
                a, b = Version(str(self)), Version(other_text)
            except InvalidVersion:
                raise ValueError(f"Invalid version: {other_text!r}") from None
        return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b}[op]

    def __lt__(self, other):
        return self._cmp(other, "lt")

    def __le__(self, other):
        return self._cmp(other, "le")

    def __gt__(self, other):
        return self._cmp(other, "gt")

    def __ge__(self, other):
        return self._cmp(other, "ge")

    def __eq__(self, other):
        return self._cmp(other, "eq")

    def __ne__(self, other):
        r = self._cmp(other, "eq")
        return r if r is NotImplemented else not r

    __hash__ = str.__hash__
