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
