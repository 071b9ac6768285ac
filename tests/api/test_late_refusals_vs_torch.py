"""Refusals found late, answered as torch answers them.

Activations on integer tensors: torch computes some (relu, hardtanh, sigmoid promotes) and has no
CPU kernel for the others (NotImplementedError naming the kernel); hardtanh refuses negative limits
on uint8 (RuntimeError). Recurrent layers refuse a sequence of no time steps."""
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


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_layer_refuses_an_empty_sequence(cls, batch_first):
    shape = (2, 0, 3) if batch_first else (0, 2, 3)
    try:
        getattr(torch.nn, cls)(3, 4, batch_first=batch_first)(torch.zeros(*shape))
        raise AssertionError("torch accepted an empty sequence")
    except RuntimeError as e:
        assert type(e) is RuntimeError
        want = str(e)
    with raises_exactly(RuntimeError) as got:
        getattr(leafgrad.nn, cls)(3, 4, batch_first=batch_first)(leafgrad.zeros(*shape))
    assert str(got.value).startswith(want)
