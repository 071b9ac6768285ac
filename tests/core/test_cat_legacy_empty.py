"""torch.cat skips legacy empty 1-d tensors of shape (0,) for the result, yet gives them a gradient.

They take part in type promotion, their position counts in errors, and backward fills
their ``.grad`` with an empty tensor (leafgrad used to leave it None).
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg


def _run(lib, first_empty: bool, dim: int):
    x = lib.ones(2, 3, requires_grad=True)
    e = lib.zeros(0, requires_grad=True)
    parts = [e, x] if first_empty else [x, e]
    y = lib.cat(parts, dim)
    (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
    return y, x.grad, e.grad


@pytest.mark.parametrize("first_empty", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_legacy_empty_gets_an_empty_gradient(torch, first_empty, dim):
    ty, tgx, tge = _run(torch, first_empty, dim)
    ly, lgx, lge = _run(lg, first_empty, dim)
    assert ly.shape == ty.shape and ly.grad_fn.name() == ty.grad_fn.name() == "CatBackward0"
    np.testing.assert_array_equal(lgx.numpy(), tgx.numpy())
    assert lge is not None and lge.shape == tge.shape == (0,)
    assert lge.dtype == lg.float32


def test_only_legacy_empties(torch):
    out = []
    for lib in (torch, lg):
        a, b = lib.zeros(0, requires_grad=True), lib.zeros(0, requires_grad=True)
        y = lib.cat([a, b])
        y.sum().backward()
        out.append((tuple(y.shape), tuple(a.grad.shape), tuple(b.grad.shape)))
    assert out[0] == out[1]


def test_legacy_empty_takes_part_in_promotion(torch):
    for lib in (torch, lg):
        assert str(lib.cat([lib.tensor([[1, 2]]), lib.tensor([])]).dtype) == "torch.float32"


@pytest.mark.parametrize("parts", ["scalar_first", "scalar_second"])
def test_zero_dim_position_in_error(torch, parts):
    msgs = []
    for lib in (torch, lg):
        ts = [lib.tensor(1.0), lib.tensor([])] if parts == "scalar_first" else [lib.tensor([]), lib.tensor(1.0)]
        with raises_exactly(RuntimeError) as info:
            lib.cat(ts)
        msgs.append(str(info.value))
    assert msgs[1].startswith(msgs[0])
