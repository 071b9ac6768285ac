"""Every optimizer's update rule against torch.optim, on a scripted gradient sequence.

The gradients are set by hand (no autograd), so only the rule is compared. Both libraries
start from the same float64 parameters and see the same ten gradients; parameters and
every state tensor must agree to float64 rounding (torch's CPU kernels fuse multiply-adds
that NumPy rounds twice, so the last bit or two may differ, never more). The gradients
shrink after the first steps (so AMSGrad's running maximum differs from the running mean),
flip sign (so Rprop shrinks and grows its steps) and hold exact zeros (Rprop's third case).
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from optim_compare import assert_same_error, raised, same_class  # noqa: E402

STEPS = 10
SCALES = [3.0, 2.5, 2.0, 1.0, 0.5, 0.3, 0.2, 0.1, 0.1, 0.05]

CASES = [
    # the optimizers added with issue 14
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True, foreach=False)),
    ("Adamax", dict(lr=0.1)),
    ("Adamax", dict(lr=0.1, betas=(0.5, 0.8), eps=1e-3, weight_decay=0.1)),
    ("Adamax", dict(lr=0.1, maximize=True)),
    ("NAdam", dict(lr=0.1)),
    ("NAdam", dict(lr=0.1, momentum_decay=0.05, betas=(0.8, 0.9))),
    ("NAdam", dict(lr=0.1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.1, maximize=True, foreach=True)),
    ("RAdam", dict(lr=0.1)),
    ("RAdam", dict(lr=0.1, betas=(0.9, 0.5))),  # rho_t passes 5 at step 2..: both branches
    ("RAdam", dict(lr=0.1, weight_decay=0.1)),
    ("RAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.9, 0.6))),
    ("RAdam", dict(lr=0.1, maximize=True, betas=(0.9, 0.6))),
    ("ASGD", dict(lr=0.1)),
    ("ASGD", dict(lr=0.1, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),  # averaging starts at step 4
    ("ASGD", dict(lr=0.1, t0=0, maximize=True)),
    ("Rprop", dict(lr=0.1)),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(0.02, 0.3))),
    ("Rprop", dict(lr=0.1, maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict(lr=0.1, eps=(1e-4, 1e-2), d=1.5, beta2_decay=-0.5, foreach=False)),
    # the options of the optimizers leafgrad had before
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, foreach=True)),
    ("Adam", dict(lr=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("Adam", dict(lr=0.1, foreach=False)),
    ("AdamW", dict(lr=0.1, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, foreach=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, maximize=True, eps=1e-3)),
]


def _ids(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _gradients(seed=0):
    rng = np.random.default_rng(seed)
    p0 = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = []
    for step, scale in enumerate(SCALES):
        gs = [rng.standard_normal(p.shape) * scale for p in p0]
        gs[1][step % 4] = 0.0  # an exact zero somewhere every step
        if step % 3 == 2:  # and now and then the same direction again
            gs[0] = np.abs(grads[-1][0]) * np.sign(grads[-1][0]) * scale
        grads.append(gs)
    return p0, grads


def run(mod, name, kw, dtype="float64", steps=STEPS, seed=0):
    """The parameters and optimizer after ``steps`` scripted gradients."""
    p0, grads = _gradients(seed)
    dt = getattr(mod, dtype)
    params = [mod.tensor(p, dtype=dt, requires_grad=True) for p in p0]
    opt = getattr(mod.optim, name)(params, **kw)
    for gs in grads[:steps]:
        for p, g in zip(params, gs):
            p.grad = mod.tensor(g, dtype=dt)
        opt.step()
    return params, opt


def _np(t):
    return t.detach().numpy()


def assert_same_run(name, kw, dtype="float64", rtol=1e-12, atol=1e-14, steps=STEPS):
    tparams, topt = run(torch, name, kw, dtype, steps)
    lparams, lopt = run(lg, name, kw, dtype, steps)
    for tp, lp in zip(tparams, lparams):
        np.testing.assert_allclose(_np(lp), _np(tp), rtol=rtol, atol=atol)
        tstate, lstate = topt.state[tp], lopt.state[lp]
        assert list(lstate) == list(tstate)
        for key, tv in tstate.items():
            lv = lstate[key]
            assert (str(lv.dtype), tuple(lv.shape)) == (str(tv.dtype), tuple(tv.shape)), key
            np.testing.assert_allclose(_np(lv), _np(tv), rtol=rtol, atol=atol, err_msg=key)
    return lparams


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_ten_steps_match_torch_float64(case):
    assert_same_run(*case)


@pytest.mark.parametrize("case", CASES[::3], ids=_ids)
def test_ten_steps_match_torch_float32(case):
    assert_same_run(*case, dtype="float32", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,kw,variant", [
    ("Adam", dict(lr=0.1), dict(amsgrad=True)),
    ("AdamW", dict(lr=0.1), dict(amsgrad=True)),
    ("SGD", dict(lr=0.1, momentum=0.9), dict(nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9), dict(dampening=0.5)),
    ("RMSprop", dict(lr=0.01), dict(centered=True)),
    ("Adagrad", dict(lr=0.1), dict(lr_decay=0.1)),
    ("Adagrad", dict(lr=0.1), dict(initial_accumulator_value=1.0)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1), dict(decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.1), dict(momentum_decay=0.05)),
    ("RAdam", dict(lr=0.1, weight_decay=0.1), dict(decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.1, betas=(0.9, 0.999)), dict(betas=(0.9, 0.6))),
    ("ASGD", dict(lr=0.1), dict(lambd=0.1)),
    ("Rprop", dict(lr=0.1), dict(etas=(0.3, 1.5))),
    ("Adamax", dict(lr=0.1), dict(maximize=True)),
])
def test_the_scripted_gradients_tell_the_variants_apart(name, kw, variant):
    """Each variant above is compared with torch in CASES; here: the gradients exercise it."""
    plain = run(lg, name, kw)[0]
    varied = assert_same_run(name, {**kw, **variant})
    assert any(np.abs(_np(a) - _np(b)).max() > 1e-6 for a, b in zip(plain, varied))


def test_asgd_average_and_state_scalars():
    """ASGD's ``ax`` starts averaging after t0 steps; eta and mu are float32 0-dim state, as in torch."""
    params, opt = run(lg, "ASGD", dict(lr=0.1, t0=3))
    state = opt.state[params[0]]
    assert [state[k].dim() for k in ("step", "eta", "mu")] == [0, 0, 0]
    assert state["mu"].dtype == lg.float32 and state["mu"].item() == pytest.approx(1 / (STEPS - 3))
    assert np.abs(_np(state["ax"]) - _np(params[0])).max() > 1e-3


