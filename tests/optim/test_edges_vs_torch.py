"""Less travelled paths of optim, each run in torch and in leafgrad with the results compared.

Every scenario is a function of the module (torch or leafgrad) returning plain data: the
lrs, momenta, state dicts, errors and warnings it saw. The two results must be equal --
exactly, for the schedulers' float sequences.
"""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402


def _outcome(fn):
    """fn()'s result, or (exact exception class name, message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return (type(e).__name__ if type(e).__module__ == "builtins" else repr(type(e)), str(e))


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _outcome(fn)[0]
    return result, [(w.category.__name__, str(w.message).split(".")[0]) for w in caught]


def _plain(x):
    """Tensors as (dtype, shape, rounded values) so the two libraries' results compare."""
    if hasattr(x, "detach"):
        return (str(x.dtype), tuple(x.shape), np.round(x.detach().numpy().astype(float), 6).tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _opt(m, groups=1, name="SGD"):
    params = [{"params": [m.zeros(2, requires_grad=True)], "lr": 0.1 * (i + 1)} for i in range(groups)]
    return getattr(m.optim, name)(params, lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))


def _momenta(opt):
    return [(g.get("momentum"), g.get("betas")) for g in opt.param_groups]


def _run(sched, opt, steps, explicit=()):
    """Step ``steps`` times (at the explicit epochs given, then once more plainly); record everything."""
    out = [sched.get_last_lr()]
    for i in range(steps):
        opt.step()
        if i < len(explicit):
            sched.step(explicit[i])
        else:
            sched.step()
        out.append((sched.get_last_lr(), _momenta(opt), sched.last_epoch))
    return out


SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


# ----------------------------------------------------------------------------- schedulers
def _every_scheduler(m):
    L = m.optim.lr_scheduler
    return [lambda o: L.StepLR(o, 3, 0.5), lambda o: L.MultiStepLR(o, [2, 5, 5]), lambda o: L.ConstantLR(o, 0.5, 4),
            lambda o: L.LinearLR(o, 0.2, 0.9, 6), lambda o: L.ExponentialLR(o, 0.8),
            lambda o: L.PolynomialLR(o, 8, 1.5), lambda o: L.CosineAnnealingLR(o, 10, 0.01),
            lambda o: L.LambdaLR(o, lambda e: 1 / (e + 1)), lambda o: L.MultiplicativeLR(o, lambda e: 0.9),
            lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2, 0.001), lambda o: L.CyclicLR(o, 0.01, 0.1, 3),
            lambda o: L.OneCycleLR(o, 0.5, total_steps=40)]


@scenario
def explicit_epochs_use_the_closed_form(m):
    warnings.simplefilter("ignore")
    out = []
    for make in _every_scheduler(m):
        opt = _opt(m, groups=2)
        sched = make(opt)
        out.append(_run(sched, opt, 8, explicit=[4, 7, 2, 11, 0, 13, 1]))
        out.append(sched._step_count)
    return out


@scenario
def resuming_with_last_epoch(m):
    L = m.optim.lr_scheduler
    out = []
    for make in [lambda o: L.StepLR(o, 2, last_epoch=3), lambda o: L.CosineAnnealingLR(o, 10, last_epoch=3),
                 lambda o: L.ExponentialLR(o, 0.9, last_epoch=3),
                 lambda o: L.LinearLR(o, 0.5, total_iters=5, last_epoch=3),
                 lambda o: L.PolynomialLR(o, 6, last_epoch=3), lambda o: L.ConstantLR(o, 0.5, 4, last_epoch=3),
                 lambda o: L.MultiStepLR(o, [4], 0.5, last_epoch=3),
                 lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2, last_epoch=3),
                 lambda o: L.MultiplicativeLR(o, lambda k: 0.9, last_epoch=3)]:
        opt = m.optim.SGD([{"params": [m.zeros(2, requires_grad=True)], "initial_lr": 0.1}], lr=0.05)
        out.append(_run(make(opt), opt, 6))
    return out


