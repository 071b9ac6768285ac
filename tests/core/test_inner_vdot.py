"""inner and vdot as torch has them: inner sums over the last dims at any rank (ViewBackward0 on
top, from its tensordot), vdot conjugates its first argument and records VdotBackward0."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg

RNG = np.random.default_rng(0)
DATA = {name: RNG.standard_normal(shape).astype(np.float32)
        for name, shape in {"a": (3,), "b": (3,), "A": (2, 3), "B": (4, 3), "C": (2, 2, 3)}.items()}
CASES = {
    "vdot": lambda L, t: L.vdot(t["a"], t["b"]),
    "Tensor.vdot": lambda L, t: t["a"].vdot(t["b"]),
    "inner of vectors": lambda L, t: L.inner(t["a"], t["b"]),
    "inner of matrices": lambda L, t: L.inner(t["A"], t["B"]),
    "inner 3-d with 2-d": lambda L, t: L.inner(t["C"], t["B"]),
    "inner vector with matrix": lambda L, t: L.inner(t["a"], t["A"]),
    "Tensor.inner": lambda L, t: t["B"].inner(t["C"]),
    "inner with a 0-dim tensor": lambda L, t: L.inner(t["A"], L.tensor(2.0, requires_grad=True)),
}
ERRORS = {
    "vdot of matrices": lambda L: L.vdot(L.ones(2, 2), L.ones(2, 2)),
    "vdot of different sizes": lambda L: L.vdot(L.ones(2), L.ones(3)),
    "vdot of different dtypes": lambda L: L.vdot(L.ones(2), L.ones(2, dtype=L.float64)),
    "inner with different last dims": lambda L: L.inner(L.ones(2, 3), L.ones(2, 4)),
    "inner with different dtypes": lambda L: L.inner(L.ones(2, 3), L.ones(2, 3, dtype=L.float64)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(torch, name):
    res = []
    for lib in (torch, lg):
        t = {k: lib.tensor(v, requires_grad=True) for k, v in DATA.items()}
        out = CASES[name](lib, t)
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        grads = {k: None if v.grad is None else v.grad.numpy() for k, v in t.items()}
        res.append((out, grads))
    (t_out, t_grads), (l_out, l_grads) = res
    assert l_out.grad_fn.name() == t_out.grad_fn.name() and tuple(l_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(l_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    for k in DATA:
        assert (l_grads[k] is None) == (t_grads[k] is None)
        if t_grads[k] is not None:
            np.testing.assert_allclose(l_grads[k], t_grads[k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch, name):
    with raises_exactly(RuntimeError) as t_info:
        ERRORS[name](torch)
    with raises_exactly(RuntimeError) as l_info:
        ERRORS[name](lg)
    assert str(l_info.value).startswith(str(t_info.value).split(". ")[0].rstrip("."))


def test_inner_of_integers_matches_torch(torch):
    out = [lib.inner(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)) for lib in (torch, lg)]
    assert str(out[1].dtype) == str(out[0].dtype) and out[1].tolist() == out[0].tolist()