# ----------------------------------------------------------------------------- flags and errors
def _same_error(fn, prefix_only=False):
    assert_same_error(fn, torch, prefix_only)


def _param(m):
    return [m.zeros(2, requires_grad=True)]


BAD = {
    "Adadelta-lr": lambda m: m.optim.Adadelta(_param(m), lr=-1),
    "Adadelta-rho-high": lambda m: m.optim.Adadelta(_param(m), rho=1.5),
    "Adadelta-rho-low": lambda m: m.optim.Adadelta(_param(m), rho=-0.1),
    "Adadelta-eps": lambda m: m.optim.Adadelta(_param(m), eps=-1e-3),
    "Adadelta-wd": lambda m: m.optim.Adadelta(_param(m), weight_decay=-1),
    "Adadelta-lr-tensor": lambda m: m.optim.Adadelta(_param(m), lr=m.tensor([0.1, 0.2])),
    "Adamax-beta0": lambda m: m.optim.Adamax(_param(m), betas=(1.0, 0.9)),
    "Adamax-beta1": lambda m: m.optim.Adamax(_param(m), betas=(0.9, -0.1)),
    "Adamax-eps-first": lambda m: m.optim.Adamax(_param(m), eps=-1, betas=(2.0, 0.9)),
    "NAdam-momentum_decay": lambda m: m.optim.NAdam(_param(m), momentum_decay=-0.1),
    "NAdam-wd": lambda m: m.optim.NAdam(_param(m), weight_decay=-0.1, momentum_decay=-0.1),
    "RAdam-beta": lambda m: m.optim.RAdam(_param(m), betas=(0.9, 1.0)),
    "RAdam-lr": lambda m: m.optim.RAdam(_param(m), lr=-0.1, eps=-1),
    "ASGD-lr": lambda m: m.optim.ASGD(_param(m), lr=-0.1),
    "ASGD-wd": lambda m: m.optim.ASGD(_param(m), weight_decay=-0.1),
    "Rprop-lr": lambda m: m.optim.Rprop(_param(m), lr=-0.1),
    "Rprop-etas-low": lambda m: m.optim.Rprop(_param(m), etas=(1.0, 1.2)),
    "Rprop-etas-high": lambda m: m.optim.Rprop(_param(m), etas=(0.5, 1.0)),
    "Rprop-etas-zero": lambda m: m.optim.Rprop(_param(m), etas=(0.0, 2.0)),
    "Adam-fused-differentiable": lambda m: m.optim.Adam(_param(m), fused=True, differentiable=True),
    "SGD-fused-differentiable": lambda m: m.optim.SGD(_param(m), lr=0.1, fused=True, differentiable=True),
    "Adagrad-fused-differentiable": lambda m: m.optim.Adagrad(_param(m), fused=True, differentiable=True),
    "Adam-fused-foreach": lambda m: m.optim.Adam(_param(m), fused=True, foreach=True),
    "Adam-lr-tensor-foreach": lambda m: m.optim.Adam(_param(m), lr=m.tensor(0.1), foreach=True),
    "Adam-betas-mixed": lambda m: m.optim.Adam(_param(m), betas=(0.9, m.tensor(0.99))),
    "Adam-betas-int": lambda m: m.optim.Adam(_param(m), betas=(0, 0.99)),
    "Adam-betas-range-before-mix": lambda m: m.optim.Adam(_param(m), betas=(2.0, m.tensor(0.99))),
    "Adam-betas-tensor-foreach": lambda m: m.optim.Adam(_param(m), betas=(m.tensor(0.9), m.tensor(0.99)),
                                                        foreach=True),
    "Adam-betas-tensor-size": lambda m: m.optim.Adam(_param(m), betas=(m.tensor([0.9]), m.tensor([0.9, 0.8]))),
    "Adafactor-lr": lambda m: m.optim.Adafactor(_param(m), lr=-1.0),
    "Adafactor-beta2_decay": lambda m: m.optim.Adafactor(_param(m), beta2_decay=0.5),
    "Adafactor-eps1": lambda m: m.optim.Adafactor(_param(m), eps=(-1e-3, 1e-3)),
    "Adafactor-eps2": lambda m: m.optim.Adafactor(_param(m), eps=(None, -1e-3)),
    "Adafactor-d": lambda m: m.optim.Adafactor(_param(m), d=0.5),
    "Adafactor-wd": lambda m: m.optim.Adafactor(_param(m), weight_decay=-0.5),
    "empty-params": lambda m: m.optim.NAdam([]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_hyperparameters_raise_like_torch(name):
    _same_error(BAD[name])


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
                                  "Rprop"])
