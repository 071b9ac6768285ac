"""Upsampling of volumes (``F.interpolate`` on 5-d inputs): trilinear, nearest and nearest-exact.

The same separable construction as ``upsample.py`` (whose per-dim matrices, with torch's
source-index rules, are reused): one (out, in) matrix per spatial dim, applied along the last
three dims; the backward applies the transposes and is linear in ``g``, so its own derivative
comes from the recorded matmuls.
"""
from __future__ import annotations

from .upsample import _matrices
from .registry import apply, defop

__all__ = ["upsample3d"]

_NAMES = {"nearest": "UpsampleNearest3DBackward0", "nearest-exact": "UpsampleNearestExact3DBackward0",
          "trilinear": "UpsampleTrilinear3DBackward0"}


def _map3(xp, x, maps, transpose: bool):
    """x with each of its last three dims multiplied by its (out, in) matrix (or that matrix's transpose)."""
    for i, m in enumerate(maps):
        axis = x.ndim - 3 + i
        moved = xp.moveaxis(x, axis, -1)
        moved = xp.matmul(moved, m if transpose else xp.swapaxes(m, -1, -2))
        x = xp.moveaxis(moved, -1, axis)
    return x


def _make_op(mode: str):
    def forward(xp, x, output_size, align_corners, scales):
        maps = _matrices(mode, x.shape[-3:], output_size, align_corners, scales, x.dtype)
        return xp.ascontiguousarray(_map3(xp, x, maps, False))

    def grad(xp, g, self_sym_sizes, output_size, align_corners, scales):
        maps = _matrices(mode, tuple(self_sym_sizes)[-3:], output_size, align_corners, scales, xp.dtype_of(g))
        return _map3(xp, g, [xp.constant(m) for m in maps], True)

    op = defop(_NAMES[mode], forward, grad, saved=("self_sym_sizes", "output_size", "align_corners", "scales"))
    for k, name in enumerate(("scales_d", "scales_h", "scales_w")):  # torch shows one saved scale per dim
        setattr(op.node_cls, "_saved_" + name, property(lambda self, k=k: self._saved[3][k]))
    if mode != "trilinear":  # (nearest saves no align_corners)
        delattr(op.node_cls, "_saved_align_corners")
    return op


_OPS = {mode: _make_op(mode) for mode in _NAMES}


def upsample3d(input, mode: str, output_size: tuple, align_corners, scales: tuple):
    """Interpolate the last three dims of ``input`` (already validated)."""
    return apply(_OPS[mode], (input,), (tuple(int(v) for v in output_size), align_corners, tuple(scales)))
