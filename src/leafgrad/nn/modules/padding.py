"""Padding layers: ``F.pad`` with a fixed padding and mode (reflect, replicate, circular, constant, zeros).

``padding`` is a number (the same on every side of the padded dims) or torch's tuple,
last dim first: (left, right[, top, bottom[, front, back]]).
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    _mode = "constant"
    _n_dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * self._n_dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _layer(name: str, base: type, mode: str, n: int, doc: str) -> type:
    """One padding layer: its base's behaviour with a fixed mode and number of padded dims."""
    return type(name, (base,), {"_mode": mode, "_n_dims": n, "__doc__": doc, "__module__": __name__,
                                "__qualname__": name})


_DIMS = {1: "the last dim", 2: "the last two dims", 3: "the last three dims"}
_KINDS = (("ReflectionPad", _PadNd, "reflect", "Pad {} by mirroring (the edge cell itself is not repeated)."),
          ("ReplicationPad", _PadNd, "replicate", "Pad {} by repeating the edge cells."),
          ("CircularPad", _PadNd, "circular", "Pad {} by wrapping around (a periodic boundary)."),
          ("ConstantPad", _ConstantPadNd, "constant", "Pad {} with ``value``."),
          ("ZeroPad", _ZeroPadNd, "constant", "Pad {} with zeros."))
globals().update({f"{kind}{n}d": _layer(f"{kind}{n}d", base, mode, n, doc.format(_DIMS[n]))
                  for kind, base, mode, doc in _KINDS for n in (1, 2, 3)})
