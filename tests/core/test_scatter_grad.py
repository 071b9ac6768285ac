"""scatter with a src tensor or a number records torch's nodes and gradients."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg


def _run(m, src_shape, value=None):
    x = m.zeros(2, 4, requires_grad=True)
    idx = m.tensor([[0, 1, 2], [3, 2, 1]])
    w = m.arange(8.0).reshape(2, 4)
    if value is None:
        src = m.arange(1.0, 1.0 + int(np.prod(src_shape))).reshape(*src_shape).requires_grad_()
        y = m.scatter(x, 1, idx, src)
        (y * w).sum().backward()
        return y, x.grad, src.grad
    y = x.scatter(1, idx, value)
    (y * w).sum().backward()
    return y, x.grad, None


@pytest.mark.parametrize("src_shape,value", [((2, 3), None), (None, 5.0)])
def test_scatter_matches_torch(torch, src_shape, value):
    (ty, tx, ts), (ly, lx, ls) = _run(torch, src_shape, value), _run(lg, src_shape, value)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    assert ly.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_array_equal(lx.numpy(), tx.numpy())
    if ts is not None:
        np.testing.assert_array_equal(ls.numpy(), ts.numpy())


def test_scatter_refuses_mixed_dtypes_and_float_index(torch):
    for m in (torch, lg):
        x, idx = m.zeros(2, 2), m.tensor([[0], [1]])
        with raises_exactly(RuntimeError):
            m.scatter(x, 1, idx, m.ones(2, 1, dtype=m.float64))
        with raises_exactly(RuntimeError):
            m.scatter(x, 1, idx.float(), 1.0)


def test_src_larger_than_index_refuses_backward_as_torch(torch):
    for m in (torch, lg):
        with raises_exactly(RuntimeError, match="returned an invalid gradient at index 1"):
            _run(m, (2, 4))


@pytest.mark.parametrize("op", ["gather", "scatter_add", "scatter_src", "scatter_value", "scatter_multiply"])
def test_zero_dim_tensors_match_torch(op):
    """torch reads a 0-d tensor as one of size 1 along dim 0: every gather/scatter takes one."""
    torch = pytest.importorskip("torch")
    import warnings

    got = {}
    for m in (torch, lg):
        base = m.tensor(1.5, dtype=m.float64, requires_grad=True)
        src = m.tensor(-2.0, dtype=m.float64, requires_grad=True)
        idx = m.tensor(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (scatter's reduce= is deprecated in both)
            out = {"gather": lambda: (base * 2).gather(0, idx),
                   "scatter_add": lambda: (base * 1).scatter_add(0, idx, src),
                   "scatter_src": lambda: (base * 1).scatter(0, idx, src),
                   "scatter_value": lambda: (base * 1).scatter(0, idx, 4.0),
                   "scatter_multiply": lambda: (base * 1).scatter(0, idx, src, reduce="multiply")}[op]()
        try:
            out.backward()
            refused = None
        except RuntimeError as e:  # (scatter with reduce= has no derivative in torch)
            refused = str(e).split(".")[0].split(" (")[0]  # (the opening words torch users search for)
        got[m] = (out.item(), out.dim(), type(out.grad_fn).__name__, refused,
                  None if base.grad is None else base.grad.item(), None if src.grad is None else src.grad.item())
    assert got[lg] == got[torch]
