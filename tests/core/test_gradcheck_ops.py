"""Finite-difference checks of every op's first and second derivatives (float64, no torch needed)."""
from __future__ import annotations

import pytest

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck
from opinfo import CASES


def _inputs(case):
    return [leafgrad.tensor(a, dtype=leafgrad.float64, requires_grad=True) for a in case.inputs(seed=3)]


FD_CASES = [c for c in CASES if c.fd]


@pytest.mark.parametrize("case", FD_CASES, ids=[c.name for c in FD_CASES])
def test_gradcheck(case):
    xs = _inputs(case)
    assert gradcheck(lambda *a: case.fn(leafgrad, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("case", [c for c in FD_CASES if c.double], ids=[c.name for c in FD_CASES if c.double])
def test_gradgradcheck(case):
    xs = _inputs(case)
    assert gradgradcheck(lambda *a: case.fn(leafgrad, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)
