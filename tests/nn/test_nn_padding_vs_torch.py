"""F.pad's reflect / replicate / circular modes and the padding layers against torch."""
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

CASES = [((2, 3, 5), (1, 2)), ((3, 5), (2, 0)), ((2, 3, 4, 5), (1, 2, 2, 1)), ((3, 4, 5), (0, 3, 1, 1)),
         ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2))]


@pytest.mark.parametrize("shape,padding", CASES)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes(shape, padding, mode):
    rng = np.random.default_rng(0)
    tx, lx = pair(torch, rng, *shape)
    ty, ly = TF.pad(tx, padding, mode=mode), LF.pad(lx, padding, mode=mode)
    _close(ty, ly, 0)
    if mode != "circular":  # (torch's circular padding is a CopySlices chain)
        assert ly.grad_fn.name() == ty.grad_fn.name()
        assert tuple(ly.grad_fn._saved_padding) == tuple(ty.grad_fn._saved_padding)
    g = rng.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)[0]
    lgr = lg.autograd.grad(ly, lx, lg.tensor(g), create_graph=True)[0]
    _close(tg, lgr, 1e-12)
    tgo, lgo = torch.tensor(g, requires_grad=True), lg.tensor(g, requires_grad=True)
    t2 = torch.autograd.grad(torch.autograd.grad(TF.pad(tx, padding, mode=mode), tx, tgo, create_graph=True)[0]
                             .pow(2).sum(), tgo)[0]
    l2 = lg.autograd.grad(lg.autograd.grad(LF.pad(lx, padding, mode=mode), lx, lgo, create_graph=True)[0]
                          .pow(2).sum(), lgo)[0]
    _close(t2, l2, 1e-12)


@pytest.mark.parametrize("case", ["too_wide", "mode"])
def test_pad_errors(case):
    def run(m, F):
        x = m.randn(2, 3, 4)
        if case == "too_wide":
            return F.pad(x, (4, 0), mode="reflect")
        return F.pad(x, (1, 1), mode="foo")
    same_error(run, torch, TF, LF, 20)


LAYERS = ["ReflectionPad1d(2)", "ReflectionPad2d((1, 2, 0, 1))", "ReflectionPad3d(1)", "ReplicationPad1d((1, 2))",
          "ReplicationPad2d(2)", "ReplicationPad3d((1, 0, 1, 0, 0, 1))", "CircularPad1d(1)", "CircularPad2d((1, 2, 1, 0))",
          "CircularPad3d(1)", "ConstantPad1d(2, 3.5)", "ConstantPad2d((1, 0, 2, 1), -1.0)", "ConstantPad3d(1, 2.0)",
          "ZeroPad1d((1, 2))", "ZeroPad2d(1)", "ZeroPad3d(1)"]


@pytest.mark.parametrize("spec", LAYERS)
def test_padding_layers(spec):
    a, b = eval("lg.nn." + spec), eval("torch.nn." + spec)
    assert repr(a) == repr(b)
    nd = int(spec.split("d(")[0][-1])
    x = np.random.default_rng(1).standard_normal((2, 3) + (4,) * nd)
    ty, ly = b(torch.tensor(x)), a(lg.tensor(x))
    _close(ty, ly, 0)