@scenario
def stepping_on_after_loading_last_epoch_minus_one(m):
    L = m.optim.lr_scheduler
    out = []
    for make in [lambda o: L.ExponentialLR(o, 0.5), lambda o: L.StepLR(o, 1, 0.5), lambda o: L.CosineAnnealingLR(o, 4),
                 lambda o: L.PolynomialLR(o, 4), lambda o: L.LinearLR(o, 0.5, total_iters=3),
                 lambda o: L.ConstantLR(o, 0.5, 3), lambda o: L.MultiplicativeLR(o, lambda e: 0.5)]:
        opt = _opt(m)
        sched = make(opt)
        saved = dict(sched.state_dict(), last_epoch=-1)
        _run(sched, opt, 2)
        sched.load_state_dict(saved)
        out.append(_run(sched, opt, 2))
    return out


@scenario
def warm_restarts_with_fractional_epochs(m):
    opt = _opt(m)
    sched = m.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, 3)
    out = _run(sched, opt, 30, explicit=[i / 4 for i in range(30)])
    return out, sched.state_dict(), _outcome(lambda: sched.step(-1))


@scenario
def sequential_hands_over_to_every_kind(m):
    L = m.optim.lr_scheduler
    out = []
    for second in [lambda o: L.CosineAnnealingWarmRestarts(o, 3), lambda o: L.MultiplicativeLR(o, lambda e: 0.5),
                   lambda o: L.CyclicLR(o, 0.01, 0.1, 2), lambda o: L.CosineAnnealingLR(o, 5),
                   lambda o: L.PolynomialLR(o, 4), lambda o: L.ConstantLR(o, 0.5, 2)]:
        opt = _opt(m, groups=2)
        seq = L.SequentialLR(opt, [L.LinearLR(opt, 0.1, total_iters=4), second(opt)], milestones=[3])
        out.append((_run(seq, opt, 10), seq.state_dict()))
    opt = _opt(m)
    seq = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.9), L.StepLR(opt, 2, 0.5)],
                         milestones=[3, 6])
    out.append(_run(seq, opt, 12))
    return out


@scenario
def cyclic_modes_and_momenta(m):
    L = m.optim.lr_scheduler
    out = []
    for kw in [dict(mode="triangular"), dict(mode="exp_range", gamma=0.95), dict(scale_fn=lambda x: 0.5 ** x),
               dict(scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations"), dict(cycle_momentum=False),
               dict(base_momentum=[0.7, 0.75], max_momentum=[0.95, 0.9])]:
        for name in ("SGD", "Adam"):
            opt = _opt(m, 2, name)
            sched = L.CyclicLR(opt, [0.01, 0.02], 0.1, step_size_up=3, step_size_down=2, **kw)
            out.append((_run(sched, opt, 15), sched.state_dict()))
    return out


@scenario
def one_cycle_variants(m):
    out = []
    for kw in [dict(total_steps=20, three_phase=True, anneal_strategy="linear"),
               dict(epochs=2, steps_per_epoch=7, pct_start=0.5),
               dict(total_steps=12, max_momentum=[0.9, 0.99], base_momentum=0.8, div_factor=5.0)]:
        for name in ("SGD", "Adam"):
            opt = _opt(m, 2, name)
            sched = m.optim.lr_scheduler.OneCycleLR(opt, [0.5, 1.0], **kw)
            out.append((_run(sched, opt, sched.total_steps - 1), sched.state_dict(),
                        [sorted(g) for g in opt.param_groups]))
    return out


@scenario
def chained_state_dict_round_trip(m):
    L = m.optim.lr_scheduler

    def make():
        opt = _opt(m)
        return opt, L.ChainedScheduler([L.StepLR(opt, 2, 0.5), L.ExponentialLR(opt, 0.9)], optimizer=opt)

    opt, chained = make()
    for _ in range(3):
        opt.step()
        chained.step()
    saved = chained.state_dict()
    opt2, chained2 = make()
    chained2.load_state_dict(saved)
    return saved, chained2.state_dict()


@scenario
def plateau_min_lr_eps_and_new_groups(m):
    opt = _opt(m, groups=2)
    sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5, min_lr=0.02, eps=0.001)
    out = []
    for metric in range(1, 9):
        sched.step(metric)
        out.append((sched.get_last_lr(), sched.best, sched.num_bad_epochs))
    opt.add_param_group({"params": [m.zeros(1, requires_grad=True)], "lr": 0.3})
    sched.step(9)
    out.append(sched.get_last_lr())
    other = m.optim.lr_scheduler.ReduceLROnPlateau(_opt(m, groups=3), mode="max")
    other.load_state_dict(sched.state_dict())
    out.append((other.mode, other.best, other.state_dict()))
    return out


