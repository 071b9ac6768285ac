"""The backward's fast cases give torch's gradients exactly.

A tensor-by-number op's backward multiplies (or divides) the gradient by the saved Python
number as a cached 0-d array of the gradient's dtype (``ArrayNamespace.conj`` with ``like``):
these tests pin what that must never change, bit for bit: the sign of zero, NaN, infinities,
integers past float32's and float64's exact range, complex gradients, the second read of the
cache. relu's backward is torch's threshold_backward (a positive zero where the result is
<= 0, whatever the gradient holds there). ``_apply_two`` runs add/sub (one saved value, their alpha) in one frame: alpha's
gradients are checked too, and the refusals of a second backward through such nodes.
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

NUMBERS = [1.0001, 0.1, 3, -7, 2**24 + 1, 2**53, 2**53 + 1, 2**60, -0.0, 0.0, 0, float("nan"), float("inf"),
           -float("inf"), 1e-45, 1e300, True, 1 + 2j]
OPS = {
    "mul": lambda t, c: t * c,
    "rmul": lambda t, c: c * t,
    "div": lambda t, c: t / c,
}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.dtype, a.shape, a.view(np.uint8).tobytes()


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("shape", [(), (3,)])
def test_gradient_of_tensor_by_number_is_torch_bit_for_bit(torch, op, dtype_name, shape):
    data = np.array([1.5, -2.25, 3.1][:int(np.prod(shape))], dtype=np.float64).reshape(shape)
    for c in NUMBERS + NUMBERS:  # twice: the second round reads the cache
        if c.__class__ is complex and dtype_name != "complex64":
            continue  # (a complex number makes a real tensor's result complex: another op's backward)
        t = torch.tensor(data, dtype=getattr(torch, dtype_name), requires_grad=True)
        x = lg.tensor(data, dtype=getattr(lg, dtype_name), requires_grad=True)
        weight = np.array(0.37, dtype=np.float64)
        OPS[op](t, c).backward(torch.full(shape, float(weight), dtype=getattr(torch, dtype_name)))
        OPS[op](x, c).backward(lg.full(shape, float(weight), dtype=getattr(lg, dtype_name)))
        assert _bits(x.grad.numpy()) == _bits(t.grad.numpy()), (op, c)


def test_chain_of_number_ops_in_float16_and_bfloat16_keeps_its_values(torch):
    for dt in ("float16", "bfloat16"):
        t = torch.tensor([1.5, -2.0, 0.75], dtype=getattr(torch, dt), requires_grad=True)
        x = lg.tensor([1.5, -2.0, 0.75], dtype=getattr(lg, dt), requires_grad=True)
        ((t * 1.0001) / 3 * 7).sum().backward()
        ((x * 1.0001) / 3 * 7).sum().backward()
        np.testing.assert_array_equal(x.grad.float().numpy(), t.grad.float().numpy())


@pytest.mark.parametrize("alpha", [1, 2, -0.5])
def test_add_and_sub_alpha_gradients(torch, alpha):
    for name in ("add", "sub"):
        ta, tb = (torch.tensor([1.0, -2.0], requires_grad=True) for _ in range(2))
        xa, xb = (lg.tensor([1.0, -2.0], requires_grad=True) for _ in range(2))
        getattr(torch, name)(ta, tb, alpha=alpha).mul(torch.tensor([3.0, 5.0])).sum().backward()
        getattr(lg, name)(xa, xb, alpha=alpha).mul(lg.tensor([3.0, 5.0])).sum().backward()
        np.testing.assert_array_equal(xa.grad.numpy(), ta.grad.numpy())
        np.testing.assert_array_equal(xb.grad.numpy(), tb.grad.numpy())


def test_second_backward_through_number_ops_is_refused(torch):
    for lib in (torch, lg):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = ((x * 3.0) + 1.0).sum()
        y.backward()
        with raises_exactly(RuntimeError, match="Trying to backward through the graph a second time"):
            y.backward()


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "float16", "bfloat16"])
def test_relu_gradient_is_torch_threshold_backward(torch, dtype_name):
    # torch gives a positive 0 wherever the result is <= 0, whatever the gradient holds there (a
    # negative number, NaN), and passes the gradient where the result is NaN
    data = [-1.0, 2.0, 0.0, -3.0, float("nan"), -0.0, 1e-30, -float("inf"), float("inf")]
    grad = [-1.0, -2.0, float("nan"), float("nan"), 5.0, -1.0, -0.0, 3.0, -0.0]
    got = []
    for lib in (torch, lg):
        x = lib.tensor(data, dtype=getattr(lib, dtype_name), requires_grad=True)
        x.relu().backward(lib.tensor(grad, dtype=getattr(lib, dtype_name)))
        got.append(x.grad.float().numpy())
    assert _bits(got[1]) == _bits(got[0])
    # twice, accumulating (the second round reads the cached zero)
    t = torch.tensor([[-1.0, 0.5], [2.0, -0.0]], requires_grad=True)
    x = lg.tensor([[-1.0, 0.5], [2.0, -0.0]], requires_grad=True)
    for _ in range(2):
        (t.relu() * -2.0).sum().backward()
        (x.relu() * -2.0).sum().backward()
        assert _bits(x.grad.numpy()) == _bits(t.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_backward_on_large_arrays_is_torch_bit_for_bit(torch, dtype):
    """From 1024 elements relu's backward masks the gradient's bits (branch-free, as fast as a product):
    a positive 0 where the result is <= 0 whatever the gradient holds, the gradient where it is > 0 or NaN."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 40)).astype(dtype)
    g = rng.standard_normal((64, 40)).astype(dtype)
    a[0, :4], g[0, :4] = [-0.0, 0.0, np.nan, -1.0], [-2.0, 3.0, -0.5, np.nan]
    a[1, 0], g[1, 0] = -1.0, -2.0
    grads = []
    for lib in (lg, torch):
        x = lib.tensor(a, requires_grad=True)
        x.relu().backward(lib.tensor(g))
        grads.append(x.grad.numpy())
    assert grads[0].dtype == grads[1].dtype
    assert np.array_equal(grads[0].view(np.uint8), grads[1].view(np.uint8))
