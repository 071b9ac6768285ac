"""fmax/fmin (nan ignored), clamp_min/clamp_max (ties), sign (nan, bool), rounded division and
floor_divide against torch: values, dtypes, grad_fn names, gradients and errors."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

NAN = float("nan")
A = [NAN, 1.0, 2.0, -3.0, 2.5]
B = [2.0, NAN, 2.0, -4.0, 3.0]


def _pair(torch, fn, *arrays):
    out = []
    for m in (torch, lg):
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        y = fn(m, *xs)
        y.sum().backward()
        out.append((y, [x.grad for x in xs]))
    return out


def _check(torch, fn, *arrays):
    (ty, tg), (ly, lg_) = _pair(torch, fn, *arrays)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    assert ly.grad_fn.name() == ty.grad_fn.name()
    for a, b in zip(lg_, tg):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name", ["fmax", "fmin", "maximum", "minimum"])
def test_elementwise_min_max_values_and_tie_gradients(torch, name):
    _check(torch, lambda m, x, y: getattr(m, name)(x, y), A, B)


@pytest.mark.parametrize("call", [
    lambda m, x, y: m.clamp_min(x, y), lambda m, x, y: m.clamp_max(x, y),
    lambda m, x, y: x.clamp_min(2.0) * y, lambda m, x, y: x.clamp_max(2.0) * y,
    lambda m, x, y: m.clamp(x, min=2.0) * y,
])
def test_clamp_one_side_names_and_gradients(torch, call):
    _check(torch, call, [1.0, 2.0, 3.0, NAN], [2.0, 2.0, 2.0, 1.0])


def test_clamp_one_side_promotes_an_integer_tensor_as_torch(torch):
    for fn in (lambda m: m.clamp_min(m.tensor([1, 2]), 0.5), lambda m: m.clamp_max(m.tensor([1, 2]), 1.5),
               lambda m: m.clamp_min(m.tensor([1, 2]), 2)):
        got, expected = fn(lg), fn(torch)
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_sign_of_nan_and_bool_and_abs_gradient_at_nan(torch):
    for m_data in ([NAN, -2.0, 0.0, 3.0], [True, False]):
        got, expected = lg.sign(lg.tensor(m_data)), torch.sign(torch.tensor(m_data))
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    _check(torch, lambda m, x: x.abs(), [NAN, -2.0, 3.0])


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounded_division_values_dtypes_and_zero_gradients(torch, mode):
    _check(torch, lambda m, x, y: m.div(x, y, rounding_mode=mode), [7.5, -7.5, 1.0, -1.0], [2.0, 2.0, -3.0, 0.0])
    for a, b in (([7, -7, 6, -6], 4), ([7, -7, 6, -6], -4), ([7, 5], 2.0), (7, [2, -2])):
        t = torch.div(torch.tensor(a) if isinstance(a, list) else a, torch.tensor(b) if isinstance(b, list) else b,
                      rounding_mode=mode)
        x = lg.div(lg.tensor(a) if isinstance(a, list) else a, lg.tensor(b) if isinstance(b, list) else b,
                   rounding_mode=mode)
        assert str(x.dtype) == str(t.dtype)
        np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_floor_divide_records_a_node_that_refuses_backward(torch):
    for m in (torch, lg):
        x = m.tensor([1.5, -2.5], requires_grad=True)
        y = x // 2
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        with raises_exactly(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
            y.sum().backward()


def test_integer_division_by_zero_raises_as_torch(torch):
    for m in (torch, lg):
        with raises_exactly(RuntimeError, match="ZeroDivisionError"):
            m.tensor([3, 4]) // 0
        with raises_exactly(RuntimeError, match="ZeroDivisionError"):
            m.div(m.tensor([3, 4]), m.tensor([1, 0]), rounding_mode="trunc")


def test_clamp_promotes_as_torch(torch):
    for fn in (lambda m: m.clamp(m.tensor([1, 2]), 0.5, 1.5), lambda m: m.clamp(m.tensor([1, 2]), min=0.5),
               lambda m: m.clamp(m.tensor([True, False]), min=-1.0), lambda m: m.clamp(m.tensor([1, 5]), 0, 3)):
        got, expected = fn(lg), fn(torch)
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_integer_powers_with_negative_exponents_match_torch(torch):
    a, b = [2, 1, -1, -1, 0, 3], [-1, -2, -3, -2, -1, 2]
    np.testing.assert_array_equal((lg.tensor(a) ** lg.tensor(b)).numpy(), (torch.tensor(a) ** torch.tensor(b)).numpy())
    np.testing.assert_array_equal(lg.pow(-1, lg.tensor([2, 3])).numpy(), torch.pow(-1, torch.tensor([2, 3])).numpy())
    for m in (torch, lg):
        with raises_exactly(RuntimeError, match="Integers to negative integer powers are not allowed"):
            m.tensor([2]) ** -1
