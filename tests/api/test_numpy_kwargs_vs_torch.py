"""NumPy's keyword spellings (``keepdims=``, ``axis=``) as torch's argument parser accepts them."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((3, 4))

CALLS = [
    "m.sum(x, axis=1, keepdims=True)", "x.sum(axis=(0, 1), keepdims=True)", "x.sum(1, keepdims=True)",
    "m.mean(x, axis=[0], keepdims=True)", "x.mean(axis=1)", "x.prod(axis=1, keepdims=True)",
    "m.amax(x, axis=1, keepdims=True)", "x.amin(1, keepdims=True)", "x.max(axis=1, keepdims=True)",
    "m.max(x, axis=0, keepdims=True)", "x.min(1, keepdims=True)", "m.min(x, axis=0)",
    "m.std(x, axis=1, keepdims=True)", "x.var(1, keepdims=True)", "m.var(x, 1, True, keepdims=True)",
    "m.logsumexp(x, axis=1, keepdims=True)", "x.logsumexp(1, keepdims=True)",
    "m.argmax(x, axis=1, keepdims=True)", "x.argmin(axis=0, keepdims=True)",
    "(x > 0).all(axis=1, keepdims=True)", "m.any(x > 0, 1, keepdims=True)", "m.count_nonzero(x > 0, axis=1)",
    "m.cumsum(x, axis=1)", "m.softmax(x, axis=1)", "m.log_softmax(x, axis=0)",
    "m.median(x, axis=1, keepdims=True)", "x.nanmedian(1, keepdims=True)", "m.kthvalue(x, 2, axis=1, keepdims=True)",
    "m.sort(x, axis=1)", "x.argsort(axis=0)", "m.topk(x, 2, axis=0)", "m.cummax(x, axis=1)",
    "m.cat([x, x], axis=1)", "m.stack([x, x], axis=1)", "x[None].squeeze(axis=0)", "x.unsqueeze(axis=0)",
    # both spellings at once: torch's TypeError, with its message where one signature has the name
    "m.sum(x, 1, keepdim=True, keepdims=True)", "x.mean(dim=1, axis=1)", "m.cat([x, x], dim=0, axis=0)",
    "m.topk(x, 2, dim=1, axis=1)", "x.unsqueeze(dim=0, axis=0)", "m.amax(x, dim=0, axis=0)",
    # torch.norm is Python code in torch: no aliases there
    "m.norm(x, dim=1, keepdims=True)",
]


@pytest.mark.parametrize("call", CALLS)
def test_numpy_spelling_as_torch(call):
    def run(m):
        x = m.tensor(X)
        return eval(call)
    same(torch, run)


def test_gradients_through_aliases():
    for m in (torch, lg):
        x = m.tensor(X, requires_grad=True)
        y = (x.sum(axis=1, keepdims=True) * x.std(axis=1, keepdims=True) + x.logsumexp(axis=0, keepdims=True)).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        if m is torch:
            ref = (g.detach().numpy(), gg.numpy())
        else:
            np.testing.assert_allclose(g.detach().numpy(), ref[0], rtol=1e-12)
            np.testing.assert_allclose(gg.numpy(), ref[1], rtol=1e-10, atol=1e-12)


# where torch chooses among overloads its message lists them; the class is still TypeError
@pytest.mark.parametrize("call", ["x.max(1, keepdim=True, keepdims=True)", "m.std(x, 1, keepdim=True, keepdims=True)",
                                  "x.sort(dim=1, axis=1)", "x.all(1, keepdim=True, keepdims=True)",
                                  "x.squeeze(dim=0, axis=0)", "m.count_nonzero(x, dim=0, axis=0)"])
def test_both_given_is_type_error(call):
    for m in (torch, lg):
        x = m.tensor(X)
        raises_exactly(TypeError, eval, call, {"m": m, "x": x})