def test_capturable_on_cpu_fails_at_step_like_torch(name):
    """torch refuses capturable=True for CPU tensors at the first step, after making the state."""
    def attempt(m, out):
        p = m.ones(3, dtype=m.float64, requires_grad=True)
        opt = getattr(m.optim, name)([p], capturable=True)
        out.update(opt=opt, p=p)
        p.grad = m.ones(3, dtype=m.float64)
        opt.step()

    t, l = {}, {}
    _same_error(lambda m: attempt(m, t if m is torch else l), prefix_only=True)
    assert list(l["opt"].state[l["p"]]) == list(t["opt"].state[t["p"]])
    assert l["opt"].state[l["p"]]["step"].item() == t["opt"].state[t["p"]]["step"].item() == 0
    np.testing.assert_array_equal(_np(l["p"]), _np(t["p"]))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_is_accepted_on_cpu(name):
    assert_same_run(name, dict(lr=0.1, fused=True), steps=3, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["Adadelta", "Adafactor", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_defaults_and_param_groups_match_torch(name):
    tparams, topt = run(torch, name, {}, steps=0)
    lparams, lopt = run(lg, name, {}, steps=0)
    assert lopt.defaults == topt.defaults
    tgroup, lgroup = topt.param_groups[0], lopt.param_groups[0]
    assert list(lgroup) == list(tgroup)
    assert {k: v for k, v in lgroup.items() if k != "params"} == {k: v for k, v in tgroup.items() if k != "params"}
    assert repr(lopt) == repr(topt)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
                                  "ASGD", "Rprop"])
