"""``F.grid_sample`` (bilinear / nearest; zeros / border / reflection padding) and ``F.affine_grid``.

grid_sample reads, for every output cell, the input at a source point given in [-1, 1]
coordinates (x first, then y, then z). Everything depends on the grid through one chain:
source coordinate = padding rule(unnormalise(grid)), piecewise affine in the grid, whose slope
and offset are read from the values (constants of the backward), and bilinear weights that are
products of (1 - distance) factors. The corner indices and in-bounds masks are constants too.

The forward and both gradient formulas are written once against ``xp`` from those parts, so on
Tensors (``create_graph=True``) the gradients are themselves recorded and second derivatives
come out of the primitive ops (gather, scatter-add, products); torch records one fused
``GridSampler2DBackwardBackward0`` there instead, with the same values.

affine_grid is a batched matmul of a constant base grid with theta transposed.
"""
from __future__ import annotations

import itertools

import numpy as np

from .registry import apply, defop
from .xp import array_namespace

__all__ = ["grid_sample", "affine_grid", "MODES", "PADDINGS"]

MODES = {"bilinear": 0, "nearest": 1}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _reflect(raw, size: int, align_corners: bool):
    """torch's reflect_coordinates and the slope (+1 / -1, 0 for a single cell) it gives."""
    lo2, hi2 = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if lo2 == hi2:
        return np.zeros_like(raw), np.zeros_like(raw)
    lo, span = lo2 / 2.0, (hi2 - lo2) / 2.0
    v = raw - lo
    mult = np.where(v < 0, -1.0, 1.0).astype(raw.dtype)
    v = np.abs(v)
    extra = np.fmod(v, span)
    flips = np.floor(v / span)
    even = flips % 2 == 0
    out = np.where(even, extra + lo, span - extra + lo).astype(raw.dtype)
    return out, np.where(even, mult, -mult).astype(raw.dtype)


def _coords(xp, grid, sizes, padding_mode: int, align_corners: bool):
    """Per grid coordinate (x, y, z): (the source coordinate as an xp expression of grid, its values,
    and d(coordinate)/d(grid), a constant array)."""
    nd = len(sizes)
    parts = xp.split(grid, nd, axis=-1)
    cell = tuple(grid.shape[:-1])
    out = []
    for k in range(nd):
        size = sizes[nd - 1 - k]
        scale = (size - 1) / 2.0 if align_corners else size / 2.0
        c = (parts[k].reshape(cell) + 1.0) * scale if align_corners else ((parts[k].reshape(cell) + 1.0) * size - 1.0) / 2.0
        raw = np.asarray(xp.data(c))
        slope = np.full(raw.shape, scale, dtype=raw.dtype)
        if padding_mode == 2:  # reflection: c -> sgn * c + (r - sgn * raw) piecewise
            r, sgn = _reflect(raw, size, align_corners)
            c = c * xp.constant(sgn) + xp.constant(r - sgn * raw)
            raw, slope = r, slope * sgn
        if padding_mode in (1, 2):  # clip into the input (gradient 0 at and beyond the edges, as torch)
            inside = (raw > 0) & (raw < size - 1)
            clipped = np.clip(raw, 0, size - 1).astype(raw.dtype)
            c = xp.where(inside, c, xp.constant(clipped))
            raw, slope = clipped, np.where(inside, slope, 0).astype(raw.dtype)
        out.append((c, raw, slope))
    return out


