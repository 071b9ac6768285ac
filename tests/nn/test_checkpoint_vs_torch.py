"""torch.utils.checkpoint: checkpoint (use_reentrant True/False, preserve_rng_state) and
checkpoint_sequential give the plain call's values and gradients; warnings and errors as torch's."""
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
from leafgrad.utils.checkpoint import checkpoint, checkpoint_sequential  # noqa: E402
from nn_testutil import copy_weights  # noqa: E402
from torch.utils.checkpoint import checkpoint as t_checkpoint, checkpoint_sequential as t_sequential  # noqa: E402


def _np(t):
    return np.asarray(t.detach().numpy())


def _models():
    t = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 4), torch.nn.ReLU(),
                            torch.nn.Linear(4, 2)).double()
    m = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2)).double()
    copy_weights(m, t)
    return m, t


def _run(model, lib, x, how):
    xi = lib.tensor(x, requires_grad=True)
    out = how(model, xi)
    (out ** 2).sum().backward()
    return out, xi.grad, [p.grad for p in model.parameters()]


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_matches_torch_and_the_plain_call(reentrant):
    x = np.random.default_rng(0).standard_normal((4, 3))
    m, t = _models()
    got = _run(m, lg, x, lambda mod, xi: checkpoint(mod, xi, use_reentrant=reentrant))
    want = _run(t, torch, x, lambda mod, xi: t_checkpoint(mod, xi, use_reentrant=reentrant))
    m2, _ = _models()
    copy_weights(m2, t)
    plain = _run(m2, lg, x, lambda mod, xi: mod(xi))
    for a, b, c in zip([got[0], got[1], *got[2]], [want[0], want[1], *want[2]], [plain[0], plain[1], *plain[2]]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(_np(a), _np(c), rtol=1e-12, atol=1e-14)
    if reentrant:
        assert got[0].grad_fn.name() == want[0].grad_fn.name() == "CheckpointFunctionBackward"


@pytest.mark.parametrize("reentrant", [True, False])
def test_dropout_replays_the_same_mask(reentrant):
    m = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5), nn.Linear(6, 3)).double()
    x = lg.tensor(np.random.default_rng(1).standard_normal((8, 6)), requires_grad=True)
    lg.manual_seed(3)
    out = checkpoint(m, x, use_reentrant=reentrant)
    after = lg.rand(1)  # the backward's replay must not disturb the caller's stream
    out.sum().backward()
    g_ckpt = [p.grad.clone() for p in m.parameters()] + [x.grad.clone()]
    for p in [*m.parameters(), x]:
        p.grad = None
    lg.manual_seed(3)
    ref = m(x)
    after_ref = lg.rand(1)
    ref.sum().backward()
    np.testing.assert_array_equal(_np(out), _np(ref))
    np.testing.assert_array_equal(_np(after), _np(after_ref))
    for a, b in zip(g_ckpt, [p.grad for p in m.parameters()] + [x.grad]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)


def test_reentrant_without_rng_preservation_draws_a_new_mask():
    m = nn.Sequential(nn.Linear(50, 50), nn.Dropout(0.5)).double()
    x = lg.tensor(np.ones((4, 50)), requires_grad=True)
    out = checkpoint(m, x, use_reentrant=True, preserve_rng_state=False)
    out.sum().backward()
    kept = (_np(out) != 0).astype(float)
    # with the mask re-drawn in backward, x's gradient no longer matches the forward's mask
    w = _np(m[0].weight)
    assert not np.allclose(_np(x.grad), (kept * 2.0) @ w)


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(reentrant, segments):
    x = np.random.default_rng(2).standard_normal((4, 3))
    m, t = _models()
    got = _run(m, lg, x, lambda mod, xi: checkpoint_sequential(mod, segments, xi, use_reentrant=reentrant))
    want = _run(t, torch, x, lambda mod, xi: t_sequential(mod, segments, xi, use_reentrant=reentrant))
    for a, b in zip([got[0], got[1], *got[2]], [want[0], want[1], *want[2]]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)


def test_non_reentrant_works_with_autograd_grad_and_kwargs():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda a, scale: (a * scale).sin(), x, use_reentrant=False, scale=3.0)
    (g,) = lg.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(_np(g), 3 * np.cos(3 * _np(x)))


def _warnings(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in rec]


def test_warnings_as_torch():
    f = lambda a: a * 2  # noqa: E731
    assert _warnings(lambda: checkpoint(f, lg.ones(2, requires_grad=True))) == \
        _warnings(lambda: t_checkpoint(f, torch.ones(2, requires_grad=True)))
    assert _warnings(lambda: checkpoint(f, lg.ones(2), use_reentrant=True)) == \
        _warnings(lambda: t_checkpoint(f, torch.ones(2), use_reentrant=True))
    seq_l, seq_t = nn.Sequential(nn.Identity()), torch.nn.Sequential(torch.nn.Identity())
    assert _warnings(lambda: checkpoint_sequential(seq_l, 1, lg.ones(2))) == \
        _warnings(lambda: t_sequential(seq_t, 1, torch.ones(2)))


def test_errors_as_torch():
    f = lambda a, **kw: a * 2  # noqa: E731
    for ck, lib in ((checkpoint, lg), (t_checkpoint, torch)):
        x = lib.ones(2, requires_grad=True)
        with raises_exactly(ValueError, match="Unexpected keyword arguments: foo"):
            ck(f, x, use_reentrant=True, foo=1)
        with raises_exactly(ValueError, match="Passing `context_fn` or `debug` is only supported"):
            ck(f, x, use_reentrant=True, debug=True)
        with raises_exactly(ValueError, match="determinism_check should be one of"):
            ck(f, x, use_reentrant=False, determinism_check="strict")
        out = ck(lambda a: a.detach() * 2, x, use_reentrant=True)
        with raises_exactly(RuntimeError, match="none of output has requires_grad=True"):
            out.sum().backward()
    with raises_exactly(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(nn.Sequential(nn.Identity()), 1, lg.ones(2), use_reentrant=True, foo=1)
