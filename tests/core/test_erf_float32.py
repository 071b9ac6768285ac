"""The vectorised float32 erf kernel (``_ops/erf_f32.py``): accuracy against a double-precision
reference, special values, and agreement with torch.erf."""
from __future__ import annotations

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._ops.erf_f32 import erf_float32, gelu_backward_float32, gelu_float32


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.standard_normal(100_000) * 2, np.linspace(-5, 5, 100_001),
                         10.0 ** rng.uniform(-44, 0.7, 50_000),
                         [0.927734375, np.nextafter(np.float32(0.927734375), np.float32(1)), 3.9, 3.92, 3.93, 4, 6,
                          1e-45, 1.17e-38]]).astype(np.float32)
    return np.concatenate([xs, -xs])


def _ulps(got: np.ndarray, xs: np.ndarray) -> np.ndarray:
    exact = np.vectorize(math.erf)(xs.astype(np.float64))
    spacing = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    spacing[spacing == 0] = np.finfo(np.float32).smallest_subnormal
    return np.abs(got.astype(np.float64) - exact) / spacing


def test_within_one_and_a_half_ulp_of_the_exact_erf():
    xs = _inputs()
    got = erf_float32(xs)
    assert got.dtype == np.float32 and got.shape == xs.shape
    assert _ulps(got, xs).max() <= 1.5


def test_special_values_and_input_untouched():
    xs = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 50.0, -50.0], dtype=np.float32)
    before = xs.copy()
    got = erf_float32(xs)
    np.testing.assert_array_equal(xs, before)
    np.testing.assert_array_equal(got[[0, 1, 5, 6]], [1, -1, 1, -1])
    assert np.isnan(got[2])
    assert got[3] == 0 and not np.signbit(got[3]) and np.signbit(got[4])  # erf(-0.0) is -0.0, as torch's


def test_erf_and_gelu_use_it_and_agree_with_torch():
    torch = pytest.importorskip("torch")
    xs = _inputs()
    ours = lg.erf(lg.tensor(xs)).numpy()
    theirs = torch.erf(torch.tensor(xs)).numpy()
    spacing = np.spacing(np.abs(theirs))
    spacing[spacing == 0] = np.finfo(np.float32).smallest_subnormal
    assert (np.abs(ours.astype(np.float64) - theirs) / spacing).max() <= 2.5  # (1.5 ulp ours + 1 ulp torch's)
    np.testing.assert_array_equal(ours, erf_float32(xs))


def test_zero_dim_and_strided_inputs_agree_with_torch():
    # (a 0-d float32 erf or gelu used to raise TypeError: NumPy returns a scalar for 0-d arithmetic)
    torch = pytest.importorskip("torch")
    for value in (0.3, -2.5, 0.0):
        for ours, theirs in ((lg.erf, torch.erf), (lg.nn.functional.gelu, torch.nn.functional.gelu)):
            x, xt = lg.tensor(value, requires_grad=True), torch.tensor(value, requires_grad=True)
            y, yt = ours(x), theirs(xt)
            y.backward()
            yt.backward()
            assert y.shape == () and y.dtype == lg.float32
            np.testing.assert_allclose(y.item(), yt.item(), rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(x.grad.item(), xt.grad.item(), rtol=1e-6, atol=1e-7)
    strided = np.linspace(-5, 5, 3 * 40_000, dtype=np.float32).reshape(3, 40_000)[:, ::3].T  # (not contiguous)
    np.testing.assert_array_equal(erf_float32(strided), erf_float32(np.ascontiguousarray(strided)))


def test_blocked_gelu_kernels_match_the_whole_array_formula():
    # the blocked kernels run the whole-array formula's float32 operations in its order: the same bits
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(3 * 32768 + 5) * 3).astype(np.float32)  # (several blocks and a short last one)
    g = rng.standard_normal(x.shape).astype(np.float32)
    y, cdf = gelu_float32(x)
    want_cdf = erf_float32(x * np.float32(1 / math.sqrt(2)))
    want_cdf += 1.0
    want_cdf *= 0.5
    np.testing.assert_array_equal(cdf, want_cdf)
    np.testing.assert_array_equal(y, x * want_cdf)
    pdf = np.exp(x * x * -0.5)
    pdf *= 1 / math.sqrt(2 * math.pi)
    pdf *= x
    pdf += cdf
    np.testing.assert_array_equal(gelu_backward_float32(g, x, cdf), g * pdf)


def test_results_keep_a_transposed_inputs_layout_as_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).standard_normal((5, 7)).astype(np.float32)
    for ours, theirs in ((lg.erf, torch.erf), (lg.nn.functional.gelu, torch.nn.functional.gelu)):
        x, xt = lg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, yt = ours(x.t()), theirs(xt.t())
        assert y.stride() == yt.stride()
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=1e-7)
        (y * y).sum().backward()
        (yt * yt).sum().backward()
        assert x.grad.stride() == xt.grad.stride()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_gathered_and_blended_routes_give_the_same_bits():
    """A block with few elements past the split gathers them; one with many blends the large branch in
    everywhere. The same values must come out either way (and within 1.5 ulp, tested above)."""
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.standard_normal(4000).astype(np.float32) * 3,
                             np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 0.927734375, -0.9277344], np.float32)])
    many_past = erf_float32(values)  # (most of |3 z| is past the split: the blended route)
    assert np.count_nonzero(np.abs(values) > 0.927734375) * 8 > values.size * 3
    padded = np.concatenate([np.zeros(40000, np.float32), values])  # (a block of few: the gathered route)
    few_past = erf_float32(padded)[40000:]
    assert many_past.tobytes() == few_past.tobytes()
    assert np.signbit(many_past[4000]) and np.isnan(many_past[4002])
