"""RNN / LSTM / GRU and MultiheadAttention against torch: outputs, final states, attention weights,
every parameter gradient and the input gradients."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
from nn_testutil import copy_weights, run_both  # noqa: E402

DTYPES = ["float64", "float32"]


def _pair(name, args, kwargs, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = getattr(torch.nn, name)(*args, **kwargs)
    m = getattr(nn, name)(*args, **kwargs)
    if dtype == "float64":
        t, m = t.double(), m.double()
    copy_weights(m, t)
    assert [(k, tuple(p.shape)) for k, p in m.named_parameters()] == \
        [(k, tuple(p.shape)) for k, p in t.named_parameters()]
    assert repr(m) == repr(t)
    return m, t


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


RNN_OPTIONS = [{}, {"num_layers": 2}, {"batch_first": True}, {"bidirectional": True}, {"bias": False},
               {"num_layers": 2, "bidirectional": True, "batch_first": True}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opts", RNN_OPTIONS + [{"nonlinearity": "relu"}], ids=str)
def test_rnn(opts, dtype):
    _check_recurrent("RNN", opts, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opts", RNN_OPTIONS + [{"proj_size": 2}], ids=str)
def test_lstm(opts, dtype):
    _check_recurrent("LSTM", opts, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opts", RNN_OPTIONS, ids=str)
def test_gru(opts, dtype):
    _check_recurrent("GRU", opts, dtype)


def _check_recurrent(name, opts, dtype):
    m, t = _pair(name, (3, 4), opts, dtype)
    seq = (2, 5, 3) if opts.get("batch_first") else (5, 2, 3)
    run_both(torch, m, t, _arrays([seq], dtype), dtype)  # zero initial state
    d = (2 if opts.get("bidirectional") else 1) * opts.get("num_layers", 1)
    h = opts.get("proj_size", 0) or 4
    if name == "LSTM":
        run_both(torch, m, t, _arrays([seq, (d, 2, h), (d, 2, 4)], dtype, 1), dtype,
                 call=lambda mod, x, h0, c0: mod(x, (h0, c0)))
        run_both(torch, m, t, _arrays([(5, 3), (d, h), (d, 4)], dtype, 2), dtype,
                 call=lambda mod, x, h0, c0: mod(x, (h0, c0)))
    else:
        run_both(torch, m, t, _arrays([seq, (d, 2, 4)], dtype, 1), dtype, call=lambda mod, x, h0: mod(x, h0))
        run_both(torch, m, t, _arrays([(5, 3)], dtype, 2), dtype)  # unbatched


def test_rnn_dropout_between_layers_only_in_training():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = lg.randn(6, 2, 3)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    lg.manual_seed(0)
    c, _ = m(x)
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())


def test_rnn_errors():
    with raises_exactly(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 4"):
        nn.LSTM(3, 4)(lg.zeros(5, 2, 4))
    with raises_exactly(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        nn.GRU(3, 4)(lg.zeros(5, 2, 3), lg.zeros(1, 3, 4))
    with raises_exactly(ValueError, match="RNN input dtype"):
        nn.RNN(3, 4)(lg.zeros(5, 2, 3, dtype=lg.float64))
    with raises_exactly(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)


MHA_OPTIONS = [{}, {"batch_first": True}, {"bias": False}, {"kdim": 5, "vdim": 6}, {"add_bias_kv": True},
               {"add_zero_attn": True}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opts", MHA_OPTIONS, ids=str)
def test_multihead_attention(opts, dtype):
    m, t = _pair("MultiheadAttention", (8, 2), opts, dtype)
    bf = opts.get("batch_first", False)
    q = (2, 4, 8) if bf else (4, 2, 8)
    k = (2, 6, opts.get("kdim", 8)) if bf else (6, 2, opts.get("kdim", 8))
    v = k[:-1] + (opts.get("vdim", 8),)
    for need_weights in (True, False):
        for average in (True, False):
            run_both(torch, m, t, _arrays([q, k, v], dtype), dtype,
                     call=lambda mod, a, b, c: mod(a, b, c, need_weights=need_weights, average_attn_weights=average))
    attn = np.triu(np.ones((4, 6), bool), 1)
    pad = np.zeros((2, 6), bool)
    pad[1, -2:] = True

    def masked(mod, a, b, c):
        lib = torch if isinstance(mod, torch.nn.Module) else lg
        return mod(a, b, c, attn_mask=lib.tensor(attn), key_padding_mask=lib.tensor(pad))

    run_both(torch, m, t, _arrays([q, k, v], dtype, 1), dtype, call=masked)

    def float_mask(mod, a, b, c):
        lib = torch if isinstance(mod, torch.nn.Module) else lg
        return mod(a, b, c, attn_mask=lib.tensor(np.where(attn, -1.5, 0.0).astype(dtype)), need_weights=False)

    run_both(torch, m, t, _arrays([q, k, v], dtype, 2), dtype, call=float_mask)
    if "kdim" not in opts:
        run_both(torch, m, t, _arrays([q], dtype, 3), dtype, call=lambda mod, a: mod(a, a, a))  # self-attention


def test_multihead_attention_unbatched_and_3d_mask():
    m, t = _pair("MultiheadAttention", (8, 2), {}, "float64")
    run_both(torch, m, t, _arrays([(4, 8), (6, 8), (6, 8)], "float64"), "float64")
    mask = np.random.default_rng(0).standard_normal((2 * 3, 4, 6))

    def call(mod, a, b, c):
        lib = torch if isinstance(mod, torch.nn.Module) else lg
        return mod(a, b, c, attn_mask=lib.tensor(mask))

    run_both(torch, m, t, _arrays([(4, 3, 8), (6, 3, 8), (6, 3, 8)], "float64"), "float64", call=call)


def test_multihead_attention_dropout_only_in_training():
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = lg.randn(4, 2, 8)
    m.eval()
    a, _ = m(x, x, x)
    b, _ = m(x, x, x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