def _corners(xp, sizes, coords, mode: int):
    """Per corner: (flat index into the input volume (N, L), in-bounds mask (N, L), [per-coordinate
    weight factor as an xp expression], [the factors' signs in their coordinate])."""
    nd = len(sizes)
    n = coords[0][1].shape[0]
    strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]  # per spatial dim (z, y, x order)
    result = []
    if mode == 1:  # nearest: the rounded point (half to even, as nearbyint), weight 1
        flat, mask = 0, True
        for k, (_, raw, _) in enumerate(coords):
            size, stride = sizes[nd - 1 - k], strides[nd - 1 - k]
            i = np.rint(raw).astype(np.int64)
            mask = mask & (i >= 0) & (i < size)
            flat = flat + np.clip(i, 0, size - 1) * stride
        return [(flat.reshape(n, -1), np.asarray(mask).reshape(n, -1), [], [])]
    lows = [np.floor(raw).astype(np.int64) for _, raw, _ in coords]
    for bits in itertools.product((0, 1), repeat=nd):
        flat, mask, factors, signs = 0, True, [], []
        for k, ((c, raw, _), b) in enumerate(zip(coords, bits)):
            size, stride = sizes[nd - 1 - k], strides[nd - 1 - k]
            i = lows[k] + b
            mask = mask & (i >= 0) & (i < size)
            flat = flat + np.clip(i, 0, size - 1) * stride
            low = xp.constant(lows[k].astype(raw.dtype))
            factors.append(c - low if b else (low + 1.0) - c)  # (torch's (x - x_nw), (x_se - x))
            signs.append(1.0 if b else -1.0)
        result.append((flat.reshape(n, -1), np.asarray(mask).reshape(n, -1), factors, signs))
    return result


def _product(fs, n: int):
    out = None
    for f in fs:
        f = f.reshape((n, -1))
        out = f if out is None else out * f
    return out


def _gather(xp, x, flat):
    n, c = x.shape[:2]
    idx = np.ascontiguousarray(np.broadcast_to(flat[:, None, :], (n, c, flat.shape[1])))
    return xp.take_along_axis(x.reshape((n, c, -1)), idx, axis=2)


def _parts(xp, input, grid, mode, padding_mode, align_corners):
    sizes = tuple(input.shape[2:])
    return sizes, _corners(xp, sizes, _coords(xp, grid, sizes, padding_mode, align_corners), mode)


def _sample(xp, input, grid, mode, padding_mode, align_corners):
    sizes, corners = _parts(xp, input, grid, mode, padding_mode, align_corners)
    n, c = input.shape[:2]
    dtype = xp.dtype_of(input)
    out = None
    for flat, mask, factors, _ in corners:
        w = xp.constant(mask.astype(dtype))
        if factors:
            w = w * _product(factors, n)
        term = _gather(xp, input, flat) * w.reshape((n, 1, -1))
        out = term if out is None else out + term
    return out.reshape((n, c) + tuple(grid.shape[1:-1]))


def _forward(xp, input, grid, interpolation_mode, padding_mode, align_corners):
    return _sample(array_namespace(xp), input, grid, interpolation_mode, padding_mode, align_corners)


def _input_grad(xp, g, self, input1, interpolation_mode, padding_mode, align_corners):
    """Each output's gradient spread onto the corners it read, by their weights (a scatter-add)."""
    input, grid = self, input1
    sizes, corners = _parts(xp, input, grid, interpolation_mode, padding_mode, align_corners)
    n, c = input.shape[:2]
    vol = int(np.prod(sizes))
    gr = g.reshape((n, c, -1))
    base = (np.arange(n)[:, None, None] * c + np.arange(c)[None, :, None]) * vol
    dx = None
    for flat, mask, factors, _ in corners:
        w = xp.constant(mask.astype(xp.dtype_of(g)))
        if factors:
            w = w * _product(factors, n)
        key = (base + flat[:, None, :]).reshape(-1)
        term = xp.index_add_zeros((gr * w.reshape((n, 1, -1))).reshape((-1,)), (n * c * vol,), (key,))
        dx = term if dx is None else dx + term
    return dx.reshape(tuple(input.shape))


