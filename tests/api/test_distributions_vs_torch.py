"""torch.distributions families on leafgrad's ops: values, gradients, shapes, validation and KL as torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from apihelp import same_outcome

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
LOC = RNG.normal(size=(2, 3))
SCALE = RNG.uniform(0.5, 2.0, size=(2, 3))
PROBS = RNG.uniform(0.05, 0.95, size=(2, 3))
LOGITS = RNG.normal(size=(2, 4))
SIMPLEX = RNG.dirichlet(np.ones(4), size=2)


def _t(m, arr, grad=True):
    return m.tensor(arr, dtype=m.float64, requires_grad=grad)


# name -> (builder(m, params) -> distribution, {param: array}, a value in the support)
FAMILIES = {
    "Normal": (lambda m, p: m.distributions.Normal(p["loc"], p["scale"]), {"loc": LOC, "scale": SCALE},
               RNG.normal(size=(2, 3))),
    "Normal-number": (lambda m, p: m.distributions.Normal(0.5, 2.0), {}, np.array([0.25, -1.0])),
    "Laplace": (lambda m, p: m.distributions.Laplace(p["loc"], p["scale"]), {"loc": LOC, "scale": SCALE},
                RNG.normal(size=(2, 3))),
    "Exponential": (lambda m, p: m.distributions.Exponential(p["rate"]), {"rate": SCALE},
                    RNG.uniform(0.1, 3.0, size=(2, 3))),
    "Uniform": (lambda m, p: m.distributions.Uniform(p["low"], p["high"]), {"low": LOC, "high": LOC + SCALE},
                LOC + SCALE * RNG.uniform(0.1, 0.9, size=(2, 3))),
    "Bernoulli-probs": (lambda m, p: m.distributions.Bernoulli(probs=p["probs"]), {"probs": PROBS},
                        (RNG.uniform(size=(2, 3)) < 0.5).astype(float)),
    "Bernoulli-logits": (lambda m, p: m.distributions.Bernoulli(logits=p["logits"]), {"logits": LOC},
                         (RNG.uniform(size=(2, 3)) < 0.5).astype(float)),
    "Categorical-probs": (lambda m, p: m.distributions.Categorical(probs=p["probs"]), {"probs": SIMPLEX * 3},
                          np.array([3, 0])),
    "Categorical-logits": (lambda m, p: m.distributions.Categorical(logits=p["logits"]), {"logits": LOGITS},
                           np.array([1, 2])),
    "OneHot-logits": (lambda m, p: m.distributions.OneHotCategorical(logits=p["logits"]), {"logits": LOGITS},
                      np.eye(4)[[2, 0]]),
    "OneHot-probs": (lambda m, p: m.distributions.OneHotCategorical(probs=p["probs"]), {"probs": SIMPLEX},
                     np.eye(4)[[1, 3]]),
    "Independent-Normal": (lambda m, p: m.distributions.Independent(m.distributions.Normal(p["loc"], p["scale"]), 1),
                           {"loc": LOC, "scale": SCALE}, RNG.normal(size=(2, 3))),
    "Independent-Bernoulli": (lambda m, p: m.distributions.Independent(
        m.distributions.Bernoulli(logits=p["logits"]), 2), {"logits": LOC}, np.ones((2, 3))),
}
QUANTITIES = ["log_prob", "entropy", "mean", "variance", "stddev", "mode", "cdf", "icdf", "perplexity"]


def _evaluate(m, name, quantity):
    build, params, value = FAMILIES[name]
    p = {k: _t(m, v) for k, v in params.items()}
    d = build(m, p)
    if quantity in ("log_prob", "cdf"):
        v = m.tensor(value, dtype=m.int64 if "Categorical" in name else m.float64)
        out = getattr(d, quantity)(v)
    elif quantity == "icdf":
        out = d.icdf(m.tensor(np.full(np.shape(value), 0.3) if np.ndim(value) else 0.3, dtype=m.float64))
    elif quantity in ("entropy", "perplexity"):
        out = getattr(d, quantity)()
    else:
        out = getattr(d, quantity)
    grads = []
    if out.requires_grad:
        finite = m.isfinite(out)
        (m.where(finite, out, m.zeros_like(out)) * m.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
         ).sum().backward()
        grads = [None if p[k].grad is None else p[k].grad.numpy() for k in sorted(p)]
    return out.detach().numpy(), repr(out.dtype), out.requires_grad, grads


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("name", list(FAMILIES))
def test_values_and_gradients(name, quantity):
    def go(m):
        return _evaluate(m, name, quantity)
    t, tw = _outcome_pair(lambda: go(torch))
    l, lw = _outcome_pair(lambda: go(lg))
    assert t[0] == l[0], (t, l)
    if t[0] == "raise":
        assert t[1] == l[1]
        return
    (tv, tdt, trg, tg), (lv, ldt, lrg, lgr) = t[1], l[1]
    assert (tdt, trg) == (ldt, lrg) and tv.shape == lv.shape
    np.testing.assert_allclose(lv, tv, rtol=1e-10, atol=1e-12, equal_nan=True)
    assert len(tg) == len(lgr)
    for a, b in zip(lgr, tg):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _outcome_pair(fn):
    from apihelp import outcome
    res, warns = outcome(fn)
    return (res[0], res[1]) if res[0] == "ok" else res, warns


@pytest.mark.parametrize("name", list(FAMILIES))
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_shapes_and_flags(name, sample_shape):
    def go(m):
        build, params, _ = FAMILIES[name]
        d = build(m, {k: _t(m, v) for k, v in params.items()})
        s = d.sample(sample_shape)
        out = [tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample, d.has_enumerate_support, tuple(s.shape),
               repr(s.dtype), s.requires_grad, repr(d.support), repr(d)]
        if d.has_rsample:
            r = d.rsample(sample_shape)
            out += [tuple(r.shape), r.requires_grad == bool(params)]
        e = d.expand((4,) + tuple(d.batch_shape))
        out += [tuple(e.batch_shape), tuple(e.sample().shape), tuple(e.log_prob(e.sample()).shape)]
        return out
    same_outcome(lambda: go(torch), lambda: go(lg))


@pytest.mark.parametrize("name", ["Bernoulli-probs", "Categorical-logits", "OneHot-logits", "Independent-Bernoulli"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(name, expand):
    def go(m):
        build, params, _ = FAMILIES[name]
        d = build(m, {k: _t(m, v) for k, v in params.items()})
        s = d.enumerate_support(expand=expand)
        return s.tolist(), repr(s.dtype), tuple(d.log_prob(s).shape)
    same_outcome(lambda: go(torch), lambda: go(lg))


BAD = [
    ("scale<0", lambda m: m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0]))),
    ("scale=0 number", lambda m: m.distributions.Normal(0.0, 0.0)),
    ("nan loc", lambda m: m.distributions.Laplace(m.tensor([float("nan")]), m.tensor([1.0]))),
    ("rate<0", lambda m: m.distributions.Exponential(m.tensor([-2.0]))),
    ("probs>1", lambda m: m.distributions.Bernoulli(probs=m.tensor([1.5]))),
    ("both", lambda m: m.distributions.Bernoulli(probs=m.tensor([0.5]), logits=m.tensor([0.0]))),
    ("neither", lambda m: m.distributions.Categorical()),
    ("simplex", lambda m: m.distributions.Categorical(probs=m.tensor([0.7, -0.5]))),
    ("0-d probs", lambda m: m.distributions.Categorical(probs=m.tensor(1.0))),
    ("0-d logits", lambda m: m.distributions.OneHotCategorical(logits=m.tensor(1.0))),
    ("low>=high", lambda m: m.distributions.Uniform(m.tensor([1.0]), m.tensor([1.0]))),
    ("not a number", lambda m: m.distributions.Normal("a", 1.0)),
    ("independent ndims", lambda m: m.distributions.Independent(m.distributions.Normal(m.zeros(2), 1.0), 2)),
    ("off support", lambda m: m.distributions.Exponential(m.tensor([1.0])).log_prob(m.tensor([-1.0]))),
    ("bernoulli value", lambda m: m.distributions.Bernoulli(probs=m.tensor([0.5])).log_prob(m.tensor([0.5]))),
    ("category range", lambda m: m.distributions.Categorical(logits=m.zeros(3)).log_prob(m.tensor(3))),
    ("one-hot value", lambda m: m.distributions.OneHotCategorical(logits=m.zeros(3)).log_prob(m.tensor([1., 1., 0.]))),
    ("uniform outside", lambda m: m.distributions.Uniform(0.0, 1.0).log_prob(m.tensor(2.0))),
    ("not a tensor", lambda m: m.distributions.Normal(0.0, 1.0).log_prob(0.5)),
    ("event shape", lambda m: m.distributions.OneHotCategorical(logits=m.zeros(3)).log_prob(m.zeros(4))),
    ("broadcast", lambda m: m.distributions.Normal(m.zeros(3), 1.0).log_prob(m.zeros(2))),
    ("no validation", lambda m: m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0]),
                                                        validate_args=False).loc.tolist()),
    ("off support, unchecked", lambda m: m.distributions.Exponential(m.tensor([1.0]), validate_args=False).log_prob(
        m.tensor([-1.0])).tolist()),
    ("enumerate independent", lambda m: m.distributions.Independent(m.distributions.Bernoulli(m.full((2,), 0.5)), 1)
     .enumerate_support()),
    ("no rsample", lambda m: m.distributions.Bernoulli(m.full((2,), 0.5)).rsample()),
    ("set default bad", lambda m: m.distributions.Distribution.set_default_validate_args(2)),
]


@pytest.mark.parametrize("label,fn", BAD, ids=[b[0] for b in BAD])
def test_validation_errors(label, fn):
    same_outcome(lambda: fn(torch), lambda: fn(lg), compare_message=True)


def test_validation_default_can_be_switched_off():
    for m in (torch, lg):
        try:
            m.distributions.Distribution.set_default_validate_args(False)
            assert m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0])).scale.tolist() == [-1.0]
        finally:
            m.distributions.Distribution.set_default_validate_args(True)


def _kl_params():
    return {"Normal": {"loc": LOC, "scale": SCALE}, "Laplace": {"loc": LOC[::-1], "scale": SCALE[::-1]},
            "Exponential": {"rate": SCALE}, "Uniform": {"low": LOC - 1.0, "high": LOC + SCALE + 1.0},
            "Bernoulli": {"probs": PROBS}, "Categorical": {"logits": LOGITS}, "OneHotCategorical": {"logits": LOGITS}}


def _kl_dist(m, fam, variant):
    p = {k: _t(m, v * (1.0 if variant == 0 else 0.5) if k in ("scale", "rate") else v + 0.3 * variant)
         for k, v in _kl_params()[fam].items()}
    if fam == "Uniform" and variant:
        p = {"low": _t(m, LOC - 0.5), "high": _t(m, LOC + SCALE + 0.5)}  # inside the other: finite KL
    return getattr(m.distributions, fam)(**p), p


KL_FAMS = list(_kl_params())


@pytest.mark.parametrize("fq", KL_FAMS)
@pytest.mark.parametrize("fp", KL_FAMS)
def test_kl_divergence(fp, fq):
    def go(m):
        p, pp = _kl_dist(m, fp, 1)
        q, qp = _kl_dist(m, fq, 0)
        kl = m.distributions.kl_divergence(p, q)
        finite = m.isfinite(kl)
        grads = []
        if kl.requires_grad:
            m.where(finite, kl, m.zeros_like(kl)).sum().backward()
            grads = [None if t.grad is None else t.grad.numpy().round(10).tolist()
                     for t in (*pp.values(), *qp.values())]
        return np.round(kl.detach().numpy(), 10).tolist(), kl.requires_grad, grads
    same_outcome(lambda: go(torch), lambda: go(lg), compare_message=True)


def test_kl_independent_and_registry():
    res = {}
    for m in (torch, lg):
        D = m.distributions
        p = D.Independent(D.Normal(_t(m, LOC), _t(m, SCALE)), 1)
        q = D.Independent(D.Normal(_t(m, LOC * 0.5), _t(m, SCALE + 1)), 1)
        kl = D.kl_divergence(p, q)
        kl.sum().backward()
        res[m] = (kl.detach().numpy(), p.base_dist.loc.grad.numpy())
        with raises_exactly(NotImplementedError):
            D.kl_divergence(p, D.Independent(D.Normal(_t(m, LOC), _t(m, SCALE)), 2))
        with raises_exactly(TypeError):
            D.register_kl("Normal", D.Normal)

        class MyNormal(D.Normal):
            pass
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == pytest.approx(0.5)

        @D.register_kl(MyNormal, D.Normal)
        def _mine(p, q):
            return m.tensor(42.0)
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == 42.0
    np.testing.assert_allclose(res[lg][0], res[torch][0], rtol=1e-12)
    np.testing.assert_allclose(res[lg][1], res[torch][1], rtol=1e-12)


# --------------------------------------------------------------------------- samples: statistics, not streams
STATS = [
    ("Normal", lambda D, m: D.Normal(m.tensor([1.5]), m.tensor([2.0]))),
    ("Laplace", lambda D, m: D.Laplace(m.tensor([-1.0]), m.tensor([0.5]))),
    ("Exponential", lambda D, m: D.Exponential(m.tensor([3.0]))),
    ("Uniform", lambda D, m: D.Uniform(m.tensor([-2.0]), m.tensor([4.0]))),
    ("Bernoulli", lambda D, m: D.Bernoulli(probs=m.tensor([0.3]))),
    ("Categorical", lambda D, m: D.Categorical(probs=m.tensor([0.2, 0.5, 0.3]))),
    ("OneHot", lambda D, m: D.OneHotCategorical(probs=m.tensor([0.2, 0.5, 0.3]))),
]


@pytest.mark.parametrize("name,build", STATS, ids=[s[0] for s in STATS])
def test_sample_statistics(name, build):
    lg.manual_seed(0)
    d = build(lg.distributions, lg)
    x = d.sample((20000,)).double()
    if name == "Categorical":
        freq = np.bincount(x.numpy().astype(int), minlength=3) / 20000
        np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.015)
        return
    np.testing.assert_allclose(x.mean(0).numpy(), d.mean.double().numpy(), atol=0.05 * max(1, d.stddev.max().item()))
    np.testing.assert_allclose(x.var(0).numpy(), d.variance.double().numpy(), rtol=0.06)
    if name in ("Normal", "Laplace", "Exponential", "Uniform"):  # the empirical cdf against cdf()
        grid = d.icdf(lg.tensor([0.1, 0.5, 0.9]))
        emp = [(x < g).double().mean().item() for g in grid.flatten().tolist()]
        np.testing.assert_allclose(emp, [0.1, 0.5, 0.9], atol=0.015)


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Exponential", "Uniform"])
def test_rsample_is_reparameterised(name):
    lg.manual_seed(1)
    D = lg.distributions
    a = lg.tensor([0.7], dtype=lg.float64, requires_grad=True)
    b = lg.tensor([1.9], dtype=lg.float64, requires_grad=True)
    d = {"Normal": lambda: D.Normal(a, b), "Laplace": lambda: D.Laplace(a, b),
         "Exponential": lambda: D.Exponential(b), "Uniform": lambda: D.Uniform(a, a + b)}[name]()
    x = d.rsample((4000,))
    x.sum().backward()
    # each draw is a fixed function of the parameters and an independent noise: its derivatives are known
    if name in ("Normal", "Laplace"):
        assert a.grad.item() == pytest.approx(4000) and b.grad.item() == pytest.approx(((x - a) / b).sum().item())
    elif name == "Exponential":
        assert b.grad.item() == pytest.approx((-x / b).sum().item())
    else:
        assert a.grad.item() == pytest.approx(4000) and b.grad.item() == pytest.approx(((x - a) / b).sum().item())
    with lg.no_grad():
        assert not d.sample((3,)).requires_grad
    st = D.OneHotCategoricalStraightThrough(probs=lg.tensor([0.2, 0.8], requires_grad=True))
    y = st.rsample((5,))
    assert y.requires_grad and sorted(set(y.detach().sum(-1).tolist())) == [1.0]


def test_exponential_family_bregman_kl_and_entropy():
    """A user's exponential family with no KL of its own: the Bregman divergence and generic entropy."""
    out = {}
    for m in (torch, lg):
        D = m.distributions

        class Rate(D.ExponentialFamily):  # an exponential distribution written only through A(eta)
            arg_constraints = {"rate": D.constraints.positive}
            _mean_carrier_measure = 0

            def __init__(self, rate):
                self.rate = rate
                super().__init__(rate.shape)

            @property
            def _natural_params(self):
                return (-self.rate,)

            def _log_normalizer(self, x):
                return -m.log(-x)
        a, b = _t(m, SCALE), _t(m, SCALE[::-1] + 0.5)
        kl = D.kl_divergence(Rate(a), Rate(b))
        ent = Rate(a).entropy()
        (kl.sum() + ent.sum()).backward()
        # (p's natural parameters are detached in the Bregman form, so only q's get a gradient: in torch too)
        out[m] = (kl.detach().numpy(), ent.detach().numpy(), a.grad is None, b.grad.numpy())
        with raises_exactly(NotImplementedError):
            D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))
    for x, y in zip(out[lg], out[torch]):
        np.testing.assert_allclose(x, y, rtol=1e-10)
