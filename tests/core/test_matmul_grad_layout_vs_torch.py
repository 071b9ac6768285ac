"""The layout and graph of matrix-product gradients, compared with torch.

torch computes the gradient of ``mat1 @ mat2`` in a transposed ``mat2`` (``nn.Linear``'s
``weight.t()``) as ``(g^T mat1)^T``, so that the weight's gradient arrives contiguous; and a double
backward through mm records ``.t()`` nodes of its own. These tests pin what a user can observe of
both: ``.grad``'s strides, its values, and the node names of a ``create_graph`` gradient.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad


def _names(fn, depth: int = 0, out: list | None = None) -> list:
    """Node names of a graph, depth first, a few levels deep."""
    out = [] if out is None else out
    if fn is None or depth > 5:
        return out
    out.append(fn.name())
    for nxt, _ in fn.next_functions:
        _names(nxt, depth + 1, out)
    return out


def _inputs(m, with_x_grad: bool):
    w = m.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 7, requires_grad=True)
    b = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = m.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), requires_grad=with_x_grad)
    return w, b, x


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
def test_linear_weight_grad_is_contiguous_and_equal(torch, bias, x_grad):
    seen = {}
    for m in (torch, leafgrad):
        w, b, x = _inputs(m, x_grad)
        y = m.nn.functional.linear(x, w, b if bias else None)
        (y * y).sum().backward()
        seen[m.__name__] = (w.grad.stride(), w.grad.is_contiguous(), w.grad.numpy().copy(),
                            None if x.grad is None else x.grad.numpy().copy())
    t, lg = seen["torch"], seen["leafgrad"]
    assert lg[:2] == t[:2]
    np.testing.assert_allclose(lg[2], t[2], rtol=1e-6)
    assert (lg[3] is None) == (t[3] is None)
    if t[3] is not None:
        np.testing.assert_allclose(lg[3], t[3], rtol=1e-6)


def test_a_second_backward_accumulates_into_the_adopted_gradient(torch):
    """The first backward's gradient buffer is adopted as ``.grad``; the second adds into it in place."""
    seen = {}
    for m in (torch, leafgrad):
        w, b, x = _inputs(m, False)
        m.nn.functional.linear(x, w, b).sum().backward()
        first = w.grad
        kept = first.clone()
        (m.nn.functional.linear(x, w, b) ** 2).sum().backward()
        seen[m.__name__] = (w.grad is first, kept.numpy().copy(), w.grad.numpy().copy(), w.grad._version)
    t, lg = seen["torch"], seen["leafgrad"]
    assert lg[0] == t[0] and lg[3] == t[3]
    np.testing.assert_allclose(lg[1], t[1], rtol=1e-6)
    np.testing.assert_allclose(lg[2], t[2], rtol=1e-6)


@pytest.mark.parametrize("form", ["linear", "mm_transposed", "mm_plain", "addmm"])
def test_double_backward_graph_matches_torch(torch, form):
    seen = {}
    for m in (torch, leafgrad):
        w, b, x = _inputs(m, True)
        if form == "linear":
            y = m.nn.functional.linear(x, w, b)
        elif form == "mm_transposed":
            y = x.mm(w.t())
        elif form == "mm_plain":
            y = x.mm(w.t().contiguous())
        else:
            y = m.addmm(b, x, w.t(), beta=0.5, alpha=2.0)
        gw, gx = m.autograd.grad((y * y).sum(), (w, x), create_graph=True)
        names = (_names(gw.grad_fn), _names(gx.grad_fn))
        (gw.sum() + (gx * gx).sum()).backward()
        seen[m.__name__] = (names, gw.stride(), w.grad.numpy().copy(), x.grad.numpy().copy())
    t, lg = seen["torch"], seen["leafgrad"]
    assert lg[0] == t[0]
    assert lg[1] == t[1]
    np.testing.assert_allclose(lg[2], t[2], rtol=1e-5)
    np.testing.assert_allclose(lg[3], t[3], rtol=1e-5)
