"""Every learning-rate scheduler against torch.optim.lr_scheduler: the lr (and momentum)
sequence over 30 steps must be exactly equal, alone, chained, and resumed from a state_dict."""
from __future__ import annotations

import math
import warnings

import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402

STEPS = 30


def _opt(m, name="SGD", groups=1, **kw):
    params = [{"params": [m.zeros(2, requires_grad=True)], "lr": 0.1 * (i + 1)} for i in range(groups)]
    if name == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(m.optim, name)(params, lr=0.1, **kw)


class WarmupLambda:
    """A callable object (its attributes go into LambdaLR's state_dict)."""

    def __init__(self, warmup):
        self.warmup = warmup

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.warmup)


SCHEDULERS = {
    "StepLR": lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, milestones=[3, 10, 10, 21], gamma=0.3),
    "ExponentialLR": lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingLR-eta_min": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.01),
    "LambdaLR": lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-object": lambda m, o: m.optim.lr_scheduler.LambdaLR(o, WarmupLambda(5)),
    "MultiplicativeLR": lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97),
    "ConstantLR": lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
    "LinearLR": lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=6),
    "PolynomialLR": lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=20, power=2.0),
    "CosineAnnealingWarmRestarts": lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5,
                                                                                                  T_mult=2),
    "CyclicLR": lambda m, o: m.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4,
                                                           mode="triangular2"),
    "CyclicLR-exp_range": lambda m, o: m.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                                                     step_size_down=5, mode="exp_range",
                                                                     gamma=0.9),
    "OneCycleLR-cos": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=STEPS + 1),
    "OneCycleLR-linear": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.5], total_steps=STEPS + 1,
                                                                      anneal_strategy="linear", pct_start=0.25),
    "OneCycleLR-three_phase": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.8, epochs=3, steps_per_epoch=11, three_phase=True, div_factor=10.0, final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.3, total_steps=STEPS,
                                                                           cycle_momentum=False),
}


def _trace(m, make_sched, opt_name="SGD", groups=1, steps=STEPS):
    opt = _opt(m, opt_name, groups)
    sched = make_sched(m, opt)
    seq = [(sched.get_last_lr(), _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append((sched.get_last_lr(), _momenta(opt)))
    return seq


def _momenta(opt):
    return [(g.get("momentum"), g.get("betas")) for g in opt.param_groups]


@pytest.mark.parametrize("name", list(SCHEDULERS))
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_lr_sequence_equals_torch(name, opt_name):
    make = SCHEDULERS[name]
    steps = 33 if "three_phase" in name else STEPS  # up to the schedule's very last step
    expected = _trace(torch, make, opt_name, steps=steps)
    got = _trace(lg, make, opt_name, steps=steps)
    assert got == expected  # exact: the same float expressions in the same order


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR-cos", "LambdaLR", "CyclicLR"])
def test_two_param_groups(name):
    assert _trace(lg, SCHEDULERS[name], groups=2) == _trace(torch, SCHEDULERS[name], groups=2)


def test_chaining_two_schedulers_on_one_optimizer():
    def run(m):
        opt = _opt(m)
        s1 = m.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        s2 = m.optim.lr_scheduler.MultiStepLR(opt, milestones=[5, 15], gamma=0.1)
        s3 = m.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=12)
        out = []
        for _ in range(STEPS):
            opt.step()
            for s in (s1, s2, s3):
                s.step()
            out.append([s.get_last_lr() for s in (s1, s2, s3)] + [opt.param_groups[0]["lr"]])
        return out

    assert run(lg) == run(torch)


def test_chained_and_sequential_schedulers():
    def run(m):
        opt = _opt(m)
        warm = m.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
        decay = m.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        seq = m.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, decay], milestones=[5])
        out = [seq.get_last_lr()]
        for _ in range(STEPS):
            opt.step()
            seq.step()
            out.append(seq.get_last_lr())
        opt2 = _opt(m)
        chained = m.optim.lr_scheduler.ChainedScheduler([m.optim.lr_scheduler.ConstantLR(opt2, factor=0.5),
                                                         m.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.95)])
        for _ in range(STEPS):
            opt2.step()
            chained.step()
            out.append(chained.get_last_lr())
        return out

    assert run(lg) == run(torch)


def test_closed_form_with_explicit_epoch():
    def run(m):
        opt = _opt(m)
        scheds = [m.optim.lr_scheduler.StepLR(opt, 3, 0.5), m.optim.lr_scheduler.CosineAnnealingLR(_opt(m), 10),
                  m.optim.lr_scheduler.MultiStepLR(_opt(m), [2, 5]), m.optim.lr_scheduler.ExponentialLR(_opt(m), 0.8)]
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [4, 7, 2, 11]:
                for s in scheds:
                    s.optimizer.step()
                    s.step(epoch)
                    out.append(s.get_last_lr())
        return out

    assert run(lg) == run(torch)


