"""torch's top-level forms of nn.functional functions (``torch.selu``, ``torch.cosine_similarity``,
...) exist in leafgrad too, with torch's values, recorded nodes and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

X = np.random.default_rng(3).standard_normal((3, 4))
Y = np.random.default_rng(4).standard_normal((3, 4))

CALLS = {
    "selu": lambda m, x, y: m.selu(x * 1),
    "selu_": lambda m, x, y: m.selu_(x * 1),
    "celu": lambda m, x, y: m.celu(x * 1, 0.5),
    "celu_": lambda m, x, y: m.celu_(x * 1, alpha=2.0),
    "hardshrink": lambda m, x, y: m.hardshrink(x * 1, 0.3),
    "threshold": lambda m, x, y: m.threshold(x * 1, 0.1, 20.0),
    "threshold_": lambda m, x, y: m.threshold_(x * 1, 0.1, -1.0),
    "relu_": lambda m, x, y: m.relu_(x * 1),
    "cosine_similarity": lambda m, x, y: m.cosine_similarity(x, y),
    "cosine_similarity_dim0": lambda m, x, y: m.cosine_similarity(x, y, 0, 1e-6),
    "pairwise_distance": lambda m, x, y: m.pairwise_distance(x, y),
    "pairwise_distance_p1": lambda m, x, y: m.pairwise_distance(x, y, 1.0, 1e-6, True),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_toplevel_alias_matches_torch(name):
    got = {}
    for m in (torch, lg):
        x = m.tensor(X.copy(), requires_grad=True)
        y = m.tensor(Y.copy(), requires_grad=True)
        out = CALLS[name](m, x, y)
        out.sum().backward()
        got[m] = (out.detach().numpy().copy(), type(out.grad_fn).__name__, x.grad.numpy().copy(),
                  None if y.grad is None else y.grad.numpy().copy())
    np.testing.assert_allclose(got[lg][0], got[torch][0], rtol=1e-12, atol=1e-14)
    assert got[lg][1] == got[torch][1]
    np.testing.assert_allclose(got[lg][2], got[torch][2], rtol=1e-10, atol=1e-12)
    assert (got[lg][3] is None) == (got[torch][3] is None)
    if got[lg][3] is not None:
        np.testing.assert_allclose(got[lg][3], got[torch][3], rtol=1e-10, atol=1e-12)


def test_unknown_name_still_raises_attribute_error():
    with pytest.raises(AttributeError):
        lg.no_such_function  # noqa: B018
