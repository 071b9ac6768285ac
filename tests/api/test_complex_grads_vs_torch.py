"""Gradients of complex inputs follow torch's convention: each formula multiplies the incoming
gradient by the conjugate of the derivative (so ``|f(z)|``'s gradient points uphill in the plane)."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad

torch = pytest.importorskip("torch")

Z = [0.3 + 0.7j, -1.2 + 0.4j, 0.8 - 0.5j]
W = [0.5 + 0.1j, 1.5 - 0.2j, -0.7 + 0.3j]

UNARY = ["exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "atan",
         "square", "reciprocal", "prod"]


def _grad(m, fn, *values):
    xs = [m.tensor(v, dtype=m.complex128, requires_grad=True) for v in values]
    fn(m, *xs).abs().sum().backward()
    return [np.array(x.grad.tolist()) for x in xs]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    fn = lambda m, z: getattr(m, name)(z)  # noqa: E731
    for got, want in zip(_grad(leafgrad, fn, Z), _grad(torch, fn, Z)):
        np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("form", ["tensor ** number", "number ** tensor", "tensor ** tensor", "tensor / tensor", "prod with a zero"])
def test_binary_and_special(form):
    fn, vals = {
        "tensor ** number": (lambda m, z: z ** 2.5, (Z,)),
        "number ** tensor": (lambda m, z: 2.0 ** z, (Z,)),
        "tensor ** tensor": (lambda m, z, w: z ** w, (Z, W)),
        "tensor / tensor": (lambda m, z, w: z / w, (Z, W)),
        "prod with a zero": (lambda m, z: z.prod(), ([0j] + Z[1:],)),
    }[form]
    for got, want in zip(_grad(leafgrad, fn, *vals), _grad(torch, fn, *vals)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_real_inputs_unchanged():
    for name in ("exp", "log", "sin", "tanh", "sqrt"):
        a = torch.tensor([0.3, 1.7], dtype=torch.float64, requires_grad=True)
        b = leafgrad.tensor([0.3, 1.7], dtype=leafgrad.float64, requires_grad=True)
        getattr(torch, name)(a).sum().backward()
        getattr(leafgrad, name)(b).sum().backward()
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-14)
