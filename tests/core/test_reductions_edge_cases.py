"""Reductions at their edges, against torch: a 0-dim tensor reduced over dim 0 / -1 (the
scalar itself), var/std with no degrees of freedom (nan and a warning, not an error), and
std's gradient on a constant slice (0, not 0/0)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "logsumexp", "std", "var"]


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", REDUCTIONS)
def test_zero_dim_reduced_over_its_only_dim_matches_torch(torch, name, dim):
    results = []
    for m in (torch, lg):
        z = m.tensor(2.5, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (std/var warn about degrees of freedom: tested below)
            y = getattr(m, name)(z, dim)
            y.backward()
        results.append((y, z.grad))
    (ty, tg), (ly, lg_) = results
    assert tuple(ly.shape) == tuple(ty.shape) == ()
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), equal_nan=True)
    np.testing.assert_allclose(lg_.numpy(), tg.numpy(), equal_nan=True)
    assert ly.grad_fn.name() == ty.grad_fn.name()


def test_boolean_reductions_of_a_zero_dim_tensor_match_torch(torch):
    for fn in (lambda m: m.all(m.tensor(True), 0), lambda m: m.any(m.tensor(False), -1),
               lambda m: m.count_nonzero(m.tensor(3.0), 0)):
        assert fn(lg).item() == fn(torch).item()
    with raises_exactly(IndexError):
        lg.tensor(2.0).sum(1)


@pytest.mark.parametrize("name", ["std", "var"])
def test_no_degrees_of_freedom_gives_nan_and_a_warning(torch, name):
    for data, kw in (([2.0], {}), ([[2.0, 3.0]], {"dim": 0})):
        out = []
        for m in (torch, lg):
            x = m.tensor(data, requires_grad=True)
            with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
                y = getattr(x, name)(**kw)
            y.sum().backward()
            out.append((y.detach().numpy(), x.grad.numpy()))
        np.testing.assert_array_equal(out[1][0], out[0][0])  # nan, nan
        np.testing.assert_array_equal(out[1][1], out[0][1])


def test_std_gradient_on_a_constant_slice_is_zero_as_torch(torch):
    data = [[2.0, 3.0], [2.0, 5.0]]
    grads = []
    for m in (torch, lg):
        x = m.tensor(data, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no 0/0 warning from NumPy either
            x.std(0).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
    assert grads[1][0, 0] == 0.0


def _grads_match(torch, fn, data):
    out = []
    for m in (torch, lg):
        x = m.tensor(data, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # silent, as torch
            y = fn(m, x)
            y.sum().backward()
        out.append((y, x.grad))
    (ty, tg), (ly, lgrad) = out
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), equal_nan=True, rtol=1e-6)
    np.testing.assert_allclose(lgrad.numpy(), tg.numpy(), equal_nan=True, rtol=1e-6)
    assert ly.grad_fn.name() == ty.grad_fn.name()


@pytest.mark.parametrize("fn,data", [
    (lambda m, x: x.max(), [1.0, float("nan"), 3.0]),  # the gradient goes to the nan
    (lambda m, x: x.min(), [3.0, 1.0, 1.0]),  # shared between ties
    (lambda m, x: m.norm(x, p=float("-inf")), [0.0, -3.0, -3.0]),
    (lambda m, x: m.norm(x, p=float("-inf")), [1.0, -3.0, 2.0]),
    (lambda m, x: x ** m.tensor([0.0, 3.0, 2.0]), [0.0, 2.0, 0.0]),  # 0 ** 0: gradient 0, not nan
    (lambda m, x: x ** 0, [0.0, float("inf")]),
    (lambda m, x: x.cumsum(0), 3.0),
])
def test_gradients_at_the_edges_match_torch(torch, fn, data):
    _grads_match(torch, fn, data)


def test_cumsum_and_logsumexp_dtypes_match_torch(torch):
    for fn in (lambda m: m.cumsum(m.tensor([1, 2]), 0, dtype=m.float64), lambda m: m.cumsum(m.tensor([True, True]), 0),
               lambda m: m.cumsum(m.tensor([1, 2], dtype=m.int32), 0), lambda m: m.logsumexp(m.tensor([1, 2]), 0)):
        got, expected = fn(lg), fn(torch)
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_index_select_and_nonzero_of_a_zero_dim_tensor_match_torch(torch):
    out = []
    for m in (torch, lg):
        z = m.tensor(3.0, requires_grad=True)
        y = m.index_select(z, 0, m.tensor([0]))
        y.backward()
        out.append((tuple(y.shape), y.item(), y.grad_fn.name(), z.grad.item(),
                    tuple(m.nonzero(m.tensor(3.0)).shape), tuple(m.nonzero(m.tensor(0.0)).shape),
                    [t.tolist() for t in m.nonzero(m.tensor(3.0), as_tuple=True)]))
        with raises_exactly(RuntimeError, match="Index to scalar can have only 1 value"):
            m.index_select(z, 0, m.tensor([0, 0]))
    assert out[0] == out[1]


@pytest.mark.parametrize("which", ["max", "min"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_of_0dim_over_a_dim_records_torch_node(torch, which, dim, keepdim):
    out = []
    for lib in (torch, lg):
        x = lib.tensor(3.0, requires_grad=True)
        v, i = getattr(x, which)(dim, keepdim=keepdim)
        (v * 2).backward()
        out.append((v.grad_fn.name(), tuple(v.shape), i.item(), str(i.dtype), x.grad.item(), v.item()))
    assert out[1] == out[0]


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_over_a_dim_of_a_0d_tensor_second_order_matches_torch(name, keepdim):
    """The backward of max/min(dim) on a 0-d tensor is itself differentiable (it used to hand
    gather a 1-d index for a 0-d gradient)."""
    torch = pytest.importorskip("torch")
    got = {}
    for m in (torch, lg):
        s = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        v = getattr(m, name)(s * 3, 0, keepdim=keepdim)[0]
        (g,) = m.autograd.grad((v * v).sum(), s, create_graph=True)
        (gg,) = m.autograd.grad(g, s)
        got[m] = (v.item(), tuple(v.shape), g.item(), gg.item())
    assert got[lg] == got[torch]
