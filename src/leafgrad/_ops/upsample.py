"""Upsampling (``F.interpolate``) as separable linear maps: one (out, in) matrix per spatial dim.

Every mode torch interpolates with (nearest, nearest-exact, linear, bilinear, bicubic) reads
each output cell as a fixed weighted sum of input cells along each axis, so the forward is
``M_h @ x @ M_w^T`` and the backward is ``M_h^T @ g @ M_w``: linear in ``g``, so its own
derivative comes from the recorded matmuls. The matrices follow torch's kernels' source-index
rules (``area_pixel_compute_source_index``, nearest's ``floor(dst * scale)`` in float32).
"""
from __future__ import annotations

import numpy as np

from .registry import apply, defop

__all__ = ["upsample"]

_CUBIC_A = -0.75


def _scale(in_size: int, out_size: int, align_corners: bool, scale) -> float:
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _nearest_matrix(in_size: int, out_size: int, scale, exact: bool) -> np.ndarray:
    s = np.float32(1.0 / scale if scale is not None and scale > 0 else in_size / out_size)
    dst = np.arange(out_size, dtype=np.float32)
    src = np.floor(((dst + np.float32(0.5)) if exact else dst) * s).astype(np.int64)
    src = np.minimum(src, in_size - 1)
    m = np.zeros((out_size, in_size))
    m[np.arange(out_size), src] = 1.0
    return m


def _linear_matrix(in_size: int, out_size: int, align_corners: bool, scale) -> np.ndarray:
    s = _scale(in_size, out_size, align_corners, scale)
    dst = np.arange(out_size, dtype=np.float64)
    src = dst * s if align_corners else np.maximum(s * (dst + 0.5) - 0.5, 0.0)
    i0 = np.floor(src).astype(np.int64)
    lam = np.clip(src - i0, 0.0, 1.0)
    i1 = np.where(i0 < in_size - 1, i0 + 1, i0)
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    np.add.at(m, (rows, i0), 1.0 - lam)
    np.add.at(m, (rows, i1), lam)
    return m


def _cubic_weights(t: np.ndarray) -> list:
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_matrix(in_size: int, out_size: int, align_corners: bool, scale) -> np.ndarray:
    s = _scale(in_size, out_size, align_corners, scale)
    dst = np.arange(out_size, dtype=np.float64)
    src = dst * s if align_corners else s * (dst + 0.5) - 0.5
    i = np.floor(src).astype(np.int64)
    t = src - i
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    for k, w in enumerate(_cubic_weights(t)):
        np.add.at(m, (rows, np.clip(i - 1 + k, 0, in_size - 1)), w)
    return m


def _matrix(mode: str, in_size: int, out_size: int, align_corners, scale) -> np.ndarray:
    if mode in ("nearest", "nearest-exact"):
        return _nearest_matrix(in_size, out_size, scale, mode == "nearest-exact")
    if mode == "bicubic":
        return _cubic_matrix(in_size, out_size, bool(align_corners), scale)
    return _linear_matrix(in_size, out_size, bool(align_corners), scale)


def _matrices(mode, in_sizes, output_size, align_corners, scales, dtype) -> list:
    return [_matrix(mode, i, o, align_corners, s).astype(dtype) for i, o, s in zip(in_sizes, output_size, scales)]


def _apply_maps(xp, x, maps, transpose: bool):
    """x with each of its last len(maps) dims mapped by its matrix (or the matrix's transpose)."""
    if len(maps) == 1:
        m = maps[0]
        return xp.matmul(x, m if transpose else xp.swapaxes(m, -1, -2))
    mh, mw = maps
    if transpose:
        return xp.matmul(xp.matmul(xp.swapaxes(mh, -1, -2), x), mw)
    return xp.matmul(xp.matmul(mh, x), xp.swapaxes(mw, -1, -2))


_NAMES = {("nearest", 1): "UpsampleNearest1DBackward0", ("nearest", 2): "UpsampleNearest2DBackward0",
          ("nearest-exact", 1): "UpsampleNearestExact1DBackward0",
          ("nearest-exact", 2): "UpsampleNearestExact2DBackward0",
          ("linear", 1): "UpsampleLinear1DBackward0", ("bilinear", 2): "UpsampleBilinear2DBackward0",
          ("bicubic", 2): "UpsampleBicubic2DBackward0"}


def _make_op(mode: str, nd: int):
    interpolating = not mode.startswith("nearest")
    scale_names = ("scales",) if nd == 1 else ("scales_h", "scales_w")

    def forward(xp, x, output_size, align_corners, scales):
        maps = _matrices(mode, x.shape[-nd:], output_size, align_corners, scales, x.dtype)
        return _apply_maps(xp, x, maps, False)

    def grad(xp, g, self_sym_sizes, output_size, align_corners, scales):
        maps = _matrices(mode, tuple(self_sym_sizes)[-nd:], output_size, align_corners, scales, xp.dtype_of(g))
        return _apply_maps(xp, g, [xp.constant(m) for m in maps], True)

    op = defop(_NAMES[mode, nd], forward, grad, saved=("self_sym_sizes", "output_size", "align_corners", "scales"))
    # torch shows one saved scale per dim (None when the size was given) and no align_corners for nearest
    op.node_cls._saved_names = ("self_sym_sizes", "output_size", "align_corners", "scales")
    for k, name in enumerate(scale_names):
        setattr(op.node_cls, "_saved_" + name, property(lambda self, k=k: self._saved[3][k]))
    if not interpolating:
        delattr(op.node_cls, "_saved_align_corners")
    return op


_OPS = {key: _make_op(*key) for key in _NAMES}


def upsample(input, mode: str, output_size: tuple, align_corners, scales: tuple):
    """Interpolate the last ``len(output_size)`` dims of ``input`` (already validated)."""
    return apply(_OPS[mode, len(output_size)], (input,),
                 (tuple(int(v) for v in output_size), align_corners, tuple(scales)))


# torch's upsampling kernels keep a channels-last input's layout, and give any other a contiguous result
from .layout import input_format_output as _input_format_output  # noqa: E402

_input_format_output(*_OPS.values())
