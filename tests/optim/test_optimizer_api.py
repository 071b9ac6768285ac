"""Optimizer bookkeeping against torch: errors, param groups, zero_grad, state_dict, hooks."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402

OPTIMIZERS = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01)),
              ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
              ("Adadelta", dict(lr=0.5)), ("Adamax", dict(lr=0.01)), ("NAdam", dict(lr=0.01)),
              ("RAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
              ("ASGD", dict(lr=0.01, t0=1)), ("Rprop", dict(lr=0.01)), ("Adafactor", dict(lr=0.01))]


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    return None


def _same_error(fn):
    t, l = _raised(lambda: fn(torch)), _raised(lambda: fn(lg))
    assert t is not None, "torch did not raise"
    assert l == t


# ----------------------------------------------------------------------------- construction errors
class Module:
    """Stands in for nn.Module: what matters is the generator's __qualname__, Module.parameters."""

    def __init__(self, mod):
        self.mod = mod

    def parameters(self):
        yield self.mod.zeros(2, requires_grad=True)


def test_module_parameters_generator_in_a_list_is_a_type_error():
    def make(mod):
        return mod.optim.SGD([Module(mod).parameters()], lr=0.1)

    _same_error(make)
    assert _raised(lambda: make(lg)) == (
        "TypeError", "optimizer can only optimize Tensors, but one of the params is Module.parameters")


def test_with_leafgrad_nn_module_parameters():
    import leafgrad.nn as nn  # our own module: a broken import must fail, not skip
    with raises_exactly(TypeError, match="^optimizer can only optimize Tensors, but one of the params is "
                                        "Module.parameters$"):
        lg.optim.SGD([nn.Linear(2, 2).parameters()], lr=0.1)
    opt = lg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 2


@pytest.mark.parametrize("fn", [
    lambda m: m.optim.SGD(m.zeros(2, requires_grad=True), lr=0.1),
    lambda m: m.optim.SGD([], lr=0.1),
    lambda m: m.optim.SGD([1.0], lr=0.1),
    lambda m: m.optim.SGD([m.zeros(2, requires_grad=True) * 2], lr=0.1),
    lambda m: m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1, nesterov=True),
    lambda m: m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1, momentum=-1),
    lambda m: m.optim.Adam([m.zeros(2, requires_grad=True)], betas=(1.0, 0.9)),
    lambda m: m.optim.Adam([m.zeros(2, requires_grad=True)], eps=-1.0),
    lambda m: m.optim.RMSprop([m.zeros(2, requires_grad=True)], alpha=-0.5),
    lambda m: m.optim.Adagrad([m.zeros(2, requires_grad=True)], lr_decay=-0.5),
    lambda m: m.optim.SGD([{"params": m.zeros(2, requires_grad=True)}, {"params": {m.zeros(2)}}], lr=0.1),
], ids=["tensor-not-iterable", "empty", "float-param", "non-leaf", "nesterov-no-momentum", "neg-momentum",
        "beta1", "eps", "alpha", "lr_decay", "set-of-params"])
def test_construction_errors_match_torch(fn):
    _same_error(fn)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "ASGD", "Rprop", "LBFGS"])
def test_negative_lr_is_a_value_error(name):
    _same_error(lambda m: getattr(m.optim, name)([m.zeros(2, requires_grad=True)], lr=-0.1))
    with raises_exactly(ValueError, match="^Invalid learning rate: -0.1$"):
        getattr(lg.optim, name)([lg.zeros(2, requires_grad=True)], lr=-0.1)


def test_param_in_two_groups_raises_and_duplicate_in_one_group_warns():
    def two_groups(m):
        p = m.zeros(2, requires_grad=True)
        return m.optim.SGD([{"params": [p]}, {"params": [p], "lr": 0.5}], lr=0.1)

    _same_error(two_groups)
    with raises_exactly(ValueError, match="some parameters appear in more than one parameter group"):
        two_groups(lg)

    def add_again(m):
        p = m.zeros(2, requires_grad=True)
        opt = m.optim.SGD([p], lr=0.1)
        opt.add_param_group({"params": p})

    _same_error(add_again)

    p = lg.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        lg.optim.SGD([p, p], lr=0.1)


def test_add_param_group_fills_defaults_like_torch():
    groups = {}
    for m in (torch, lg):
        a, b = m.zeros(2, requires_grad=True), m.zeros(3, requires_grad=True)
        opt = m.optim.Adam([a], lr=0.01, weight_decay=0.1)
        opt.add_param_group({"params": b, "lr": 0.5, "betas": (0.5, 0.6)})
        groups[m.__name__] = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    assert groups["leafgrad"] == groups["torch"]


def test_named_parameters_are_kept_as_param_names():
    sds = {}
    for m in (torch, lg):
        a, b = m.zeros(2, requires_grad=True), m.zeros(3, requires_grad=True)
        opt = m.optim.SGD([("a", a), ("b", b)], lr=0.1)
        sds[m.__name__] = opt.state_dict()["param_groups"]
    assert sds["leafgrad"] == sds["torch"]
    _same_error(lambda m: m.optim.SGD([("a", m.zeros(2, requires_grad=True)), m.zeros(2, requires_grad=True)],
                                      lr=0.1))


