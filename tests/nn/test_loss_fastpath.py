"""cross_entropy / nll_loss / log_softmax on their fast paths (no target ignored, no weights;
a batch of few classes) and on every path around them, against torch: values, gradients,
double backward, grad_fn names, warnings and error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import leafgrad as lg  # noqa: E402
import leafgrad.nn.functional as F  # noqa: E402

RNG = np.random.default_rng(7)
N, C = 128, 10
X32 = RNG.standard_normal((N, C)).astype(np.float32) * 3
T = RNG.integers(0, C, N)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-14)}


def _run(mod, fn, x, *consts):
    """fn(F, x, *consts) in one library: the loss, its gradient for an all-ones grad_output, and x."""
    xt = mod.tensor(x.copy(), requires_grad=True)
    cs = [None if c is None else mod.tensor(np.asarray(c).copy()) for c in consts]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning may leak out, forward or backward
        out = fn(mod.nn.functional, xt, *cs)
        (g,) = mod.autograd.grad(out, xt, grad_outputs=mod.ones(tuple(out.shape), dtype=out.dtype))
    return out, g, xt


def _np(t):
    return t.detach().numpy()


def _same(fn, x, *consts, dtype=np.float32):
    x = np.asarray(x, dtype=dtype)
    a, ga, _ = _run(lg, fn, x, *consts)
    b, gb, _ = _run(torch, fn, x, *consts)
    assert a.shape == tuple(b.shape) and a.dtype.itemsize == b.dtype.itemsize
    np.testing.assert_allclose(_np(a), _np(b), equal_nan=True, **TOL[dtype])
    np.testing.assert_allclose(_np(ga), _np(gb), equal_nan=True, **TOL[dtype])
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    return a, ga


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 3, C, 10**6])
def test_cross_entropy_fast_path_matches_torch(dtype, reduction, ignore_index):
    t = T.copy()
    t[t == 3] = 4  # (so ignore_index=3 is a class no target names: still nothing ignored)
    _same(lambda F, x, t: F.cross_entropy(x, t, ignore_index=ignore_index, reduction=reduction), X32, t, dtype=dtype)
    _same(lambda F, x, t: F.nll_loss(F.log_softmax(x, 1), t, ignore_index=ignore_index, reduction=reduction),
          X32, t, dtype=dtype)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_fast_path_is_bitwise_the_weighted_path(reduction):
    """No ignored target and no weight gives exactly what a weight of ones gives (the general path)."""
    a, ga, _ = _run(lg, lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), X32, T)
    w = np.ones(C, np.float32)
    b, gb, _ = _run(lg, lambda F, x, t, w: F.cross_entropy(x, t, weight=w, reduction=reduction), X32, T, w)
    np.testing.assert_array_equal(_np(a), _np(b))
    np.testing.assert_array_equal(_np(ga), _np(gb))
    t = T.copy()
    t[0] = -100  # one ignored target: the general path; the others' gradients are unchanged
    c, gc, _ = _run(lg, lambda F, x, t: F.cross_entropy(x, t, reduction="sum"), X32, t)
    d, gd, _ = _run(lg, lambda F, x, t: F.cross_entropy(x[1:], t[1:], reduction="sum"), X32, t)
    np.testing.assert_array_equal(_np(gc)[1:], _np(gd)[1:])
    np.testing.assert_array_equal(_np(gc)[0], 0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index,ignored", [(-100, -100), (3, 3), (C, C), (-1, -1)])
@pytest.mark.parametrize("weighted", [False, True])
def test_ignored_targets_and_weights_match_torch(reduction, ignore_index, ignored, weighted):
    t = T.copy()
    t[::5] = ignored
    w = RNG.uniform(0.5, 2, C).astype(np.float32) if weighted else None
    _same(lambda F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=ignore_index, reduction=reduction),
          X32, t, w)
    # nll_loss on raw inputs (some positive): an ignored target gives +0 and a +0 gradient, as torch
    a, ga = _same(lambda F, x, t, w: F.nll_loss(x, t, weight=w, ignore_index=ignore_index, reduction=reduction),
                  X32, t, w)
    b = TF.nll_loss(torch.tensor(X32, requires_grad=True), torch.tensor(t), ignore_index=ignore_index,
                    weight=None if w is None else torch.tensor(w), reduction=reduction)
    np.testing.assert_array_equal(np.signbit(_np(a)), np.signbit(_np(b)))
    np.testing.assert_array_equal(np.signbit(_np(ga)[t == ignored]), False)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_all_targets_ignored_match_torch(weighted, reduction):
    """mean: nan, as torch; the gradient is zero (torch writes nothing for an ignored target)."""
    t = np.full(6, -100)
    w = np.linspace(0.5, 2, C).astype(np.float32) if weighted else None
    a, ga = _same(lambda F, x, t, w: F.cross_entropy(x, t, weight=w, reduction=reduction), X32[:6], t, w)
    if reduction == "mean":
        assert np.isnan(a.item())
    np.testing.assert_array_equal(_np(ga), 0)


def test_zero_total_weight_matches_torch():
    w = np.ones(C, np.float32)
    w[T[:6]] = 0
    t = T[:6].copy()
    t[0] = -100
    _same(lambda F, x, t, w: F.cross_entropy(x, t, weight=w), X32[:6], t, w)
    _same(lambda F, x, t, w: F.cross_entropy(x, t, weight=w), X32[:6], T[:6], w)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_empty_batch_matches_torch(reduction):
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), np.zeros((0, C)), np.zeros(0, np.int64))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", [4, -100])
def test_unbatched_input_matches_torch(reduction, target):
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), X32[0], np.array(target))
    _same(lambda F, x, t: F.nll_loss(x, t, reduction=reduction), X32[0], np.array(target))


@pytest.mark.parametrize("shape", [(4, C, 3), (4, C, 3, 2), (2, C, 2, 2, 2)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_spatial_inputs_match_torch(shape, reduction):
    x = RNG.standard_normal(shape).astype(np.float32)
    t = RNG.integers(0, C, (shape[0],) + shape[2:])
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), x, t)
    t.reshape(-1)[::3] = -100
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), x, t)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_label_smoothing_and_probabilities_match_torch(reduction):
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1), X32, T)
    t = T.copy()
    t[::4] = -100
    _same(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.25), X32, t)
    p = RNG.dirichlet(np.ones(C), N).astype(np.float32)
    _same(lambda F, x, p: F.cross_entropy(x, p, reduction=reduction), X32, p)
    _same(lambda F, x, p: F.cross_entropy(x, p, reduction=reduction, label_smoothing=0.2), X32, p)


def test_byte_and_strided_targets_match_torch():
    _same(lambda F, x, t: F.cross_entropy(x, t), X32, T.astype(np.uint8))
    t2 = np.stack([T, T[::-1]], 1)
    _same(lambda F, x, t: F.cross_entropy(x, t[:, 1]), X32, t2)  # a non-contiguous target


def _err(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("targets,kw", [
    ([0, 12, 3], {}), ([0, -1, 3], {}), ([0, 1, C], {}), ([0, -100, 12], {}), ([0, 3, -5], {"ignore_index": 3}),
    ([0, 3, 12], {"ignore_index": 3}), ([C, C + 1, 0], {"ignore_index": C}), ([0, -100, 255], {}),
])
def test_out_of_range_targets_raise_like_torch(targets, kw):
    for fn in (lambda F, m: F.cross_entropy(m.zeros(3, C), m.tensor(targets), **kw),
               lambda F, m: F.nll_loss(m.zeros(3, C), m.tensor(targets), **kw)):
        e = _err(lambda: fn(F, lg))
        assert e is not None and e == _err(lambda: fn(TF, torch))


def test_out_of_range_byte_target_raises_like_torch():
    def fn(F, m):
        return F.cross_entropy(m.zeros(3, C), m.tensor(np.array([0, 200, 1], np.uint8)))
    assert _err(lambda: fn(F, lg)) == _err(lambda: fn(TF, torch)) == ("IndexError", "Target 200 is out of bounds.")


@pytest.mark.parametrize("tdtype", [np.int32, np.int16, np.float32])
def test_target_dtype_errors_match_torch(tdtype):
    def fn(F, m):
        return F.nll_loss(m.zeros(3, C), m.tensor(np.array([0, 1, 2], tdtype)))
    e = _err(lambda: fn(F, lg))
    assert e is not None and e == _err(lambda: fn(TF, torch))


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 2},
                                {"weight": np.linspace(0.5, 2, C)}])
def test_double_backward_matches_torch(kw):
    x = X32.astype(np.float64)[:16]
    t = T[:16].copy()
    t[::3] = kw.get("ignore_index", -100)
    res = {}
    for mod in (lg, torch):
        k = dict(kw)
        if "weight" in k:
            k["weight"] = mod.tensor(k["weight"].copy())
        xt = mod.tensor(x.copy(), requires_grad=True)
        loss = mod.nn.functional.cross_entropy(xt, mod.tensor(t), **k).sum()
        (g,) = mod.autograd.grad(loss, xt, create_graph=True)
        (gg,) = mod.autograd.grad((g * g).sum(), xt)
        res[mod] = (g, gg, type(g.grad_fn).__name__)
    np.testing.assert_allclose(_np(res[lg][0]), _np(res[torch][0]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(res[lg][1]), _np(res[torch][1]), rtol=1e-10, atol=1e-12)
    assert res[lg][2] == res[torch][2]


def test_grad_fn_names_and_saved_values():
    x = lg.tensor(X32, requires_grad=True)
    out = F.cross_entropy(x, lg.tensor(T))
    assert type(out.grad_fn).__name__ == "NllLossBackward0"
    assert type(out.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
    assert out.grad_fn._saved_ignore_index == 2**64 - 100  # (as torch's binding reads the int64 back)
    assert out.grad_fn._saved_reduction == 1  # (torch's at::Reduction::Mean)
    np.testing.assert_array_equal(out.grad_fn._saved_target.numpy(), T)
    (g,) = lg.autograd.grad(out, x, create_graph=True)
    assert type(g.grad_fn).__name__ == "LogSoftmaxBackwardDataBackward0"
    for shape in [(8, C, 16), (8, C, 4, 4), (C,)]:
        names = [type(m.nn.functional.cross_entropy(m.zeros(*shape, requires_grad=True),
                                                    m.zeros(shape[:1] + shape[2:] if len(shape) > 1 else (),
                                                            dtype=m.int64)).grad_fn).__name__ for m in (lg, torch)]
        assert names[0] == names[1]


def test_nll_loss_on_infinite_inputs_matches_torch_without_warnings():
    x = np.array([[np.inf, 0.0], [-np.inf, 1.0], [0.5, np.nan]], np.float32)
    for reduction in ("mean", "sum", "none"):
        for t in ([0, 0, 1], [0, 1, 0], [0, -100, 1]):
            _same(lambda F, x, t: F.nll_loss(x, t, reduction=reduction), x, np.array(t))


@pytest.mark.parametrize("shape,dim", [((N, C), 1), ((N, 1), 1), ((N, 16), 1), ((N, 17), 1), ((8, C), 1),
                                       ((C, N), 0), ((4, 6, C), 2), ((C,), 0), ((), 0)])
def test_softmax_and_log_softmax_are_unchanged_and_match_torch(shape, dim):
    x = RNG.standard_normal(shape).astype(np.float32) * 4
    if x.ndim == 2:
        x[0, 0], x[1, :] = -np.inf, -np.inf
        x[2, -1], x[3, 0] = np.nan, 1e38
    for name in ("softmax", "log_softmax"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (inf - inf rows warn in NumPy, as before)
            a = getattr(F, name)(lg.tensor(x), dim)
            b = getattr(TF, name)(torch.tensor(x), dim)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6, equal_nan=True)
        # the plain NumPy formulas, to float32 rounding (the row sums may add in another order: short rows
        # are summed by a matrix-vector product), with NaN and inf exactly where they are
        with np.errstate(all="ignore"):
            s = x - x.max(axis=dim, keepdims=True)
            ref = (np.exp(s) / np.exp(s).sum(axis=dim, keepdims=True) if name == "softmax"
                   else s - np.log(np.exp(s).sum(axis=dim, keepdims=True)))
        got = _np(a)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
        finite = np.isfinite(ref)
        np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-6, atol=1e-6)
        assert a.is_contiguous()


def test_log_softmax_backward_is_unchanged_and_matches_torch():
    x = X32[:40]
    g = RNG.standard_normal(x.shape).astype(np.float32)
    xt = lg.tensor(x, requires_grad=True)
    r = F.log_softmax(xt, 1)
    r.backward(lg.tensor(g))
    rn = _np(r)
    # (to float32 rounding: the row sums may add in another order)
    np.testing.assert_allclose(_np(xt.grad), g - np.exp(rn) * g.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-6)
    xs = torch.tensor(x, requires_grad=True)
    TF.log_softmax(xs, 1).backward(torch.tensor(g))
    np.testing.assert_allclose(_np(xt.grad), _np(xs.grad), rtol=1e-5, atol=1e-6)
    # a broadcast (expanded) incoming gradient and a float64 one
    for gin in (lg.tensor(g[:1]).expand(40, C), lg.tensor(g.astype(np.float64))):
        xt.grad = None
        F.log_softmax(xt, 1).backward(gin)
        gn = _np(gin)
        np.testing.assert_allclose(_np(xt.grad), gn - np.exp(rn) * gn.sum(axis=1, keepdims=True), rtol=1e-6)