@scenario
def a_torch_style_scheduler_subclass(m):
    class HalveEvery(m.optim.lr_scheduler.LRScheduler):
        def __init__(self, optimizer, every, last_epoch=-1):
            self.every = every
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            return [base * 0.5 ** (self.last_epoch // self.every) for base in self.base_lrs]

    opt = _opt(m, groups=2)
    sched = HalveEvery(opt, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run(sched, opt, 8, explicit=[5]), sched.state_dict()


@scenario
def scheduler_errors(m):
    L = m.optim.lr_scheduler
    adagrad = m.optim.Adagrad([m.zeros(2, requires_grad=True)])
    cases = [lambda: L.CosineAnnealingWarmRestarts(_opt(m), 0), lambda: L.CosineAnnealingWarmRestarts(_opt(m), 2.0),
             lambda: L.CosineAnnealingWarmRestarts(_opt(m), 2, T_mult=0),
             lambda: L.CosineAnnealingWarmRestarts(_opt(m), 2, eta_min="a"),
             lambda: L.LinearLR(_opt(m), start_factor=0), lambda: L.LinearLR(_opt(m), end_factor=1.5),
             lambda: L.ConstantLR(_opt(m), factor=1.5), lambda: L.LambdaLR(_opt(m), [lambda e: 1, lambda e: 1]),
             lambda: L.CyclicLR(adagrad, 0.01, 0.1), lambda: L.CyclicLR(_opt(m), 0.01, 0.1, mode="x"),
             lambda: L.CyclicLR(_opt(m), [0.01, 0.02], 0.1), lambda: L.OneCycleLR(adagrad, 0.1, total_steps=10),
             lambda: L.OneCycleLR(_opt(m), 0.1, epochs=0, steps_per_epoch=3),
             lambda: L.OneCycleLR(_opt(m), 0.1, epochs=2, steps_per_epoch=-1),
             lambda: L.OneCycleLR(_opt(m), 1.0, total_steps=2.5), lambda: L.ReduceLROnPlateau(object()),
             lambda: L.CyclicLR(object(), 0.1, 0.2), lambda: L.SequentialLR(_opt(m), [], milestones=[]),
             lambda: L.ChainedScheduler([])]
    out = [_outcome(case) for case in cases]
    opt, other = _opt(m), _opt(m)
    out.append(_outcome(lambda: L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(opt, 2)], milestones=[1, 2])))
    out.append(_outcome(lambda: L.SequentialLR(opt, [L.StepLR(opt, 2), 5], milestones=[1])))
    out.append(_outcome(lambda: L.SequentialLR(opt, [L.StepLR(opt, 2), L.ReduceLROnPlateau(opt)], milestones=[1])))
    out.append(_outcome(lambda: L.ChainedScheduler([L.StepLR(opt, 2), L.StepLR(other, 2)]))[0])
    return out


@scenario
def scheduler_warnings(m):
    L = m.optim.lr_scheduler
    out = []
    opt = _opt(m)
    sched = L.StepLR(opt, 2)
    out += [_warned(sched.step), _warned(sched.step), _warned(sched.get_lr)]
    opt = _opt(m)
    out.append(_warned(L.CosineAnnealingWarmRestarts(opt, 2).step))
    opt = _opt(m)
    sched = L.StepLR(opt, 2)
    opt.step()
    out.append(_warned(lambda: sched.step(3)))
    opt = _opt(m)
    sched = L.StepLR(opt, 2)
    opt.step = lambda *args, **kwargs: None
    out.append(_warned(sched.step))
    opt = _opt(m)
    opt.step()  # before the scheduler exists: does not count
    out.append(_warned(L.StepLR(opt, 2).step))
    sched = L.ReduceLROnPlateau(_opt(m))
    out += [_warned(lambda: sched.step(1.0, 3)), _warned(lambda: sched.step(1.0))]
    opt = _opt(m)
    seq = L.SequentialLR(opt, [L.StepLR(opt, 2), L.ExponentialLR(opt, 0.9)], milestones=[2])
    out.append(_warned(seq.step))
    opt.step()
    out += [_warned(seq.step), _warned(seq.step)]
    return out


# ----------------------------------------------------------------------------- optimizers
@scenario
def duplicate_parameters_in_state_dict(m):
    a, b = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = m.optim.SGD([{"params": [a, a]}, {"params": [b]}], lr=0.1)
    return opt.state_dict()["param_groups"]


@scenario
def state_only_for_what_a_rule_keeps(m):
    out = []
    for name, kw in [("SGD", {}), ("SGD", dict(momentum=0.5)), ("Adam", {}), ("Adagrad", {})]:
        used, frozen = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
        opt = getattr(m.optim, name)([used, frozen], lr=0.1, **kw)
        used.grad = m.ones(2)
        opt.step()
        out.append(_plain(opt.state_dict()["state"]))
    return out


@scenario
def zero_grad_keeps_or_drops_the_tensor(m):
    p = m.ones(3, requires_grad=True)
    (p * 2).sum().backward()
    grad = p.grad
    opt = m.optim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=False)
    same = p.grad is grad
    p.grad = m.ones(3, requires_grad=True) * 2  # a gradient with a history
    opt.zero_grad(set_to_none=False)
    return same, p.grad.tolist(), p.grad.requires_grad, p.grad.grad_fn is None


