"""F.scaled_dot_product_attention, F.conv_transpose1d/2d and nn.ConvTranspose1d/2d against torch."""
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


def _pair(rng, *shape):
    return pair(torch, rng, *shape)


def _masks(kind, rng):
    if kind == "bool":
        m = rng.random((4, 6)) > 0.4
        m[1] = False  # a fully masked row: zeros, not NaN
        return torch.tensor(m), lg.tensor(m)
    if kind == "float":
        m = rng.standard_normal((4, 6))
        return torch.tensor(m), lg.tensor(m)
    return None, None


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "bool"}, {"mask": "float"}])
@pytest.mark.parametrize("ndim", [3, 4])
def test_sdpa_values_grads_nodes(kw, ndim):
    rng = np.random.default_rng(0)
    lead = (2, 3)[: ndim - 2]
    (tq, lq), (tk, lk), (tv, lv) = _pair(rng, *lead, 4, 5), _pair(rng, *lead, 6, 5), _pair(rng, *lead, 6, 5)
    kw = dict(kw)
    tm, lm = _masks(kw.pop("mask", None), rng)
    ty = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kw)
    ly = LF.scaled_dot_product_attention(lq, lk, lv, attn_mask=lm, **kw)
    _close(ty, ly, 1e-10)
    if ndim == 4:
        assert ly.grad_fn.name() == ty.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        _close(ty.grad_fn._saved_logsumexp, ly.grad_fn._saved_logsumexp)
        assert ly.grad_fn._saved_scale == pytest.approx(ty.grad_fn._saved_scale)
        assert ly.grad_fn._saved_is_causal == ty.grad_fn._saved_is_causal
    g = rng.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, (tq, tk, tv), torch.tensor(g), create_graph=ndim == 3)
    lgr = lg.autograd.grad(ly, (lq, lk, lv), lg.tensor(g), create_graph=ndim == 3)
    for a, b in zip(tg, lgr):
        _close(a, b)
    if ndim == 3:  # the composed path has second derivatives
        t2 = torch.autograd.grad(sum((x ** 2).sum() for x in tg), (tq, tk, tv))
        l2 = lg.autograd.grad(sum((x ** 2).sum() for x in lgr), (lq, lk, lv))
        for a, b in zip(t2, l2):
            _close(a, b, 1e-8)


def test_sdpa_fused_has_no_second_derivative():
    rng = np.random.default_rng(1)
    tq, lq = _pair(rng, 2, 3, 4, 5)
    ty, ly = TF.scaled_dot_product_attention(tq, tq, tq), LF.scaled_dot_product_attention(lq, lq, lq)
    tg = torch.autograd.grad(ty.sum(), tq, create_graph=True)[0]
    lgr = lg.autograd.grad(ly.sum(), lq, create_graph=True)[0]
    _close(tg, lgr)
    names = {f.name() for f, _ in tg.grad_fn.next_functions if f is not None}
    assert "torch::autograd::NotImplemented" in names
    assert "torch::autograd::NotImplemented" in {f.name() for f, _ in lgr.grad_fn.next_functions if f is not None}
    with raises_exactly(RuntimeError) as te:
        tg.sum().backward()
    with raises_exactly(RuntimeError) as le:
        lgr.sum().backward()
    assert type(le.value) is type(te.value) is RuntimeError
    assert str(le.value).startswith("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward")


def test_sdpa_gqa_and_broadcast_heads():
    rng = np.random.default_rng(2)
    (tq, lq), (tk, lk), (tv, lv) = _pair(rng, 2, 4, 3, 5), _pair(rng, 2, 2, 6, 5), _pair(rng, 2, 2, 6, 5)
    ty = TF.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True)
    ly = LF.scaled_dot_product_attention(lq, lk, lv, enable_gqa=True)
    _close(ty, ly, 1e-10)
    tg = torch.autograd.grad(ty.sum(), (tq, tk, tv))
    lgr = lg.autograd.grad(ly.sum(), (lq, lk, lv))
    for a, b in zip(tg, lgr):
        _close(a, b)
    (tk1, lk1), (tv1, lv1) = _pair(rng, 2, 1, 6, 5), _pair(rng, 2, 1, 6, 5)
    ty = TF.scaled_dot_product_attention(tq, tk1, tv1)
    ly = LF.scaled_dot_product_attention(lq, lk1, lv1)
    _close(ty, ly, 1e-10)
    for a, b in zip(torch.autograd.grad(ty.sum(), (tk1, tv1)), lg.autograd.grad(ly.sum(), (lk1, lv1))):
        _close(a, b)


