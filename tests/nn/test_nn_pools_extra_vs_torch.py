"""1-d, adaptive-max, Lp pooling and max un-pooling (functional and modules) against torch."""
import sys
from pathlib import Path

import numpy as np
import pytest

import leafgrad as lg
import leafgrad.nn.functional as LF

sys.path.insert(0, str(Path(__file__).resolve().parent))  # torch_pairs, under any --import-mode
from torch_pairs import close as _close, pair, same_error  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [
    ("max_pool1d", (2, 3, 9), (3, 2), {}),
    ("max_pool1d", (2, 3, 9), (3, 2), {"return_indices": True, "padding": 1, "ceil_mode": True}),
    ("max_pool1d", (3, 9), (3, 1), {"dilation": 2}),
    ("avg_pool1d", (2, 3, 9), (3, 2), {"padding": 1, "count_include_pad": False, "ceil_mode": True}),
    ("avg_pool1d", (3, 9), (4,), {"padding": 2}),
    ("adaptive_avg_pool1d", (2, 3, 9), (4,), {}),
    ("adaptive_avg_pool1d", (2, 3, 9), (1,), {}),
    ("adaptive_max_pool1d", (2, 3, 9), (4,), {"return_indices": True}),
    ("adaptive_max_pool2d", (2, 3, 7, 9), ((3, 4),), {"return_indices": True}),
    ("adaptive_max_pool2d", (3, 7, 9), ((None, 4),), {}),
    ("adaptive_max_pool2d", (1, 2, 4, 4), (8,), {}),
]


@pytest.mark.parametrize("name,shape,args,kw", CASES)
def test_pool_values_grads_indices(name, shape, args, kw):
    rng = np.random.default_rng(0)
    tx, lx = pair(torch, rng, *shape)
    ty, ly = getattr(TF, name)(tx, *args, **kw), getattr(LF, name)(lx, *args, **kw)
    if kw.get("return_indices"):
        np.testing.assert_array_equal(ty[1].numpy(), ly[1].numpy())
        assert ly[1].dtype == lg.int64
        ty, ly = ty[0], ly[0]
    assert tuple(ly.shape) == tuple(ty.shape)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    assert [f.name() for f, _ in ly.grad_fn.next_functions if f] == [f.name() for f, _ in
                                                                     ty.grad_fn.next_functions if f]
    _close(ty, ly, 1e-10)
    g = rng.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)[0]
    lgr = lg.autograd.grad(ly, lx, lg.tensor(g), create_graph=True)[0]
    _close(tg, lgr)
    # second order: the pool's backward is linear in g
    tgo, lgo = torch.tensor(g, requires_grad=True), lg.tensor(g, requires_grad=True)
    tz = getattr(TF, name)(tx, *args, **kw)
    lz = getattr(LF, name)(lx, *args, **kw)
    tz, lz = (tz[0], lz[0]) if kw.get("return_indices") else (tz, lz)
    t2 = torch.autograd.grad(torch.autograd.grad(tz, tx, tgo, create_graph=True)[0].pow(2).sum(), tgo)[0]
    l2 = lg.autograd.grad(lg.autograd.grad(lz, lx, lgo, create_graph=True)[0].pow(2).sum(), lgo)[0]
    _close(t2, l2)


@pytest.mark.parametrize("name,args", [("lp_pool2d", (2, 3)), ("lp_pool2d", (3.0, (2, 3), 1)),
                                       ("lp_pool1d", (2, 3)), ("lp_pool1d", (1.5, 2, 1, True))])