def test_repr_matches_torch():
    reprs = {}
    for m in (torch, lg):
        opt = m.optim.Adam([m.zeros(2, requires_grad=True)], lr=0.01)
        opt.add_param_group({"params": [m.zeros(1, requires_grad=True)], "lr": 0.1})
        reprs[m.__name__] = repr(opt)
    assert reprs["leafgrad"] == reprs["torch"]


# ----------------------------------------------------------------------------- zero_grad
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    for m in (torch, lg):
        p = m.ones(3, requires_grad=True)
        (p * 2).sum().backward()
        opt = m.optim.SGD([p], lr=0.1)
        opt.zero_grad(set_to_none=set_to_none)
        if set_to_none:
            assert p.grad is None
        else:
            assert p.grad is not None and p.grad.tolist() == [0.0, 0.0, 0.0]


def test_zero_grad_default_sets_to_none():
    p = lg.ones(3, requires_grad=True)
    p.sum().backward()
    lg.optim.Adam([p]).zero_grad()
    assert p.grad is None


# ----------------------------------------------------------------------------- state_dict
def _trained(m, name, kw, steps=3, seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    b0 = rng.standard_normal(3).astype(np.float32)
    x = m.tensor(rng.standard_normal((8, 4)).astype(np.float32))
    w, b = m.tensor(w0, requires_grad=True), m.tensor(b0, requires_grad=True)
    frozen = m.tensor(b0, requires_grad=True)  # never gets a grad: no state
    opt = getattr(m.optim, name)([{"params": [w]}, {"params": [b, frozen], "lr": kw["lr"] / 2}], **kw)

    def step():
        opt.zero_grad()
        (m.tanh(x @ w + b) ** 2).mean().backward()
        opt.step()

    for _ in range(steps):
        step()
    return opt, (w, b, frozen), step


def _normalise(obj):
    if hasattr(obj, "detach"):
        return ("tensor", str(obj.dtype), tuple(obj.shape), np.round(obj.detach().numpy().astype(np.float64), 5))
    if isinstance(obj, dict):
        return {k: _normalise(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_normalise(v) for v in obj)
    return obj


def _assert_same(a, b):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert a[:3] == b[:3]
        np.testing.assert_allclose(a[3], b[3], atol=1e-5)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        assert a == b


@pytest.mark.parametrize("name,kw", OPTIMIZERS)
def test_state_dict_structure_matches_torch(name, kw):
    tsd = _trained(torch, name, kw)[0].state_dict()
    lsd = _trained(lg, name, kw)[0].state_dict()
    assert set(lsd) == {"state", "param_groups"}
    _assert_same(_normalise(lsd), _normalise(tsd))


@pytest.mark.parametrize("name,kw", OPTIMIZERS)
def test_load_state_dict_round_trip_continues_identically(name, kw):
    opt_a, params_a, step_a = _trained(lg, name, kw, steps=3)
    # load_state_dict shares same-dtype tensors with the dict it is given (as torch does): copy it
    sd = copy.deepcopy(opt_a.state_dict())
    # a fresh optimizer over copies of the parameters, loaded from the state dict
    opt_b, params_b, step_b = _trained(lg, name, kw, steps=0)
    with lg.no_grad():
        for pa, pb in zip(params_a, params_b):
            pb.copy_(pa)
    opt_b.load_state_dict(sd)
    assert _normalise(opt_b.state_dict()).keys() == _normalise(sd).keys()
    for _ in range(2):
        step_a()
        step_b()
    for pa, pb in zip(params_a, params_b):
        np.testing.assert_array_equal(pa.detach().numpy(), pb.detach().numpy())


@pytest.mark.parametrize("name,kw", OPTIMIZERS)
def test_torch_state_dict_loads_into_leafgrad(name, kw):
    """A torch optimizer's state (tensors converted) resumes in leafgrad as it would in torch."""
    topt, tparams, tstep = _trained(torch, name, kw, steps=3)
    lopt, lparams, lstep = _trained(lg, name, kw, steps=0)

    def convert(obj):
        if isinstance(obj, torch.Tensor):
            return lg.tensor(obj.detach().numpy())
        if isinstance(obj, dict):
            return {k: convert(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [convert(v) for v in obj]
        return obj

    with lg.no_grad():
        for tp, lp in zip(tparams, lparams):
            lp.copy_(lg.tensor(tp.detach().numpy()))
    lopt.load_state_dict(convert(topt.state_dict()))
    for _ in range(2):
        tstep()
        lstep()
    for tp, lp in zip(tparams, lparams):
        np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), atol=1e-5)


def test_load_state_dict_errors_match_torch():
    def wrong_groups(m):
        a = m.zeros(2, requires_grad=True)
        opt = m.optim.SGD([a], lr=0.1)
        other = m.optim.SGD([{"params": [m.zeros(2, requires_grad=True)]},
                             {"params": [m.zeros(2, requires_grad=True)]}], lr=0.1)
        opt.load_state_dict(other.state_dict())

    def wrong_sizes(m):
        opt = m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1)
        other = m.optim.SGD([m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)], lr=0.1)
        opt.load_state_dict(other.state_dict())

    _same_error(wrong_groups)
    _same_error(wrong_sizes)


