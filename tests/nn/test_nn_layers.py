"""Every leafgrad.nn layer against the same torch.nn layer: weights copied from torch through
load_state_dict, then outputs, parameter gradients and input gradients compared (float32 and
float64). Also: state_dict keys and shapes, repr, and the recorded grad_fn."""
from __future__ import annotations

import sys
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
from nn_testutil import chain, close, copy_weights, grad_fn_name, run_both  # noqa: E402

DTYPES = ["float64", "float32"]


def _build(name: str, args: tuple, kwargs: dict, dtype: str):
    t = getattr(torch.nn, name)(*args, **kwargs)
    m = getattr(nn, name)(*args, **kwargs)
    if dtype == "float64":
        t, m = t.double(), m.double()
    copy_weights(m, t)
    return m, t


def _inputs(shapes, dtype: str, seed: int = 0, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * scale).astype(dtype) for s in shapes]


# (module name, constructor args, constructor kwargs, input shapes)
LAYER_CASES = [
    ("Linear", (5, 3), {}, [(4, 5)]),
    ("Linear", (5, 3), {}, [(2, 4, 5)]),
    ("Linear", (5, 3), {}, [(5,)]),
    ("Linear", (5, 3), {"bias": False}, [(2, 4, 5)]),
    ("Bilinear", (5, 4, 3), {}, [(6, 5), (6, 4)]),
    ("Bilinear", (5, 4, 3), {"bias": False}, [(2, 3, 5), (2, 3, 4)]),
    ("Conv2d", (4, 6, 3), {}, [(2, 4, 7, 8)]),
    ("Conv2d", (4, 6, 3), {"stride": 2, "padding": 1}, [(2, 4, 7, 8)]),
    ("Conv2d", (4, 6, 3), {"padding": "same", "dilation": 2}, [(2, 4, 7, 8)]),
    ("Conv2d", (4, 6, (2, 4)), {"padding": "same"}, [(2, 4, 7, 8)]),
    ("Conv2d", (4, 6, 3), {"padding": "valid", "groups": 2, "bias": False}, [(2, 4, 7, 8)]),
    ("Conv2d", (4, 8, 3), {"groups": 4, "stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}, [(2, 4, 9, 9)]),
    ("Conv2d", (3, 5, 3), {"padding": 1, "padding_mode": "reflect"}, [(2, 3, 6, 6)]),
    ("Conv2d", (3, 5, 3), {"padding": 1, "padding_mode": "replicate"}, [(2, 3, 6, 6)]),
    ("Conv2d", (3, 5, 3), {"padding": 1, "padding_mode": "circular"}, [(2, 3, 6, 6)]),
    ("Conv2d", (4, 6, 3), {}, [(4, 7, 8)]),
    ("Conv1d", (4, 6, 3), {}, [(2, 4, 9)]),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}, [(2, 4, 11)]),
    ("Conv1d", (4, 6, 4), {"padding": "same"}, [(2, 4, 9)]),
    ("Conv1d", (4, 6, 3), {}, [(4, 9)]),
    ("MaxPool2d", (2,), {}, [(2, 3, 8, 8)]),
    ("MaxPool2d", (2,), {}, [(2, 3, 7, 9)]),
    ("MaxPool2d", (2,), {"ceil_mode": True}, [(2, 3, 7, 9)]),
    ("AvgPool2d", (2,), {"ceil_mode": True}, [(2, 3, 7, 9)]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [(2, 3, 7, 8)]),
    ("MaxPool2d", (3,), {"stride": 2, "ceil_mode": True}, [(2, 3, 8, 8)]),
    ("MaxPool2d", ((2, 3),), {"stride": 1, "dilation": 2}, [(2, 3, 7, 8)]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "return_indices": True}, [(3, 7, 8)]),
    ("AvgPool2d", (2,), {}, [(2, 3, 8, 8)]),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1}, [(2, 3, 7, 8)]),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}, [(2, 3, 7, 8)]),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, [(2, 3, 8, 8)]),
    ("AvgPool2d", (2,), {"divisor_override": 3}, [(3, 6, 6)]),
    ("AdaptiveAvgPool2d", ((3, 4),), {}, [(2, 3, 7, 8)]),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, [(2, 3, 7, 8)]),
    ("AdaptiveAvgPool2d", (1,), {}, [(2, 3, 7, 8)]),
    ("AdaptiveAvgPool2d", ((5, 7),), {}, [(3, 7, 8)]),
    ("BatchNorm1d", (3,), {}, [(4, 3)]),
    ("BatchNorm1d", (3,), {}, [(4, 3, 6)]),
    ("BatchNorm1d", (3,), {"affine": False}, [(4, 3, 6)]),
    ("BatchNorm1d", (3,), {"track_running_stats": False}, [(4, 3)]),
    ("BatchNorm2d", (3,), {}, [(4, 3, 5, 5)]),
    ("BatchNorm2d", (3,), {"momentum": None, "eps": 1e-3}, [(4, 3, 5, 5)]),
    ("LayerNorm", (5,), {}, [(4, 3, 5)]),
    ("LayerNorm", ((3, 5),), {}, [(4, 3, 5)]),
    ("LayerNorm", (5,), {"elementwise_affine": False}, [(4, 5)]),
    ("LayerNorm", (5,), {"bias": False, "eps": 1e-3}, [(4, 5)]),
    ("Flatten", (), {}, [(2, 3, 4, 5)]),
    ("Flatten", (0, 2), {}, [(2, 3, 4, 5)]),
    ("Unflatten", (1, (2, 3)), {}, [(4, 6, 2)]),
    ("Identity", (3,), {"x": 1}, [(4, 3)]),
    ("ReLU", (), {}, [(4, 6)]),
    ("LeakyReLU", (0.2,), {}, [(4, 6)]),
    ("GELU", (), {}, [(4, 6)]),
    ("GELU", ("tanh",), {}, [(4, 6)]),
    ("SiLU", (), {}, [(4, 6)]),
    ("Tanh", (), {}, [(4, 6)]),
    ("Sigmoid", (), {}, [(4, 6)]),
    ("Softmax", (1,), {}, [(4, 6)]),
    ("LogSoftmax", (-1,), {}, [(4, 6)]),
    ("ELU", (0.5,), {}, [(4, 6)]),
    ("Softplus", (), {}, [(4, 6)]),
    ("Softplus", (2.0, 3.0), {}, [(4, 6)]),
    ("Hardtanh", (-0.5, 2.0), {}, [(4, 6)]),
    ("ReLU6", (), {}, [(4, 6)]),
    ("LogSigmoid", (), {}, [(4, 6)]),
]


