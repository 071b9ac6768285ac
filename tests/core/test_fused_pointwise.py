"""addcmul, addcdiv and lerp (functions, methods, in-place forms) against torch.

They are compositions of other ops in leafgrad, so the checks are on what a user sees:
values, dtypes, broadcasting, gradients (first and second order), version counters and
the errors torch raises.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import gradcheck, gradgradcheck


def _arrays(*shapes, seed=0, positive=()):
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(shapes):
        a = rng.standard_normal(shape)
        out.append(np.abs(a) + 0.5 if i in positive else a)  # keeps a divisor away from 0
    return out


# each case: (name, shapes of the tensor operands, call(module, *tensors), divisor positions)
CASES = [
    ("addcmul", ((3, 4), (3, 4), (3, 4)), lambda m, a, b, c: m.addcmul(a, b, c), ()),
    ("addcmul-value", ((3, 4), (3, 4), (3, 4)), lambda m, a, b, c: m.addcmul(a, b, c, value=-0.3), ()),
    ("addcmul-broadcast", ((4,), (3, 1), (1, 4)), lambda m, a, b, c: m.addcmul(a, b, c, value=2.0), ()),
    ("addcmul-method", ((2, 3), (2, 3), (3,)), lambda m, a, b, c: a.addcmul(b, c, value=0.5), ()),
    ("addcdiv", ((3, 4), (3, 4), (3, 4)), lambda m, a, b, c: m.addcdiv(a, b, c), (2,)),
    ("addcdiv-value", ((3, 4), (3, 4), (3, 4)), lambda m, a, b, c: m.addcdiv(a, b, c, value=-1.7), (2,)),
    ("addcdiv-broadcast", ((1, 4), (3, 1), (4,)), lambda m, a, b, c: m.addcdiv(a, b, c, value=0.25), (2,)),
    ("addcdiv-method", ((2, 3), (2, 3), (2, 3)), lambda m, a, b, c: a.addcdiv(b, c, value=3), (2,)),
    ("lerp-small-weight", ((3, 4), (3, 4)), lambda m, a, b: m.lerp(a, b, 0.1), ()),
    ("lerp-large-weight", ((3, 4), (3, 4)), lambda m, a, b: m.lerp(a, b, 0.9), ()),
    ("lerp-outside", ((3, 4), (3, 4)), lambda m, a, b: m.lerp(a, b, -1.5), ()),
    ("lerp-broadcast", ((4,), (3, 4)), lambda m, a, b: m.lerp(a, b, 0.6), ()),
    ("lerp-tensor-weight", ((3, 4), (3, 4), (3, 4)), lambda m, a, b, w: m.lerp(a, b, w), ()),
    ("lerp-0dim-weight", ((3, 4), (3, 4), ()), lambda m, a, b, w: a.lerp(b, w), ()),
]


def _run(m, case, dtype_name, seed=0):
    _, shapes, fn, positive = case
    dt = getattr(m, dtype_name)
    xs = [m.tensor(a, dtype=dt, requires_grad=True) for a in _arrays(*shapes, seed=seed, positive=positive)]
    return xs, fn(m, *xs)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(torch, case, dtype_name):
    txs, tout = _run(torch, case, dtype_name)
    lxs, lout = _run(lg, case, dtype_name)
    assert lout.dtype.name == str(tout.dtype).split(".")[-1]
    assert tuple(lout.shape) == tuple(tout.shape)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype_name == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), **tol)
    g = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(g, dtype=tout.dtype))
    lout.backward(lg.tensor(g, dtype=lout.dtype))
    for tx, lx in zip(txs, lxs):
        assert lx.grad.shape == tx.grad.shape
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_first_and_second_derivatives_by_finite_differences(case):
    xs, _ = _run(lg, case, "float64", seed=5)
    fn = case[2]
    assert gradcheck(lambda *a: fn(lg, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)
    assert gradgradcheck(lambda *a: fn(lg, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


# ----------------------------------------------------------------------------- in place
INPLACE = [
    ("addcmul_", lambda t, b, c: t.addcmul_(b, c, value=-0.5)),
    ("addcdiv_", lambda t, b, c: t.addcdiv_(b, c.abs() + 0.5, value=2.0)),
    ("lerp_", lambda t, b, c: t.lerp_(b, 0.7)),
    ("lerp_-tensor", lambda t, b, c: t.lerp_(b, c.sigmoid())),
]


@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_a_non_leaf_matches_torch(torch, name, fn):
    """Written into an intermediate: the gradient reaches the old value through the op."""
    arrays = _arrays((3, 4), (3, 4), (3, 4), seed=2)
    out = {}
    for m in (torch, lg):
        a, b, c = (m.tensor(x, requires_grad=True) for x in arrays)
        t = a * 1.5
        version = t._version
        returned = fn(t, b, c)
        assert returned is t and t._version > version
        (t * t).sum().backward()
        out[m.__name__] = [t.detach().numpy().copy()] + [None if x.grad is None else x.grad.numpy().copy()
                                                         for x in (a, b, c)]
    for got, want in zip(out["leafgrad"], out["torch"]):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_under_no_grad_writes_into_the_same_memory(name, fn):
    arrays = _arrays((3, 4), (3, 4), (3, 4), seed=4)
    p = lg.tensor(arrays[0], requires_grad=True)
    b, c = lg.tensor(arrays[1]), lg.tensor(arrays[2])
    view = p.detach()  # shares memory (and the version counter) with p
    expected = fn(lg.tensor(arrays[0]), b, c).numpy()
    with lg.no_grad():
        fn(p, b, c)
    np.testing.assert_array_equal(p.detach().numpy(), expected)
    np.testing.assert_array_equal(view.numpy(), expected)
    assert p.is_leaf and p.grad_fn is None and p._version == 1


def test_inplace_keeps_the_dtype_of_self(torch):
    for m in (torch, lg):
        t = m.ones(3)
        t.addcmul_(m.ones(3, dtype=m.float64), m.full((3,), 2.0, dtype=m.float64))
        assert str(t.dtype) == "torch.float32" and t.tolist() == [3.0, 3.0, 3.0]


# ----------------------------------------------------------------------------- dtypes and exact ends
def test_integer_addcmul_casts_the_value_like_torch(torch):
    for value in (2, 0.5):
        got = lg.addcmul(lg.tensor([1, 2]), lg.tensor([1, 2]), lg.tensor([3, 4]), value=value)
        want = torch.addcmul(torch.tensor([1, 2]), torch.tensor([1, 2]), torch.tensor([3, 4]), value=value)
        assert got.dtype == lg.int64 and got.tolist() == want.tolist()


def test_addcdiv_promotes_to_float_when_one_divisor_operand_is_float(torch):
    got = lg.addcdiv(lg.tensor([1, 2]), lg.tensor([3, 4]), lg.tensor([2.0, 8.0]))
    want = torch.addcdiv(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([2.0, 8.0]))
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()


def test_lerp_hits_both_ends_exactly():
    rng = np.random.default_rng(7)
    start, end = (lg.tensor(rng.standard_normal(1000).astype(np.float32)) for _ in range(2))
    np.testing.assert_array_equal(lg.lerp(start, end, 0.0).numpy(), start.numpy())
    np.testing.assert_array_equal(lg.lerp(start, end, 1.0).numpy(), end.numpy())
    ones = lg.ones(1000)
    np.testing.assert_array_equal(lg.lerp(start, end, ones).numpy(), end.numpy())


# ----------------------------------------------------------------------------- errors
def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e), str(e)
    raise AssertionError("no error raised")


@pytest.mark.parametrize("fn,prefix", [
    (lambda m: m.ones(2, requires_grad=True).addcmul_(m.ones(2), m.ones(2)),
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda m: m.ones(2, requires_grad=True).lerp_(m.ones(2), 0.5),
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda m: m.tensor(1.0).addcmul_(m.ones(2), m.ones(2)),
     "output with shape [] doesn't match the broadcast shape [2]"),
    (lambda m: m.tensor([1, 2]).addcdiv_(m.ones(2), m.ones(2)),
     "result type Float can't be cast to the desired output type Long"),
    (lambda m: m.addcdiv(m.tensor([1, 2]), m.tensor([1, 2]), m.tensor([1, 2])),
     "Integer division with addcdiv is no longer supported"),
    (lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
     "expected dtype float for `end` but got dtype double"),
    (lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64)),
     "expected dtype float for `weight` but got dtype double"),
    (lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5), "\"lerp_kernel_scalar\" not implemented for 'Long'"),
    (lambda m: m.addcmul(m.ones(2), m.ones(2), 2.0),
     "addcmul(): argument 'tensor2' (position 3) must be Tensor, not float"),
], ids=["leaf-addcmul_", "leaf-lerp_", "inplace-broadcast", "inplace-int", "int-addcdiv", "lerp-end-dtype",
        "lerp-weight-dtype", "lerp-int", "non-tensor"])
def test_errors_match_torch(torch, fn, prefix):
    t_type, t_msg = _error(lambda: fn(torch))
    l_type, l_msg = _error(lambda: fn(lg))
    assert l_type is t_type  # exactly torch's class, not a subclass
    assert t_msg.startswith(prefix) and l_msg.startswith(prefix), (t_msg, l_msg)