@scenario
def step_hooks_see_and_replace_the_arguments(m):
    calls = []
    p = m.zeros(2, requires_grad=True)
    opt = m.optim.SGD([p], lr=0.1)
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", len(args), dict(kwargs))))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", len(args), dict(kwargs))))
    p.grad = m.ones(2)
    opt.step()
    opt.step(closure=None)
    handle = opt.register_step_pre_hook(lambda o, args, kwargs: ((args[0], lambda: 7), {}))
    returned = opt.step()
    handle.remove()
    opt.register_state_dict_pre_hook(lambda o: calls.append("second"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("first"), prepend=True)
    opt.register_load_state_dict_pre_hook(lambda o, sd: {**sd, "param_groups": [dict(sd["param_groups"][0], lr=0.7)]})
    opt.load_state_dict(opt.state_dict())
    return calls, returned, opt.param_groups[0]["lr"]


@scenario
def deepcopy_and_pickle_carry_the_state(m):
    p = m.zeros(2, requires_grad=True)
    opt = m.optim.Adam([p], lr=0.1)
    p.grad = m.ones(2)
    opt.step()
    copied, unpickled = copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))
    q = copied.param_groups[0]["params"][0]
    q.grad = m.ones(2)
    copied.step()
    return q is p, _plain(copied.state_dict()), _plain(unpickled.state_dict())


@scenario
def loading_keeps_group_keys_and_foreign_state(m):
    p = m.zeros(3, dtype=m.float64, requires_grad=True)
    opt = m.optim.Adam([p], lr=0.5)
    sd = {"state": {0: {"step": m.tensor(2.0), "exp_avg": m.ones(3), "exp_avg_sq": m.ones(3)}, 7: {"x": 1}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.01, extra="x")]}
    opt.load_state_dict(sd)
    a = m.zeros(2, requires_grad=True)
    named, plain = m.optim.SGD([("a", a)], lr=0.1), m.optim.SGD([a], lr=0.2)
    plain.load_state_dict(named.state_dict())
    named.load_state_dict(m.optim.SGD([a], lr=0.3).state_dict())
    return (list(opt.param_groups[0]), sd["state"][0]["step"] is opt.state[p]["step"], opt.state[7],
            list(plain.param_groups[0]), list(named.param_groups[0]))


