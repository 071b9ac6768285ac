"""LBFGS against torch.optim.LBFGS: the same closure, the same iterates, the same history.

Rosenbrock's valley and a wavy non-convex function, from starting points and learning
rates chosen so that the strong-Wolfe search both accepts its first trial and brackets
and zooms (interpolating, and safeguarding against trials too close to an end of the
bracket), and so that each stopping rule (max_iter, max_eval, tolerances) ends a step.
Float64 throughout: the two agree to a few ulps (torch's fused multiply-adds), which the
valley amplifies a little over many iterations, hence the tolerance.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from optim_compare import assert_same_error, to_leafgrad  # noqa: E402

TOL = 1e-10
STATE_TOL = 1e-8  # near convergence the state holds differences of gradients, i.e. rounding noise


def rosenbrock(m, x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def wavy(m, x):
    return (x ** 4).sum() * 0.1 + (m.sin(3 * x) * 2).sum() + x[0] * x[1]


# without a line search a long first step diverges (in torch too): those run with strong_wolfe only
WITHOUT_LINE_SEARCH = ["rosenbrock-defaults", "rosenbrock-short-history", "wavy-small-lr", "wavy-tolerance-change",
                       "wavy-tolerance-grad"]
SCENARIOS = {
    "rosenbrock-defaults": (rosenbrock, (-1.5, 2.0, 0.5, -0.7), dict()),
    "rosenbrock-short-history": (rosenbrock, (-1.5, 2.0, 0.5, -0.7), dict(lr=0.5, history_size=3, max_iter=7)),
    "rosenbrock-long-steps": (rosenbrock, (-1.5, 2.0, 0.5, -0.7), dict(lr=5.0)),
    "rosenbrock-from-origin": (rosenbrock, (0.0, 0.0), dict(lr=100.0)),
    "wavy": (wavy, (2.0, -1.0, 0.3), dict(lr=3.0)),
    "wavy-max-iter": (wavy, (0.1, 2.5, -2.0), dict(lr=10.0, max_iter=5)),
    "wavy-max-eval": (wavy, (1.0, 1.0, 1.0), dict(lr=50.0, max_eval=6)),
    "wavy-small-lr": (wavy, (2.0, -1.0, 0.3), dict(lr=0.01, max_iter=3)),
    "wavy-tolerance-change": (wavy, (2.0, -1.0, 0.3), dict(tolerance_change=1e-3)),
    "wavy-tolerance-grad": (wavy, (2.0, -1.0, 0.3), dict(tolerance_grad=0.5)),
}


def _make(m, fn, x0, kw, line_search):
    x = m.tensor(x0, dtype=m.float64, requires_grad=True)
    opt = m.optim.LBFGS([x], line_search_fn=line_search, **kw)

    def closure():
        opt.zero_grad()
        loss = fn(m, x)
        loss.backward()
        return loss

    return x, opt, closure


def _run(m, fn, x0, kw, line_search, steps=2):
    x, opt, closure = _make(m, fn, x0, kw, line_search)
    losses = [opt.step(closure).item() for _ in range(steps)]
    return x, opt, losses


def _np(t):
    return t.detach().numpy()


def _assert_state_matches(lstate, tstate):
    assert list(lstate) == list(tstate)
    for key, tv in tstate.items():
        lv = lstate[key]
        if isinstance(tv, torch.Tensor):
            assert isinstance(lv, lg.Tensor), key
            assert str(lv.dtype) == str(tv.dtype), key
            np.testing.assert_allclose(_np(lv), _np(tv), rtol=STATE_TOL, atol=STATE_TOL, err_msg=key)
        elif isinstance(tv, list):
            assert len(lv) == len(tv), key
            for a, b in zip(lv, tv):
                if b is None:
                    assert a is None, key
                else:
                    np.testing.assert_allclose(_np(a), _np(b), rtol=STATE_TOL, atol=STATE_TOL, err_msg=key)
        else:  # numbers: the counters exactly, the rest (H_diag, t, prev_loss) as numbers
            assert type(lv).__name__ == type(tv).__name__ or isinstance(lv, (lg.Tensor, float, int)), key
            if isinstance(tv, int):
                assert lv == tv, key
            else:
                assert float(lv) == pytest.approx(float(tv), rel=STATE_TOL, abs=STATE_TOL), key


@pytest.mark.parametrize("name,line_search", [(name, "strong_wolfe") for name in SCENARIOS]
                         + [(name, None) for name in WITHOUT_LINE_SEARCH])
def test_steps_match_torch(name, line_search):
    fn, x0, kw = SCENARIOS[name]
    tx, topt, tlosses = _run(torch, fn, x0, kw, line_search)
    lx, lopt, llosses = _run(lg, fn, x0, kw, line_search)
    np.testing.assert_allclose(_np(lx), _np(tx), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(llosses, tlosses, rtol=TOL)
    _assert_state_matches(lopt.state[lx], topt.state[tx])


def test_converges_on_rosenbrock_like_torch():
    kw = dict(tolerance_change=1e-14, tolerance_grad=1e-10, max_iter=50)
    tx, _, _ = _run(torch, rosenbrock, (-1.2, 1.0), kw, "strong_wolfe", steps=2)
    lx, _, _ = _run(lg, rosenbrock, (-1.2, 1.0), kw, "strong_wolfe", steps=2)
    np.testing.assert_allclose(_np(lx), [1.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(_np(lx), _np(tx), atol=1e-9)


def test_several_parameters_and_one_without_a_gradient():
    def run(m):
        w = m.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=m.float64, requires_grad=True)
        b = m.tensor([0.1, -0.2], dtype=m.float64, requires_grad=True)
        unused = m.tensor([3.0], dtype=m.float64, requires_grad=True)
        opt = m.optim.LBFGS([w, unused, b], lr=0.8, line_search_fn="strong_wolfe")
        x = m.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]], dtype=m.float64)

        def closure():
            opt.zero_grad()
            loss = (m.tanh(x @ w + b) - 0.25).pow(2).sum()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        return [_np(p).copy() for p in (w, b, unused)]

    for a, b in zip(run(lg), run(torch)):
        np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_state_dict_round_trip_and_torch_checkpoint(line_search):
    """The history is in state[first param]: it checkpoints and resumes, across libraries too."""
    fn, x0, kw = SCENARIOS["rosenbrock-short-history"]
    tx, topt, closure_t = _make(torch, fn, x0, kw, line_search)
    lx, lopt, closure_l = _make(lg, fn, x0, kw, line_search)
    topt.step(closure_t)
    lopt.step(closure_l)
    tsd, lsd = topt.state_dict(), copy.deepcopy(lopt.state_dict())
    assert list(lsd["state"]) == list(tsd["state"]) == [0]
    assert lsd["param_groups"] == tsd["param_groups"]

    resumed = {}
    for label, sd in (("own", lsd), ("torch", to_leafgrad(tsd, torch))):
        x, opt, closure = _make(lg, fn, x0, kw, line_search)
        with lg.no_grad():
            x.copy_(lg.tensor(_np(tx) if label == "torch" else _np(lx)))
        opt.load_state_dict(sd)
        opt.step(closure)
        resumed[label] = _np(x).copy()
    lopt.step(closure_l)
    topt.step(closure_t)
    np.testing.assert_array_equal(resumed["own"], _np(lx))
    np.testing.assert_allclose(resumed["torch"], _np(tx), rtol=TOL, atol=TOL)


@pytest.mark.parametrize("case", ["groups", "negative-lr", "no-closure", "unknown-line-search"])
def test_errors_match_torch(case):
    def attempt(m):
        x = m.zeros(2, dtype=m.float64, requires_grad=True)
        if case == "groups":
            m.optim.LBFGS([{"params": [x]}, {"params": [m.zeros(1, requires_grad=True)], "lr": 0.1}])
        if case == "negative-lr":
            m.optim.LBFGS([x], lr=-1.0)
        opt = m.optim.LBFGS([x], line_search_fn="backtracking" if case == "unknown-line-search" else None)

        def closure():
            opt.zero_grad()
            loss = ((x - 1) ** 2).sum()
            loss.backward()
            return loss

        opt.step() if case == "no-closure" else opt.step(closure)

    assert_same_error(attempt, torch)


def test_max_eval_defaults_to_five_quarters_of_max_iter():
    for m in (torch, lg):
        opt = m.optim.LBFGS([m.zeros(2, requires_grad=True)], max_iter=9)
        assert opt.defaults["max_eval"] == 11
        assert opt.param_groups[0]["max_eval"] == 11
