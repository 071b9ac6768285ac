"""Padding layers: ``F.pad`` with a fixed padding and mode (reflect, replicate, circular, constant, zeros).

``padding`` is a number (the same on every side of the padded dims) or torch's tuple,
last dim first: (left, right[, top, bottom[, front, back]]).
"""
from __future__ import annotations

from .. import functional as F
from .module import Module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    _mode = "constant"
    _n_dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * self._n_dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
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


_MIRROR = "Pad {} by mirroring (the edge cell itself is not repeated)."
_EDGE = "Pad {} by repeating the edge cells."
_WRAP = "Pad {} by wrapping around (a periodic boundary)."
_VALUE = "Pad {} with ``value``."
_ZEROS = "Pad {} with zeros."
_ONE, _TWO, _THREE = "the last dim", "the last two dims", "the last three dims"

ReflectionPad1d = _layer("ReflectionPad1d", _PadNd, "reflect", 1, _MIRROR.format(_ONE))
ReflectionPad2d = _layer("ReflectionPad2d", _PadNd, "reflect", 2, _MIRROR.format(_TWO))
ReflectionPad3d = _layer("ReflectionPad3d", _PadNd, "reflect", 3, _MIRROR.format(_THREE))
ReplicationPad1d = _layer("ReplicationPad1d", _PadNd, "replicate", 1, _EDGE.format(_ONE))
ReplicationPad2d = _layer("ReplicationPad2d", _PadNd, "replicate", 2, _EDGE.format(_TWO))
ReplicationPad3d = _layer("ReplicationPad3d", _PadNd, "replicate", 3, _EDGE.format(_THREE))
CircularPad1d = _layer("CircularPad1d", _PadNd, "circular", 1, _WRAP.format(_ONE))
CircularPad2d = _layer("CircularPad2d", _PadNd, "circular", 2, _WRAP.format(_TWO))
CircularPad3d = _layer("CircularPad3d", _PadNd, "circular", 3, _WRAP.format(_THREE))
ConstantPad1d = _layer("ConstantPad1d", _ConstantPadNd, "constant", 1, _VALUE.format(_ONE))
ConstantPad2d = _layer("ConstantPad2d", _ConstantPadNd, "constant", 2, _VALUE.format(_TWO))
ConstantPad3d = _layer("ConstantPad3d", _ConstantPadNd, "constant", 3, _VALUE.format(_THREE))
ZeroPad1d = _layer("ZeroPad1d", _ZeroPadNd, "constant", 1, _ZEROS.format(_ONE))
ZeroPad2d = _layer("ZeroPad2d", _ZeroPadNd, "constant", 2, _ZEROS.format(_TWO))
ZeroPad3d = _layer("ZeroPad3d", _ZeroPadNd, "constant", 3, _ZEROS.format(_THREE))