def _case_id(case) -> str:
    name, args, kwargs, shapes = case
    return f"{name}{args}{kwargs}{shapes}".replace(" ", "")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LAYER_CASES, ids=_case_id)
def test_layer_matches_torch(case, dtype):
    name, args, kwargs, shapes = case
    m, t = _build(name, args, kwargs, dtype)
    scale = 3.0 if name in ("Softplus", "ELU", "Hardtanh", "ReLU6") else 1.0
    run_both(torch, m, t, _inputs(shapes, dtype, scale=scale), dtype)
    assert repr(m) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]


@pytest.mark.parametrize("dtype", DTYPES)
def test_batchnorm_running_stats_and_eval(dtype):
    m, t = _build("BatchNorm2d", (3,), {"momentum": 0.3}, dtype)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = (rng.standard_normal((4, 3, 5, 5)) * 2 + 1).astype(dtype)
        close(m(lg.tensor(x)), t(torch.tensor(x)), dtype)
    for k in ("running_mean", "running_var", "num_batches_tracked"):
        close(getattr(m, k), getattr(t, k), dtype)
    assert int(m.num_batches_tracked) == 3
    m.eval()
    t.eval()
    run_both(torch, m, t, _inputs([(4, 3, 5, 5)], dtype, seed=2), dtype)
    assert grad_fn_name(m(lg.randn(2, 3, 2, 2, dtype=getattr(lg, dtype)))) == "NativeBatchNormBackward0"
    # eval mode leaves the running statistics alone
    before = m.running_mean.numpy().copy()
    m(lg.tensor(_inputs([(4, 3, 5, 5)], dtype)[0]))
    np.testing.assert_array_equal(m.running_mean.numpy(), before)


