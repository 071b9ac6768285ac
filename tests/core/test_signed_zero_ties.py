"""Ties with a number bound keep the input, sign of zero included, as torch does at every size.

``relu(-0.0)`` is ``-0.0`` in torch, and so are ``clamp(-0.0, min=0.0)`` and
``clamp_min(-0.0, 0.0)``: on a tie torch keeps the input. NumPy's ``maximum`` returns its
second argument on a tie, so the input must be passed second. (Between two tensors torch's
answer depends on the tensor's size, its vector loop and its scalar tail disagree, so
``maximum``/``minimum`` of two tensors are not pinned here.)
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

VALUES = [-0.0, 0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan")]
CASES = {
    "relu": lambda L, x: L.relu(x),
    "Tensor.relu": lambda L, x: x.relu(),
    "clamp min 0": lambda L, x: L.clamp(x, min=0.0),
    "clamp min -0": lambda L, x: L.clamp(x, min=-0.0),
    "clamp max 0": lambda L, x: L.clamp(x, max=0.0),
    "clamp max -0": lambda L, x: L.clamp(x, max=-0.0),
    "clamp -0..0": lambda L, x: L.clamp(x, -0.0, 0.0),
    "clamp_min 0": lambda L, x: L.clamp_min(x, 0.0),
    "clamp_max -0": lambda L, x: L.clamp_max(x, -0.0),
    "relu_": lambda L, x: x.clone().relu_(),
    "clamp_": lambda L, x: x.clone().clamp_(min=0.0),
}


@pytest.mark.parametrize("size", [7, 1000])  # (torch's scalar tail and its vector loop)
@pytest.mark.parametrize("name", sorted(CASES))
def test_tie_keeps_the_input_as_torch(torch, name, size):
    data = np.resize(np.array(VALUES, np.float32), size)
    t = CASES[name](torch, torch.tensor(data)).numpy()
    got = CASES[name](lg, lg.tensor(data)).numpy()
    np.testing.assert_array_equal(got, t)
    finite = ~np.isnan(t)
    assert (np.signbit(got[finite]) == np.signbit(t[finite])).all()


def test_relu_gradient_at_negative_zero_matches_torch(torch):
    grads = []
    for lib in (torch, lg):
        x = lib.tensor([-0.0, 0.0, 2.0], requires_grad=True)
        lib.relu(x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
