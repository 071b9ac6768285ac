"""The example programs in examples/ give torch's numbers: same initial weights, same data.

Each example's functions take the library as an argument. The torch model is built first, its
state_dict is copied into the leafgrad model (so initial weights agree although RNG streams differ),
both train a few steps on the same NumPy data in float64 with dropout 0, and the losses and final
parameters are compared.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    """Import examples/<name>.py by path (without putting examples/ on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


char_gpt = _load("char_gpt")
lstm_language_model = _load("lstm_language_model")
transformer_seq2seq = _load("transformer_seq2seq")
vae = _load("vae")

RTOL, ATOL = 1e-8, 1e-10


def twin(make):
    """(torch model, leafgrad model) in float64 with the leafgrad one holding torch's weights."""
    torch.manual_seed(0)
    t_model = make(torch).double()
    l_model = make(leafgrad).double()
    state = {k: leafgrad.tensor(v.detach().numpy().copy()) for k, v in t_model.state_dict().items()}
    assert sorted(state) == sorted(l_model.state_dict())
    l_model.load_state_dict(state)
    return t_model, l_model


def assert_same_params(t_model, l_model):
    t_params = dict(t_model.named_parameters())
    l_params = dict(l_model.named_parameters())
    assert list(t_params) == list(l_params)
    for name, tp in t_params.items():
        np.testing.assert_allclose(l_params[name].detach().numpy(), tp.detach().numpy(),
                                   rtol=RTOL, atol=ATOL, err_msg=name)
        assert l_params[name].dtype == leafgrad.float64


def test_char_gpt_matches_torch():
    ids, chars = char_gpt.encode()
    block = 12
    t_model, l_model = twin(lambda lib: char_gpt.make_gpt(lib, len(chars), block, n_embd=16, n_head=2))
    t_losses = char_gpt.train(torch, t_model, ids, block, steps=4, batch=4)
    l_losses = char_gpt.train(leafgrad, l_model, ids, block, steps=4, batch=4)
    np.testing.assert_allclose(l_losses, t_losses, rtol=RTOL)
    assert l_losses[-1] < l_losses[0]
    assert_same_params(t_model, l_model)
    # sampling draws from different RNG streams: check shape, range and that the prompt is kept
    l_model.eval()
    prompt = leafgrad.tensor(ids[None, :3])
    out = l_model.generate(prompt, 5, top_k=3)
    assert tuple(out.shape) == (1, 8) and out.dtype == leafgrad.int64
    assert out[0, :3].tolist() == ids[:3].tolist()
    assert 0 <= int(out.min()) and int(out.max()) < len(chars)


def test_lstm_language_model_matches_torch():
    ids, vocab = lstm_language_model.tokenize()
    t_model, l_model = twin(lambda lib: lstm_language_model.make_lm(lib, len(vocab), emsize=8, nhid=10))
    kw = dict(epochs=1, bsz=4, bptt=6, lr=1.0, clip=0.25)
    t_losses = lstm_language_model.train(torch, t_model, ids[:80], **kw)
    l_losses = lstm_language_model.train(leafgrad, l_model, ids[:80], **kw)
    assert len(l_losses) == len(t_losses) > 2
    np.testing.assert_allclose(l_losses, t_losses, rtol=RTOL)
    assert_same_params(t_model, l_model)


def test_vae_matches_torch():
    data = vae.images(48)
    t_model, l_model = twin(lambda lib: vae.make_vae(lib, hidden=16, latent=3))
    t_losses = vae.train(torch, t_model, data, steps=5, batch=8, dtype=torch.float64)
    l_losses = vae.train(leafgrad, l_model, data, steps=5, batch=8, dtype=leafgrad.float64)
    np.testing.assert_allclose(l_losses, t_losses, rtol=RTOL)
    assert l_losses[-1] < l_losses[0]
    assert_same_params(t_model, l_model)


def test_vae_gradients_reach_mu_and_logvar_through_z():
    l_model = vae.make_vae(leafgrad, hidden=8, latent=2).double()
    x = leafgrad.tensor(vae.images(4))
    mu, logvar = l_model.encode(x)
    mu.retain_grad()
    logvar.retain_grad()
    z = l_model.reparameterize(mu, logvar, leafgrad.ones(4, 2, dtype=leafgrad.float64))
    z.sum().backward()
    np.testing.assert_allclose(mu.grad.numpy(), np.ones((4, 2)))
    np.testing.assert_allclose(logvar.grad.numpy(), 0.5 * np.exp(0.5 * logvar.detach().numpy()))


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_transformer_seq2seq_matches_torch():
    t_model, l_model = twin(lambda lib: transformer_seq2seq.make_model(lib, d_model=16, nhead=2, layers=1, ff=32))
    kw = dict(steps=3, batch=6, length=5)
    t_losses = transformer_seq2seq.train(torch, t_model, **kw)
    l_losses = transformer_seq2seq.train(leafgrad, l_model, **kw)
    np.testing.assert_allclose(l_losses, t_losses, rtol=RTOL)
    assert_same_params(t_model, l_model)
    t_model.eval()
    l_model.eval()
    src, _, _ = transformer_seq2seq.copy_batch(np.random.default_rng(5), batch=2, length=5)
    assert l_model.greedy(leafgrad.tensor(src), 5).tolist() == t_model.greedy(torch.tensor(src), 5).tolist()
