"""Two things the differential harness checks beyond "close enough":

* ops whose result torch computes exactly (copies, indexing, comparisons, sort, integer arithmetic)
  agree with torch bit for bit, and integer results past 2**53 keep every bit;
* a call that fails leaves every object it touched as it was (values, versions, flags, .grad,
  optimizer groups), and fails with torch's class - the state after the failure is compared with
  torch's, not just the exception.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from differential import _Values, same, same_after_failure

# ---------------------------------------------------------------- the harness can fail


def test_integer_values_are_compared_bit_for_bit_past_two_to_the_53():
    big = np.array([2**53 + 1], dtype=np.int64)
    assert _Values(big, "int64") == _Values(big.copy(), "int64")
    assert _Values(big, "int64") != _Values(big - 1, "int64")  # equal as float64, not as int64
    assert _Values(big, "int64") != _Values(big.astype(np.int32), "int32")  # dtype counts


def test_exact_mode_tells_one_ulp_and_signed_zero_apart():
    a = np.array([1.0, 0.0, np.nan], dtype=np.float32)
    b = np.nextafter(a, np.float32(2))
    b[1:] = a[1:]
    assert _Values(a) == _Values(b)  # within float32's tolerance
    assert _Values(a, exact=True) != _Values(b, exact=True)
    neg = np.array([1.0, -0.0, np.nan], dtype=np.float32)
    assert _Values(a, exact=True) == _Values(neg, exact=True)  # -0.0 == 0.0, as == has it
    assert _Values(a, exact=True, signed_zero=True) != _Values(neg, exact=True, signed_zero=True)


# ---------------------------------------------------------------- exact results


EXACT_OPS = {
    "index": lambda m, x: x[m.tensor([2, 0, 2])],
    "mask": lambda m, x: x[x > 0],
    "cat": lambda m, x: m.cat([x, -x], 0),
    "where": lambda m, x: m.where(x > 0, x, -x),
    "sort": lambda m, x: m.sort(x, dim=0),
    "max": lambda m, x: x.max(dim=0),
    "clamp": lambda m, x: x.clamp(-0.5, 0.5),
    "abs_sign": lambda m, x: (x.abs(), x.sign()),
    "compare": lambda m, x: (x > 0.1, x == x, x.isnan()),
    "transpose_contiguous": lambda m, x: x.t().contiguous(),
}


@pytest.mark.parametrize("name", sorted(EXACT_OPS))
def test_exact_ops_are_bit_for_bit(torch, name):
    values = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    values[1, 2] = -0.0
    same(torch, lambda m: EXACT_OPS[name](m, m.tensor(values)), exact=True, signed_zero=True)


def test_int64_arithmetic_past_two_to_the_53_keeps_every_bit(torch):
    def run(m):
        x = m.tensor([2**53 + 1, -(2**62) + 3, 7], dtype=m.int64)
        return x + 2, x * 3, x // 2, x.cumsum(0), x.max()
    same(torch, run)


# ---------------------------------------------------------------- nothing half-changed


def _leaf(m):
    return m.tensor([1.0, -2.0, 3.0], requires_grad=True)


def _look_tensor(m, x):
    return x.detach().clone(), x._version, x.requires_grad, x.is_leaf, x.grad


FAILED_CALLS = {
    "in-place on a leaf that requires grad": (_leaf, lambda m, x: x.add_(1.0), _look_tensor),
    "in-place on a view of such a leaf": (_leaf, lambda m, x: x[:2].mul_(2.0), _look_tensor),
    "in-place, shapes that do not broadcast": (
        lambda m: m.zeros(3), lambda m, x: x.add_(m.ones(2)), _look_tensor),
    "in-place, broadcast would grow the output": (
        lambda m: m.zeros(3, 1), lambda m, x: x.add_(m.ones(1, 4)), _look_tensor),
    "in-place, result type cannot be cast": (
        lambda m: m.arange(3), lambda m, x: x.add_(1.5), _look_tensor),
    "copy_ from a shape that does not broadcast": (
        lambda m: m.zeros(2, 3), lambda m, x: x.copy_(m.ones(4)), _look_tensor),
    "requires_grad_ on an integer tensor": (
        lambda m: m.arange(3), lambda m, x: x.requires_grad_(), _look_tensor),
    "masked_fill_ with a mask that does not broadcast": (
        lambda m: m.ones(2, 3), lambda m, x: x.masked_fill_(m.tensor([True, False]), 0.0), _look_tensor),
}


@pytest.mark.parametrize("case", sorted(FAILED_CALLS))
def test_failed_call_leaves_the_tensor_as_it_was(torch, case):
    setup, fail, look = FAILED_CALLS[case]
    same_after_failure(torch, setup, fail, look)


def test_second_backward_without_retain_graph_keeps_the_first_gradient(torch):
    def setup(m):
        w = _leaf(m)
        loss = (w * w).sum()
        loss.backward()
        return w, loss

    def look(m, state):
        w, _ = state
        return w.grad, w._version, w.requires_grad

    same_after_failure(torch, setup, lambda m, s: s[1].backward(), look)


def test_non_scalar_backward_leaves_the_graph_usable(torch):
    def setup(m):
        w = _leaf(m)
        return w, w * 2.0

    def look(m, state):
        w, y = state
        before = w.grad
        y.sum().backward()  # the graph was not consumed by the failed call
        return before, w.grad

    same_after_failure(torch, setup, lambda m, s: s[1].backward(), look)


def test_duplicate_parameter_group_leaves_the_optimizer_as_it_was(torch):
    def setup(m):
        w = _leaf(m)
        return w, m.optim.SGD([w], lr=0.1)

    def look(m, state):
        _, opt = state
        return len(opt.param_groups), [g["lr"] for g in opt.param_groups], len(opt.param_groups[0]["params"])

    same_after_failure(torch, setup, lambda m, s: s[1].add_param_group({"params": [s[0]], "lr": 0.5}), look)
