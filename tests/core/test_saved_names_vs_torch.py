"""``grad_fn._saved_<name>``: the same names, and the same values, as torch shows, op by op.

Learners read these attributes to see what an op keeps for backward, so the names follow
torch's (``dim``, not ``dims``; ``dim0``/``dim1``; ``indices``; ``ord``; ``exponent``)
and so do the forms of the values (prod's one dim as an int, amax over every dim as ``()``,
split's ``split_size``, a mean's ``self_sym_numel``, an expand's ``self_sym_sizes``).

Known differences, left out below: a negative dim (torch keeps it as given and its binding
reads it back as an unsigned 64-bit number; leafgrad keeps the dim it normalised), var/std
called with no arguments at all (torch shows correction None, leafgrad the 1 it used),
and ``2.0 ** t`` (torch also keeps the exponent tensor). gather's ``sparse_grad`` is not kept either.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

A = np.random.default_rng(0).standard_normal((3, 4))

CASES = {
    "sum_dim": lambda m, a: a.sum(1),
    "sum_dims_keepdim": lambda m, a: a.sum((0, 1), keepdim=True),
    "mean": lambda m, a: a.mean(),
    "mean_dim": lambda m, a: a.mean(0, keepdim=True),
    "prod": lambda m, a: a.prod(),
    "prod_dim": lambda m, a: a.prod(1),
    "max_dim": lambda m, a: a.max(1)[0],
    "min_dim": lambda m, a: a.min(1, keepdim=True)[0],
    "amax": lambda m, a: a.amax(1),
    "amax_all": lambda m, a: a.amax(),
    "amin_dims": lambda m, a: a.amin((0, 1)),
    "var_dim": lambda m, a: a.var(1),
    "var_biased": lambda m, a: a.var(unbiased=False),
    "var_correction": lambda m, a: a.var(correction=2),
    "std_dim": lambda m, a: a.std(0, correction=0),
    "logsumexp": lambda m, a: a.logsumexp(1),
    "norm": lambda m, a: a.norm(),
    "norm_p1_dim": lambda m, a: a.norm(p=1, dim=1),
    "vector_norm": lambda m, a: m.linalg.vector_norm(a, 3, dim=1),
    "transpose": lambda m, a: a.transpose(0, 1),
    "t": lambda m, a: a.t(),
    "cat": lambda m, a: m.cat([a, a], 1),
    "unbind": lambda m, a: a.unbind(1)[0],
    "pow_tensor": lambda m, a: a.abs() ** a,
    "to_float": lambda m, a: a.float(),
    "masked_fill": lambda m, a: a.masked_fill(a > 0, 1.5),
    "expand": lambda m, a: a[:1].expand(3, 4),
    "expand_new_dim": lambda m, a: a.expand(2, 3, 4),
    "split": lambda m, a: a.split(2, 1)[0],
    "split_sizes": lambda m, a: a.split([1, 3], 1)[0],
    "chunk": lambda m, a: a.chunk(2, 0)[1],
    "where": lambda m, a: m.where(a > 0, a, a * 2),
    "masked_select": lambda m, a: a.masked_select(a > 0),
    "mse_loss": lambda m, a: m.nn.functional.mse_loss(a, m.zeros(3, 4, dtype=m.float64)),
}


def _shown(v):
    if hasattr(v, "detach"):
        return ("tensor", np.asarray(v.detach().numpy()), str(v.dtype).split(".")[-1])
    return v


def _saved(m, case):
    a = m.tensor(A.copy(), requires_grad=True)
    fn = CASES[case](m, a).grad_fn
    names = sorted(n for n in dir(fn) if n.startswith("_saved_") and n != "_saved_names")
    return type(fn).__name__, {n: _shown(getattr(fn, n)) for n in names}


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_names_and_values_match_torch(case):
    t_name, t_vals = _saved(torch, case)
    l_name, l_vals = _saved(lg, case)
    assert l_name == t_name
    assert sorted(l_vals) == sorted(t_vals)
    for n, tv in t_vals.items():
        lv = l_vals[n]
        if isinstance(tv, tuple) and tv and tv[0] == "tensor":
            assert lv[0] == "tensor" and lv[2] == tv[2], n
            np.testing.assert_allclose(lv[1], tv[1], rtol=1e-12, err_msg=n)
        else:
            assert lv == tv and type(lv) is type(tv), (n, lv, tv)


@pytest.mark.parametrize("call", [
    lambda m, y: y.clamp_min_(0.0), lambda m, y: y.clamp_max_(0.5),
    lambda m, y: y.clamp_min_(m.tensor(0.0, dtype=m.float64)), lambda m, y: y.clamp_max_(m.tensor([0.0, 1.0, 2.0, 0.1]))])
def test_one_sided_inplace_clamps_record_torchs_nodes(call):
    got = {}
    for m in (torch, lg):
        x = m.tensor(A[0].copy(), requires_grad=True)
        y = x * 1
        call(m, y)
        y.sum().backward()
        got[m] = (type(y.grad_fn).__name__, sorted(n for n in dir(y.grad_fn) if n.startswith("_saved_")
                                                   and n != "_saved_names"), y.tolist(), x.grad.tolist())
    assert got[lg] == got[torch]
