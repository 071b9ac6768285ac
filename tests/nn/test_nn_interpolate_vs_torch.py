"""F.interpolate / nn.Upsample* and pixel (un)shuffle against torch."""
import sys
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

MODES = [((2, 3, 5), "nearest"), ((2, 3, 5), "nearest-exact"), ((2, 3, 5), "linear"), ((1, 2, 4, 5), "nearest"),
         ((1, 2, 4, 5), "nearest-exact"), ((1, 2, 4, 5), "bilinear"), ((1, 2, 4, 5), "bicubic"),
         ((1, 2, 4, 5), "area")]
SIZES = [{"scale_factor": 2}, {"size": "s"}, {"scale_factor": 1.7}, {"scale_factor": 1.7, "recompute_scale_factor": True},
         {"scale_factor": 0.6}, {"size": "s", "align_corners": True}]


# (align_corners belongs to the interpolating modes only: the error for the others is checked below)
CASES = [(shape, mode, kw) for shape, mode in MODES for kw in SIZES
         if "align_corners" not in kw or mode in ("linear", "bilinear", "bicubic")]


@pytest.mark.parametrize("shape,mode,kw", CASES)
def test_interpolate(shape, mode, kw):
    kw = dict(kw)
    if kw.get("size") == "s":
        kw["size"] = 7 if len(shape) == 3 else (3, 8)
    rng = np.random.default_rng(0)
    tx, lx = pair(torch, rng, *shape)
    ty, ly = TF.interpolate(tx, mode=mode, **kw), LF.interpolate(lx, mode=mode, **kw)
    assert tuple(ly.shape) == tuple(ty.shape)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    _close(ty, ly, 1e-10)
    if mode != "area":
        names = [n for n in dir(ty.grad_fn) if n.startswith("_saved_") and n != "_saved_self_sym_sizes"]
        assert {n: getattr(ly.grad_fn, n) for n in names} == {n: getattr(ty.grad_fn, n) for n in names}
        assert not hasattr(ly.grad_fn, "_saved_align_corners") or hasattr(ty.grad_fn, "_saved_align_corners")
    g = rng.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)[0]
    lgr = lg.autograd.grad(ly, lx, lg.tensor(g), create_graph=True)[0]
    _close(tg, lgr)
    # the backward is linear in g: its derivative (in g) is the forward again
    tgo = torch.tensor(g, requires_grad=True)
    lgo = lg.tensor(g, requires_grad=True)
    t2 = torch.autograd.grad(torch.autograd.grad(TF.interpolate(tx, mode=mode, **kw), tx, tgo, create_graph=True)[0]
                             .pow(2).sum(), tgo)[0]
    l2 = lg.autograd.grad(lg.autograd.grad(LF.interpolate(lx, mode=mode, **kw), lx, lgo, create_graph=True)[0]
                          .pow(2).sum(), lgo)[0]
    _close(t2, l2, 1e-8)


@pytest.mark.parametrize("call", ["align_nearest", "neither", "both", "mode_dims", "bad_mode", "size_len"])
def test_interpolate_errors(call):
    def run(m, F):
        x = m.randn(1, 2, 4, 5)
        return {"align_nearest": lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True),
                "neither": lambda: F.interpolate(x),
                "both": lambda: F.interpolate(x, size=3, scale_factor=2),
                "mode_dims": lambda: F.interpolate(x, size=3, mode="linear"),
                "bad_mode": lambda: F.interpolate(x, size=3, mode="foo"),
                "size_len": lambda: F.interpolate(x, size=(3, 4, 5))}[call]()
    same_error(run, torch, TF, LF, 40)


def test_upsample_modules():
    cases = [((), {"scale_factor": 2, "mode": "bilinear"}), ((), {"size": 3}),
             ((), {"size": (3, 4), "mode": "bilinear", "align_corners": True})]
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 5))
    for args, kw in cases:
        a, b = lg.nn.Upsample(*args, **kw), torch.nn.Upsample(*args, **kw)
        assert repr(a) == repr(b)
        _close(b(torch.tensor(x)), a(lg.tensor(x)), 1e-10)
    for name, kw in (("UpsamplingNearest2d", {"scale_factor": 2}), ("UpsamplingBilinear2d", {"size": 3}),
                     ("UpsamplingBilinear2d", {"scale_factor": 2})):
        a, b = getattr(lg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(a) == repr(b)
        _close(b(torch.tensor(x)), a(lg.tensor(x)), 1e-10)


@pytest.mark.parametrize("shape,r", [((2, 8, 2, 3), 2), ((9, 2, 2), 3), ((2, 1, 18, 2, 1), 3)])
def test_pixel_shuffle(shape, r):
    rng = np.random.default_rng(2)
    tx, lx = pair(torch, rng, *shape)
    ty, ly = TF.pixel_shuffle(tx, r), LF.pixel_shuffle(lx, r)
    assert ly.grad_fn.name() == ty.grad_fn.name() == "PixelShuffleBackward0"
    _close(ty, ly, 0)
    tu, lu = TF.pixel_unshuffle(ty, r), LF.pixel_unshuffle(ly, r)
    assert lu.grad_fn.name() == tu.grad_fn.name() == "PixelUnshuffleBackward0"
    _close(tu, lu, 0)
    g = rng.standard_normal(ty.shape)
    _close(torch.autograd.grad(ty, tx, torch.tensor(g))[0], lg.autograd.grad(ly, lx, lg.tensor(g))[0], 0)
    a, b = lg.nn.PixelShuffle(r), torch.nn.PixelShuffle(r)
    assert repr(a) == repr(b) and repr(lg.nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))


def test_pixel_shuffle_errors():
    for m, F in ((torch, TF), (lg, LF)):
        with raises_exactly(RuntimeError):
            F.pixel_shuffle(m.randn(1, 3, 2, 2), 2)
        with raises_exactly(RuntimeError):
            F.pixel_unshuffle(m.randn(1, 3, 3, 2), 2)
        with raises_exactly(RuntimeError):
            F.pixel_shuffle(m.randn(4, 2), 2)
