"""optim.swa_utils against torch's: averaged weights and buffers, BatchNorm refresh, SWALR's rates."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from optim_compare import assert_same_error  # noqa: E402

RNG = np.random.default_rng(0)
SNAPSHOTS = [[RNG.standard_normal(s) for s in ((3, 4), (3,), (3,), (3,))] for _ in range(5)]
BATCHES = [RNG.standard_normal((6, 4)) * (1 + i) + i for i in range(4)]


def _model(m):
    model = m.nn.Sequential(m.nn.Linear(4, 3), m.nn.BatchNorm1d(3, momentum=0.3)).double()
    _load(m, model, SNAPSHOTS[0])
    return model


def _load(m, model, arrays):
    with m.no_grad():
        for p, a in zip(model.parameters(), arrays):
            p.copy_(m.tensor(a))
        bn = model[1]
        bn.running_mean.copy_(m.tensor(arrays[1] * 0.5))
        bn.running_var.copy_(m.tensor(np.abs(arrays[2]) + 0.1))
        bn.num_batches_tracked.add_(1)


def _values(module):
    return {name: t.detach().numpy().copy() for name, t in module.state_dict().items()}


def _averaged(m, make_avg, updates=5):
    model = _model(m)
    averaged = make_avg(m, model)
    for arrays in SNAPSHOTS[:updates]:
        _load(m, model, arrays)
        averaged.update_parameters(model)
    return averaged


AVERAGING = {
    "swa-default": lambda m, model: m.optim.swa_utils.AveragedModel(model),
    "swa-buffers": lambda m, model: m.optim.swa_utils.AveragedModel(model, use_buffers=True),
    "swa-multi": lambda m, model: m.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=m.optim.swa_utils.get_swa_multi_avg_fn()),
    "ema-multi": lambda m, model: m.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=m.optim.swa_utils.get_ema_multi_avg_fn(0.8), use_buffers=True),
    "ema-single": lambda m, model: m.optim.swa_utils.AveragedModel(
        model, avg_fn=m.optim.swa_utils.get_ema_avg_fn(0.7)),
    "swa-single": lambda m, model: m.optim.swa_utils.AveragedModel(
        model, avg_fn=m.optim.swa_utils.get_swa_avg_fn(), use_buffers=True),
}


@pytest.mark.parametrize("name", list(AVERAGING))
def test_averaged_model_matches_torch(name):
    t, l = _averaged(torch, AVERAGING[name]), _averaged(lg, AVERAGING[name])
    tv, lv = _values(t), _values(l)
    assert list(lv) == list(tv)  # n_averaged first, then module.*
    for key in tv:
        assert lv[key].dtype == tv[key].dtype, key
        np.testing.assert_allclose(lv[key], tv[key], rtol=1e-13, atol=1e-14, err_msg=key)
    assert int(l.n_averaged) == int(t.n_averaged) == 5
    x = np.ones((2, 4))
    l.eval(), t.eval()
    np.testing.assert_allclose(l(lg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-12)


def test_the_average_is_the_mean_of_the_snapshots():
    averaged = _averaged(lg, AVERAGING["swa-default"])
    np.testing.assert_allclose(averaged.module[0].weight.detach().numpy(),
                               np.mean([s[0] for s in SNAPSHOTS], axis=0), rtol=1e-13)


def test_update_bn_matches_torch():
    out = {}
    for m in (torch, lg):
        model = _model(m)
        model.eval()
        loader = [(m.tensor(b), m.tensor(np.zeros(6))) for b in BATCHES]  # (input, target) pairs
        m.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        out[m.__name__] = (_values(model), bn.momentum, model.training)
    (tv, tmom, ttrain), (lv, lmom, ltrain) = out["torch"], out["leafgrad"]
    assert (lmom, ltrain) == (tmom, ttrain) == (0.3, False)
    for key in tv:
        np.testing.assert_allclose(lv[key], tv[key], rtol=1e-12, atol=1e-14, err_msg=key)
    # the statistics are the plain average over the batches, not a momentum blend with the old ones
    means = [b @ SNAPSHOTS[0][0].T + SNAPSHOTS[0][1] for b in BATCHES]
    np.testing.assert_allclose(lv["1.running_mean"], np.mean([x.mean(0) for x in means], axis=0), rtol=1e-12)


def test_update_bn_without_batchnorm_is_a_no_op():
    model = lg.nn.Linear(2, 2)
    before = _values(model)
    lg.optim.swa_utils.update_bn([lg.ones(1, 2)], model)
    assert all(np.array_equal(before[k], v) for k, v in _values(model).items())


SWALR_CASES = {
    "cos": dict(swa_lr=0.05, anneal_epochs=3),
    "linear": dict(swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear"),
    "no-annealing": dict(swa_lr=0.02, anneal_epochs=0),
    "per-group": dict(swa_lr=[0.05, 0.01], anneal_epochs=2),
}


def _swa_run(m, kw, epochs=12, switch=4):
    """The usual recipe: cosine annealing first, then SWALR from epoch ``switch``."""
    p, q = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
    opt = m.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=1.0, momentum=0.9)
    first = m.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa = None
    rates = []
    for epoch in range(epochs):
        opt.step()
        if epoch < switch:
            first.step()
        else:
            swa = swa or m.optim.swa_utils.SWALR(opt, **kw)
            swa.step()
        rates.append([g["lr"] for g in opt.param_groups])
    return rates, opt, swa


@pytest.mark.parametrize("name", list(SWALR_CASES))
def test_swalr_rates_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trates, topt, tswa = _swa_run(torch, SWALR_CASES[name])
        lrates, lopt, lswa = _swa_run(lg, SWALR_CASES[name])
    np.testing.assert_allclose(lrates, trates, rtol=1e-14, atol=1e-16)
    assert [g["swa_lr"] for g in lopt.param_groups] == [g["swa_lr"] for g in topt.param_groups]
    tsd, lsd = tswa.state_dict(), lswa.state_dict()
    assert list(lsd) == list(tsd)
    assert {k: v for k, v in lsd.items() if k != "_last_lr"} == pytest.approx(
        {k: v for k, v in tsd.items() if k != "_last_lr"})


def test_swalr_state_dict_round_trip():
    _, opt, swa = _swa_run(lg, SWALR_CASES["linear"], epochs=6)
    saved = copy.deepcopy(swa.state_dict())
    p = lg.zeros(2, requires_grad=True)
    other_opt = lg.optim.SGD([{"params": [p]}, {"params": [lg.zeros(2, requires_grad=True)]}], lr=0.3)
    other = lg.optim.swa_utils.SWALR(other_opt, swa_lr=0.9, anneal_strategy="cos")
    other.load_state_dict(saved)
    assert other.anneal_func(0.5) == 0.5  # linear again
    assert other.anneal_epochs == 4 and other.last_epoch == swa.last_epoch


@pytest.mark.parametrize("case", ["both-fns", "ema-decay", "ema-multi-decay", "strategy", "epochs-negative",
                                  "epochs-float", "swa-lr-length"])
def test_errors_match_torch(case):
    def attempt(m):
        su = m.optim.swa_utils
        opt = m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1)
        if case == "both-fns":
            su.AveragedModel(m.nn.Linear(2, 2), avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())
        if case == "ema-decay":
            su.get_ema_avg_fn(1.5)
        if case == "ema-multi-decay":
            su.get_ema_multi_avg_fn(-0.1)
        if case == "strategy":
            su.SWALR(opt, swa_lr=0.1, anneal_strategy="step")
        if case == "epochs-negative":
            su.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
        if case == "epochs-float":
            su.SWALR(opt, swa_lr=0.1, anneal_epochs=2.0)
        if case == "swa-lr-length":
            su.SWALR(opt, swa_lr=[0.1, 0.2])

    assert_same_error(attempt, torch)


def test_public_names_match_torch():
    assert sorted(lg.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