def _grid_grad(xp, g, self, input1, interpolation_mode, padding_mode, align_corners):
    """sum over channels and corners of value * g * d(weight)/d(coordinate), times d(coordinate)/d(grid)."""
    input, grid = self, input1
    if interpolation_mode == 1:  # nearest: piecewise constant in the grid
        return xp.zeros_like(grid)
    sizes = tuple(input.shape[2:])
    coords = _coords(xp, grid, sizes, padding_mode, align_corners)
    corners = _corners(xp, sizes, coords, interpolation_mode)
    n, c = input.shape[:2]
    nd = len(sizes)
    gr = g.reshape((n, c, -1))
    dtype = xp.dtype_of(grid)
    per_k = [None] * nd
    for flat, mask, factors, signs in corners:
        vg = xp.sum(_gather(xp, input, flat) * gr, axis=1) * xp.constant(mask.astype(dtype))  # (N, L)
        for k in range(nd):
            others = [f for j, f in enumerate(factors) if j != k]
            term = vg * signs[k] if not others else vg * _product(others, n) * signs[k]
            per_k[k] = term if per_k[k] is None else per_k[k] + term
    cell = tuple(grid.shape[:-1])
    cols = [(per_k[k] * xp.constant(coords[k][2].reshape(n, -1))).reshape(cell) for k in range(nd)]
    return xp.stack(cols, axis=-1)


_SAVED = ("self", "input1", "interpolation_mode", "padding_mode", "align_corners")
GRID_SAMPLER_2D = defop("GridSampler2DBackward0", _forward, (_input_grad, _grid_grad), saved=_SAVED, n_in=2)
GRID_SAMPLER_3D = defop("GridSampler3DBackward0", _forward, (_input_grad, _grid_grad), saved=_SAVED, n_in=2)
for _op in (GRID_SAMPLER_2D, GRID_SAMPLER_3D):
    _op.node_cls._saved_names = ("input", "grid", "interpolation_mode", "padding_mode", "align_corners")


def grid_sample(input, grid, mode: int, padding_mode: int, align_corners: bool):
    """Sample a (N, C, *spatial) input at grid (N, *out, nd); arguments already checked and coded."""
    op = GRID_SAMPLER_2D if input.ndim == 4 else GRID_SAMPLER_3D
    return apply(op, (input, grid), (mode, padding_mode, bool(align_corners)))


# =============================================================================== affine_grid
def _linspace(steps: int, align_corners: bool, dtype):
    if steps <= 1:
        return np.zeros(max(steps, 0), dtype=dtype) if steps < 1 else np.zeros(1, dtype=dtype)
    r = np.linspace(-1, 1, steps, dtype=dtype)
    return r if align_corners else (r * ((steps - 1) / steps)).astype(dtype)


def _base_grid(size, align_corners: bool, dtype):
    """(prod(spatial), nd + 1): each cell's (x, y[, z], 1) in [-1, 1] coordinates."""
    spatial = tuple(size[2:])
    axes = [_linspace(s, align_corners, dtype) for s in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(int(np.prod(spatial)), dtype=dtype)]
    return np.stack(cols, axis=-1)


def _affine_fwd(xp, theta, size, align_corners):
    base = _base_grid(size, align_corners, theta.dtype)
    out = xp.matmul(base, xp.swapaxes(theta, -1, -2))  # (N, L, nd)
    return out.reshape((size[0],) + tuple(size[2:]) + (len(size) - 2,))


def _affine_grad(xp, g, size, align_corners):
    base = _base_grid(size, align_corners, xp.dtype_of(g))
    nd = len(size) - 2
    gl = g.reshape((size[0], -1, nd))
    return xp.matmul(xp.swapaxes(gl, -1, -2), xp.constant(base))  # (N, nd, nd + 1)


AFFINE_GRID = defop("AffineGridGeneratorBackward0", _affine_fwd, _affine_grad, saved=("size", "align_corners"))


def affine_grid(theta, size: tuple, align_corners: bool):
    return apply(AFFINE_GRID, (theta,), (tuple(int(s) for s in size), bool(align_corners)))