def test_differentiable_step_on_a_leaf_raises_like_torch(name):
    """differentiable=True records the update, so it cannot be applied in place to a leaf."""
    def attempt(m):
        p = m.ones(3, dtype=m.float64, requires_grad=True)
        opt = getattr(m.optim, name)([p], lr=0.1, differentiable=True)
        p.grad = m.ones(3, dtype=m.float64)
        opt.step()

    _same_error(attempt, prefix_only=True)


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 1), (1,), ()])
def test_adafactor_factors_batched_and_degenerate_shapes(shape):
    """A 3-d gradient keeps one row and one column factor per matrix of the batch."""
    rng = np.random.default_rng(5)
    p0 = rng.standard_normal(shape)
    grads = [rng.standard_normal(shape) * s for s in SCALES[:5]]
    out = {}
    for m in (torch, lg):
        p = m.tensor(p0, dtype=m.float64, requires_grad=True)
        opt = m.optim.Adafactor([p], lr=0.1, weight_decay=0.01)
        for g in grads:
            p.grad = m.tensor(g, dtype=m.float64)
            opt.step()
        out[m.__name__] = (_np(p).copy(), {k: (tuple(v.shape), _np(v).copy()) for k, v in opt.state[p].items()})
    (tp, ts), (lp, ls) = out["torch"], out["leafgrad"]
    np.testing.assert_allclose(lp, tp, rtol=1e-12, atol=1e-14)
    assert list(ls) == list(ts)
    for key in ts:
        assert ls[key][0] == ts[key][0]
        np.testing.assert_allclose(ls[key][1], ts[key][1], rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------- Muon
MUON_CASES = [dict(lr=0.1), dict(lr=0.1, nesterov=False, adjust_lr_fn="match_rms_adamw", weight_decay=0.0),
              dict(lr=0.05, momentum=0.5, adjust_lr_fn="original", ns_steps=3),
              dict(lr=0.05, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3)]


def _muon_run(m, kw, shape, steps=5):
    rng = np.random.default_rng(7)
    p = m.tensor(rng.standard_normal(shape), dtype=m.float64, requires_grad=True)
    opt = m.optim.Muon([p], **kw)
    for i in range(steps):
        p.grad = m.tensor(rng.standard_normal(shape) * SCALES[i], dtype=m.float64)
        opt.step()
    return _np(p).copy(), {k: _np(v).copy() for k, v in opt.state[p].items()}


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
@pytest.mark.parametrize("kw", MUON_CASES, ids=str)
def test_muon_matches_torch_with_the_orthogonalization_in_bfloat16(kw, shape):
    """torch runs Newton-Schulz in bfloat16, and so does leafgrad (each op in float32, rounded once to
    bfloat16): momentum, Nesterov, the rate adjustment, the decay and the transposition of tall
    matrices agree to float64 rounding, over five steps."""
    lp, ls = _muon_run(lg, kw, shape)
    tp, ts = _muon_run(torch, kw, shape)
    np.testing.assert_allclose(lp, tp, rtol=0, atol=1e-12)
    assert list(ls) == list(ts) == ["momentum_buffer"]
    np.testing.assert_allclose(ls["momentum_buffer"], ts["momentum_buffer"], rtol=1e-12, atol=1e-14)


MUON_BAD = {
    "vector-param": lambda m: m.optim.Muon([m.zeros(3, requires_grad=True)]),
    "lr": lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], lr=-1.0),
    "momentum": lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], momentum=-0.5),
    "weight_decay": lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], weight_decay=-0.5),
    "adjust_lr_fn": lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], adjust_lr_fn="sqrt"),
}


