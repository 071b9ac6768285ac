"""layer_norm on plain float arrays runs as rows of a matrix (``_ops/norm_rows.py``): values, the input's,
weight's and bias's gradients and second gradients stay torch's, for trailing dims of any count,
with and without affine parameters, float32 and float64, and non-contiguous inputs."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

_CASES = [((8, 16, 64), (64,), True), ((5, 7, 6), (7, 6), True), ((3,), (3,), False), ((2, 3, 5), (3, 5), False),
          ((1, 4), (4,), True)]


def _run(lib, a, ns, affine, dtype, rng_seed, transpose):
    rng = np.random.default_rng(rng_seed)
    x = lib.tensor(a, requires_grad=True)
    def xin():
        return x.transpose(0, -1).contiguous().transpose(0, -1) if transpose else x  # (strided: not row-major)
    w = lib.tensor(rng.standard_normal(ns).astype(dtype), requires_grad=True) if affine else None
    b = lib.tensor(rng.standard_normal(ns).astype(dtype), requires_grad=True) if affine else None
    y = lib.nn.functional.layer_norm(xin(), ns, w, b, 1e-5)
    gy = lib.tensor(rng.standard_normal(a.shape).astype(dtype))
    leaves = [x] + ([w, b] if affine else [])
    first = lib.autograd.grad(y, leaves, gy, create_graph=True)
    second = [s if s is not None else lib.zeros(1) for s in
              lib.autograd.grad(sum((g * g).sum() for g in first), leaves, allow_unused=True)]
    plain = lib.autograd.grad(lib.nn.functional.layer_norm(xin(), ns, w, b, 1e-5), leaves, gy)
    return [t.detach().numpy() for t in (y, *first, *second, *plain)], y.grad_fn.name()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,ns,affine", _CASES)
def test_layer_norm_rows_vs_torch(dtype, shape, ns, affine):
    a = (np.random.default_rng(3).standard_normal(shape) * 2 + 3).astype(dtype)
    for transpose in (False, True):
        ours, our_name = _run(lg, a, ns, affine, dtype, 4, transpose)
        theirs, their_name = _run(torch, a, ns, affine, dtype, 4, transpose)
        assert our_name == their_name
        tol = 2e-4 if dtype == "float32" else 1e-10
        for o, t in zip(ours, theirs):
            assert o.dtype == t.dtype and o.shape == t.shape
            np.testing.assert_allclose(o, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape,perm,ns", [((4, 3), (1, 0), (4,)), ((4, 3, 2), (2, 1, 0), (4,)),
                                           ((4, 3, 2), (2, 1, 0), (3, 4)), ((5, 6), (1, 0), (5,))])
def test_layer_norm_of_a_permuted_input_is_contiguous_like_torch(dtype, shape, perm, ns):
    """torch's kernel reads its input as contiguous, so the output is contiguous whatever the input's
    layout; NumPy's element-wise steps would keep a transposed (column-major) layout instead."""
    a = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    got = []
    for lib in (lg, torch):
        x = lib.tensor(a).to(getattr(lib, dtype)).permute(*perm)
        y = lib.nn.functional.layer_norm(x, ns)
        got.append((tuple(y.stride()), y.is_contiguous(), y.float().numpy()))
    assert got[0][:2] == got[1][:2]
    tol = 2e-2 if dtype in ("float16", "bfloat16") else 1e-5
    np.testing.assert_allclose(got[0][2], got[1][2], rtol=tol, atol=tol)
