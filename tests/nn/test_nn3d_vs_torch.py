"""3-d convolution and pooling, fold / unfold, 5-d interpolation, grid_sample / affine_grid, dropout3d and
BatchNorm3d (functional and modules) against torch: values, indices, grad_fn names, first and second
gradients, exception classes and messages, warnings."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF

sys.path.insert(0, str(Path(__file__).resolve().parent))  # torch_pairs, under any --import-mode
from torch_pairs import close as _close, same_error  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional

X5 = (2, 4, 5, 6, 7)
W3 = (6, 2, 2, 3, 2)
GRID = "grid"  # (placeholder: a grid of points in [-1.3, 1.3], so every padding rule is exercised)

# (name, input shapes, args, kwargs); every array input requires grad
CASES = [
    ("conv3d", [X5, W3, (6,)], (), {"stride": (1, 2, 1), "padding": (1, 0, 2), "dilation": (2, 1, 1), "groups": 2}),
    ("conv3d", [X5, (3, 4, 3, 1, 2)], (), {"padding": "same"}),
    ("conv3d", [(4, 5, 6, 7), (3, 4, 2, 2, 2), (3,)], (), {"padding": "valid", "stride": 2}),
    ("conv_transpose3d", [X5, (4, 3, 2, 3, 2), (6,)], (), {"stride": 2, "padding": 1, "output_padding": 1,
                                                            "groups": 2}),
    ("conv_transpose3d", [(4, 3, 3, 3), (4, 2, 2, 2, 2)], (), {"dilation": (1, 2, 1)}),
    ("max_pool3d", [X5], ((2, 3, 2),), {"stride": (1, 2, 2), "padding": 1, "return_indices": True}),
    ("max_pool3d", [X5], (2,), {"stride": 2, "dilation": (1, 2, 1), "ceil_mode": True, "return_indices": True}),
    ("max_pool3d", [(4, 5, 6, 7)], (3,), {"stride": 1}),
    ("max_pool3d_with_indices", [X5], (2,), {}),
    ("avg_pool3d", [X5], ((2, 3, 2),), {"stride": (1, 2, 2), "padding": 1, "ceil_mode": True,
                                        "count_include_pad": False}),
    ("avg_pool3d", [X5], (2,), {"divisor_override": 3}),
    ("avg_pool3d", [(4, 5, 6, 7)], (3,), {"stride": 2, "padding": 1}),
    ("adaptive_avg_pool3d", [X5], ((3, 2, 4),), {}),
    ("adaptive_avg_pool3d", [X5], ((None, 1, 9),), {}),
    ("adaptive_avg_pool3d", [X5], (1,), {}),
    ("adaptive_max_pool3d", [X5], ((3, 2, 4),), {"return_indices": True}),
    ("adaptive_max_pool3d_with_indices", [(4, 5, 6, 7)], (2,), {}),
    ("adaptive_max_pool1d_with_indices", [(2, 3, 9)], (4,), {}),
    ("adaptive_max_pool2d_with_indices", [(2, 3, 7, 9)], ((3, 4),), {}),
    ("max_pool1d_with_indices", [(2, 3, 9)], (3, 2), {}),
    ("max_pool2d_with_indices", [(2, 3, 7, 9)], (3, 2), {}),
    ("lp_pool3d", [X5], (2, 2), {}),
    ("lp_pool3d", [X5], (3.0, (2, 3, 2)), {"stride": 1, "ceil_mode": True}),
    ("unfold", [(2, 3, 5, 6)], ((2, 3),), {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
    ("unfold", [(3, 5, 6)], (2,), {}),
    ("fold", [(2, 12, 15)], ((4, 5), (2, 3)), {"padding": (1, 0)}),
    ("fold", [(8, 9)], (4, 2), {"stride": 1}),
    ("interpolate", [X5], (), {"size": (5, 3, 9), "mode": "trilinear", "align_corners": False}),
    ("interpolate", [X5], (), {"scale_factor": (1.5, 2, 0.7), "mode": "trilinear", "align_corners": True}),
    ("interpolate", [X5], (), {"scale_factor": 2, "mode": "nearest"}),
    ("interpolate", [X5], (), {"size": (4, 9, 5), "mode": "nearest-exact"}),
    ("interpolate", [X5], (), {"size": (3, 4, 5), "mode": "area"}),
    ("affine_grid", [(2, 2, 3)], ((2, 3, 4, 5),), {"align_corners": False}),
    ("affine_grid", [(2, 3, 4)], ((2, 3, 4, 5, 3),), {"align_corners": True}),
]
for _mode in ("bilinear", "nearest"):
    for _pad in ("zeros", "border", "reflection"):
        for _ac in (False, True):
            CASES.append(("grid_sample", [(2, 3, 5, 6), (GRID, 2, 4, 3, 2)], (),
                          {"mode": _mode, "padding_mode": _pad, "align_corners": _ac}))
for _pad in ("zeros", "border", "reflection"):
    CASES.append(("grid_sample", [(2, 3, 3, 4, 5), (GRID, 2, 2, 3, 2, 3)], (),
                  {"padding_mode": _pad, "align_corners": _pad == "border"}))


def _inputs(rng, shapes, dtype=np.float64):
    arrays = []
    for s in shapes:
        if s[0] == GRID:
            arrays.append((rng.random(s[1:]) * 2.6 - 1.3).astype(dtype))
        else:
            arrays.append(rng.standard_normal(s).astype(dtype))
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [lg.tensor(a, requires_grad=True) for a in arrays])


def _first(y):
    return y[0] if isinstance(y, tuple) else y


@pytest.mark.parametrize("name,shapes,args,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_grads_second_grads(name, shapes, args, kw):
    rng = np.random.default_rng(len(shapes) + len(kw))
    tin, lin = _inputs(rng, shapes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's 'same' padding with an even kernel warns)
        ty, ly = getattr(TF, name)(*tin, *args, **kw), getattr(LF, name)(*lin, *args, **kw)
    assert isinstance(ly, tuple) == isinstance(ty, tuple)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ty[1].numpy(), ly[1].numpy())
        assert ly[1].dtype == lg.int64
    ty, ly = _first(ty), _first(ly)
    assert tuple(ly.shape) == tuple(ty.shape)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    _close(ty, ly, 1e-10)
    g = rng.standard_normal(tuple(ty.shape))
    tg = torch.autograd.grad(ty, tin, torch.tensor(g), create_graph=True)
    lgr = lg.autograd.grad(ly, lin, lg.tensor(g), create_graph=True)
    for a, b in zip(tg, lgr):
        _close(a, b)
    # second order: d/d(inputs) of sum(grad**2) wherever the first gradient depends on an input
    t_terms = [(a * a).sum() for a in tg if a.requires_grad]
    l_terms = [(b * b).sum() for b in lgr if b.requires_grad]
    if not l_terms:
        return
    t2 = torch.autograd.grad(sum(t_terms), tin, allow_unused=True)
    l2 = lg.autograd.grad(sum(l_terms), lin, allow_unused=True)
    for a, b in zip(t2, l2):
        if a is None or b is None:
            assert a is None or not a.abs().sum() or b is not None
            continue
        _close(a, b, 1e-8)


@pytest.mark.parametrize("name,shapes,args,kw", [CASES[0], CASES[3], CASES[5], CASES[9], CASES[12], CASES[27],
                                                 CASES[36]])
def test_float32(name, shapes, args, kw):
    rng = np.random.default_rng(1)
    tin, lin = _inputs(rng, shapes, np.float32)
    ty, ly = _first(getattr(TF, name)(*tin, *args, **kw)), _first(getattr(LF, name)(*lin, *args, **kw))
    assert ly.dtype == lg.float32
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    ly.sum().backward()
    ty.sum().backward()
    for a, b in zip(tin, lin):
        assert b.grad.dtype == lg.float32
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_saved_attributes():
    x = np.random.default_rng(0).standard_normal(X5)
    ty = TF.interpolate(torch.tensor(x, requires_grad=True), scale_factor=2, mode="trilinear", align_corners=False)
    ly = LF.interpolate(lg.tensor(x, requires_grad=True), scale_factor=2, mode="trilinear", align_corners=False)
    for attr in ("_saved_scales_d", "_saved_scales_h", "_saved_scales_w", "_saved_output_size",
                 "_saved_align_corners"):
        assert getattr(ly.grad_fn, attr) == getattr(ty.grad_fn, attr)
    tu = TF.unfold(torch.tensor(x[0], requires_grad=True), (2, 3), padding=1)
    lu = LF.unfold(lg.tensor(x[0], requires_grad=True), (2, 3), padding=1)
    for attr in ("_saved_kernel_size", "_saved_padding", "_saved_stride", "_saved_dilation",
                 "_saved_self_sym_argsize_minus_1", "_saved_self_sym_argsize_minus_2"):
        assert tuple(np.atleast_1d(getattr(lu.grad_fn, attr))) == tuple(np.atleast_1d(getattr(tu.grad_fn, attr)))
    tg = TF.affine_grid(torch.zeros(1, 2, 3, requires_grad=True), (1, 1, 3, 4), align_corners=True)
    lgr = LF.affine_grid(lg.zeros(1, 2, 3, requires_grad=True), (1, 1, 3, 4), align_corners=True)
    assert lgr.grad_fn._saved_size == tuple(tg.grad_fn._saved_size)
    assert lgr.grad_fn._saved_align_corners is tg.grad_fn._saved_align_corners


def test_max_unpool3d_round_trip_and_grads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 4, 6))
    to, ti = TF.max_pool3d(torch.tensor(x), 2, return_indices=True)
    lo, li = LF.max_pool3d(lg.tensor(x), 2, return_indices=True)
    tin, lin = torch.tensor(to.numpy(), requires_grad=True), lg.tensor(lo.numpy(), requires_grad=True)
    tu, lu = TF.max_unpool3d(tin, ti, 2), LF.max_unpool3d(lin, li, 2)
    assert lu.grad_fn.name() == tu.grad_fn.name()
    _close(tu, lu)
    g = rng.standard_normal(tu.shape)
    tu.backward(torch.tensor(g))
    lu.backward(lg.tensor(g))
    _close(tin.grad, lin.grad)
    module = lnn.MaxUnpool3d(2)
    _close(torch.nn.MaxUnpool3d(2)(tin, ti, output_size=(5, 5, 7)), module(lin, li, output_size=(5, 5, 7)))


ERRORS = [
    ("max_pool3d", lambda m: (m.randn(2, 3),), (2,), {}),
    ("max_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), (0,), {}),
    ("max_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), (2,), {"padding": 2}),
    ("max_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), (2,), {"dilation": 0}),
    ("max_pool3d", lambda m: (m.randn(1, 2, 1, 3, 3),), (2,), {}),
    ("avg_pool3d", lambda m: (m.randn(1, 2, 1, 3, 3),), (2,), {}),
    ("avg_pool3d", lambda m: (m.randn(1, 2, 1, 3, 3),), (2,), {"padding": 1}),
    ("unfold", lambda m: (m.randn(1, 2, 3, 4, 5),), (2,), {}),
    ("conv3d", lambda m: (m.randn(1, 2, 3, 3, 3), m.randn(2, 2, 2, 2, 2)), (), {"padding": "same", "stride": 2}),
    ("avg_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), (2,), {"divisor_override": 0}),
    ("adaptive_avg_pool3d", lambda m: (m.randn(2, 3),), (2,), {}),
    ("adaptive_max_pool3d", lambda m: (m.randn(2, 3),), (2,), {}),
    ("adaptive_avg_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), ((2, 2),), {}),
    ("adaptive_max_pool3d", lambda m: (m.randn(1, 2, 3, 3, 3),), ((2, 2),), {}),
    ("conv3d", lambda m: (m.randn(2, 3, 4), m.randn(2, 3, 1, 1, 1)), (), {}),
    ("conv3d", lambda m: (m.randn(1, 4, 3, 3, 3), m.randn(2, 3, 1, 1, 1)), (), {}),
    ("conv_transpose3d", lambda m: (m.randn(1, 4, 3, 3, 3), m.randn(3, 2, 1, 1, 1)), (), {}),
    ("unfold", lambda m: (m.randn(2, 3, 4, 4),), (5,), {}),
    ("unfold", lambda m: (m.randn(2, 3),), (1,), {}),
    ("fold", lambda m: (m.randn(2, 10, 9),), ((4, 4), 2), {}),
    ("fold", lambda m: (m.randn(2, 12, 9, 1),), ((4, 4), 2), {}),
    ("fold", lambda m: (m.randn(2, 12, 7),), ((4, 4), 2), {}),
    ("max_unpool3d", lambda m: (m.randn(1, 2, 2, 2, 2), m.zeros(1, 2, 2, 2, 1, dtype=m.int64)), (2,), {}),
    ("max_unpool3d", lambda m: (m.randn(1, 2, 2, 2, 2), m.full((1, 2, 2, 2, 2), 100)), (2,), {}),
    ("max_unpool3d", lambda m: (m.randn(2, 2, 2), m.full((2, 2, 2), 1)), (2,), {}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(2, 3, 3, 2)), (), {"mode": "foo"}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(2, 3, 3, 2)), (), {"padding_mode": "foo"}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(2, 3, 3, 2).double()), (), {"align_corners": False}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(1, 3, 3, 2)), (), {"align_corners": False}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(2, 3, 3, 3)), (), {"align_corners": False}),
    ("grid_sample", lambda m: (m.randn(2, 3, 4, 5), m.rand(2, 3, 3, 3, 2)), (), {"align_corners": False}),
    ("grid_sample", lambda m: (m.randn(2, 3, 3, 4, 5), m.rand(2, 3, 3, 3, 3)), (), {"mode": "bicubic",
                                                                                       "align_corners": False}),
    ("affine_grid", lambda m: (m.randn(2, 2, 3).int(),), ((2, 3, 4, 5),), {"align_corners": False}),
    ("affine_grid", lambda m: (m.randn(2, 3, 3),), ((2, 3, 4, 5),), {"align_corners": False}),
    ("affine_grid", lambda m: (m.randn(2, 3, 3),), ((2, 3, 4, 5, 6),), {"align_corners": False}),
    ("affine_grid", lambda m: (m.randn(2, 2, 3),), ((2, 3, 4),), {"align_corners": False}),
    ("affine_grid", lambda m: (m.randn(2, 2, 3),), ((2, 3, 0, 5),), {"align_corners": False}),
    ("dropout3d", lambda m: (m.randn(2, 3, 4, 5),), (1.5,), {}),
]


@pytest.mark.parametrize("name,make,args,kw", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors(name, make, args, kw):
    same_error(lambda m, f: getattr(f, name)(*make(m), *args, **kw), torch, TF, LF, prefix=60)


@pytest.mark.parametrize("name,kw", [("upsample", {"scale_factor": 2}), ("upsample_nearest", {"scale_factor": 2}),
                                     ("upsample_bilinear", {"size": (5, 7)})])
def test_deprecated_upsample_aliases_warn_and_match(name, kw):
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        ty = getattr(TF, name)(torch.tensor(x), **kw)
    with warnings.catch_warnings(record=True) as lw:
        warnings.simplefilter("always")
        ly = getattr(LF, name)(lg.tensor(x), **kw)
    assert [(w.category, str(w.message)) for w in lw] == [(w.category, str(w.message)) for w in tw]
    assert lw[0].filename == __file__  # (the warning points at the caller)
    _close(ty, ly)


def test_align_corners_default_warns():
    x, g = np.zeros((1, 1, 2, 2)), np.zeros((1, 2, 2, 2))
    for m, f in ((torch, TF), (lg, LF)):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            f.grid_sample(m.tensor(x), m.tensor(g))
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            f.affine_grid(m.zeros(1, 2, 3, dtype=m.float64), (1, 1, 2, 2))


def test_grid_sample_identity_grid_reproduces_input():
    x = lg.randn(2, 3, 4, 5)
    theta = lg.tensor([[[1.0, 0, 0], [0, 1.0, 0]]] * 2)
    out = LF.grid_sample(x, LF.affine_grid(theta, (2, 3, 4, 5), align_corners=False), align_corners=False)
    np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-6)


def test_dropout3d_zeroes_whole_channels_and_warns_on_3d():
    lg.manual_seed(0)
    x = lg.ones(4, 6, 2, 3, 2)
    y = LF.dropout3d(x, 0.5, training=True)
    per_channel = y.numpy().reshape(4, 6, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert 0 < (per_channel == 0).all(-1).sum() < 24
    assert LF.dropout3d(x, 0.5, training=False) is x
    u = LF.dropout3d(lg.ones(6, 2, 3, 2), 0.5).numpy().reshape(6, -1)  # unbatched: channels are dim 0
    assert np.all((u == 0).all(-1) | (u == 2.0).all(-1))
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        LF.dropout3d(lg.ones(2, 3, 4), 0.5)
    m = lnn.Dropout3d(0.25)
    assert repr(m) == repr(torch.nn.Dropout3d(0.25))
    m.eval()
    assert m(x) is x


MODULES = [
    ("Conv3d", (4, 6, (2, 3, 2)), {"stride": (1, 2, 1), "padding": 1, "groups": 2}, X5),
    ("Conv3d", (4, 3, 3), {"padding": 1, "padding_mode": "reflect", "bias": False}, X5),
    ("Conv3d", (4, 3, 2), {"padding": "same", "padding_mode": "circular", "dilation": 2}, X5),
    ("Conv3d", (4, 3, 3), {"padding": (1, 0, 2), "padding_mode": "replicate"}, (4, 5, 6, 7)),
    ("ConvTranspose3d", (4, 6, (2, 3, 2)), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, X5),
    ("MaxPool3d", (2,), {"stride": 1, "return_indices": True}, X5),
    ("AvgPool3d", ((2, 3, 2),), {"padding": 1, "count_include_pad": False}, X5),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, X5),
    ("AdaptiveMaxPool3d", (3,), {"return_indices": True}, X5),
    ("LPPool3d", (2, 2), {}, X5),
    ("BatchNorm3d", (4,), {}, X5),
    ("BatchNorm3d", (4,), {"affine": False, "momentum": None}, X5),
    ("Fold", ((4, 5), (2, 3)), {"padding": (1, 0)}, (2, 12, 15)),
    ("Unfold", ((2, 3),), {"stride": 2, "padding": 1}, (2, 3, 5, 6)),
]


@pytest.mark.parametrize("name,args,kw,shape", MODULES, ids=[m[0] + str(i) for i, m in enumerate(MODULES)])
def test_modules(name, args, kw, shape):
    tm, lm = getattr(torch.nn, name)(*args, **kw).double(), getattr(lnn, name)(*args, **kw).double()
    assert repr(lm) == repr(tm)
    for (n, tp), (_, lp) in zip(tm.named_parameters(), lm.named_parameters()):
        assert tuple(lp.shape) == tuple(tp.shape), n
        lp.data.copy_(lg.tensor(tp.detach().numpy()))
    x = np.random.default_rng(0).standard_normal(shape)
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    ty, ly = _first(tm(tx)), _first(lm(lx))
    _close(ty, ly, 1e-9)
    ty.sum().backward()
    ly.sum().backward()
    _close(tx.grad, lx.grad, 1e-9)
    for (n, tp), (_, lp) in zip(tm.named_parameters(), lm.named_parameters()):
        _close(tp.grad, lp.grad, 1e-9)
    for (n, tb), (_, lb) in zip(tm.named_buffers(), lm.named_buffers()):
        np.testing.assert_allclose(lb.numpy(), tb.numpy(), rtol=1e-9, err_msg=n)


def test_batchnorm3d_rejects_4d():
    same_error(lambda m, f: m.nn.BatchNorm3d(3)(m.randn(2, 3, 4, 4)), torch, TF, LF)


FRACTIONAL = [
    ((2, 3, 9, 11), (2, 3), {"output_size": (4, 5)}, 2),
    ((3, 9, 11), 2, {"output_ratio": (0.6, 0.7)}, 2),
    ((2, 3, 7, 8, 9), 2, {"output_ratio": (0.5, 0.6, 0.7)}, 3),
    ((2, 7, 8, 9), (2, 3, 2), {"output_size": 4}, 3),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,k,kw,nd", FRACTIONAL)
def test_fractional_max_pool_given_samples(shape, k, kw, nd, dtype):
    rng = np.random.default_rng(nd)
    samples = rng.random((shape[0] if len(shape) == nd + 2 else 1, shape[-nd - 1], nd)).astype(dtype)
    a = rng.standard_normal(shape).astype(dtype)
    tx, lx = torch.tensor(a, requires_grad=True), lg.tensor(a, requires_grad=True)
    name = f"fractional_max_pool{nd}d"
    to, ti = getattr(TF, name)(tx, k, return_indices=True, _random_samples=torch.tensor(samples), **kw)
    lo, li = getattr(LF, name)(lx, k, return_indices=True, _random_samples=lg.tensor(samples), **kw)
    np.testing.assert_array_equal(li.numpy(), ti.numpy())
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    assert lo.grad_fn.name() == to.grad_fn.name()
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    tg = torch.autograd.grad(to, tx, torch.tensor(g), create_graph=True)[0]
    lgr = lg.autograd.grad(lo, lx, lg.tensor(g), create_graph=True)[0]
    np.testing.assert_allclose(lgr.detach().numpy(), tg.detach().numpy(), rtol=1e-6)
    # the with_indices form is always a tuple; the module keeps the samples as a buffer
    lt = getattr(LF, name + "_with_indices")(lx, k, _random_samples=lg.tensor(samples), **kw)
    assert isinstance(lt, tuple) and len(lt) == 2
    cls = f"FractionalMaxPool{nd}d"
    tm = getattr(torch.nn, cls)(k, _random_samples=torch.tensor(samples), **kw)
    lm = getattr(lnn, cls)(k, _random_samples=lg.tensor(samples), **kw)
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    np.testing.assert_array_equal(lm(lx).detach().numpy(), tm(tx).detach().numpy())


def test_fractional_max_pool_random_samples_drawn_when_absent():
    lg.manual_seed(0)
    x = lg.randn(2, 3, 10, 10)
    out = LF.fractional_max_pool2d(x, 2, output_size=5)
    assert tuple(out.shape) == (2, 3, 5, 5)
    planes = x.numpy().reshape(2, 3, -1)
    assert np.isin(out.numpy().reshape(2, 3, -1), planes).all()


FRACTIONAL_ERRORS = [
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 2)),
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 5, output_size=8)),
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 2, output_size=(3,  4, 5))),
    (lambda m, f: f.fractional_max_pool2d(m.randn(3, 4), 2, output_size=2)),
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 2, output_size=3, _random_samples=m.rand(2, 3, 3))),
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 2, output_size=3, _random_samples=m.rand(1, 3, 2))),
    (lambda m, f: f.fractional_max_pool2d(m.randn(2, 3, 9, 11), 2, output_ratio=0.5)),
    (lambda m, f: f.fractional_max_pool3d(m.randn(2, 3, 7, 8, 9), 2)),
    (lambda m, f: f.fractional_max_pool3d(m.randn(2, 3, 7, 8, 9), 5, output_size=6)),
    (lambda m, f: f.fractional_max_pool3d(m.randn(3, 4, 4), 2, output_size=2)),
    (lambda m, f: m.nn.FractionalMaxPool2d(2)),
    (lambda m, f: m.nn.FractionalMaxPool3d(2)),
    (lambda m, f: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)),
    (lambda m, f: m.nn.FractionalMaxPool2d(2, output_ratio=1.5)),
]


@pytest.mark.parametrize("run", FRACTIONAL_ERRORS)
def test_fractional_errors(run):
    same_error(run, torch, TF, LF, prefix=60)
