"""unique, unique_consecutive, bincount, histc, histogram, searchsorted, bucketize, quantile,
nanquantile, cdist, cartesian_prod, combinations against torch: values, dtypes, first and second
gradients, exception classes."""
from __future__ import annotations

import numpy as np
import pytest
from differential import same

torch = pytest.importorskip("torch")

R = np.random.default_rng(3)
A = R.standard_normal((3, 5))
B = R.standard_normal((4, 5))
I = np.array([3, 1, 2, 3, 1, 1, 0])
M = np.array([[1, 2], [1, 2], [0, 1], [1, 2]])

CALLS = [
    "m.unique(i)", "m.unique(i, sorted=False)", "m.unique(i, return_inverse=True)", "m.unique(i, return_counts=True)",
    "m.unique(i, return_inverse=True, return_counts=True)", "m.unique(mm, dim=0, return_inverse=True, return_counts=True)",
    "m.unique(mm, dim=1)", "i.unique(return_counts=True)", "m.unique(m.tensor([2.0, float('nan'), 1.0, 2.0]))",
    "m.unique_consecutive(i)", "m.unique_consecutive(i, return_inverse=True, return_counts=True)",
    "m.unique_consecutive(mm, dim=0, return_counts=True)", "m.unique(m.tensor([], dtype=m.long), return_counts=True)",
    "m.bincount(i)", "m.bincount(i, minlength=9)", "m.bincount(i, weights=m.tensor(A[0].tolist() + [1.0, 2.0]))",
    "m.bincount(i, weights=m.ones(7))", "m.bincount(i, weights=m.ones(7, dtype=m.int32))", "m.bincount(-i)",
    "m.bincount(mm)", "m.bincount(i.float())", "i.bincount()",
    "m.histc(a, bins=4)", "m.histc(a.float(), bins=5, min=-1, max=1)", "a.histc(3)", "m.histc(i, bins=3)",
    "m.histc(a, bins=3, min=2, max=1)", "m.histc(m.tensor([1.0, 1.0]), bins=2)",
    "m.histogram(a, bins=4)", "m.histogram(a, bins=3, range=(-1.0, 1.0))", "m.histogram(a, 3, density=True)",
    "m.histogram(a, bins=m.tensor([-2.0, 0.0, 0.5, 2.0], dtype=m.float64))", "a.histogram(4)",
    "m.histogram(a, 3, weight=m.tensor(np.abs(A)))",
    "m.searchsorted(m.tensor([1.0, 3, 5, 7]), m.tensor([0.0, 3, 6, 9]))",
    "m.searchsorted(m.tensor([1.0, 3, 5, 7]), m.tensor([3.0, 7]), right=True)",
    "m.searchsorted(m.tensor([1.0, 3, 5, 7]), m.tensor([3.0, 7]), side='right')",
    "m.searchsorted(m.tensor([1.0, 3, 5, 7]), 4.0)", "m.searchsorted(m.tensor([1, 3, 5, 7]), m.tensor([3]), out_int32=True)",
    "m.searchsorted(m.tensor([[1.0, 3, 5], [2, 4, 6]]), m.tensor([[3.0], [5.0]]))",
    "m.searchsorted(m.tensor([[1.0, 3, 5], [2, 4, 6]]), m.tensor([3.0]))",
    "m.searchsorted(m.tensor([5.0, 1, 3]), m.tensor([2.0]), sorter=m.tensor([1, 2, 0]))",
    "m.searchsorted(m.tensor([1.0, 3]), m.tensor([2.0]), side='middle')",
    "m.bucketize(m.tensor([0.0, 3, 6, 9]), m.tensor([1.0, 3, 5, 7]))",
    "m.bucketize(m.tensor([[3.0, 5]]), m.tensor([1.0, 3, 5, 7]), right=True)",
    "m.bucketize(m.tensor([3.0]), m.tensor([[1.0, 3]]))",
    "m.quantile(a, 0.3)", "m.quantile(a, 0.3, dim=1)", "m.quantile(a, 0.3, dim=0, keepdim=True)",
    "m.quantile(a, m.tensor([0.0, 0.25, 1.0], dtype=m.float64), dim=1)",
    "m.quantile(a, m.tensor([0.1, 0.9], dtype=m.float64), dim=1, keepdim=True)",
    "m.quantile(a, m.tensor(0.5, dtype=m.float64))", "a.quantile(0.75, dim=-1)", "m.quantile(a, 0.3, keepdim=True)",
    "m.quantile(a, 1.5)", "m.quantile(i, 0.5)", "m.quantile(a, 0.5, interpolation='bad')",
    "m.quantile(a, m.tensor([0.5]), dim=0)", "m.quantile(a, m.tensor([[0.5]], dtype=m.float64))",
    "m.quantile(nan_a, 0.4, dim=1)", "m.nanquantile(nan_a, 0.4, dim=1)", "nan_a.nanquantile(0.5)",
    "m.nanquantile(m.tensor([[float('nan')] * 3, [1.0, 2, 3]]), 0.5, dim=1)",
    "m.cdist(a, b)", "m.cdist(a, b, p=1)", "m.cdist(a, b, p=0)", "m.cdist(a, b, p=3.5)", "m.cdist(a, b, p=float('inf'))",
    "m.cdist(a[None], b[None])", "m.cdist(a, b[:, :3])", "m.cdist(i[None], i[None])", "m.cdist(a, b, p=-1)",
    "m.cdist(a[0], b)",
    "m.cartesian_prod(a[0], b[0, :2])", "m.cartesian_prod(a[0])", "m.cartesian_prod(a[0], a[1, :2], b[0, :3])",
    "m.cartesian_prod(a)", "m.combinations(i)", "m.combinations(i[:4], r=3)",
    "m.combinations(i[:3], with_replacement=True)", "m.combinations(a[0], 2)",
]
INTERP = ["linear", "lower", "higher", "midpoint", "nearest"]


