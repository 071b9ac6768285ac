"""floor/ceil/round/trunc are differentiable (zero gradient) as in torch, 0-dim results of
elementwise predicates are usable tensors, and an integer tensor written from a float tensor
that requires grad does not start requiring grad."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

DATA = [1.5, -2.5, 0.5, -0.5, 2.0, float("inf")]
ROUNDING = {
    "floor": lambda m, x: x.floor(),
    "ceil": lambda m, x: m.ceil(x),
    "trunc": lambda m, x: m.trunc(x),
    "round": lambda m, x: x.round(),
    "round-decimals": lambda m, x: m.round(x * 1.2345, decimals=2),
}


@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_values_names_and_zero_gradients_match_torch(torch, name):
    t = torch.tensor(DATA, requires_grad=True)
    x = lg.tensor(DATA, requires_grad=True)
    tout, lout = ROUNDING[name](torch, t), ROUNDING[name](lg, x)
    np.testing.assert_array_equal(lout.detach().numpy(), tout.detach().numpy())
    assert lout.grad_fn.name() == tout.grad_fn.name()
    tout.sum().backward()
    lout.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())  # zeros, also at inf


def test_rounding_integer_and_bool_inputs_match_torch(torch):
    for name in ("floor", "ceil", "trunc", "round"):
        t, x = torch.tensor([3, -2]), lg.tensor([3, -2])
        got, expected = getattr(x, name)(), getattr(t, name)()
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
        with pytest.raises(NotImplementedError):
            getattr(torch.tensor([True]), name)()
        with pytest.raises(NotImplementedError):
            getattr(lg.tensor([True]), name)()


def test_zero_dim_elementwise_results_are_usable_tensors(torch):
    for fn in (lambda m, z: z.floor() + 1, lambda m, z: z.isnan().sum(), lambda m, z: m.isinf(z) | True,
               lambda m, z: m.isfinite(z).sum(), lambda m, z: m.logical_not(z > 0).sum(), lambda m, z: z.round() * 2,
               lambda m, z: (~(z > 0)).sum()):
        got, expected = fn(lg, lg.tensor(2.5)), fn(torch, torch.tensor(2.5))
        assert tuple(got.shape) == tuple(expected.shape)
        assert got.item() == expected.item()


def test_integer_tensor_copied_from_grad_tensor_does_not_require_grad(torch):
    for m in (torch, lg):
        a = m.zeros(2, dtype=m.int64)
        a.copy_(m.tensor([1.5, 2.5], requires_grad=True))
        assert a.requires_grad is False and a.grad_fn is None
        assert a.tolist() == [1, 2]
    b = lg.zeros(2)
    b.copy_(lg.tensor([1.5, 2.5], requires_grad=True))
    assert b.grad_fn.name() == torch.zeros(2).copy_(torch.tensor([1.0, 2.0], requires_grad=True)).grad_fn.name()


@pytest.mark.parametrize("call", [
    lambda m: m.tensor([True]).add_(2), lambda m: m.tensor([True]).mul_(2), lambda m: m.tensor([True]).pow_(2),
    lambda m: m.tensor([1]).clamp_(-1.0, 1.0), lambda m: m.tensor([1]).clamp_max_(0.5), lambda m: m.tensor([1]).add_(1.5),
    lambda m: m.tensor([True]).clamp_(0, 1), lambda m: m.tensor([1.0]).add_(1j),
])
def test_in_place_results_that_cannot_be_cast_back_raise_as_torch(torch, call):
    with raises_exactly(RuntimeError, match="can't be cast to the desired output type"):
        call(torch)
    with raises_exactly(RuntimeError, match="can't be cast to the desired output type"):
        call(lg)


def test_in_place_results_that_can_be_cast_back_are_written(torch):
    for call in (lambda m: m.tensor([True]).add_(True), lambda m: m.tensor([3]).clamp_(0, 1),
                 lambda m: m.tensor([1.5]).add_(2), lambda m: m.tensor([2]).mul_(True)):
        assert call(lg).tolist() == call(torch).tolist()
