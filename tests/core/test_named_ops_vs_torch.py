"""Ops that now record torch's own node (roll, triu, tril, take, view(dtype)) against torch, and
first and second derivatives of the ops rebuilt in this change by gradcheck / gradgradcheck."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad.autograd import gradcheck, gradgradcheck

CASES = {
    "roll-flat": lambda m, x: x.roll(1),
    "roll-dims": lambda m, x: x.roll((1, 2), (0, -1)),
    "roll-negative": lambda m, x: m.roll(x, -4, 1),
    "triu": lambda m, x: x.triu(1),
    "tril": lambda m, x: m.tril(x, -1),
    "take": lambda m, x: x.take(m.tensor([0, 5, 5, -1])),
    "masked_select": lambda m, x: m.masked_select(x, m.tensor([True, False, True, True])),
    "masked_select-method": lambda m, x: x.masked_select(x > 4),
    "scatter_add": lambda m, x: m.scatter_add(x, 1, m.tensor([[0, 0], [3, 1], [2, 2]]), x[:, 1:3] * 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_names_and_gradients_match_torch(torch, name):
    out = []
    for m in (torch, lg):
        x = m.arange(12.0).reshape(3, 4).requires_grad_()
        y = CASES[name](m, x)
        (y * m.arange(float(y.numel())).reshape(tuple(y.shape))).sum().backward()
        out.append((y, x.grad))
    (ty, tg), (ly, lgrad) = out
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    assert ly.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_array_equal(lgrad.numpy(), tg.numpy())


SECOND_ORDER = {
    **CASES,
    "scatter": lambda m, x: m.scatter(x, 1, m.tensor([[0, 1], [3, 2], [1, 0]]), x[:, :2] * 2),
    "fmax": lambda m, x: m.fmax(x, x.flip(0)),
    "clamp_min": lambda m, x: m.clamp_min(x * x, x.flip(1)),
    "std": lambda m, x: x.std(0),
    "pow": lambda m, x: (x * x + 1) ** x,
    "div-floor": lambda m, x: m.div(x, 0.7, rounding_mode="floor") + x,
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_first_and_second_derivatives(name):
    rng = np.random.default_rng(3)
    x = lg.tensor(rng.standard_normal((3, 4)) * 0.5 + 0.1, dtype=lg.float64, requires_grad=True)
    fn = lambda t: SECOND_ORDER[name](lg, t)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_view_as_another_dtype_reinterprets_bits_as_torch(torch):
    for src, dt in (([1.0, 2.0], "int32"), ([1.0, 2.0], "int16"), ([1.0, -2.0, 3.0, 4.0], "float64")):
        t = torch.tensor(src).view(getattr(torch, dt))
        x = lg.tensor(src).view(getattr(lg, dt))
        assert str(x.dtype) == str(t.dtype) and tuple(x.shape) == tuple(t.shape)
        np.testing.assert_array_equal(x.numpy(), t.numpy())
    base = lg.tensor([1.0, 2.0], requires_grad=True)
    v = base.view(lg.int32)
    assert not v.requires_grad and v.grad_fn is None
    plain = lg.tensor([1.0, 2.0])
    plain.view(lg.int32)[0] = 0  # the same memory
    assert plain.tolist() == [0.0, 2.0]
    for m in (torch, lg):
        with raises_exactly(RuntimeError, match="must be divisible by 2"):
            m.tensor([1.0, 2.0, 3.0]).view(m.float64)


FUSED = {
    "addcmul": lambda m, a, b, c: m.addcmul(a, b, c, value=2),
    "addcdiv": lambda m, a, b, c: m.addcdiv(a, b, c, value=0.5),
    "lerp-small": lambda m, a, b, c: m.lerp(a, b, 0.3),
    "lerp-large": lambda m, a, b, c: a.lerp(b, 0.7),
    "lerp-tensor": lambda m, a, b, c: m.lerp(a, b, c),
    "addcmul_": lambda m, a, b, c: (a * 1).addcmul_(b, c, value=-1.5),
    "addcdiv_": lambda m, a, b, c: (a * 1).addcdiv_(b, c),
    "lerp_": lambda m, a, b, c: (a * 1).lerp_(b, c),
}


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_updates_record_torchs_nodes(torch, name):
    out = []
    for m in (torch, lg):
        xs = [m.tensor(v, requires_grad=True) for v in ([1.0, 2.0, -1.0], [3.0, 4.0, 0.5], [0.5, 2.0, 0.9])]
        y = FUSED[name](m, *xs)
        y.sum().backward()
        out.append((y, [x.grad for x in xs]))
    (ty, tg), (ly, lgs) = out
    assert ly.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
    for a, b in zip(lgs, tg):
        assert (a is None) == (b is None)  # (a scalar weight leaves the third tensor unused)
        if b is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


@pytest.mark.parametrize("spec", [[1, 3], 3, (2, 5, 9), [3, 1], [-2], [5, -4], "tensor-indices", "tensor-sections"])
def test_tensor_split_matches_torch(torch, spec):
    out = []
    for m in (torch, lg):
        x = m.arange(7.0).requires_grad_()
        arg = m.tensor([2, 4]) if spec == "tensor-indices" else m.tensor(2) if spec == "tensor-sections" else spec
        pieces = m.tensor_split(x, arg)
        sum((p * (i + 1)).sum() for i, p in enumerate(pieces)).backward()
        out.append(([p.tolist() for p in pieces], [p.grad_fn.name() for p in pieces], x.grad.tolist()))
    assert out[0] == out[1]
    for m in (torch, lg):
        with raises_exactly(RuntimeError, match="number of sections must be larger than 0"):
            m.tensor_split(m.arange(3.0), 0)
