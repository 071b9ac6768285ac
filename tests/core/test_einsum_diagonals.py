"""einsum with a subscript repeated within one operand takes that diagonal, as torch does."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

EQUATIONS = [("ii", "A"), ("ii->i", "A"), ("iij->j", "B"), ("iji->j", "B"), ("iii->i", "B"), ("iii", "B"),
             ("ii,i->i", "Av"), ("ij,jj->i", "AA"), ("jii->ij", "B"), ("bii->b", "B")]


def _operands(lib, kinds):
    A = lib.arange(9.0).reshape(3, 3).requires_grad_()
    B = lib.arange(27.0).reshape(3, 3, 3).requires_grad_()
    v = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    table = {"A": (A,), "B": (B,), "Av": (A, v), "AA": (A, A)}
    return table[kinds]


@pytest.mark.parametrize("eq,kinds", EQUATIONS)
def test_repeated_subscripts_match_torch(torch, eq, kinds):
    res = []
    for lib in (torch, lg):
        ops = _operands(lib, kinds)
        out = lib.einsum(eq, *ops)
        (out * 1.5).sum().backward()
        res.append((out.detach().numpy(), [o.grad.numpy() for o in ops]))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-6)
    for lg_grad, t_grad in zip(res[1][1], res[0][1]):
        np.testing.assert_allclose(lg_grad, t_grad, rtol=1e-6)


def test_repeated_subscript_sizes_must_match(torch):
    msgs = []
    for lib in (torch, lg):
        with raises_exactly(RuntimeError) as info:
            lib.einsum("ii", lib.ones(2, 3))
        msgs.append(str(info.value))
    assert msgs[1].startswith(msgs[0].split(",")[0])
