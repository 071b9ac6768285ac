"""softmax/log_softmax over many short rows take a detour for the row maximum (halving, then a
transposed reduction; see ``reduction._row_max``). The maximum must be NumPy's own, bit for bit,
and the results torch's, for every width around the detour's limits, NaN and -inf included."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad._ops.reduction import _row_max

SHAPES = [(8, 4, 64, 64), (512, 65), (8192, 16), (128, 10), (64, 300), (4, 5), (40, 33), (300, 17),
          (1000, 3), (77, 2, 64), (2048, 2), (256, 63)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_row_max_is_numpys_maximum_bit_for_bit(shape, dtype):
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    a = (rng.standard_normal(shape) * 5).astype(dtype)
    if dtype != np.int64:
        a.flat[::7] = np.nan
        a.flat[::11] = -np.inf
        a.flat[::13] = -0.0
    for arr in (a, np.asfortranarray(a)):
        for dim in range(arr.ndim):
            want = np.maximum.reduce(arr, dim, None, None, True)
            got = _row_max(np, arr, dim)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("shape", [(8, 4, 64, 64), (8192, 16), (300, 17), (128, 10)])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_masked_attention_softmax_matches_torch(torch, shape, fn):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32) * 4
    mask = np.tril(np.ones(shape[-2:], bool)) if len(shape) == 4 else rng.random(shape) < 0.8
    mask = np.broadcast_to(mask, shape).copy()
    mask[..., 0] = True  # (no row wholly masked: torch gives NaN there, as leafgrad)
    seen = {}
    for m in (torch, leafgrad):
        t = m.tensor(x, requires_grad=True)
        y = getattr(m.nn.functional, fn)(t.masked_fill(~m.tensor(mask), float("-inf")), dim=-1)
        (y.masked_fill(~m.tensor(mask), 0.0) * m.tensor(x)).sum().backward()
        seen[m.__name__] = (y.detach().numpy(), t.grad.numpy())
    (y_lg, g_lg), (y_t, g_t) = seen["leafgrad"], seen["torch"]
    np.testing.assert_allclose(y_lg, y_t, rtol=2e-5, atol=1e-6)
    # (the gradient is a difference of two sums of size ~|x|: float32 cancellation, summed in another order)
    np.testing.assert_allclose(g_lg, g_t, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("shape", [(128, 10), (8, 4, 64, 64), (64, 1024), (16, 2), (3, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_sum_matches_numpy_to_rounding_with_nan_and_inf_in_place(shape, dtype):
    from leafgrad._ops.reduction import _row_sum
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    a.reshape(-1, shape[-1])[0, 0] = np.nan
    a.reshape(-1, shape[-1])[-1, -1] = np.inf
    got, want = _row_sum(np, a, a.ndim - 1), np.sum(a, axis=-1, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-5 if dtype is np.float32 else 1e-12, atol=1e-5)
    # a transposed (not C-contiguous) input and an integer one take NumPy's reduction, the same bits
    t = np.ascontiguousarray(a.T).T
    assert _row_sum(np, t, t.ndim - 1).tobytes() == np.add.reduce(t, t.ndim - 1, keepdims=True).tobytes()
    i = np.arange(np.prod(shape)).reshape(shape)
    assert _row_sum(np, i, i.ndim - 1).tobytes() == i.sum(-1, keepdims=True).tobytes()