def test_load_state_dict_restores_hyperparameters_and_casts_state():
    p = lg.zeros(3, dtype=lg.float64, requires_grad=True)
    opt = lg.optim.Adam([p], lr=0.5)
    sd = {"state": {0: {"step": lg.tensor(2.0), "exp_avg": lg.ones(3), "exp_avg_sq": lg.ones(3)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.01)]}
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.01
    assert opt.param_groups[0]["params"][0] is p
    assert opt.state[p]["exp_avg"].dtype == lg.float64  # cast to the parameter's dtype
    assert opt.state[p]["step"].dtype == lg.float32  # the step counter is left alone


def test_old_style_int_step_becomes_a_tensor():
    p = lg.zeros(3, requires_grad=True)
    opt = lg.optim.Adam([p])
    opt.load_state_dict({"state": {0: {"step": 4, "exp_avg": lg.zeros(3), "exp_avg_sq": lg.zeros(3)}},
                         "param_groups": opt.state_dict()["param_groups"]})
    assert isinstance(opt.state[p]["step"], lg.Tensor) and opt.state[p]["step"].item() == 4.0


# ----------------------------------------------------------------------------- hooks
def test_step_hooks_run_in_order_and_can_be_removed():
    calls = []
    p = lg.zeros(2, requires_grad=True)
    opt = lg.optim.SGD([p], lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    g1 = lg.optim.register_optimizer_step_pre_hook(lambda o, args, kwargs: calls.append("global-pre"))
    p.grad = lg.ones(2)
    opt.step()
    assert calls == ["global-pre", "pre", "post"]
    for h in (h1, h2, g1):
        h.remove()
    opt.step()
    assert calls == ["global-pre", "pre", "post"]


def test_state_dict_hooks():
    p = lg.zeros(2, requires_grad=True)
    opt = lg.optim.SGD([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    seen = []
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("post"))
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert seen == ["pre", "post"]


def test_step_runs_without_recording_a_graph():
    p = lg.ones(2, requires_grad=True)
    opt = lg.optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    assert p.is_leaf and p.grad_fn is None
    assert opt.state[p]["momentum_buffer"].grad_fn is None
    assert lg.is_grad_enabled()


@pytest.mark.parametrize("kw", [dict(), dict(momentum=0.9), dict(momentum=0.9, dampening=0.3),
                                dict(momentum=0.9, nesterov=True), dict(weight_decay=0.1), dict(maximize=True)],
                         ids=["plain", "momentum", "dampening", "nesterov", "weight_decay", "maximize"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sgd_group_update_is_the_per_parameter_update(kw, dtype):
    """SGD's list form (``_update_group``, foreach unless False) gives bit for bit what the update one
    parameter at a time gives, bumps each parameter's version once per step, and agrees with torch."""
    rng = np.random.default_rng(3)
    shapes = [(3, 4), (4,), (2, 2, 2)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(3)]

    def run(mod, foreach):
        params = [mod.tensor(a.copy(), requires_grad=True) for a in init]
        opt = mod.optim.SGD(params, lr=0.1, foreach=foreach, **kw)
        versions = []
        for step in grads:
            for p, g in zip(params, step):
                p.grad = mod.tensor(g.copy())
            before = [p._version for p in params]
            opt.step()
            versions.append([p._version - v for p, v in zip(params, before)])
        state = [opt.state[p]["momentum_buffer"].detach().numpy().copy() for p in params] if kw.get("momentum") else []
        return [p.detach().numpy().copy() for p in params], state, versions

    got, got_state, got_versions = run(lg, None)
    ref, ref_state, ref_versions = run(lg, False)
    for a, b in zip(got + got_state, ref + ref_state):
        np.testing.assert_array_equal(a, b)
    assert got_versions == ref_versions == [[1, 1, 1]] * 3
    want, want_state, _ = run(torch, None)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    for a, b in zip(got + got_state, want + want_state):
        np.testing.assert_allclose(a, b, **tol)


def test_sgd_group_update_leaves_a_parameter_without_gradient_alone():
    a, b = lg.ones(2, requires_grad=True), lg.ones(3, requires_grad=True)
    opt = lg.optim.SGD([a, b], lr=0.5)
    a.grad = lg.full((2,), 2.0)
    opt.step()
    assert a.tolist() == [0.0, 0.0] and b.tolist() == [1.0, 1.0, 1.0] and b._version == 0
