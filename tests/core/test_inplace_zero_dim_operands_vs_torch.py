"""In-place ops with a 0-dim operand of a wider dtype compute in the tensor's dtype, as torch's
type promotion says (a 0-dim float64 operand does not widen a float32 tensor), bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad

VALUES = [1.1, 0.3, 1 / 3, 7.77, -2.5e-3]


@pytest.mark.parametrize("op", ["mul_", "add_", "sub_", "div_"])
@pytest.mark.parametrize("other_dtype", ["float64", "float16"])
def test_zero_dim_operand_bit_for_bit(torch, op, other_dtype):
    a = np.random.default_rng(0).standard_normal(500).astype(np.float32)
    for v in VALUES:
        t = torch.tensor(a.copy())
        lg = leafgrad.tensor(a.copy())
        getattr(t, op)(torch.tensor(v, dtype=getattr(torch, other_dtype)))
        getattr(lg, op)(leafgrad.tensor(v, dtype=getattr(leafgrad, other_dtype)))
        assert lg.dtype == leafgrad.float32
        assert lg.numpy().tobytes() == t.numpy().tobytes(), (op, v)
        # and the same as the out-of-place form, which already promoted this way
        out = getattr(leafgrad.tensor(a.copy()), op[:-1])(leafgrad.tensor(v, dtype=getattr(leafgrad, other_dtype)))
        assert out.numpy().tobytes() == lg.numpy().tobytes()


def test_zero_dim_operand_with_grad_matches_torch(torch):
    def run(m):
        w = m.tensor([0.5, -1.25, 3.0], requires_grad=True)
        y = w * 1.0
        s = m.tensor(0.1, dtype=m.float64, requires_grad=True)
        y.mul_(s)
        y.sum().backward()
        return y.detach().numpy().tobytes(), w.grad.numpy().tobytes(), s.grad.dtype, float(s.grad)
    assert run(leafgrad)[:2] == run(torch)[:2]
    assert str(run(leafgrad)[2]) == str(run(torch)[2])
    assert run(leafgrad)[3] == pytest.approx(run(torch)[3], rel=1e-6)