@pytest.mark.parametrize("case", ["dtype", "mask_dtype", "gqa"])
def test_sdpa_errors(case):
    def run(m, F):
        q = m.randn(2, 4, 3, 5)
        if case == "dtype":
            return F.scaled_dot_product_attention(q, q.double(), q)
        if case == "mask_dtype":
            return F.scaled_dot_product_attention(q, q, q, attn_mask=m.ones(3, 3, dtype=m.long))
        k = m.randn(2, 3, 3, 5)
        return F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
    same_error(run, torch, TF, LF, 40)


CT_CASES = [{}, {"stride": 2, "padding": 1, "output_padding": 1}, {"stride": 3, "dilation": 2, "groups": 2,
            "output_padding": 1}, {"stride": 1, "dilation": 2, "output_padding": 1, "padding": 2}]


@pytest.mark.parametrize("kw", CT_CASES)
@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose_functional(kw, nd, bias):
    rng = np.random.default_rng(3)
    (tx, lx), (tw, lw) = _pair(rng, 2, 4, *(5,) * nd), _pair(rng, 4, 3, *(3,) * nd)
    out_c = 3 * kw.get("groups", 1)
    tb, lb = _pair(rng, out_c) if bias else (None, None)
    tf, lf = (TF.conv_transpose1d, TF.conv_transpose2d)[nd - 1], (LF.conv_transpose1d, LF.conv_transpose2d)[nd - 1]
    ty, ly = tf(tx, tw, tb, **kw), lf(lx, lw, lb, **kw)
    assert tuple(ly.shape) == tuple(ty.shape)
    assert ly.grad_fn.name() == ty.grad_fn.name() == "ConvolutionBackward0"
    assert len(ly.grad_fn.next_functions) == len(ty.grad_fn.next_functions)
    _close(ty, ly, 1e-10)
    g = rng.standard_normal(ty.shape)
    tins, lins = (tx, tw) + ((tb,) if bias else ()), (lx, lw) + ((lb,) if bias else ())
    tg = torch.autograd.grad(ty, tins, torch.tensor(g), create_graph=True)
    lgr = lg.autograd.grad(ly, lins, lg.tensor(g), create_graph=True)
    for a, b in zip(tg, lgr):
        _close(a, b)
    t2 = torch.autograd.grad((tg[0] ** 2).sum() + (tg[1] ** 2).sum(), (tx, tw))
    l2 = lg.autograd.grad((lgr[0] ** 2).sum() + (lgr[1] ** 2).sum(), (lx, lw))
    for a, b in zip(t2, l2):
        _close(a, b, 1e-8)


def test_conv_transpose_unbatched_and_errors():
    rng = np.random.default_rng(4)
    (tx, lx), (tw, lw) = _pair(rng, 4, 5, 5), _pair(rng, 4, 2, 3, 3)
    _close(TF.conv_transpose2d(tx, tw, stride=2), LF.conv_transpose2d(lx, lw, stride=2), 1e-10)
    for m, F in ((torch, TF), (lg, LF)):
        with raises_exactly(RuntimeError):
            F.conv_transpose2d(m.randn(1, 5, 4, 4), m.randn(4, 2, 3, 3))  # channels
        with raises_exactly(RuntimeError):
            F.conv_transpose2d(m.randn(1, 4, 4, 4), m.randn(4, 2, 3, 3), output_padding=1)  # >= stride


@pytest.mark.parametrize("nd", [1, 2])
def test_conv_transpose_module(nd):
    L, T = (lg.nn.ConvTranspose1d, lg.nn.ConvTranspose2d)[nd - 1], (torch.nn.ConvTranspose1d,
                                                                     torch.nn.ConvTranspose2d)[nd - 1]
    for kw in ({"stride": 2}, {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "bias": False}):
        a, b = L(4, 6, 3, **kw), T(4, 6, 3, **kw)
        assert repr(a) == repr(b)
        assert list(a.state_dict()) == list(b.state_dict())
        a.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in b.state_dict().items()})
        x = np.random.default_rng(5).standard_normal((2, 4) + (5,) * nd).astype(np.float32)
        np.testing.assert_allclose(b(torch.tensor(x)).detach().numpy(), a(lg.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-6)
        size = (2, 6) + ((10 if "padding" in kw else 12),) * nd  # the largest valid size
        assert tuple(a(lg.tensor(x), output_size=size).shape) == tuple(b(torch.tensor(x), output_size=size).shape)
    for m in (torch, lg):
        layer = getattr(m.nn, f"ConvTranspose{nd}d")
        with raises_exactly(ValueError):
            layer(4, 6, 3, padding_mode="reflect")
        with raises_exactly(ValueError):
            layer(4, 6, 3, stride=2)(m.randn(1, 4, *(5,) * nd), output_size=(20,) * nd)