@scenario
def a_subclass_with_its_own_step(m):
    class SignSGD(m.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            with m.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.add_(p.grad.sign(), alpha=-group["lr"])

    class NoRule(m.optim.Optimizer):
        pass

    calls = []
    p = m.ones(3, requires_grad=True)
    opt = SignSGD([p])
    opt.register_step_post_hook(lambda *args: calls.append("post"))
    p.grad = m.tensor([1.0, -1.0, 0.0])
    opt.step()
    return p.tolist(), calls, _outcome(lambda: NoRule([p], {}).step())[0]


@scenario
def closure_runs_with_grad_enabled(m):
    p = m.ones(2, requires_grad=True)
    opt = m.optim.SGD([p], lr=0.1)
    seen = []

    def closure():
        seen.append(m.is_grad_enabled())
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with m.no_grad():
        loss = opt.step(closure)
    return seen, loss.item(), p.tolist()


@scenario
def float64_default_dtype_counts_in_float64(m):
    m.set_default_dtype(m.float64)
    try:
        p = m.zeros(2, dtype=m.float32, requires_grad=True)
        adam = m.optim.Adam([p])
        p.grad = m.ones(2, dtype=m.float32)
        adam.step()
        adagrad = m.optim.Adagrad([p])
        return str(adam.state[p]["step"].dtype), str(adagrad.state[p]["step"].dtype)
    finally:
        m.set_default_dtype(m.float32)


@scenario
def more_construction_errors(m):
    O = m.optim

    def params():
        return [m.zeros(2, requires_grad=True)]

    a, b = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
    cases = [lambda: O.SGD(iter([1]), lr=0.1), lambda: O.SGD([m.zeros(2), None], lr=0.1),
             lambda: O.SGD([("a", a), b], lr=0.1), lambda: O.SGD([{"params": [("a", a)]}, {"params": [b]}], lr=0.1),
             lambda: O.SGD([{"params": [a]}, {"params": [("b", b)]}], lr=0.1),
             lambda: O.SGD([{"params": [a]}, {"lr": 0.1}], lr=0.1), lambda: O.SGD(params(), lr=m.tensor([0.1, 0.2])),
             lambda: O.SGD(params(), lr=m.tensor(-0.1)), lambda: O.Adam(params(), foreach=True, fused=True),
             lambda: O.Adam(params(), betas=(m.tensor(0.9), 0.99)), lambda: O.Adam(params(), betas=(0.9, 1.0)),
             lambda: O.RMSprop(params(), eps=-1, momentum=-1), lambda: O.Adagrad(params(), lr_decay=-1, eps=-1),
             lambda: O.Adagrad(params(), initial_accumulator_value=-0.5),
             lambda: O.SGD(params(), lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
             lambda: O.AdamW(params(), decoupled_weight_decay=False)]
    return [_outcome(case) for case in cases]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    with warnings.catch_warnings():
        got = _plain(_outcome(lambda: SCENARIOS[name](lg)))
    with warnings.catch_warnings():
        expected = _plain(_outcome(lambda: SCENARIOS[name](torch)))
    assert got[0] == "ok", got  # each scenario catches the errors it means to compare
    assert repr(got) == repr(expected)


# ----------------------------------------------------------------------------- leafgrad checkpoints into torch
def _to_torch(obj):
    if isinstance(obj, lg.Tensor):
        return torch.tensor(obj.detach().numpy())
    if isinstance(obj, dict):
        return type(obj)((k, _to_torch(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_torch(v) for v in obj)
    return obj


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                     ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01)),
                                     ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
                                     ("Adagrad", dict(lr=0.1, lr_decay=0.01))])
def test_leafgrad_state_dicts_load_into_torch(name, kw):
    """Optimizer and scheduler state saved by leafgrad resumes in torch as it does in leafgrad."""
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)

    def make(m):
        w = m.tensor(w0, requires_grad=True)
        opt = getattr(m.optim, name)([w], **kw)
        return w, opt, m.optim.lr_scheduler.OneCycleLR(opt, max_lr=kw["lr"], total_steps=10,
                                                       cycle_momentum=name != "Adagrad")

    def step(m, w, opt, sched):
        opt.zero_grad()
        m.tanh(m.tensor(x) @ w).pow(2).mean().backward()
        opt.step()
        sched.step()

    lw, lopt, lsched = make(lg)
    for _ in range(3):
        step(lg, lw, lopt, lsched)
    tw, topt, tsched = make(torch)
    with torch.no_grad():
        tw.copy_(torch.tensor(lw.detach().numpy()))
    topt.load_state_dict(_to_torch(lopt.state_dict()))
    tsched.load_state_dict(_to_torch(lsched.state_dict()))
    for _ in range(3):
        step(lg, lw, lopt, lsched)
        step(torch, tw, topt, tsched)
        assert tsched.get_last_lr() == lsched.get_last_lr()
    np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), atol=1e-6)
