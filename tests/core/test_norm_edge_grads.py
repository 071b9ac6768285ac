"""Vector-norm gradients at the edges, against torch: p=0 has none, an inf-norm that is nan gives 0."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

NAN = float("nan")


def test_p0_norm_has_no_gradient(torch):
    for lib in (torch, lg):
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        n = lib.norm(x, 0)
        assert n.grad_fn.name() == "LinalgVectorNormBackward0"
        n.backward()
        assert x.grad is None


def test_p0_norm_beside_another_use(torch):
    grads = []
    for lib in (torch, lg):
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        g, = lib.autograd.grad(lib.norm(x, 0) * 2.0 + (x * x).sum(), x)
        grads.append(g.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("p", [float("inf"), float("-inf")])
@pytest.mark.parametrize("dim", [None, 1])
def test_inf_norm_with_nan_and_ties_matches_torch(torch, p, dim):
    data = np.array([[1.0, NAN, 2.0], [3.0, -3.0, 1.0], [0.0, 0.0, 0.0]], np.float32)
    out = []
    for lib in (torch, lg):
        x = lib.tensor(data, requires_grad=True)
        n = lib.norm(x, p) if dim is None else lib.norm(x, p, dim=dim)
        n.sum().backward()
        out.append((n.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])
