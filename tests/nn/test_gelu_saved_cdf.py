"""Exact GELU keeps its normal CDF for the backward (a hidden output): values, first and second
gradients and the node's visible saved values stay torch's."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_values_gradients_and_second_gradients_vs_torch(dtype, approximate):
    a = (np.random.default_rng(1).standard_normal((6, 7)) * 3).astype(dtype)
    results = []
    for lib in (lg, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.gelu(x, approximate=approximate)
        plain, = lib.autograd.grad((y * y).sum(), x, retain_graph=True)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        second, = lib.autograd.grad((g * g).sum(), x)
        results.append([t.detach().numpy() for t in (y, plain, g, second)] + [y.grad_fn.name()])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ours, theirs in zip(results[0][:4], results[1][:4]):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    assert results[0][4] == results[1][4] == "GeluBackward0"


def test_gelu_saved_values_are_torchs():
    a = np.linspace(-2, 2, 5, dtype=np.float32)
    nodes = [lib.nn.functional.gelu(lib.tensor(a, requires_grad=True)).grad_fn for lib in (lg, torch)]
    names = [sorted(n for n in dir(node) if n.startswith("_saved_") and n != "_saved_names") for node in nodes]
    assert names[0] == names[1] == ["_saved_approximate", "_saved_self"]
    assert nodes[0]._saved_approximate == nodes[1]._saved_approximate == "none"
    np.testing.assert_array_equal(nodes[0]._saved_self.detach().numpy(), a)


def test_gelu_without_grad():
    with lg.no_grad():
        y = lg.nn.functional.gelu(lg.tensor([0.5, -1.0]))
    assert y.grad_fn is None and tuple(y.shape) == (2,)
    np.testing.assert_allclose(y.numpy(), torch.nn.functional.gelu(torch.tensor([0.5, -1.0])).numpy(), rtol=1e-6)