@pytest.mark.parametrize("name", list(MUON_BAD))
def test_muon_construction_errors_match_torch(name):
    _same_error(MUON_BAD[name])


@pytest.mark.parametrize("kw", [dict(ns_steps=100), dict(ns_coefficients=(1.0, 2.0))], ids=str)
def test_muon_step_errors_match_torch(kw):
    def attempt(m):
        p = m.ones(2, 3, requires_grad=True)
        opt = m.optim.Muon([p], **kw)
        p.grad = m.ones(2, 3)
        opt.step()

    _same_error(attempt, prefix_only=True)


def test_muon_defaults_match_torch():
    t = torch.optim.Muon([torch.zeros(2, 2, requires_grad=True)])
    l = lg.optim.Muon([lg.zeros(2, 2, requires_grad=True)])
    assert l.defaults == t.defaults
    assert repr(l) == repr(t)


# ----------------------------------------------------------------------------- differentiable=True
DIFFERENTIABLE = [
    ("SGD", dict(lr=0.1, momentum=0.9)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.1)), ("Adam", dict(lr=0.1, amsgrad=True)), ("AdamW", dict(lr=0.1)),
    ("RMSprop", dict(lr=0.1)), ("RMSprop", dict(lr=0.1, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1)),
    ("Adadelta", dict()), ("Adamax", dict(lr=0.1)), ("NAdam", dict(lr=0.1)), ("RAdam", dict(lr=0.1)),
    ("RAdam", dict(lr=0.1, betas=(0.9, 0.5))), ("ASGD", dict(lr=0.1)), ("Rprop", dict(lr=0.1)),
]


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=_ids)
def test_differentiating_through_two_steps_matches_torch(case):
    """A non-leaf parameter (a function of w), two differentiable steps, then d(sum p)/dw: the
    same values and gradient as torch -- or the same error where torch's own rule modifies
    a tensor its backward needs (AMSGrad, centered RMSprop with momentum, Adamax, Rprop)."""
    name, kw = case

    def run(m):
        w = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        p = w.clone()
        p.grad = m.tensor([0.5, -1.0, 2.0], dtype=m.float64) * w
        opt = getattr(m.optim, name)([p], differentiable=True, **kw)
        opt.step()
        p.grad = p * 2
        opt.step()
        return _np(p).copy(), _np(m.autograd.grad(p.sum(), w)[0]).copy()

    t, l = raised(lambda: run(torch)) or run(torch), raised(lambda: run(lg)) or run(lg)
    if isinstance(t[0], type):
        assert isinstance(l[0], type) and same_class(l[0], t[0]), (l, t)
        assert l[1].startswith(t[1].split(":")[0])
        return
    assert not isinstance(l[0], type), l
    np.testing.assert_allclose(l[0], t[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(l[1], t[1], rtol=1e-13, atol=1e-15)


def test_non_leaf_parameters_need_differentiable():
    assert_same_error(lambda m: m.optim.SGD([m.ones(2, requires_grad=True) * 2], lr=0.1), torch)
    for m in (torch, lg):  # a non-leaf that retains its grad is accepted, as in torch
        kept = m.ones(2, requires_grad=True) * 2
        kept.retain_grad()
        m.optim.SGD([kept], lr=0.1)
