"""Tensor construction, dtypes and promotion, conversions and printing, against torch."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad
from differential import same

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("data", [[1.0, 2.0], [1, 2], [True, False], 3, 2.5, [[1, 2.0]], [], [[1], [2]],
                                  np.array([1.0, 2.0]), np.array([1, 2], dtype=np.int32), np.float64(3.0)])
def test_tensor_dtype_inference(torch, data):
    same(torch, lambda m: [m.tensor(data).dtype, m.tensor(data).shape == m.tensor(data).size(), list(m.tensor(data).shape)])


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promotion_tensor_tensor(torch, a, b):
    same(torch, lambda m: [(m.ones(2, dtype=getattr(m, a)) + m.ones(2, dtype=getattr(m, b))).dtype,
                           (m.ones(2, dtype=getattr(m, a)) * m.ones((), dtype=getattr(m, b))).dtype,
                           m.result_type(m.ones(2, dtype=getattr(m, a)), m.ones(2, dtype=getattr(m, b)))])


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5, True])
def test_promotion_tensor_scalar(torch, a, scalar):
    def f(m):
        t = m.ones(2, dtype=getattr(m, a))
        out = [(t * scalar).dtype, (scalar * t).dtype]
        if a != "bool":
            out.append((t - scalar).dtype)
        out.append((t / 2).dtype)
        return out
    same(torch, f)


def test_int_division_and_defaults(torch):
    same(torch, lambda m: [m.tensor(2) / m.tensor(3), m.tensor([5, 7]) // 2, m.tensor([5, -7]) % 3,
                           m.arange(5), m.arange(0, 1, 0.25), m.linspace(0, 1, 5), m.zeros(2, 3).dtype,
                           m.eye(3), m.full((2,), 7).dtype, m.full((2,), 7.0).dtype, m.ones(2, dtype=m.float64).dtype])


def test_factories_like(torch):
    def f(m):
        x = m.ones(2, 3, dtype=m.float64)
        return [m.zeros_like(x), m.ones_like(x), m.full_like(x, 4), m.empty_like(x).shape == x.shape,
                m.zeros_like(x, dtype=m.int32).dtype, m.rand(2, 3).shape == (2, 3), m.randn(4).dtype,
                m.randint(0, 5, (3,)).dtype, x.new_zeros(2).dtype, x.new_tensor([1, 2]).dtype]
    same(torch, f)


def test_manual_seed_reproducible():
    leafgrad.manual_seed(0)
    a = leafgrad.randn(5)
    leafgrad.manual_seed(0)
    b = leafgrad.randn(5)
    assert a.tolist() == b.tolist()
    g = leafgrad.Generator().manual_seed(3)
    assert leafgrad.rand(3, generator=g).tolist() == leafgrad.rand(3, generator=leafgrad.Generator().manual_seed(3)).tolist()


def test_from_numpy_shares_memory(torch):
    def f(m):
        arr = np.array([1.0, 2.0])
        t = m.from_numpy(arr)
        arr[0] = 10
        t[1] = 20
        return [t, arr.tolist(), t.dtype, np.asarray(t).tolist()]
    same(torch, f)


def test_conversions(torch):
    def f(m):
        t = m.tensor([[1.5, 2.0], [3.0, 4.0]])
        return [t.tolist(), t[0, 0].item(), len(t), [r.tolist() for r in t], t.numel(), t.dim(), t.size(1),
                float(t[0, 1]), int(t[1, 1]), bool(t[0, 0]), t.shape[0], t.ndim, str(t.device), t.is_leaf,
                t.stride(), t.is_contiguous(), t.t().is_contiguous(), t.element_size()]
    same(torch, f)


def test_scalar_errors(torch):
    same(torch, lambda m: m.ones(2).item())
    same(torch, lambda m: bool(m.ones(2)))
    same(torch, lambda m: len(m.tensor(1.0)))


def test_comparisons_and_logic(torch):
    def f(m):
        a = m.tensor([1.0, 2.0, 3.0])
        b = m.tensor([3.0, 2.0, 1.0])
        return [a < b, a <= b, a == b, a != b, a > 2, (a > 1) & (b > 1), (a > 1) | (b > 2), ~(a > 1),
                m.equal(a, a), m.allclose(a, a + 1e-9), a.max(), a.argmax(), a.argmin(), (a > 1).any(),
                (a > 0).all(), m.where(a > 1, a, b), a.masked_fill(a > 2, 0), m.isnan(a)]
    same(torch, f)


@pytest.mark.parametrize("expr", [
    "m.tensor([1., 2.])", "m.tensor(8.)", "m.tensor([1., 2.], requires_grad=True)",
    "m.tensor([1., 2.], requires_grad=True) * 2", "m.tensor([1, 2])", "m.tensor([1.5, 2], dtype=m.float64)",
    "m.tensor([True, False])", "m.arange(2000.)", "m.tensor([[0.1234567, 100.0], [1e-5, 3.0]])",
    "m.zeros(2, 0)", "m.tensor([], dtype=m.int32)", "m.tensor(3, dtype=m.int32)", "m.tensor([1e10, 1.0])",
    "m.ones(3, requires_grad=True).sum()", "m.tensor([1., 2.], dtype=m.float16)",
])
def test_repr_matches_torch(torch, expr):
    t_out = repr(eval(expr, {"m": torch}))
    l_out = repr(eval(expr, {"m": leafgrad}))
    assert l_out == t_out


def test_size_repr(torch):
    assert repr(leafgrad.ones(2, 3).shape) == repr(torch.ones(2, 3).shape)
    assert repr(leafgrad.float32) == repr(torch.float32)
    assert str(leafgrad.ones(1).device) == str(torch.ones(1).device)


def test_dtype_of_reductions(torch):
    same(torch, lambda m: [m.tensor([1, 2]).sum().dtype, m.tensor([True, True]).sum().dtype,
                           m.tensor([1, 2]).float().mean().dtype, m.tensor([1, 2]).prod().dtype])
    same(torch, lambda m: m.tensor([1, 2]).mean())


def test_indexing_errors(torch):
    same(torch, lambda m: m.ones(3)[5])
    same(torch, lambda m: m.ones(3)[0, 0])
    same(torch, lambda m: m.ones(3)[m.tensor([True, False])])
    same(torch, lambda m: m.ones(2, 3).view(4))
    same(torch, lambda m: m.ones(2, 3).t().view(6))
    same(torch, lambda m: m.ones(2, 3) @ m.ones(2, 3))
    same(torch, lambda m: m.ones(2, 3) + m.ones(3, 2))
    same(torch, lambda m: m.cat([m.ones(2, 3), m.ones(3, 2)]))
    same(torch, lambda m: m.ones(2, 3).sum(2))
    same(torch, lambda m: m.ones(2, 3).expand(3, 3))
