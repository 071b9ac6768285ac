"""nn.Transformer and its encoder/decoder layers and stacks against torch, with torch's weights copied in:
train mode (dropout 0) values and gradients in float64; eval mode (torch's fast paths) values in float32."""
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
import leafgrad.nn.functional as F  # noqa: E402
from nn_testutil import close, copy_weights, run_both  # noqa: E402

D, H, FF = 8, 2, 16


def _both(name, *args, dtype=torch.float64, **kw):
    """The same layer built in torch and in leafgrad, leafgrad holding torch's weights."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = getattr(torch.nn, name)(*args, **kw).to(dtype)
        lkw = {k: _lg_activation(v) for k, v in kw.items()}
        lk_args = [_lg_module(a) for a in args]
        m = getattr(nn, name)(*lk_args, **lkw).to(getattr(lg, str(dtype).split(".")[1]))
    copy_weights(m, t)
    return m, t


def _lg_activation(v):
    if v is torch.nn.functional.gelu:
        return F.gelu
    if v is torch.nn.functional.relu:
        return F.relu
    if isinstance(v, torch.nn.Module):
        return _lg_module(v)
    return v


def _lg_module(a):
    """A leafgrad twin of a torch layer passed as an argument (an encoder layer, a final norm)."""
    if not isinstance(a, torch.nn.Module):
        return a
    if isinstance(a, torch.nn.LayerNorm):
        return nn.LayerNorm(a.normalized_shape, eps=a.eps)
    if isinstance(a, torch.nn.GELU):
        return nn.GELU()
    kw = dict(dim_feedforward=a.linear1.out_features, dropout=a.dropout.p, batch_first=a.self_attn.batch_first,
              norm_first=a.norm_first, layer_norm_eps=a.norm1.eps)
    return getattr(nn, type(a).__name__)(a.self_attn.embed_dim, a.self_attn.num_heads, **kw)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


ENC_OPTS = [dict(), dict(norm_first=True), dict(activation="gelu"), dict(activation=torch.nn.functional.gelu),
            dict(activation=torch.nn.GELU()), dict(batch_first=True), dict(bias=False)]


@pytest.mark.parametrize("opts", ENC_OPTS)
def test_encoder_layer_train_values_and_grads(opts):
    m, t = _both("TransformerEncoderLayer", D, H, FF, 0.0, **opts)
    run_both(torch, m, t, [_rand(5, 3, D)])


def test_encoder_layer_custom_callable_activation():
    t = torch.nn.TransformerEncoderLayer(D, H, FF, 0.0, activation=torch.tanh).double()
    m = nn.TransformerEncoderLayer(D, H, FF, 0.0, activation=lg.tanh).double()
    copy_weights(m, t)
    assert m.activation_relu_or_gelu == t.activation_relu_or_gelu == 0
    run_both(torch, m, t, [_rand(4, 2, D)])


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer_masks(batch_first):
    m, t = _both("TransformerEncoderLayer", D, H, FF, 0.0, batch_first=batch_first)
    pad = np.array([[False, False, False, True, True], [False, False, False, False, False], [False, True] + [False] * 3])
    causal_l = nn.Transformer.generate_square_subsequent_mask(5, dtype=lg.float64)
    causal_t = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    shape = (3, 5, D) if batch_first else (5, 3, D)

    def call(mod, x):
        lgmod = isinstance(mod, nn.Module)
        lib = lg if lgmod else torch
        return mod(x, src_mask=causal_l if lgmod else causal_t, src_key_padding_mask=lib.tensor(pad), is_causal=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that bool and float masks are mixed
        run_both(torch, m, t, [_rand(*shape)], call=call)
    run_both(torch, m, t, [_rand(*shape)], call=lambda mod, x: mod(
        x, src_key_padding_mask=(lg if isinstance(mod, nn.Module) else torch).tensor(pad)))


def test_encoder_layer_unbatched():
    m, t = _both("TransformerEncoderLayer", D, H, FF, 0.0)
    run_both(torch, m, t, [_rand(5, D)])


@pytest.mark.parametrize("opts", [dict(), dict(norm_first=True), dict(batch_first=True, activation="gelu")])
def test_decoder_layer_train_values_and_grads(opts):
    m, t = _both("TransformerDecoderLayer", D, H, FF, 0.0, **opts)

    def call(mod, tgt, mem):
        lib = lg if isinstance(mod, nn.Module) else torch
        mask = (nn.Transformer if lib is lg else torch.nn.Transformer).generate_square_subsequent_mask(
            4, dtype=lib.float64)
        return mod(tgt, mem, tgt_mask=mask, tgt_is_causal=True,
                   memory_key_padding_mask=lib.tensor([[False, False, True], [False] * 3]))
    if opts.get("batch_first"):
        run_both(torch, m, t, [_rand(2, 4, D), _rand(2, 3, D, seed=1)], call=call)
    else:
        run_both(torch, m, t, [_rand(4, 2, D), _rand(3, 2, D, seed=1)], call=call)


def test_encoder_and_decoder_stacks_with_norm():
    layer_t = torch.nn.TransformerEncoderLayer(D, H, FF, 0.0)
    m, t = _both("TransformerEncoder", layer_t, 2, torch.nn.LayerNorm(D))
    assert list(m.state_dict()) == list(t.state_dict())
    run_both(torch, m, t, [_rand(5, 2, D)])
    dl = torch.nn.TransformerDecoderLayer(D, H, FF, 0.0, norm_first=True)
    m, t = _both("TransformerDecoder", dl, 2, torch.nn.LayerNorm(D))
    assert list(m.state_dict()) == list(t.state_dict())
    run_both(torch, m, t, [_rand(4, 2, D), _rand(5, 2, D, seed=2)])


@pytest.mark.parametrize("opts", [dict(), dict(batch_first=True, norm_first=True, activation="gelu")])
def test_full_transformer_train(opts):
    m, t = _both("Transformer", D, H, 2, 1, FF, 0.0, **opts)
    assert list(m.state_dict()) == list(t.state_dict())
    assert repr(m) == repr(t)
    bf = opts.get("batch_first", False)
    src, tgt = (_rand(2, 5, D), _rand(2, 4, D, seed=3)) if bf else (_rand(5, 2, D), _rand(4, 2, D, seed=3))

    def call(mod, s, tg):
        lib = lg if isinstance(mod, nn.Module) else torch
        cls = nn.Transformer if lib is lg else torch.nn.Transformer
        pad = lib.tensor([[False] * 4 + [True], [False] * 5])
        return mod(s, tg, tgt_mask=cls.generate_square_subsequent_mask(4, dtype=lib.float64),
                   src_key_padding_mask=pad, memory_key_padding_mask=pad)
    run_both(torch, m, t, [src, tgt], call=call)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize("batch_first", [True, False])
def test_eval_fast_paths_match_in_float32(batch_first):
    """In eval under no_grad torch runs fused kernels (and nested tensors for padded encoder input)."""
    layer = torch.nn.TransformerEncoderLayer(D, H, FF, 0.1, batch_first=batch_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, t = _both("TransformerEncoder", layer, 2, torch.nn.LayerNorm(D), dtype=torch.float32)
    m.eval(), t.eval()
    x = _rand(3, 5, D).astype(np.float32) if batch_first else _rand(5, 3, D).astype(np.float32)
    pad = np.array([[False] * 3 + [True] * 2, [False] * 5, [False] * 4 + [True]])
    with torch.no_grad(), lg.no_grad():
        close(m(lg.tensor(x)), t(torch.tensor(x)), "float32")
        out_l = m(lg.tensor(x), src_key_padding_mask=lg.tensor(pad))
        out_t = t(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
        close(out_l, out_t, "float32")
        # the single layer's own fast path
        close(m.layers[0](lg.tensor(x), src_key_padding_mask=lg.tensor(pad)),
              t.layers[0](torch.tensor(x), src_key_padding_mask=torch.tensor(pad)), "float32")
    # with grad enabled (parameters require grad) torch takes the plain path: padded rows are not zeroed
    close(m(lg.tensor(x), src_key_padding_mask=lg.tensor(pad)),
          t(torch.tensor(x), src_key_padding_mask=torch.tensor(pad)), "float32")


def test_transformer_eval_matches():
    m, t = _both("Transformer", D, H, 1, 1, FF, 0.1, batch_first=True, dtype=torch.float32)
    m.eval(), t.eval()
    s, tg = _rand(2, 5, D).astype(np.float32), _rand(2, 3, D, seed=4).astype(np.float32)
    with torch.no_grad(), lg.no_grad():
        close(m(lg.tensor(s), lg.tensor(tg)), t(torch.tensor(s), torch.tensor(tg)), "float32")


def test_nested_tensor_warning_as_torch():
    for kw in (dict(), dict(batch_first=True, norm_first=True), dict(batch_first=True, activation=lg.tanh)):
        tkw = dict(kw, activation=torch.tanh) if "activation" in kw else kw
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, H, FF, **tkw), 1)
        with warnings.catch_warnings(record=True) as wl:
            warnings.simplefilter("always")
            enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF, **kw), 1)
        assert [(w.category, str(w.message)) for w in wl] == [(w.category, str(w.message)) for w in wt]
        assert enc.use_nested_tensor is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF, batch_first=True), 1).use_nested_tensor


def test_square_subsequent_mask_and_causal_detection():
    close(nn.Transformer.generate_square_subsequent_mask(4), torch.nn.Transformer.generate_square_subsequent_mask(4),
          "float32")
    from leafgrad.nn.modules.transformer import _detect_is_causal_mask
    from torch.nn.modules.transformer import _detect_is_causal_mask as t_detect
    for sz in (3, 4):
        ml, mt = nn.Transformer.generate_square_subsequent_mask(sz), torch.nn.Transformer.generate_square_subsequent_mask(sz)
        assert _detect_is_causal_mask(ml, None, 4) == t_detect(mt, None, 4)
    assert _detect_is_causal_mask(lg.zeros(4, 4), None) == t_detect(torch.zeros(4, 4), None) is False
    assert _detect_is_causal_mask(None, True) is True


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_errors_as_torch():
    with raises_exactly(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(D, H, activation="tanh")
    with raises_exactly(RuntimeError, match="activation should be relu/gelu, not tanh"):
        torch.nn.TransformerDecoderLayer(D, H, activation="tanh")
    with raises_exactly(RuntimeError, match="activation should be relu/gelu"):
        nn.TransformerDecoderLayer(D, H, activation="tanh")
    m = nn.Transformer(D, H, 1, 1, FF)
    with raises_exactly(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(lg.randn(5, 2, D), lg.randn(4, 3, D))
    with raises_exactly(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        m(lg.randn(5, 2, D), lg.randn(4, 2, D + 1))
    t = torch.nn.Transformer(D, H, 1, 1, FF)
    with raises_exactly(RuntimeError, match="the batch number"):
        t(torch.randn(5, 2, D), torch.randn(4, 3, D))
    with raises_exactly(AssertionError):
        nn.TransformerEncoderLayer(D, 3)
    with raises_exactly(AssertionError):
        torch.nn.TransformerEncoderLayer(D, 3)


def test_layers_are_independent_deep_copies():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, FF, batch_first=True), 2)
    a, b = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert a is not b and np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert repr(enc) == repr(torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, H, FF, batch_first=True),
                                                         2))


def _tiny_lm(lib_nn, vocab=11, d=D):
    class LM(lib_nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib_nn.Embedding(vocab, d)
            layer = lib_nn.TransformerEncoderLayer(d, H, FF, 0.0, batch_first=True, norm_first=True)
            self.enc = lib_nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = lib_nn.Linear(d, vocab)

        def forward(self, idx, mask):
            return self.head(self.enc(self.emb(idx), mask=mask, is_causal=True))
    return LM()


def test_tiny_causal_language_model_trains_as_torch():
    """A char-level GPT-style model (causal encoder stack) trained three SGD steps: the same losses."""
    t = _tiny_lm(torch.nn).double()
    m = _tiny_lm(nn).double()
    copy_weights(m, t)
    idx = np.random.default_rng(5).integers(0, 11, (3, 7))
    opt_t, opt_l = torch.optim.SGD(t.parameters(), lr=0.1), lg.optim.SGD(m.parameters(), lr=0.1)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    mask_l = nn.Transformer.generate_square_subsequent_mask(6, dtype=lg.float64)
    for _ in range(3):
        losses = []
        for lib, model, opt, mask in ((torch, t, opt_t, mask_t), (lg, m, opt_l, mask_l)):
            x, y = lib.tensor(idx[:, :-1]), lib.tensor(idx[:, 1:])
            logits = model(x, mask)
            loss = (torch.nn.functional if lib is torch else F).cross_entropy(logits.reshape(-1, 11), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) < 1e-10
    for (n, p), (tn, tp) in zip(m.named_parameters(), t.named_parameters()):
        close(p, tp, "float64")
