"""cat's one-dtype case and arange's integer bounds skip type promotion's walk: the same results as torch.

``cat`` compares each tensor's shape outside the cat dim in one comparison per side and, when all
share one dtype, takes it without running type promotion; ``arange`` with plain int bounds and no
dtype is int64 without inferring it. The cases around those shortcuts, against torch.
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import same

A = np.arange(6, dtype=np.float32).reshape(2, 3)

CATS = {
    "same_dtype_dim1": lambda m: m.cat((m.tensor(A), m.tensor(A)), dim=1),
    "same_dtype_negative_dim": lambda m: m.cat([m.tensor(A), m.tensor(A[:1])], dim=-2),
    "int_and_float": lambda m: m.cat((m.tensor([[1, 2, 3]]), m.tensor(A)), dim=0),
    "float_and_double": lambda m: m.cat((m.tensor(A), m.tensor(A, dtype=m.float64)), dim=0),
    "bool_and_int": lambda m: m.cat((m.tensor([True, False]), m.tensor([3, 4]))),
    "legacy_empty_promotes": lambda m: m.cat((m.tensor(A), m.tensor([], dtype=m.float64)), dim=0),
    "size_mismatch": lambda m: m.cat((m.tensor(A), m.zeros(2, 4)), dim=0),
    "size_mismatch_late": lambda m: m.cat((m.tensor(A), m.tensor(A), m.zeros(3, 3)), dim=1),
    "rank_mismatch": lambda m: m.cat((m.tensor(A), m.zeros(3)), dim=0),
    "grad_through": lambda m: _cat_grad(m),
}


def _cat_grad(m):
    a = m.tensor(A, requires_grad=True)
    b = m.tensor(A[:, :1].copy(), requires_grad=True)
    y = m.cat((a, b), dim=1)
    (y * m.arange(8.0).reshape(2, 4)).sum().backward()
    return y, type(y.grad_fn).__name__, a.grad, b.grad


@pytest.mark.parametrize("case", sorted(CATS))
def test_cat_as_torch(torch, case):
    same(torch, CATS[case], exact=True)


ARANGES = ["16", "2, 9, 3", "5, 0, -2", "0", "True, 3", "0.5, 3", "3, dtype=m.float32", "m.tensor(4)",
           "m.tensor(2), 7", "1, 4, 0.5", "2**40, 2**40 + 3", "1, 0"]


@pytest.mark.parametrize("args", ARANGES)
def test_arange_as_torch(torch, args):
    same(torch, lambda m: eval(f"m.arange({args})", {"m": m}), exact=True)
