"""Every op's backward formula is written against ``xp`` and so runs on raw arrays (issue 13).

The engine runs a formula on raw arrays when no graph of the backward is wanted, and the same
formula on Tensors under ``create_graph=True``. A formula still written on Tensors alone falls back
to a slower path; this test lists them so none is left behind.
"""
import numpy as np
import pytest

import leafgrad as torch
import leafgrad.nn.functional  # noqa: F401  (loads the nn ops too)
from leafgrad._ops.lazy import load_all
from leafgrad._ops.registry import ALL_OPS

load_all()  # (the rare op families too: ALL_OPS lists the loaded ones)


def test_every_op_formula_takes_an_array_namespace():
    legacy = sorted({op.name for op in ALL_OPS if not op.node_cls._raw})
    assert legacy == []


def test_plain_backward_runs_formulas_on_arrays_and_create_graph_on_tensors(monkeypatch):
    seen = []
    from leafgrad._ops import pointwise as P
    original = P.MUL.node_cls._formulas

    def spy(f):
        def g(xp, grad, *saved):
            seen.append((xp.tensors, type(grad).__name__))
            return f(xp, grad, *saved)
        return g

    monkeypatch.setattr(P.MUL.node_cls, "_formulas", tuple(spy(f) for f in original))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert seen == [(False, "ndarray"), (False, "ndarray")]
    seen.clear()
    x.grad = None
    (gx,) = torch.autograd.grad((x * x).sum(), x, create_graph=True)
    assert seen == [(True, "Tensor"), (True, "Tensor")]
    assert gx.grad_fn is not None
    np.testing.assert_array_equal(gx.detach().numpy(), [2.0, 4.0])


def test_hooks_and_retain_grad_see_tensors_in_a_plain_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    got = []
    y.register_hook(lambda g: got.append(type(g)) or g * 2)
    x.register_hook(lambda g: got.append(type(g)))
    y.sum().backward()
    assert got == [torch.Tensor, torch.Tensor]
    assert type(y.grad) is torch.Tensor and y.grad.tolist() == [2.0, 2.0]  # (torch: retain_grad sees the hooked value)
    assert x.grad.tolist() == [6.0, 6.0]
