"""Each leafgrad optimizer against torch.optim on the same problem.

Both frameworks start from the same parameter values, compute the same loss with their
own autograd, and take five steps; the parameters (and the optimizer state) must agree
within 1e-5. Variants cover momentum, dampening, Nesterov, weight decay, amsgrad,
maximize, centered, lr_decay, several param groups and parameters without a gradient.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402

TOL = 1e-5

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, weight_decay=0.05, nesterov=True, maximize=True)),
    ("SGD", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.95), eps=1e-6)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("Adam", dict(lr=0.02, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, eps=1e-6)),
    ("Adagrad", dict(lr=0.1, maximize=True, lr_decay=0.01)),
]


def _ids(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal((5, 3)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
        "x": rng.standard_normal((16, 5)).astype(np.float32),
        "y": rng.standard_normal((16, 3)).astype(np.float32),
    }


def _loss(mod, w, b, x, y):
    # a small non-linear regression: enough curvature for the optimizers' state to matter
    out = mod.tanh(x @ w + b)
    return ((out - y) ** 2).mean() + 0.1 * (w ** 2).sum()


def _run(mod, name, kw, data, steps=5, groups=False):
    w = mod.tensor(data["w"], requires_grad=True)
    b = mod.tensor(data["b"], requires_grad=True)
    x, y = mod.tensor(data["x"]), mod.tensor(data["y"])
    if groups:
        params = [{"params": [w]}, {"params": [b], "lr": kw["lr"] * 0.5}]
    else:
        params = [w, b]
    opt = getattr(mod.optim, name)(params, **kw)
    for _ in range(steps):
        opt.zero_grad()
        _loss(mod, w, b, x, y).backward()
        opt.step()
    return opt, w, b


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_five_steps_match_torch(case):
    name, kw = case
    data = _problem()
    _, tw, tb = _run(torch, name, kw, data)
    _, lw, lb = _run(lg, name, kw, data)
    np.testing.assert_allclose(_np(lw), _np(tw), atol=TOL, rtol=0)
    np.testing.assert_allclose(_np(lb), _np(tb), atol=TOL, rtol=0)


@pytest.mark.parametrize("case", [CASES[2], CASES[9], CASES[16], CASES[21], CASES[25]], ids=_ids)
def test_param_groups_match_torch(case):
    name, kw = case
    data = _problem(1)
    topt, tw, tb = _run(torch, name, kw, data, groups=True)
    lopt, lw, lb = _run(lg, name, kw, data, groups=True)
    np.testing.assert_allclose(_np(lw), _np(tw), atol=TOL, rtol=0)
    np.testing.assert_allclose(_np(lb), _np(tb), atol=TOL, rtol=0)
    # and the state each optimizer keeps
    for tp, lp in ((tw, lw), (tb, lb)):
        tstate, lstate = topt.state[tp], lopt.state[lp]
        assert list(tstate) == list(lstate)
        for key in tstate:
            tv, lv = tstate[key], lstate[key]
            assert tuple(tv.shape) == tuple(lv.shape)
            assert str(tv.dtype) == str(lv.dtype)
            np.testing.assert_allclose(_np(lv), _np(tv), atol=TOL, rtol=1e-5)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                     ("RMSprop", dict(lr=0.01, momentum=0.5)), ("Adagrad", dict(lr=0.1))])
def test_params_without_grad_are_skipped(name, kw):
    """A parameter whose .grad is None is left alone (and gets no state), as in torch."""
    data = _problem(2)
    results = {}
    for mod in (torch, lg):
        w = mod.tensor(data["w"], requires_grad=True)
        unused = mod.tensor(data["b"], requires_grad=True)
        opt = getattr(mod.optim, name)([w, unused], **kw)
        for step in range(5):
            opt.zero_grad()
            (mod.tensor(data["x"]) @ w).pow(2).mean().backward()
            opt.step()
        results[mod.__name__] = (_np(w).copy(), _np(unused).copy(), sorted(opt.state[unused]))
    (tw, tu, tkeys), (lw, lu, lkeys) = results["torch"], results["leafgrad"]
    np.testing.assert_allclose(lw, tw, atol=TOL, rtol=0)
    np.testing.assert_array_equal(lu, tu)
    assert lkeys == tkeys


def test_scripted_gradients_sgd_nesterov_exact_formula():
    """Gradients set by hand (no autograd): checks the update rule alone."""
    rng = np.random.default_rng(3)
    p0 = rng.standard_normal(4).astype(np.float32)
    grads = [rng.standard_normal(4).astype(np.float32) for _ in range(5)]
    out = {}
    for mod in (torch, lg):
        p = mod.tensor(p0, requires_grad=True)
        opt = mod.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
        for g in grads:
            p.grad = mod.tensor(g)
            opt.step()
        out[mod.__name__] = _np(p).copy()
    np.testing.assert_allclose(out["leafgrad"], out["torch"], atol=1e-6, rtol=0)


def test_closure_is_called_and_loss_returned():
    data = _problem(4)
    losses = {}
    for mod in (torch, lg):
        w = mod.tensor(data["w"], requires_grad=True)
        b = mod.tensor(data["b"], requires_grad=True)
        opt = mod.optim.SGD([w, b], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = _loss(mod, w, b, mod.tensor(data["x"]), mod.tensor(data["y"]))
            loss.backward()
            return loss

        losses[mod.__name__] = [opt.step(closure).detach().item() for _ in range(3)]
    np.testing.assert_allclose(losses["leafgrad"], losses["torch"], rtol=1e-5)


def test_float64_params_keep_float64_state():
    for mod in (torch, lg):
        p = mod.zeros(3, dtype=mod.float64, requires_grad=True)
        opt = mod.optim.Adam([p])
        p.grad = mod.ones(3, dtype=mod.float64)
        opt.step()
        assert str(opt.state[p]["exp_avg"].dtype) == "torch.float64"
        assert str(opt.state[p]["step"].dtype) == "torch.float32"


def _scripted(mod, name, kw, grads):
    """Steps with the given gradients set directly: the optimizer alone decides the result."""
    p = mod.tensor(np.ones(len(grads[0])), requires_grad=True)
    opt = getattr(mod.optim, name)([p], **kw)
    for g in grads:
        p.grad = mod.tensor(np.asarray(g, dtype=np.float64))
        opt.step()
    return opt, p


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_amsgrad_keeps_the_largest_second_moment(name):
    """Large gradients, then small ones: the squared average falls, so AMSGrad (which divides by its
    running maximum) takes smaller steps than plain Adam. A plain Adam passes for AMSGrad nowhere here."""
    grads = [[10.0, -3.0], [8.0, 3.0]] + [[0.1, -0.05]] * 6
    kw = dict(lr=0.1, betas=(0.5, 0.6))  # a short memory, so the second moment falls within the run
    t_ams, tp = _scripted(torch, name, dict(kw, amsgrad=True), grads)
    _, tp_plain = _scripted(torch, name, kw, grads)
    l_ams, lp = _scripted(lg, name, dict(kw, amsgrad=True), grads)
    _, lp_plain = _scripted(lg, name, kw, grads)
    assert np.abs(_np(tp) - _np(tp_plain)).min() > 100 * TOL  # the test can tell the two apart
    np.testing.assert_allclose(_np(lp), _np(tp), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(lp_plain), _np(tp_plain), rtol=1e-12, atol=1e-12)
    ts, ls = t_ams.state[tp], l_ams.state[lp]
    np.testing.assert_allclose(_np(ls["max_exp_avg_sq"]), _np(ts["max_exp_avg_sq"]), rtol=1e-12)
    assert (_np(ls["max_exp_avg_sq"]) > _np(ls["exp_avg_sq"])).all()