def test_batchnorm_cumulative_average_matches_torch():
    m, t = _build("BatchNorm1d", (4,), {"momentum": None}, "float64")
    rng = np.random.default_rng(3)
    for _ in range(4):
        x = rng.standard_normal((6, 4))
        m(lg.tensor(x))
        t(torch.tensor(x))
    close(m.running_mean, t.running_mean)
    close(m.running_var, t.running_var)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 3}, {"padding_idx": -2}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}, {"max_norm": 1.0}])
def test_embedding_matches_torch(kwargs):
    m, t = _build("Embedding", (10, 4), kwargs, "float64")
    idx = np.random.default_rng(0).integers(0, 10, (4, 5))
    idx[0, :3] = 3
    idx[1, 0] = 0
    run_both(torch, m, t, [], "float64",
             call=lambda mod: mod(torch.tensor(idx) if isinstance(mod, torch.nn.Module) else lg.tensor(idx)))
    close(m.weight, t.weight)  # max_norm renormalises the looked-up rows in place
    assert repr(m) == repr(t)


def test_embedding_from_pretrained_and_padding_row():
    w = np.arange(12.0).reshape(4, 3)
    m = nn.Embedding.from_pretrained(lg.tensor(w))
    t = torch.nn.Embedding.from_pretrained(torch.tensor(w))
    assert m.weight.requires_grad == t.weight.requires_grad is False
    close(m(lg.tensor([1, 3])), t(torch.tensor([1, 3])))
    e = nn.Embedding(5, 2, padding_idx=1)
    assert np.all(e.weight.detach().numpy()[1] == 0)


def test_dropout_train_and_eval():
    lg.manual_seed(0)
    d = nn.Dropout(0.4)
    x = lg.ones(2000, requires_grad=True)
    y = d(x)
    kept = y.detach().numpy() != 0
    assert 0.5 < kept.mean() < 0.7
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.6, rtol=1e-6)
    assert grad_fn_name(y) == "MulBackward0"  # torch on the CPU records the mask multiplication
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy(), rtol=1e-6)
    d.eval()
    assert d(x) is x
    assert repr(d) == repr(torch.nn.Dropout(0.4))
    z = nn.Dropout(1.0)(lg.ones(5, requires_grad=True))
    assert np.all(z.detach().numpy() == 0)
    d2 = nn.Dropout2d(0.5)
    out = d2(lg.ones(4, 6, 3, 3)).numpy()
    per_channel = out.reshape(4, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # whole channels kept or zeroed
    with raises_exactly(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_maxpool_ties_and_indices_match_torch():
    x = np.zeros((1, 2, 6, 6))
    x[0, 0, 1, 1] = 1.0
    x[0, 1] = np.arange(36).reshape(6, 6) % 3  # many ties
    for kwargs in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=1)]:
        ol, il = nn.MaxPool2d(**kwargs, return_indices=True)(lg.tensor(x))
        ot, it = torch.nn.MaxPool2d(**kwargs, return_indices=True)(torch.tensor(x))
        close(ol, ot)
        np.testing.assert_array_equal(il.numpy(), it.numpy())
        assert il.dtype is lg.int64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layers", ["mlp", "cnn"])
