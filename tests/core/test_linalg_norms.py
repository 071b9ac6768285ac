"""torch.linalg.vector_norm / matrix_norm / norm against torch: values, dtypes, nodes, gradients, errors."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

INF = float("inf")
A = [[1.0, -2.0], [3.0, 4.0]]
B = [[[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]], [[0.0, 1.0, 2.0], [-5.0, 1.0, 1.0]]]
V = [3.0, -4.0]

CASES = {
    "vector_norm": lambda L, a, b, v: L.linalg.vector_norm(a),
    "vector_norm ord 1 dim 1": lambda L, a, b, v: L.linalg.vector_norm(a, 1, dim=1),
    "vector_norm ord inf keepdim": lambda L, a, b, v: L.linalg.vector_norm(b, INF, dim=(0, 2), keepdim=True),
    "vector_norm ord 3": lambda L, a, b, v: L.linalg.vector_norm(v, 3),
    "vector_norm dtype float64": lambda L, a, b, v: L.linalg.vector_norm(a, dtype=L.float64),
    "norm": lambda L, a, b, v: L.linalg.norm(a),
    "norm of a 3-d tensor": lambda L, a, b, v: L.linalg.norm(b),
    "norm of a vector": lambda L, a, b, v: L.linalg.norm(v),
    "norm of a vector, ord 1": lambda L, a, b, v: L.linalg.norm(v, 1),
    "norm fro": lambda L, a, b, v: L.linalg.norm(a, "fro"),
    "norm inf over dim 1": lambda L, a, b, v: L.linalg.norm(a, INF, dim=1),
    "norm ord 1 over dims (1, 2)": lambda L, a, b, v: L.linalg.norm(b, 1, dim=(1, 2)),
}
for _o in ("fro", 1, -1, INF, -INF):
    CASES[f"matrix_norm {_o}"] = lambda L, a, b, v, o=_o: L.linalg.matrix_norm(a, o)
    CASES[f"matrix_norm {_o}, batched"] = lambda L, a, b, v, o=_o: L.linalg.matrix_norm(b, o)
    CASES[f"matrix_norm {_o}, dim (0, 2), keepdim"] = lambda L, a, b, v, o=_o: L.linalg.matrix_norm(
        b, o, dim=(0, 2), keepdim=True)
    CASES[f"matrix_norm {_o}, dim (2, 0)"] = lambda L, a, b, v, o=_o: L.linalg.matrix_norm(b, o, dim=(2, 0))

ERRORS = {
    "vector_norm with a string ord": (lambda L: L.linalg.vector_norm(L.tensor(A), "fro"), TypeError),
    "vector_norm of int64, even with dtype": (lambda L: L.linalg.vector_norm(L.tensor([1, 2]), dtype=L.float64),
                                              RuntimeError),
    "matrix_norm of a vector": (lambda L: L.linalg.matrix_norm(L.tensor(V)), RuntimeError),
    "norm fro of a vector": (lambda L: L.linalg.norm(L.tensor(V), "fro"), RuntimeError),
    "norm with ord of a 3-d tensor": (lambda L: L.linalg.norm(L.ones(2, 2, 2), 1), RuntimeError),
}


def _run(lib, case):
    a, b, v = (lib.tensor(x, requires_grad=True) for x in (A, B, V))
    out = case(lib, a, b, v)
    out.sum().backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in (a, b, v)]
    return out, grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_norm_matches_torch(torch, name):
    t_out, t_grads = _run(torch, CASES[name])
    l_out, l_grads = _run(lg, CASES[name])
    assert str(l_out.dtype) == str(t_out.dtype) and tuple(l_out.shape) == tuple(t_out.shape)
    assert l_out.grad_fn.name() == t_out.grad_fn.name()
    np.testing.assert_allclose(l_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6)
    for lgr, tgr in zip(l_grads, t_grads):
        assert (lgr is None) == (tgr is None)
        if tgr is not None:
            np.testing.assert_allclose(lgr, tgr, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_norm_errors_match_torch(torch, name):
    case, cls = ERRORS[name]
    with pytest.raises(cls) as t_info:
        case(torch)
    with pytest.raises(cls) as l_info:
        case(lg)
    opening = str(t_info.value).split(". ")[0].rstrip(".")
    assert str(l_info.value).startswith(opening)


def test_singular_value_norms_match_torch(torch):
    # (more cases, with gradients, in test_linalg_decomp_vs_torch.py)
    for ord_ in (2, -2, "nuc"):
        t = torch.linalg.norm(torch.tensor(A), ord_)
        lv = lg.linalg.norm(lg.tensor(A), ord_)
        np.testing.assert_allclose(lv.numpy(), t.numpy(), rtol=1e-6)
