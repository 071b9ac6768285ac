"""``F.grid_sample`` (bilinear / nearest; zeros / border / reflection padding) and ``F.affine_grid``.

grid_sample reads, for every output cell, the input at a source point given in [-1, 1]
coordinates (x first, then y, then z). Everything depends on the grid through one chain:
source coordinate = padding rule(unnormalise(grid)), piecewise affine in the grid, whose slope
and offset are read from the values (constants of the backward), and bilinear weights that are
products of (1 - distance) factors. The corner indices and in-bounds masks are constants too.

The forward and both gradient formulas are written once against ``xp`` from those parts, so on
Tensors (``create_graph=True``) the gradients are themselves recorded and second derivatives
are recorded as torch's ``GridSampler2DBackwardBackward0`` nodes (see "the backward as ops of its own").

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


# ----------------------------------------------------------------------------- the backward as ops of its own
# Under create_graph the two gradients are recorded as torch's GridSampler{2,3}DBackwardBackward0 nodes
# (inputs: grad_output, input, grid), one per gradient as leafgrad's ConvolutionBackwardBackward0.
# The input gradient A(grid)^T g is linear in g: its own gradients are grid_sample(gdx, grid) for g and the
# grid gradient of sampling gdx against g for the grid. The grid gradient is bilinear in (input, g), and
# its second derivative in the grid is a sum over corner-weight products (``_vjp``).
def _back_fwd(which):
    def fwd(xp, g, input, grid, interpolation_mode, padding_mode, align_corners, dim):
        f = _input_grad if which == 0 else _grid_grad
        return f(array_namespace(xp), g, input, grid, interpolation_mode, padding_mode, align_corners)
    return fwd


def _params(interpolation_mode, padding_mode, align_corners):
    return (interpolation_mode, padding_mode, align_corners)


def _dx_grad_g(xp, gg, self, input1, input2, interpolation_mode, padding_mode, align_corners, dim):
    return xp.apply(_SAMPLERS[dim], gg, input2, params=_params(interpolation_mode, padding_mode, align_corners))


def _dx_grad_grid(xp, gg, self, input1, input2, interpolation_mode, padding_mode, align_corners, dim):
    # d/dgrid <A(grid)^T g, gg> = d/dgrid <g, grid_sample(gg, grid)>: the grid gradient of sampling gg
    if interpolation_mode == 1:  # (nearest: piecewise constant in the grid; torch gives no gradient)
        return None
    return xp.apply(_BACK[dim][1], self, gg, input2, params=(interpolation_mode, padding_mode, align_corners, dim))


def _vjp(xp, cot, inputs, which, params):
    """The gradient for ``inputs[which]`` (grad_output, input, grid) of <_grid_grad(*inputs), cot>.

    Along a grid direction ``cot`` each corner weight moves by dw = sum_k (prod_{j != k} f_j) sign_k
    slope_k cot_k. The grid gradient is linear in grad_output and in input, so their gradients are the
    sampling and the spreading of ``dw`` (as _sample and _input_grad with dw for the weights); for the grid
    it is the weights' cross second derivatives (the factors are affine in their own coordinate)."""
    g, input, grid = inputs
    mode, padding_mode, align_corners = params
    if mode == 1:  # (nearest: the grid gradient is a constant zero; torch gives no gradient)
        return None
    sizes = tuple(input.shape[2:])
    coords = _coords(xp, grid, sizes, padding_mode, align_corners)
    corners = _corners(xp, sizes, coords, mode)
    n, c = input.shape[:2]
    nd = len(sizes)
    dtype = xp.dtype_of(grid)
    cots = xp.split(cot, nd, axis=-1)
    # slope_k * cot_k per coordinate, (N, L)
    moves = [cots[k].reshape((n, -1)) * xp.constant(coords[k][2].reshape(n, -1)) for k in range(nd)]
    gr = g.reshape((n, c, -1))
    vol = int(np.prod(sizes))
    base = (np.arange(n)[:, None, None] * c + np.arange(c)[None, :, None]) * vol
    acc = [None] * nd if which == 2 else None
    for flat, mask, factors, signs in corners:
        m = xp.constant(mask.astype(dtype))
        if which == 2:
            vg = xp.sum(_gather(xp, input, flat) * gr, axis=1) * m  # (N, L)
            for k in range(nd):
                term = None
                for l in range(nd):
                    if l == k:
                        continue
                    rest = [f for j, f in enumerate(factors) if j not in (k, l)]
                    t = moves[l] * (signs[k] * signs[l])
                    t = t if not rest else t * _product(rest, n)
                    term = t if term is None else term + t
                if term is not None:
                    term = vg * term
                    acc[k] = term if acc[k] is None else acc[k] + term
            continue
        dw = None
        for k in range(nd):
            others = [f for j, f in enumerate(factors) if j != k]
            t = moves[k] * signs[k] if not others else moves[k] * _product(others, n) * signs[k]
            dw = t if dw is None else dw + t
        dw = (dw * m).reshape((n, 1, -1))
        if which == 0:
            term = _gather(xp, input, flat) * dw
        else:
            key = (base + flat[:, None, :]).reshape(-1)
            term = xp.index_add_zeros((gr * dw).reshape((-1,)), (n * c * vol,), (key,))
        acc = term if acc is None else acc + term
    if which == 0:
        return acc.reshape(tuple(g.shape))
    if which == 1:
        return acc.reshape(tuple(input.shape))
    cell = tuple(grid.shape[:-1])
    cols = [(xp.zeros_like(moves[k]) if acc[k] is None else acc[k] * xp.constant(coords[k][2].reshape(n, -1))
             ).reshape(cell) for k in range(nd)]
    return xp.stack(cols, axis=-1)


def _dgrid_formula(which):
    def f(xp, gg, self, input1, input2, interpolation_mode, padding_mode, align_corners, dim):
        return _vjp(xp, gg, (self, input1, input2), which, _params(interpolation_mode, padding_mode, align_corners))
    return f


_SAVED_BACK = ("self", "input1", "input2", "interpolation_mode", "padding_mode", "align_corners", "dim")
_BACK = {dim: (defop(f"GridSampler{dim}DBackwardBackward0", _back_fwd(0), (_dx_grad_g, None, _dx_grad_grid),
                     saved=_SAVED_BACK, n_in=3),
               defop(f"GridSampler{dim}DBackwardBackward0", _back_fwd(1),
                     tuple(_dgrid_formula(k) for k in range(3)), saved=_SAVED_BACK, n_in=3))
         for dim in (2, 3)}
for _pair in _BACK.values():
    for _op in _pair:
        _op.node_cls._saved_names = ("grad_output", "input", "grid", "interpolation_mode", "padding_mode",
                                     "align_corners", "dim")


def _sampler_grad(which):
    def f(xp, g, self, input1, interpolation_mode, padding_mode, align_corners):
        dim = len(self.shape) - 2
        return xp.apply(_BACK[dim][which], g, self, input1, params=(interpolation_mode, padding_mode, align_corners,
                                                                      dim))
    return f


_SAVED = ("self", "input1", "interpolation_mode", "padding_mode", "align_corners")
GRID_SAMPLER_2D = defop("GridSampler2DBackward0", _forward, (_sampler_grad(0), _sampler_grad(1)), saved=_SAVED,
                        n_in=2)
GRID_SAMPLER_3D = defop("GridSampler3DBackward0", _forward, (_sampler_grad(0), _sampler_grad(1)), saved=_SAVED,
                        n_in=2)
_SAMPLERS = {2: GRID_SAMPLER_2D, 3: GRID_SAMPLER_3D}
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