METRICS = [1.0, 0.9, 0.95, 0.95, 0.94, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.79, 0.7999, 0.80,
           0.81, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]


@pytest.mark.parametrize("kw", [
    dict(),
    dict(patience=2),
    dict(patience=1, factor=0.5, cooldown=2),
    dict(mode="max", patience=1, factor=0.5),
    dict(patience=0, threshold=0.05, threshold_mode="abs", min_lr=0.004),
    dict(mode="max", patience=2, threshold=0.01, threshold_mode="abs", cooldown=1, factor=0.2),
    dict(patience=1, min_lr=[0.02, 0.05], factor=0.3),
], ids=str)
def test_reduce_lr_on_plateau_scripted_metrics(kw):
    def run(m):
        opt = _opt(m, groups=2)
        sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for metric in METRICS:
            opt.step()
            sched.step(metric)
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best,
                        sched.last_epoch))
        return out

    assert run(lg) == run(torch)


def test_reduce_lr_on_plateau_accepts_a_tensor_metric_and_errors_match():
    opt = _opt(lg)
    sched = lg.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(lg.tensor(1.0))
    sched.step(lg.tensor(2.0))
    assert math.isclose(sched.get_last_lr()[0], 0.01)
    for kw in (dict(factor=1.0), dict(mode="up"), dict(threshold_mode="x"), dict(min_lr=[0.1, 0.2])):
        errors = []
        for m in (torch, lg):
            with pytest.raises(ValueError) as info:
                m.optim.lr_scheduler.ReduceLROnPlateau(_opt(m), **kw)
            errors.append(str(info.value))
        assert errors[0] == errors[1]


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "OneCycleLR-cos", "LambdaLR-object",
                                  "CosineAnnealingWarmRestarts", "CyclicLR"])
def test_state_dict_keys_match_torch_and_resume(name):
    make = SCHEDULERS[name]
    topt, lopt = _opt(torch), _opt(lg)
    tsched, lsched = make(torch, topt), make(lg, lopt)
    for _ in range(5):
        topt.step(), lopt.step()
        tsched.step(), lsched.step()
    tsd, lsd = tsched.state_dict(), lsched.state_dict()
    assert list(lsd) == list(tsd)
    assert {k: v for k, v in lsd.items() if k != "_scale_fn_ref"} == \
        {k: v for k, v in tsd.items() if k != "_scale_fn_ref"}

    # resume: a new optimizer + scheduler loaded from the state dicts continue the same sequence
    opt_state = lopt.state_dict()
    lopt2 = _opt(lg)
    lsched2 = make(lg, lopt2)
    lopt2.load_state_dict(opt_state)
    lsched2.load_state_dict(lsd)
    for _ in range(10):
        lopt.step(), lopt2.step()
        lsched.step(), lsched2.step()
        assert lsched2.get_last_lr() == lsched.get_last_lr()


def test_warnings_like_torch():
    opt = _opt(lg)
    sched = lg.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lg.optim.lr_scheduler.StepLR(object(), 2)
    with pytest.raises(KeyError, match="initial_lr"):
        lg.optim.lr_scheduler.StepLR(_opt(lg), 2, last_epoch=3)


def test_one_cycle_errors_match_torch():
    for kw in (dict(max_lr=1.0), dict(max_lr=1.0, total_steps=0), dict(max_lr=1.0, total_steps=10, pct_start=2.0),
               dict(max_lr=1.0, total_steps=10, anneal_strategy="exp"), dict(max_lr=[1.0, 2.0], total_steps=10)):
        errors = []
        for m in (torch, lg):
            with pytest.raises(ValueError) as info:
                m.optim.lr_scheduler.OneCycleLR(_opt(m), **kw)
            errors.append(str(info.value))
        assert errors[0] == errors[1]
    for m in (torch, lg):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        with pytest.raises(ValueError, match="Tried to step 4 times"):
            sched.step()


@pytest.mark.parametrize("opt_name", ["AdamW", "RMSprop", "Adagrad", "Adadelta", "Adafactor", "Adamax", "NAdam",
                                      "RAdam", "ASGD", "Rprop"])
@pytest.mark.parametrize("name", ["OneCycleLR-cos", "CyclicLR", "CosineAnnealingWarmRestarts"])
def test_every_optimizer_under_the_momentum_cycling_schedulers(name, opt_name):
    """Momentum is cycled through ``betas`` (Adam family) or ``momentum`` (RMSprop); an
    optimizer with neither is refused, as torch refuses it."""
    def observe(m):
        try:
            return _trace(m, SCHEDULERS[name], opt_name, steps=12)
        except ValueError as e:
            return ("ValueError", str(e))

    assert observe(lg) == observe(torch)
