"""F.group_norm / F.instance_norm and GroupNorm / InstanceNorm1d/2d/3d against torch."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
import leafgrad.nn.functional as LF

sys.path.insert(0, str(Path(__file__).resolve().parent))  # torch_pairs, under any --import-mode
from torch_pairs import close as _close, pair, same_error  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(rng, *shape):
    return pair(torch, rng, *shape)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 4), 3), ((3, 4), 2), ((2, 4, 5), 1), ((2, 4, 5), 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_values_grads_second(shape, groups, affine):
    rng = np.random.default_rng(0)
    (tx, lx) = _pair(rng, *shape)
    (tw, lw), (tb, lb) = (_pair(rng, shape[1]), _pair(rng, shape[1])) if affine else ((None, None), (None, None))
    ty, ly = TF.group_norm(tx, groups, tw, tb), LF.group_norm(lx, groups, lw, lb)
    assert ly.grad_fn.name() == ty.grad_fn.name() == "NativeGroupNormBackward0"
    for name in ("N", "C", "HxW", "group", "eps"):
        assert getattr(ly.grad_fn, "_saved_" + name) == getattr(ty.grad_fn, "_saved_" + name)
    _close(ty.grad_fn._saved_result1, ly.grad_fn._saved_result1)
    _close(ty.grad_fn._saved_result2, ly.grad_fn._saved_result2)
    _close(ty, ly, 1e-10)
    g = rng.standard_normal(shape)
    tins, lins = ((tx, tw, tb), (lx, lw, lb)) if affine else ((tx,), (lx,))
    tg = torch.autograd.grad(ty, tins, torch.tensor(g), create_graph=True)
    lgr = lg.autograd.grad(ly, lins, lg.tensor(g), create_graph=True)
    for a, b in zip(tg, lgr):
        _close(a, b)
    t2 = torch.autograd.grad(sum((a ** 2).sum() for a in tg[:2]), tins[:2])
    l2 = lg.autograd.grad(sum((a ** 2).sum() for a in lgr[:2]), lins[:2])
    for a, b in zip(t2, l2):
        _close(a, b, 1e-7)


@pytest.mark.parametrize("call", ["groups", "weight", "ndim"])
def test_group_norm_errors(call):
    def run(m, F):
        x = m.randn(2, 4, 3)
        if call == "groups":
            return F.group_norm(x, 3)
        if call == "weight":
            return F.group_norm(x, 2, m.randn(3))
        return F.group_norm(m.randn(4), 2)
    same_error(run, torch, TF, LF, 30)


@pytest.mark.parametrize("stats", ["none", "running", "eval"])
def test_instance_norm_functional(stats):
    rng = np.random.default_rng(1)
    (tx, lx), (tw, lw), (tb, lb) = _pair(rng, 2, 3, 4, 5), _pair(rng, 3), _pair(rng, 3)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    trm, trv, lrm, lrv = (None,) * 4 if stats == "none" else (torch.tensor(rm), torch.tensor(rv), lg.tensor(rm),
                                                                 lg.tensor(rv))
    use = stats != "eval"
    ty = TF.instance_norm(tx, trm, trv, tw, tb, use, 0.2)
    ly = LF.instance_norm(lx, lrm, lrv, lw, lb, use, 0.2)
    _close(ty, ly, 1e-10)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    if stats != "none":
        _close(trm, lrm, 1e-12)
        _close(trv, lrv, 1e-12)
    g = rng.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, (tx, tw, tb), torch.tensor(g))
    lgr = lg.autograd.grad(ly, (lx, lw, lb), lg.tensor(g))
    for a, b in zip(tg, lgr):
        _close(a, b)


def test_instance_norm_errors():
    for m, F in ((torch, TF), (lg, LF)):
        with raises_exactly(ValueError):
            F.instance_norm(m.randn(2, 4, 1))
        with raises_exactly(RuntimeError):
            F.instance_norm(m.randn(2, 4, 3), use_input_stats=False)


def test_group_norm_module():
    for args, kw in (((2, 4), {}), ((2, 4), {"affine": False}), ((1, 4), {"bias": False, "eps": 1e-3})):
        a, b = lg.nn.GroupNorm(*args, **kw), torch.nn.GroupNorm(*args, **kw)
        assert repr(a) == repr(b)
        assert list(a.state_dict()) == list(b.state_dict())
        x = np.random.default_rng(2).standard_normal((2, 4, 3)).astype(np.float32)
        np.testing.assert_allclose(b(torch.tensor(x)).detach().numpy(), a(lg.tensor(x)).detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    for m in (torch.nn, lg.nn):
        with raises_exactly(ValueError):
            m.GroupNorm(3, 4)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", [{}, {"affine": True}, {"affine": True, "track_running_stats": True},
                                {"track_running_stats": True, "momentum": None}])
def test_instance_norm_module(nd, kw):
    name = f"InstanceNorm{nd}d"
    a, b = getattr(lg.nn, name)(3, **kw), getattr(torch.nn, name)(3, **kw)
    assert repr(a) == repr(b)
    assert list(a.state_dict()) == list(b.state_dict())
    rng = np.random.default_rng(3)
    for shape in ((2, 3) + (4,) * nd, (3,) + (4,) * nd):  # batched and unbatched
        x = rng.standard_normal(shape)
        a.train(), b.train()
        a.double(), b.double()
        _close(b(torch.tensor(x)), a(lg.tensor(x)), 1e-10)
        if kw.get("track_running_stats"):
            _close(b.running_mean, a.running_mean, 1e-12)
            _close(b.running_var, a.running_var, 1e-12)
            assert int(a.num_batches_tracked) == int(b.num_batches_tracked)
            a.eval(), b.eval()
            _close(b(torch.tensor(x)), a(lg.tensor(x)), 1e-10)


def test_instance_norm_module_channel_checks():
    for m in (torch, lg):
        with raises_exactly(ValueError):
            m.nn.InstanceNorm1d(3, affine=True)(m.randn(2, 4, 5))
        with raises_exactly(ValueError):
            m.nn.InstanceNorm1d(3)(m.randn(2, 4, 5, 6))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.nn.InstanceNorm1d(3)(m.randn(2, 4, 5))
        assert [x.category for x in w] == [UserWarning]
        assert str(w[0].message).startswith("input's size at dim=1 does not match num_features")


@pytest.mark.parametrize("shape,size", [((2, 5, 7), 3), ((2, 6, 3, 4), 4), ((1, 4, 2, 3, 2), 2)])
def test_local_response_norm(shape, size):
    rng = np.random.default_rng(5)
    tx, lx = _pair(rng, *shape)
    ty = TF.local_response_norm(tx, size, alpha=0.1, beta=0.6, k=2.0)
    ly = LF.local_response_norm(lx, size, alpha=0.1, beta=0.6, k=2.0)
    assert ly.grad_fn.name() == ty.grad_fn.name() == "DivBackward0"
    _close(ty, ly, 1e-10)
    tg = torch.autograd.grad(ty.sum(), tx, create_graph=True)[0]
    lgr = lg.autograd.grad(ly.sum(), lx, create_graph=True)[0]
    _close(tg, lgr)
    _close(torch.autograd.grad(tg.pow(2).sum(), tx)[0], lg.autograd.grad(lgr.pow(2).sum(), lx)[0], 1e-8)
    a, b = lg.nn.LocalResponseNorm(size, 0.1, 0.6, 2.0), torch.nn.LocalResponseNorm(size, 0.1, 0.6, 2.0)
    assert repr(a) == repr(b)
    for m in (torch, lg):
        with raises_exactly(ValueError):
            m.nn.functional.local_response_norm(m.randn(2, 3), 2)
