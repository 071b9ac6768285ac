"""``out=`` on torch's top-level functions: written in place and returned, resized with torch's
warning, cast into out's dtype or refused, refused under autograd, as torch 2.13."""
from __future__ import annotations

import warnings

import pytest
from differential import same

torch = pytest.importorskip("torch")

CASES = [
    "m.add(a, b, out=m.empty(2))", "m.add(a, b, out=m.empty(0))", "m.add(a, b, out=m.empty(3, dtype=m.long))",
    "m.add(a, b, out=m.empty(3, dtype=m.float64))", "m.add(m.ones(3, dtype=m.long), 1, out=m.empty(3, dtype=m.long))",
    "m.add(ar, b, out=m.empty(3))", "m.add(a, b, out=m.empty(3, requires_grad=True))",
    "m.mm(m.ones(2, 3), m.ones(3, 2), out=m.empty(2, 2))", "m.sum(m.ones(2, 3), 1, out=m.empty(1))",
    "m.sum(m.ones(2, 3), dim=0, out=m.empty(3, dtype=m.long))", "m.exp(a, out=m.empty(3, dtype=m.long))",
    "m.cat([a, b], out=m.empty(6))", "m.cat([ar, b], out=m.empty(6))", "m.where(a > 0, a, b, out=m.empty(3))",
    "m.clamp(a, 0, 0.5, out=m.empty(3))", "m.add(a, b, out=a)", "m.matmul(m.ones(2, 3), m.ones(3), out=m.empty(2))",
    "m.stack([a, b], 1, out=m.empty(3, 2))", "m.mul(a, 3, out=m.empty(3))", "m.log(a, out=m.empty(3))",
    "m.mean(m.ones(2, 3), 0, out=m.empty(3))", "m.sub(a, b, out=m.empty(3))", "m.div(a, 2, out=m.empty(3))",
    "m.add(a, b, out=[1.0])",
]


@pytest.mark.parametrize("call", CASES)
def test_out_as_torch(call):
    def run(m):
        a, b = m.ones(3), m.arange(3.0)
        ar = m.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = eval(call, {"m": m, "a": a, "b": b, "ar": ar})
        return r, r._version, [str(w.message).split(". ")[0] for w in caught]
    same(torch, run)


def test_out_is_returned_and_written_under_no_grad():
    def run(m):
        ar = m.ones(3, requires_grad=True)
        out = m.zeros(3)
        v = m.zeros(6)[::2]
        with m.no_grad():
            r = m.mul(ar, 2, out=out)
            m.add(ar, 1, out=v)
        return r is out, out, out.requires_grad, out._version, v, v._base is not None
    same(torch, run)