def test_sequential_model_training_step_matches_torch(layers, dtype):
    def build(M):
        if layers == "mlp":
            return M.Sequential(M.Linear(6, 8), M.ReLU(), M.Linear(8, 8), M.Tanh(), M.Linear(8, 3))
        return M.Sequential(M.Conv2d(1, 4, 3, padding=1), M.BatchNorm2d(4), M.ReLU(), M.MaxPool2d(2),
                            M.Conv2d(4, 6, 3), M.GELU(), M.AdaptiveAvgPool2d(1), M.Flatten(), M.Linear(6, 3))
    t, m = build(torch.nn), build(nn)
    if dtype == "float64":
        t, m = t.double(), m.double()
    copy_weights(m, t)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 6) if layers == "mlp" else (5, 1, 8, 8)).astype(dtype)
    y = rng.integers(0, 3, 5)
    lt = torch.nn.functional.cross_entropy(t(torch.tensor(x)), torch.tensor(y))
    ll = nn.functional.cross_entropy(m(lg.tensor(x)), lg.tensor(y))
    close(ll, lt, dtype)
    lt.backward()
    ll.backward()
    for (k, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
        close(p.grad, q.grad, dtype)
    assert repr(m) == repr(t)


GRAD_FN_CASES = [
    ("Linear", (5, 3), {}, (4, 5), "AddmmBackward0(AccumulateGrad, AccumulateGrad, TBackward0)"),
    ("Linear", (5, 3), {}, (2, 4, 5), "ViewBackward0(AddmmBackward0)"),
    ("Linear", (5, 3), {"bias": False}, (4, 5), "MmBackward0(AccumulateGrad, TBackward0)"),
    ("Conv2d", (2, 3, 3), {}, (1, 2, 5, 5), "ConvolutionBackward0(AccumulateGrad, AccumulateGrad, AccumulateGrad)"),
    ("Conv2d", (2, 3, 3), {"bias": False}, (1, 2, 5, 5), "ConvolutionBackward0(AccumulateGrad, AccumulateGrad, None)"),
    ("Conv1d", (2, 3, 3), {}, (1, 2, 5), "ConvolutionBackward0(AccumulateGrad, AccumulateGrad, AccumulateGrad)"),
    ("MaxPool2d", (2,), {}, (1, 2, 4, 4), "MaxPool2DWithIndicesBackward0(AccumulateGrad)"),
    ("AvgPool2d", (2,), {}, (1, 2, 4, 4), "AvgPool2DBackward0(AccumulateGrad)"),
    ("AdaptiveAvgPool2d", (2,), {}, (1, 2, 5, 5), "AdaptiveAvgPool2DBackward0(AccumulateGrad)"),
    ("AdaptiveAvgPool2d", (1,), {}, (1, 2, 5, 5), "MeanBackward1(AccumulateGrad)"),
    ("BatchNorm2d", (2,), {}, (3, 2, 2, 2), "NativeBatchNormBackward0(AccumulateGrad, AccumulateGrad, AccumulateGrad)"),
    ("BatchNorm1d", (2,), {"affine": False}, (3, 2), "NativeBatchNormBackward0(AccumulateGrad, None, None)"),
    ("LayerNorm", (4,), {}, (3, 4), "NativeLayerNormBackward0(AccumulateGrad, AccumulateGrad, AccumulateGrad)"),
    ("GELU", (), {}, (3,), "GeluBackward0(AccumulateGrad)"),
    ("SiLU", (), {}, (3,), "SiluBackward0(AccumulateGrad)"),
    ("LeakyReLU", (), {}, (3,), "LeakyReluBackward0(AccumulateGrad)"),
    ("ELU", (), {}, (3,), "EluBackward0(AccumulateGrad)"),
    ("Softplus", (), {}, (3,), "SoftplusBackward0(AccumulateGrad)"),
    ("Hardtanh", (), {}, (3,), "HardtanhBackward0(AccumulateGrad)"),
    ("LogSigmoid", (), {}, (3,), "LogSigmoidBackward0(AccumulateGrad)"),
    ("Flatten", (), {}, (2, 3, 2), "ViewBackward0(AccumulateGrad)"),
]


@pytest.mark.parametrize("case", GRAD_FN_CASES, ids=lambda c: f"{c[0]}{c[2]}")
def test_grad_fn_matches_torch(case):
    name, args, kwargs, shape, expected = case
    m, t = _build(name, args, kwargs, "float64")
    x = np.random.default_rng(0).standard_normal(shape)
    out_l = m(lg.tensor(x, requires_grad=True))
    out_t = t(torch.tensor(x, requires_grad=True))
    assert chain(out_l, 1) == chain(out_t, 1) == expected


def test_unbatched_conv_records_squeeze_like_torch():
    m, t = _build("Conv2d", (2, 3, 3), {}, "float64")
    x = np.random.default_rng(0).standard_normal((2, 5, 5))
    assert chain(m(lg.tensor(x, requires_grad=True)), 2) == chain(t(torch.tensor(x, requires_grad=True)), 2)


def test_layer_errors_match_torch():
    cases = [
        (lambda M, T: M.Conv2d(3, 4, 3)(T.zeros(1, 2, 5, 5)), RuntimeError),
        (lambda M, T: M.Conv2d(3, 4, 3)(T.zeros(1, 3, 2, 2)), RuntimeError),
        (lambda M, T: M.Conv2d(3, 4, 3)(T.zeros(3, 5)), RuntimeError),
        (lambda M, T: M.Conv2d(3, 4, 3, stride=2, padding="same"), ValueError),
        (lambda M, T: M.Conv2d(3, 4, 3, groups=2), ValueError),
        (lambda M, T: M.Linear(5, 3)(T.zeros(2, 4)), RuntimeError),
        (lambda M, T: M.MaxPool2d(2, padding=2)(T.zeros(1, 1, 6, 6)), RuntimeError),
        (lambda M, T: M.MaxPool2d(2)(T.zeros(1, 2, 1, 1)), RuntimeError),
        (lambda M, T: M.BatchNorm1d(5)(T.zeros(1, 5)), ValueError),
        (lambda M, T: M.BatchNorm2d(5)(T.zeros(2, 5, 3)), ValueError),
        (lambda M, T: M.LayerNorm(4)(T.zeros(2, 5)), RuntimeError),
        (lambda M, T: M.Embedding(4, 3)(T.tensor([4])), IndexError),
    ]
    for fn, exc in cases:
        with pytest.raises(exc) as et:
            fn(torch.nn, torch)
        with pytest.raises(exc) as el:
            fn(nn, lg)
        assert str(el.value) == str(et.value)


def test_conv_dtype_mismatch_message():
    with raises_exactly(RuntimeError, match="expected scalar type Float but found Double"):
        nn.Conv2d(2, 2, 1).double()(lg.zeros(1, 2, 3, 3))
    with raises_exactly(RuntimeError, match=r"Input type \(float\) and bias type \(double\) should be the same"):
        nn.functional.conv2d(lg.zeros(1, 2, 3, 3), lg.zeros(2, 2, 1, 1), lg.zeros(2, dtype=lg.float64))


def test_repr_of_nested_and_compressed_containers():
    def build(M):
        return M.Sequential(OrderedDict([
            ("features", M.Sequential(M.Conv2d(1, 2, 3), M.BatchNorm2d(2), M.ReLU(inplace=True))),
            ("blocks", M.ModuleList([M.Linear(2, 2) for _ in range(3)] + [M.Tanh()])),
            ("heads", M.ModuleDict({"a": M.Linear(2, 1), "b": M.Identity()})),
            ("rnn", M.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)),
            ("attn", M.MultiheadAttention(8, 2, batch_first=True)),
            ("emb", M.Embedding(10, 3, padding_idx=0)),
            ("loss", M.CrossEntropyLoss(label_smoothing=0.1)),
        ]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(build(nn)) == repr(build(torch.nn))
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())
