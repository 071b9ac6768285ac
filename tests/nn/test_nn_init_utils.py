"""nn.init (torch's distributions and bounds, untracked), each layer's default initialisation,
nn.utils.clip_grad_norm_ / clip_grad_value_ and parameters_to_vector."""
from __future__ import annotations

import math

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
import leafgrad.nn as nn
from leafgrad.nn import init
from leafgrad.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters


def test_calculate_gain_matches_torch():
    torch = pytest.importorskip("torch")
    for args in [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",)]:
        assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    with raises_exactly(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")


def _arr(t):
    return t.detach().numpy()


def test_initialisers_have_torchs_bounds_and_moments():
    lg.manual_seed(0)
    w = lg.empty(400, 300)
    fan_in, fan_out = 300, 400
    init.kaiming_uniform_(w, a=math.sqrt(5))
    bound = math.sqrt(6 / ((1 + 5) * fan_in))
    assert np.abs(_arr(w)).max() <= bound and np.abs(_arr(w)).max() > 0.95 * bound
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(_arr(w).std() - math.sqrt(2 / fan_out)) < 0.02 * math.sqrt(2 / fan_out)
    init.xavier_uniform_(w, gain=2.0)
    a = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(_arr(w)).max() <= a and np.abs(_arr(w)).max() > 0.95 * a
    init.xavier_normal_(w)
    assert abs(_arr(w).std() - math.sqrt(2 / (fan_in + fan_out))) < 0.01
    init.normal_(w, 1.0, 0.5)
    assert abs(_arr(w).mean() - 1.0) < 0.01 and abs(_arr(w).std() - 0.5) < 0.01
    init.uniform_(w, -3, -1)
    assert _arr(w).min() >= -3 and _arr(w).max() <= -1
    init.trunc_normal_(w, mean=0.5, std=1.0, a=0.0, b=1.0)
    assert _arr(w).min() >= 0 and _arr(w).max() <= 1
    init.constant_(w, 0.25)
    assert np.all(_arr(w) == 0.25)
    init.ones_(w)
    init.zeros_(w)
    assert not _arr(w).any()
    q = lg.empty(6, 4)
    init.orthogonal_(q, gain=2.0)
    np.testing.assert_allclose(_arr(q).T @ _arr(q), 4 * np.eye(4), atol=1e-5)
    e = lg.empty(3, 5)
    init.eye_(e)
    np.testing.assert_array_equal(_arr(e), np.eye(3, 5))
    d = lg.empty(4, 2, 3, 3)
    init.dirac_(d)
    assert _arr(d)[1, 1, 1, 1] == 1 and _arr(d).sum() == 2


def test_initialisers_do_not_record_and_work_on_parameters():
    p = nn.Parameter(lg.empty(3, 4))
    for fn in (init.kaiming_uniform_, init.xavier_normal_, init.zeros_, init.orthogonal_, init.trunc_normal_):
        out = fn(p)
        assert out is p and p.grad_fn is None and p.is_leaf and p.requires_grad
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(lg.empty(0, 3))
    with raises_exactly(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         "dimensions"):
        init.xavier_uniform_(lg.empty(3))


def test_layer_default_initialisation_matches_torchs_distributions():
    lg.manual_seed(0)
    lin = nn.Linear(200, 100)
    b = 1 / math.sqrt(200)
    assert np.abs(_arr(lin.weight)).max() <= b and np.abs(_arr(lin.bias)).max() <= b
    assert np.abs(_arr(lin.weight)).max() > 0.9 * b
    conv = nn.Conv2d(8, 16, 3)
    b = 1 / math.sqrt(8 * 9)
    assert np.abs(_arr(conv.weight)).max() <= b and np.abs(_arr(conv.bias)).max() <= b
    bil = nn.Bilinear(20, 30, 5)
    b = 1 / math.sqrt(20)
    assert np.abs(_arr(bil.weight)).max() <= b and np.abs(_arr(bil.weight)).max() > 0.9 * b
    rnn = nn.LSTM(10, 50)
    b = 1 / math.sqrt(50)
    assert all(np.abs(_arr(p)).max() <= b for p in rnn.parameters())
    emb = nn.Embedding(1000, 20)
    assert abs(_arr(emb.weight).std() - 1) < 0.05
    bn = nn.BatchNorm2d(4)
    assert np.all(_arr(bn.weight) == 1) and not _arr(bn.bias).any()
    assert not _arr(bn.running_mean).any() and np.all(_arr(bn.running_var) == 1)
    ln = nn.LayerNorm(4)
    assert np.all(_arr(ln.weight) == 1) and not _arr(ln.bias).any()
    mha = nn.MultiheadAttention(16, 4)
    a = math.sqrt(6 / (16 + 48))
    assert np.abs(_arr(mha.in_proj_weight)).max() <= a
    assert not _arr(mha.in_proj_bias).any() and not _arr(mha.out_proj.bias).any()
    for m in (lin, conv, bil, rnn, emb, bn, ln, mha):
        assert all(p.is_leaf and p.requires_grad and isinstance(p, nn.Parameter) for p in m.parameters())


def _grads_model(torch_mod):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    params = [rng.standard_normal(s) for s in [(3, 4), (4,), (2, 2)]]
    grads = [rng.standard_normal(p.shape) * 3 for p in params]
    lp = [nn.Parameter(lg.tensor(p)) for p in params]
    tp = [torch.nn.Parameter(torch.tensor(p)) for p in params]
    for a, b, g in zip(lp, tp, grads):
        a.grad = lg.tensor(g)
        b.grad = torch.tensor(g)
    return lp, tp


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    torch = pytest.importorskip("torch")
    lp, tp = _grads_model(torch)
    total_l = clip_grad_norm_(lp, max_norm, norm_type)
    total_t = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    assert isinstance(total_l, lg.Tensor) and total_l.dim() == 0
    np.testing.assert_allclose(total_l.item(), total_t.item(), rtol=1e-10)
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10)


def test_clip_grad_norm_nonfinite_and_value():
    torch = pytest.importorskip("torch")
    p = nn.Parameter(lg.zeros(3))
    p.grad = lg.tensor([1.0, float("inf"), 0.0])
    with raises_exactly(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert clip_grad_norm_(nn.Linear(2, 2).parameters(), 1.0).item() == 0.0  # no grads yet
    lp, tp = _grads_model(torch)
    clip_grad_value_(lp, 0.7)
    torch.nn.utils.clip_grad_value_(tp, 0.7)
    for a, b in zip(lp, tp):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    m = nn.Linear(3, 2)
    m(lg.randn(4, 3)).pow(2).sum().backward()
    before = [p.grad.numpy().copy() for p in m.parameters()]
    total = clip_grad_norm_(m.parameters(), 1e-3)
    assert total.item() > 1e-3
    after = np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in m.parameters()))
    np.testing.assert_allclose(after, 1e-3, rtol=1e-3)
    assert any(not np.allclose(b, p.grad.numpy()) for b, p in zip(before, m.parameters()))


def test_parameters_to_vector_roundtrip():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    v = parameters_to_vector(m.parameters())
    assert v.shape == (11,) and v.grad_fn is not None
    vector_to_parameters(v.detach() * 0 + 1, m.parameters())
    assert all(np.all(p.detach().numpy() == 1) for p in m.parameters())