def test_lp_pool(name, args):
    rng = np.random.default_rng(1)
    a = np.abs(rng.standard_normal((2, 3, 6, 7) if name == "lp_pool2d" else (2, 3, 8))) + 0.1
    tx, lx = torch.tensor(a, requires_grad=True), lg.tensor(a, requires_grad=True)
    ty, ly = getattr(TF, name)(tx, *args), getattr(LF, name)(lx, *args)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    _close(ty, ly, 1e-10)
    tg = torch.autograd.grad(ty.sum(), tx, create_graph=True)[0]
    lgr = lg.autograd.grad(ly.sum(), lx, create_graph=True)[0]
    _close(tg, lgr)
    _close(torch.autograd.grad(tg.pow(2).sum(), tx)[0], lg.autograd.grad(lgr.pow(2).sum(), lx)[0], 1e-8)


@pytest.mark.parametrize("output_size", [None, (7, 9), (2, 3, 6, 8)])
def test_max_unpool2d(output_size):
    rng = np.random.default_rng(2)
    tx, lx = pair(torch, rng, 2, 3, 6, 8)
    ty, ti = TF.max_pool2d(tx, 2, return_indices=True)
    ly, li = LF.max_pool2d(lx, 2, return_indices=True)
    tu, lu = TF.max_unpool2d(ty, ti, 2, output_size=output_size), LF.max_unpool2d(ly, li, 2, output_size=output_size)
    assert lu.grad_fn.name() == tu.grad_fn.name() == "MaxUnpool2DBackward0"
    _close(tu, lu, 0)
    g = rng.standard_normal(tu.shape)
    _close(torch.autograd.grad(tu, tx, torch.tensor(g))[0], lg.autograd.grad(lu, lx, lg.tensor(g))[0], 0)
    a, b = lg.nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    _close(b(ty, ti, output_size), a(ly, li, output_size), 0)


def test_max_unpool1d_and_errors():
    rng = np.random.default_rng(3)
    tx, lx = pair(torch, rng, 2, 3, 8)
    ty, ti = TF.max_pool1d(tx, 2, return_indices=True)
    ly, li = LF.max_pool1d(lx, 2, return_indices=True)
    _close(TF.max_unpool1d(ty, ti, 2), LF.max_unpool1d(ly, li, 2), 0)
    _close(torch.nn.MaxUnpool1d(2)(ty, ti), lg.nn.MaxUnpool1d(2)(ly, li), 0)

    def bad_index(m, F):
        y, i = F.max_pool2d(m.arange(42.0).reshape(1, 1, 6, 7), 2, return_indices=True)
        return F.max_unpool2d(y, i, 2)  # the default (6, 6) output cannot hold index 40
    same_error(bad_index, torch, TF, LF, 30)

    def bad_size(m, F):
        y, i = F.max_pool2d(m.randn(1, 2, 6, 6), 2, return_indices=True)
        return F.max_unpool2d(y, i, 2, output_size=(9, 9))
    same_error(bad_size, torch, TF, LF, 20)


MODULES = ["MaxPool1d(3)", "MaxPool1d(3, 2, 1, 2, True, True)", "AvgPool1d(3)", "AvgPool1d(3, 2, 1, True, False)",
           "AdaptiveAvgPool1d(3)", "AdaptiveMaxPool1d(3)", "AdaptiveMaxPool2d((3, 4))",
           "AdaptiveMaxPool2d(3, return_indices=True)", "LPPool1d(2, 3)", "LPPool2d(2, 3, 2, True)", "MaxUnpool2d(2)",
           "MaxUnpool1d(2, 1, 1)"]


@pytest.mark.parametrize("spec", MODULES)
def test_pool_modules(spec):
    a, b = eval("lg.nn." + spec), eval("torch.nn." + spec)
    assert repr(a) == repr(b)
    assert list(a.state_dict()) == list(b.state_dict()) == []
    if "Unpool" in spec:
        return  # (run in the un-pooling tests, with indices)
    shape = (2, 3, 9, 8) if "2d" in spec else (2, 3, 9)
    x = np.abs(np.random.default_rng(4).standard_normal(shape)) + 0.1
    ty, ly = b(torch.tensor(x)), a(lg.tensor(x))
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ty[1].numpy(), ly[1].numpy())
        ty, ly = ty[0], ly[0]
    _close(ty, ly, 1e-10)
