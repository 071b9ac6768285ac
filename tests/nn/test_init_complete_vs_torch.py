"""nn.init against torch's list: every public initialiser exists, sparse_ has torch's structure, and
the argument errors are torch's classes."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")

import leafgrad as lg  # noqa: E402
from leafgrad.nn import init  # noqa: E402


def test_every_public_initialiser_of_torch_exists():
    names = [n for n in dir(torch.nn.init) if not n.startswith("_") and callable(getattr(torch.nn.init, n))
             and getattr(torch.nn.init, n).__module__ == "torch.nn.init"]
    assert [n for n in names if not callable(getattr(init, n, None))] == []


@pytest.mark.parametrize("sparsity", [0.0, 0.3, 0.5, 1.0])
def test_sparse_zeros_per_column_and_scale(sparsity):
    w = lg.empty(40, 30)
    assert init.sparse_(w, sparsity, std=0.5) is w
    tw = torch.nn.init.sparse_(torch.empty(40, 30), sparsity, std=0.5)
    zl, zt = (w.numpy() == 0).sum(0), (tw.numpy() == 0).sum(0)
    np.testing.assert_array_equal(zl, zt)  # exactly ceil(sparsity * rows) zeros in every column
    assert (zl == math.ceil(sparsity * 40)).all()
    nz = w.numpy()[w.numpy() != 0]
    if nz.size > 200:
        assert abs(nz.std() - 0.5) < 0.1
    assert w.grad_fn is None and w.dtype == lg.float32


def test_sparse_on_a_parameter_is_not_recorded_and_deprecated_alias_warns():
    p = lg.nn.Parameter(lg.empty(5, 4))
    init.sparse_(p, 0.4)
    assert p.grad_fn is None and p.requires_grad
    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        init.sparse(lg.empty(3, 3), 0.5)
        init.eye(lg.empty(3, 3))
        init.dirac(lg.empty(2, 2, 3))
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.init.sparse(torch.empty(3, 3), 0.5)
        torch.nn.init.eye(torch.empty(3, 3))
        torch.nn.init.dirac(torch.empty(2, 2, 3))
    assert [(w.category, str(w.message)) for w in wl] == [(w.category, str(w.message)) for w in wt]


@pytest.mark.parametrize("call", [
    lambda I, m: I.sparse_(m.empty(3), 0.5),
    lambda I, m: I.sparse_(m.empty(2, 3, 4), 0.5),
    lambda I, m: I.eye_(m.empty(3)),
    lambda I, m: I.dirac_(m.empty(3, 3)),
    lambda I, m: I.dirac_(m.empty(3, 2, 3), groups=2),
    lambda I, m: I.xavier_uniform_(m.empty(3)),
    lambda I, m: I.kaiming_normal_(m.empty(3, 4), mode="fan_x"),
    lambda I, m: I.kaiming_uniform_(m.empty(0, 4)),
    lambda I, m: I.orthogonal_(m.empty(3)),
    lambda I, m: I.calculate_gain("leaky_relu", "a"),
    lambda I, m: I.calculate_gain("nope"),
])
def test_errors_are_torchs_classes(call):
    def outcome(I, m):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(I, m)
        except Exception as e:  # noqa: BLE001 - the class is the observation
            return type(e)
        return None
    expected = outcome(torch.nn.init, torch)
    got = outcome(init, lg)
    assert got is expected
