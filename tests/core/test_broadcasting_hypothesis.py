"""Binary ops on hypothesis-drawn broadcastable shapes and dtypes: values, dtypes and gradients vs torch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import leafgrad

torch = pytest.importorskip("torch")

BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "maximum": lambda a, b: (a.maximum(b) if hasattr(a, "maximum") else None),
    "pow": lambda a, b: a.abs() ** b, "where": lambda a, b: (a * b).where(a > b, b),
}


@st.composite
def broadcast_pair(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    return shapes.input_shapes


@settings(max_examples=60, deadline=None)
@given(pair=broadcast_pair(), op=st.sampled_from(sorted(BINARY)), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**16))
def test_binary_broadcasting_matches_torch(pair, op, dtype, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) * rng.choice([-1, 1], s) for s in pair]
    outs = []
    for m in (torch, leafgrad):
        xs = [m.tensor(a, dtype=getattr(m, dtype), requires_grad=True) for a in arrays]
        out = BINARY[op](*xs)
        g = np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape))
        out.backward(m.tensor(g, dtype=out.dtype))
        outs.append((out, xs))
    (tout, txs), (lout, lxs) = outs
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    assert str(lout.dtype) == str(tout.dtype)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), **tol)
    assert lout.grad_fn.name() == tout.grad_fn.name()
    for tx, lx in zip(txs, lxs):
        assert tuple(lx.grad.shape) == tuple(tx.grad.shape)
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)


SCALARS = st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False).filter(lambda v: abs(v) > 0.1), st.booleans())
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]


@settings(max_examples=80, deadline=None)
@given(a=st.sampled_from(DTYPES), b=st.sampled_from(DTYPES), zero_dim=st.booleans(), scalar=SCALARS,
       op=st.sampled_from(["add", "mul", "div", "sub"]))
def test_promotion_matches_torch(a, b, zero_dim, scalar, op):
    fn = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y,
          "sub": lambda x, y: x - y}[op]
    results = []
    for m in (torch, leafgrad):
        x = m.ones(3, dtype=getattr(m, a))
        y = m.ones(() if zero_dim else 3, dtype=getattr(m, b))
        row = []
        for args in ((x, y), (x, scalar), (scalar, y)):
            try:
                row.append(str(fn(*args).dtype))
            except RuntimeError:
                row.append("RuntimeError")
        results.append(row)
    assert results[1] == results[0]
