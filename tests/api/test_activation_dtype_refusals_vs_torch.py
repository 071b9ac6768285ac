"""Activations on integer tensors: torch computes some (relu, hardtanh, sigmoid promotes) and has no
CPU kernel for the others (NotImplementedError naming the kernel); hardtanh refuses negative limits
on uint8 (RuntimeError). leafgrad answers the same way."""
from __future__ import annotations

import pytest

import leafgrad
from differential import raises_exactly

torch = pytest.importorskip("torch")

NAMES = ["relu", "elu", "selu", "celu", "hardtanh", "relu6", "leaky_relu", "softplus", "hardswish",
         "hardsigmoid", "mish", "silu", "tanhshrink", "softsign", "logsigmoid", "sigmoid", "tanh",
         "hardshrink", "softshrink", "gelu"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_input_as_torch(name, dtype):
    data = [1, 2, 0]
    try:
        want = getattr(torch.nn.functional, name)(torch.tensor(data, dtype=getattr(torch, dtype)))
    except (NotImplementedError, RuntimeError) as e:
        opening = str(e).split(":")[0]
        with raises_exactly(type(e)) as info:
            getattr(leafgrad.nn.functional, name)(leafgrad.tensor(data, dtype=getattr(leafgrad, dtype)))
        assert str(info.value).startswith(opening)
        return
    got = getattr(leafgrad.nn.functional, name)(leafgrad.tensor(data, dtype=getattr(leafgrad, dtype)))
    assert str(got.dtype) == str(want.dtype)
    assert got.tolist() == pytest.approx(want.tolist(), rel=1e-6)


def test_float_inputs_unchanged():
    x = torch.tensor([-1.5, 0.25, 3.0], requires_grad=True)
    y = leafgrad.tensor([-1.5, 0.25, 3.0], requires_grad=True)
    for name in ("gelu", "silu", "leaky_relu", "softplus", "logsigmoid"):
        a = getattr(torch.nn.functional, name)(x)
        b = getattr(leafgrad.nn.functional, name)(y)
        assert b.tolist() == pytest.approx(a.tolist(), rel=1e-6)
        assert b.grad_fn.name() == a.grad_fn.name()
