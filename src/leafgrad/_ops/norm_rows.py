"""layer_norm's forward and backward on plain float32/float64 NumPy arrays, as rows of a 2-d matrix.

A layer norm normalises the trailing ``n_norm`` dims: viewed as an (N, K) matrix, every statistic is
a per-row sum and every weight gradient a per-column sum. NumPy reduces short rows (K = 64 in a small
transformer) one row at a time (~20 us for a (512, 64) float32 matrix) and subtracts a broadcast (N, 1)
column at about half the speed of a plain product; a matrix-vector product with a vector of ones gives
the same sums in a quarter of the time (BLAS's order of summation, as exact as NumPy's pairwise one
for such rows). The element-wise steps are the formulas' own, in their order, done in place where the
array is a fresh temporary. The Tensor interpreter (create_graph) and 16-bit arrays keep the general
formulas in nn_ops.py; ``fits`` says when these apply. ``row_sums`` is also softmax's row sum
(``reduction._row_sum``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["fits", "row_sums", "ln_forward", "ln_dx", "ln_dw", "ln_db"]

_MAX_ROW = 4096  # (longer rows: NumPy's pairwise sum, whose error grows more slowly than BLAS's)


def fits(x, *others) -> bool:
    """True for non-empty float32/float64 ndarrays (``x`` at least 1-d) all of ``x``'s dtype."""
    return (x.__class__ is np.ndarray and x.dtype.kind == "f" and x.dtype.itemsize >= 4 and x.ndim >= 1
            and x.size > 0 and all(o.__class__ is np.ndarray and o.dtype == x.dtype for o in others))


def _rows(x: np.ndarray, n_norm: int) -> tuple[np.ndarray, int]:
    k = 1
    for n in x.shape[x.ndim - n_norm:]:
        k *= n
    return x.reshape(-1, k), k


_ONES: dict = {}  # (k, dtype) -> a read-only vector of k ones, the right operand of ``row_sums``


def row_sums(m: np.ndarray) -> np.ndarray:
    """The sum of each row of the 2-d float ``m`` (rows of at most ``_MAX_ROW``), one BLAS matrix-vector
    product with a shared vector of ones: (N,), a fresh array."""
    key = (m.shape[1], m.dtype)
    ones = _ONES.get(key)
    if ones is None:
        if len(_ONES) >= 64:  # (a program cycling through many widths: start over)
            _ONES.clear()
        ones = _ONES[key] = np.ones(key[0], m.dtype)
        ones.flags.writeable = False
    return m @ ones


def _row_means(m: np.ndarray, k: int) -> np.ndarray:
    """The per-row mean of ``m`` as an (N, 1) column (a fresh array)."""
    s = row_sums(m) if k <= _MAX_ROW else np.add.reduce(m, 1)
    s /= k
    return s.reshape(-1, 1)


def _xhat(x2, mean, var, eps):
    """(x - mean) / std and 1/std from the forward's saved mean and (biased) variance."""
    invstd = (1.0 / np.sqrt(var + eps)).astype(x2.dtype, copy=False).reshape(-1, 1)
    xhat = x2 - mean.astype(x2.dtype, copy=False).reshape(-1, 1)
    xhat *= invstd
    return xhat, invstd


def ln_forward(x, w, b, n_norm: int, eps: float):
    """(output, mean, variance) with the statistics shaped as ``x`` reduced with keepdims."""
    x = np.ascontiguousarray(x)  # (torch's kernel reads its input as contiguous: the output is, whatever x's layout)
    x2, k = _rows(x, n_norm)
    stat_shape = x.shape[:x.ndim - n_norm] + (1,) * n_norm
    mean = _row_means(x2, k)
    xmu = x2 - mean
    var = _row_means(xmu * xmu, k)
    invstd = (1 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    xmu *= invstd  # (x - mean) / std
    out = xmu * w.reshape(-1)
    out += b.reshape(-1)
    return out.reshape(x.shape), mean.reshape(stat_shape), var.reshape(stat_shape)


def ln_dx(g, x, w, n_norm: int, eps: float, mean, var):
    """(gw - mean(gw) - xhat * mean(gw * xhat)) / std, with gw = g * weight, the means over each row."""
    x2, k = _rows(x, n_norm)
    xhat, invstd = _xhat(x2, mean, var, eps)
    gw = g.reshape(-1, k) * w.reshape(-1)
    m1 = _row_means(gw, k)
    m2 = _row_means(gw * xhat, k)
    xhat *= m2
    dx = gw - m1
    dx -= xhat
    dx *= invstd
    return dx.reshape(x.shape)


def _column_sums(m: np.ndarray) -> np.ndarray:
    # (NumPy sums a matrix's columns by adding its rows one after another; BLAS's dot products keep
    # several partial sums, so they are no less exact)
    return np.ones(m.shape[0], m.dtype) @ m


def ln_dw(g, x, n_norm: int, eps: float, mean, var):
    """The weight's gradient: the sum over the rows of g * xhat, shaped as the normalised dims."""
    x2, k = _rows(x, n_norm)
    xhat, _ = _xhat(x2, mean, var, eps)
    xhat *= g.reshape(-1, k)
    return _column_sums(xhat).reshape(x.shape[x.ndim - n_norm:])


def ln_db(g, n_norm: int):
    """The bias's gradient: the sum of g over its rows."""
    g2, _ = _rows(g, n_norm)
    return _column_sums(g2).reshape(g.shape[g.ndim - n_norm:])