def _env(m):
    return {"m": m, "np": np, "a": m.tensor(A), "b": m.tensor(B), "i": m.tensor(I), "mm": m.tensor(M),
            "nan_a": m.tensor(np.where(A > 1.0, np.nan, A))}


@pytest.mark.parametrize("call", CALLS)
def test_values_as_torch(call):
    same(torch, lambda m: eval(call, _env(m)))


GRAD_CALLS = ["m.quantile(a, 0.3, dim=1, interpolation='{i}')", "m.quantile(a, q, dim=0, interpolation='{i}')",
              "m.nanquantile(nan_a, 0.6, dim=1, interpolation='{i}')", "m.quantile(a, 0.42, interpolation='{i}')"]


@pytest.mark.parametrize("interp", INTERP)
@pytest.mark.parametrize("call", GRAD_CALLS)
def test_quantile_gradients_as_torch(call, interp):
    def run(m):
        a = m.tensor(A, requires_grad=True)
        nan_a = m.tensor(np.where(A > 1.0, np.nan, A), requires_grad=True)
        q = m.tensor([0.2, 0.5, 0.9], dtype=m.float64)
        y = eval(call.format(i=interp), {"m": m, "a": a, "nan_a": nan_a, "q": q})
        src = nan_a if "nan_a" in call else a
        (g,) = m.autograd.grad((y * y).sum(), src, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), src, allow_unused=True)
        return y, g, gg
    same(torch, run)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf")])
def test_cdist_gradients_as_torch(p):
    def run(m):
        a = m.tensor(A, requires_grad=True)
        b = m.tensor(np.concatenate([B, A[:1]]), requires_grad=True)  # (one zero distance)
        d = m.cdist(a, b, p=p)
        ga, gb = m.autograd.grad((d * d * d).sum(), (a, b), create_graph=True)
        gga, ggb = m.autograd.grad(ga.sum() + (gb * gb).sum(), (a, b))
        return d, ga, gb, gga, ggb
    same(torch, run)


def test_cartesian_prod_gradients_as_torch():
    def run(m):
        a = m.tensor(A[0], requires_grad=True)
        b = m.tensor(B[0, :3], requires_grad=True)
        c = m.cartesian_prod(a, b)
        ga, gb = m.autograd.grad((c ** 3).sum(), (a, b), create_graph=True)
        return c, ga, gb, m.autograd.grad((ga + gb.sum()).sum(), (a, b))
    same(torch, run)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 0.0, float("inf")])
def test_cdist_first_gradients_as_torch(p):
    def run(m):
        a = m.tensor(A, requires_grad=True)
        b = m.tensor(np.concatenate([B, A[:1]]), requires_grad=True)  # (one zero distance)
        d = m.cdist(a[None].expand(2, 3, 5), b, p=p)  # (a batch dim broadcast against b's)
        ga, gb = m.autograd.grad((d * d * d).sum(), (a, b))
        return d, ga, gb, d.grad_fn.name(), d.grad_fn._saved_p
    same(torch, run)
