"""Embedding's weight gradient: the one-hot matmul for small tables and np.add.at otherwise (large
tables, non-finite grads) give torch's gradients, with repeated indices, padding_idx and scale_grad_by_freq."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _grads(lib, weight, idx, upstream, **kwargs):
    w = lib.tensor(weight, requires_grad=True)
    out = lib.nn.functional.embedding(lib.tensor(idx), w, **kwargs)
    out.backward(lib.tensor(upstream))
    return w.grad.numpy()


@pytest.mark.parametrize("rows", [7, 5000])  # (5000 x 400 lookups: past the one-hot bound)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 3}, {"scale_grad_by_freq": True}], ids=str)
def test_weight_gradient_vs_torch(rows, dtype, kwargs):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((rows, 6)).astype(dtype)
    idx = rng.integers(0, min(rows, 7), (50, 8))  # (many repeats)
    upstream = rng.standard_normal((50, 8, 6)).astype(dtype)
    ours, theirs = _grads(lg, weight, idx, upstream, **kwargs), _grads(torch, weight, idx, upstream, **kwargs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


def test_non_finite_grads_stay_in_their_rows():
    weight = np.ones((4, 2), dtype=np.float32)
    idx = np.array([0, 2, 2])
    upstream = np.array([[np.inf, 1], [np.nan, 2], [1, 3]], dtype=np.float32)
    ours, theirs = _grads(lg, weight, idx, upstream), _grads(torch, weight, idx, upstream)
    np.testing.assert_array_equal(ours, theirs)
    assert np.isfinite(ours[[1, 3]]).all()
