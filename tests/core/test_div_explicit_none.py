"""``div(a, b, rounding_mode=None)`` passed explicitly is torch's div.Tensor_mode: DivBackward2.

Omitting the keyword records DivBackward0; passing it, even as None, records DivBackward2,
whose gradients are true division's for None and zero for 'floor' and 'trunc'.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

MODES = {"omitted": {}, "None": {"rounding_mode": None}, "floor": {"rounding_mode": "floor"},
         "trunc": {"rounding_mode": "trunc"}}


def _run(lib, kw, scalar: bool, method: bool):
    a = lib.tensor([1.0, -7.0, 2.5], requires_grad=True)
    b = 2.0 if scalar else lib.tensor([3.0, 2.0, -0.5], requires_grad=True)
    y = a.div(b, **kw) if method else lib.div(a, b, **kw)
    (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    return y, a.grad, (None if scalar else b.grad)


@pytest.mark.parametrize("method", [False, True])
@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_node_values_and_gradients_match_torch(torch, mode, scalar, method):
    ty, tga, tgb = _run(torch, MODES[mode], scalar, method)
    ly, lga, lgb = _run(lg, MODES[mode], scalar, method)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(lga.numpy(), tga.numpy(), rtol=1e-6)
    if tgb is not None:
        np.testing.assert_allclose(lgb.numpy(), tgb.numpy(), rtol=1e-6)


def test_explicit_none_on_integers_is_true_division(torch):
    for lib in (torch, lg):
        r = lib.div(lib.tensor([1, 2]), lib.tensor([2, 2]), rounding_mode=None)
        assert str(r.dtype) == "torch.float32" and r.tolist() == [0.5, 1.0]


def test_explicit_none_double_backward_matches_torch(torch):
    out = []
    for lib in (torch, lg):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = lib.tensor([3.0, 4.0], requires_grad=True)
        g, = lib.autograd.grad(lib.div(x, d, rounding_mode=None).pow(2).sum(), x, create_graph=True)
        gx, gd = lib.autograd.grad(g.sum(), (x, d))
        out.append((gx.detach().numpy(), gd.detach().numpy()))
    for a, b in zip(out[0], out[1]):
        np.testing.assert_allclose(b, a, rtol=1e-6)
