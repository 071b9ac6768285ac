"""remainder (``%``, the divisor's sign) and fmod (the dividend's sign) against torch: values,
dtypes, grad_fn names of both overloads, gradients, and division by zero."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

A = [-3.0, 5.5, -7.25, 0.0, 4.0]
B = [2.0, -2.0, 3.0, -1.5, 0.75]


def _both(torch, fn, *arrays, dtype="float64", grad=True):
    out = []
    for m in (torch, lg):
        ts = [m.tensor(a, dtype=getattr(m, dtype), requires_grad=grad) for a in arrays]
        out.append((ts, fn(m, *ts)))
    return out


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_values_names_and_gradients_match_torch(torch, name):
    calls = {
        "tensor-tensor": lambda m, x, y: getattr(m, name)(x, y),
        "tensor-number": lambda m, x, y: getattr(m, name)(x, 2.5) * y,
        "method": lambda m, x, y: getattr(x, name)(y),
    }
    for kind, fn in calls.items():
        (tx, tout), (lx, lout) = _both(torch, fn, A, B)
        np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
        assert lout.grad_fn.name() == tout.grad_fn.name(), kind
        tout.sum().backward()
        lout.sum().backward()
        for t, leaf in zip(tx, lx):
            np.testing.assert_allclose(leaf.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_operator_and_integer_dtypes_match_torch(torch):
    for dt in ("int64", "int32", "int8"):
        t = torch.tensor([-3, 5, -7, 8], dtype=getattr(torch, dt))
        x = lg.tensor([-3, 5, -7, 8], dtype=getattr(lg, dt))
        for other in (2, -3, 300):
            for got, expected in ((x % other, t % other), (lg.fmod(x, other), torch.fmod(t, other))):
                assert str(got.dtype) == str(expected.dtype)
                np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal((7 % lg.tensor([3, 4])).numpy(), (7 % torch.tensor([3, 4])).numpy())
    got, expected = lg.tensor([3, 4]) % 2.5, torch.tensor([3, 4]) % 2.5
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_allclose(got.numpy(), expected.numpy())


def test_division_by_zero_matches_torch(torch):
    with raises_exactly(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([3, 4]) % 0
    with raises_exactly(RuntimeError, match="ZeroDivisionError"):
        lg.tensor([3, 4]) % 0
    with raises_exactly(RuntimeError, match="ZeroDivisionError"):
        lg.fmod(lg.tensor([3, 4]), lg.tensor([1, 0]))
    with np.errstate(all="raise"):  # a float divisor of zero gives nan silently, as torch
        got = (lg.tensor([1.0, -2.0]) % 0).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan((torch.tensor([1.0, -2.0]) % 0).numpy()))


def test_number_remainder_tensor_records_torchs_not_implemented_node(torch):
    for m in (torch, lg):
        x = m.tensor([1.5, 2.5], requires_grad=True)
        y = 2 % x
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with raises_exactly(RuntimeError, match="derivative for aten::remainder is not implemented"):
            y.sum().backward()
    np.testing.assert_array_equal((7 % lg.tensor([3.0, -4.0])).numpy(), (7 % torch.tensor([3.0, -4.0])).numpy())


def test_broadcast_tensors_returns_a_tensor_of_the_broadcast_shape_itself(torch):
    for m in (torch, lg):
        a = m.ones(2, 3, requires_grad=True) * 1
        b = m.ones(3, requires_grad=True)
        x, y = m.broadcast_tensors(a, b)
        assert x is a and y.grad_fn.name() == "ExpandBackward0"
