"""Integer powers with negative exponents, as torch computes them element by element.

A Python-number base with an integer tensor exponent used to reach NumPy's
``integers to negative integer powers`` ValueError; torch gives 1 for a base of 1,
alternating signs for -1 and 0 otherwise. A tensor raised to a negative Python int
still raises torch's RuntimeError.
"""
from __future__ import annotations

import pytest
from differential import raises_exactly

import leafgrad as lg

CASES = {
    "-1 ** int64": lambda L: L.pow(-1, L.tensor([-3, -2, -1, 0, 3])),
    "1 ** int64": lambda L: L.pow(1, L.tensor([-2, 3])),
    "2 ** int64": lambda L: L.pow(2, L.tensor([-2, 0, 3])),
    "0 ** int64": lambda L: L.pow(0, L.tensor([-2, 0, 3])),
    "True ** int64": lambda L: L.pow(True, L.tensor([-1, 2])),
    "-1 ** int32": lambda L: L.pow(-1, L.tensor([-3, 2], dtype=L.int32)),
    "3 ** uint8": lambda L: L.pow(3, L.tensor([2, 5], dtype=L.uint8)),
    "2 ** int64 operator": lambda L: 2 ** L.tensor([-1, 2]),
    "2.0 ** int64": lambda L: L.pow(2.0, L.tensor([-2, 3])),
    "int64 ** int64": lambda L: L.tensor([-1, 1, 2, 0]) ** L.tensor([-3, -2, -1, -1]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_powers_match_torch(torch, name):
    t, l = CASES[name](torch), CASES[name](lg)
    assert str(l.dtype) == str(t.dtype)
    assert l.tolist() == t.tolist()


@pytest.mark.parametrize("base", [[1, -1, 2], [True, False]])
def test_tensor_to_a_negative_int_raises_as_torch(torch, base):
    for lib in (torch, lg):
        with raises_exactly(RuntimeError, match="Integers to negative integer powers are not allowed"):
            lib.tensor(base) ** -1
