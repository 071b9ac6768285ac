"""The fast paths for tensor-by-number ops, relu and sigmoid give torch's results exactly.

Numbers are passed to NumPy as cached 0-d arrays of the tensor's dtype (see
``Backend.const``), so these tests pin what the cache must never change: the sign of
zero, NaN, repeated values, low-precision dtypes, integer dtypes, and the results of
later calls after a result was written in place.
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad._ops import pointwise as P

NUMBERS = [2.5, -0.0, 0.0, 0, 1, -3, float("nan"), float("inf"), 1e-30, 1e300, True]
OPS = {
    "mul": lambda t, c: t * c,
    "rmul": lambda t, c: c * t,
    "add": lambda t, c: t + c,
    "sub": lambda t, c: t - c,
    "div": lambda t, c: t / c,
}


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)
    assert (np.signbit(a) == np.signbit(b)).all()  # -0.0 stays -0.0


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "float16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_tensor_by_number_matches_torch(torch, op, dtype_name):
    data = np.array([1.5, -2.0, 0.0, 3.25], dtype=np.float64)
    numbers = [c for c in NUMBERS if not (op == "sub" and c is True)]  # (torch refuses bool subtraction)
    if dtype_name == "float16":  # torch computes half arithmetic in float32; NumPy rounds the number to half first
        numbers = [c for c in numbers if c != 1e-30 and c != 1e300]
    for c in numbers + numbers:  # twice: the second round reads the cache
        t = torch.tensor(data, dtype=getattr(torch, dtype_name))
        x = lg.tensor(data, dtype=getattr(lg, dtype_name))
        with np.errstate(all="ignore"):
            got = OPS[op](x, c)
        expected = OPS[op](t, c)
        assert str(got.dtype) == str(expected.dtype)
        _same(got.numpy(), expected.numpy())


def test_integer_tensor_by_integer_keeps_dtype(torch):
    for dt in ("int64", "int32", "int16"):
        t = torch.tensor([3, -4, 5], dtype=getattr(torch, dt))
        x = lg.tensor([3, -4, 5], dtype=getattr(lg, dt))
        for c in (7, 7, -2, True):
            _same((x * c).numpy(), (t * c).numpy())
            _same((x + c).numpy(), (t + c).numpy())


def test_gradient_of_number_ops_uses_the_number(torch):
    for c in (0.5, 0.5, -0.0, 3):
        t = torch.tensor([1.0, -2.0], requires_grad=True)
        x = lg.tensor([1.0, -2.0], requires_grad=True)
        ((t * c) / c if c else t * c).sum().backward()
        ((x * c) / c if c else x * c).sum().backward()
        _same(x.grad.numpy(), t.grad.numpy())
        assert x.grad_fn is None and (x * c).grad_fn.name() == "MulBackward0"
        assert (x * c).grad_fn._saved_other == c  # torch shows the Python number, not an array


def test_writing_a_result_in_place_does_not_change_later_results():
    x = lg.tensor([1.0, 2.0])
    y = x * 1.25
    y.mul_(100.0)
    y += 7.0
    np.testing.assert_array_equal((x * 1.25).numpy(), np.array([1.25, 2.5], dtype=np.float32))


def test_many_distinct_numbers_stay_correct():
    x = lg.tensor([1.0], dtype=lg.float64)
    for k in range(1, 2000):  # more numbers than the cache keeps: it starts over, results stay exact
        assert (x * (k / 7)).item() == 1.0 * (k / 7)


def test_relu_refuses_bool_and_keeps_integer_dtypes(torch):
    with raises_exactly(RuntimeError, match="Boolean inputs not supported for relu"):
        torch.relu(torch.tensor([True, False]))
    with raises_exactly(RuntimeError, match="Boolean inputs not supported for relu"):
        lg.relu(lg.tensor([True, False]))
    for dt in ("int8", "int64", "float16", "float64"):
        t = torch.relu(torch.tensor([-1, 0, 2], dtype=getattr(torch, dt)))
        x = lg.relu(lg.tensor([-1, 0, 2], dtype=getattr(lg, dt)))
        assert str(x.dtype) == str(t.dtype)
        _same(x.numpy(), t.numpy())
    nan = lg.relu(lg.tensor([float("nan"), -float("inf"), float("inf")]))
    _same(nan.numpy(), torch.relu(torch.tensor([float("nan"), -float("inf"), float("inf")])).numpy())


@pytest.mark.parametrize("with_scipy", [True, False])
@pytest.mark.parametrize("dtype_name", ["float32", "float64", "float16"])
def test_sigmoid_tails_match_torch(torch, monkeypatch, with_scipy, dtype_name):
    if not with_scipy:
        from leafgrad._backend import CPU
        monkeypatch.setitem(CPU._special, "expit", None)  # the NumPy formula used where SciPy is missing
    data = np.array([-1000.0, -100.0, -88.0, -20.0, -1.0, 0.0, 1e-8, 1.0, 20.0, 100.0, 1000.0])
    t = torch.tensor(data, dtype=getattr(torch, dtype_name), requires_grad=True)
    x = lg.tensor(data, dtype=getattr(lg, dtype_name), requires_grad=True)
    ts, xs = t.sigmoid(), x.sigmoid()
    assert str(xs.dtype) == str(ts.dtype)
    tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-15 if with_scipy else 1e-7}[dtype_name]
    np.testing.assert_allclose(xs.detach().numpy().astype(np.float64), ts.detach().numpy().astype(np.float64),
                               rtol=tol, atol=1e-30)
    ts.sum().backward()
    xs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy().astype(np.float64), t.grad.numpy().astype(np.float64),
                               rtol=tol, atol=1e-30)


def test_integer_number_out_of_range_wraps_as_torch(torch):
    for dt in ("int8", "int16", "int32"):
        t = torch.tensor([1, 50, -7], dtype=getattr(torch, dt))
        x = lg.tensor([1, 50, -7], dtype=getattr(lg, dt))
        for c in (300, -200, 70000, 2**40, -(2**40) - 3):
            for op in ("add", "sub", "mul"):
                _same(OPS[op](x, c).numpy(), OPS[op](t, c).numpy())
