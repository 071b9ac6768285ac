"""Every op of the table against torch: values, dtypes, gradients, grad_fn names (float32 and float64)."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from opinfo import CASES

_ = pytest.importorskip


def _run(m, case, dtype_name, arrays):
    dt = getattr(m, dtype_name)
    xs = [m.tensor(a, dtype=dt, requires_grad=True) for a in arrays]
    out = case.fn(m, *xs)
    return xs, out


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_matches_torch(torch, case, dtype_name):
    arrays = case.inputs()
    txs, tout = _run(torch, case, dtype_name, arrays)
    lxs, lout = _run(leafgrad, case, dtype_name, arrays)
    assert lout.dtype.name == str(tout.dtype).split(".")[-1]
    assert tuple(lout.shape) == tuple(tout.shape)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype_name == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), **tol)
    assert lout.grad_fn.name() == tout.grad_fn.name()
    assert lout.is_leaf is tout.is_leaf and lout.requires_grad is tout.requires_grad
    g = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(g, dtype=tout.dtype))
    lout.backward(leafgrad.tensor(g, dtype=lout.dtype))
    for tx, lx in zip(txs, lxs):
        if tx.grad is None:
            assert lx.grad is None
        else:
            assert lx.grad.dtype.name == str(tx.grad.dtype).split(".")[-1]
            gtol = dict(rtol=1e-4, atol=1e-5) if dtype_name == "float32" else dict(rtol=1e-9, atol=1e-11)
            np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **gtol)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_next_functions_shape_matches_torch(torch, case):
    arrays = case.inputs()
    _, tout = _run(torch, case, "float64", arrays)
    _, lout = _run(leafgrad, case, "float64", arrays)

    def names(fn):
        return [None if n is None else n.name() for n, _ in fn.next_functions]
    assert names(lout.grad_fn) == names(tout.grad_fn)
