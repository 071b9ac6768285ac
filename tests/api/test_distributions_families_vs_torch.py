"""The torch.distributions families beyond the first set: values, gradients, shapes, validation, KL, sampling.

Draws cannot follow torch's random stream, so reparameterised gradients are compared for the same
draw (torch._standard_gamma_grad / torch._dirichlet_grad), and sample moments within tolerance.
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from apihelp import outcome, same_outcome

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
POS = RNG.uniform(0.5, 3.0, size=(2, 3))
POS2 = RNG.uniform(0.5, 3.0, size=(2, 3))
LOC = RNG.normal(size=(2, 3))
PROBS = RNG.uniform(0.1, 0.9, size=(2, 3))
CONC = RNG.uniform(0.5, 3.0, size=(2, 4))
A = RNG.normal(size=(2, 3, 3))
COV = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
MVLOC = RNG.normal(size=(2, 3))
COUNTS = np.array([[0.0, 1.0, 4.0], [2.0, 7.0, 3.0]])


def _t(m, arr, grad=True):
    return m.tensor(arr, dtype=m.float64, requires_grad=grad)


def _tanh_normal(m, p):
    D = m.distributions
    return D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), [D.transforms.TanhTransform()])


def _affine_exp(m, p):
    D = m.distributions
    T = D.transforms
    return D.TransformedDistribution(D.Normal(p["loc"], p["scale"]),
                                     T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform()]))


def _sigmoid_normal(m, p):
    D = m.distributions
    return D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), [D.transforms.SigmoidTransform()])


def _mixture(m, p):
    D = m.distributions
    return D.MixtureSameFamily(D.Categorical(logits=p["logits"]), D.Normal(p["loc"], p["scale"]))


def _mixture_mvn(m, p):
    D = m.distributions
    comp = D.Independent(D.Normal(p["loc"], p["scale"]), 1)
    return D.MixtureSameFamily(D.Categorical(logits=p["logits"]), comp)


D_ = "distributions"
# name -> (builder(m, params), {param: array}, a value in the support)
FAMILIES = {
    "Gamma": (lambda m, p: m.distributions.Gamma(p["c"], p["r"]), {"c": POS, "r": POS2}, RNG.uniform(0.1, 3, (2, 3))),
    "Gamma-number": (lambda m, p: m.distributions.Gamma(2.0, 0.5), {}, np.array([0.5, 2.0])),
    "Chi2": (lambda m, p: m.distributions.Chi2(p["df"]), {"df": POS * 2}, RNG.uniform(0.1, 3, (2, 3))),
    "Beta": (lambda m, p: m.distributions.Beta(p["a"], p["b"]), {"a": POS, "b": POS2}, RNG.uniform(0.1, 0.9, (2, 3))),
    "Dirichlet": (lambda m, p: m.distributions.Dirichlet(p["c"]), {"c": CONC}, RNG.dirichlet(np.ones(4), 2)),
    "Poisson": (lambda m, p: m.distributions.Poisson(p["rate"]), {"rate": POS}, COUNTS),
    "Binomial-probs": (lambda m, p: m.distributions.Binomial(7, probs=p["probs"]), {"probs": PROBS}, COUNTS),
    "Binomial-logits": (lambda m, p: m.distributions.Binomial(7, logits=p["logits"]), {"logits": LOC}, COUNTS),
    "Geometric-probs": (lambda m, p: m.distributions.Geometric(probs=p["probs"]), {"probs": PROBS}, COUNTS),
    "Geometric-logits": (lambda m, p: m.distributions.Geometric(logits=p["logits"]), {"logits": LOC}, COUNTS),
    "NegativeBinomial": (lambda m, p: m.distributions.NegativeBinomial(p["n"], probs=p["probs"]),
                         {"n": POS, "probs": PROBS}, COUNTS),
    "NegativeBinomial-logits": (lambda m, p: m.distributions.NegativeBinomial(p["n"], logits=p["logits"]),
                                {"n": POS, "logits": LOC}, COUNTS),
    "Cauchy": (lambda m, p: m.distributions.Cauchy(p["loc"], p["scale"]), {"loc": LOC, "scale": POS},
               RNG.normal(size=(2, 3))),
    "StudentT": (lambda m, p: m.distributions.StudentT(p["df"], p["loc"], p["scale"]),
                 {"df": np.array([[0.8, 1.5, 3.0], [4.0, 2.5, 9.0]]), "loc": LOC, "scale": POS},
                 RNG.normal(size=(2, 3))),
    "LogNormal": (lambda m, p: m.distributions.LogNormal(p["loc"], p["scale"]), {"loc": LOC, "scale": POS},
                  RNG.uniform(0.1, 3, (2, 3))),
    "HalfNormal": (lambda m, p: m.distributions.HalfNormal(p["scale"]), {"scale": POS}, RNG.uniform(0.1, 3, (2, 3))),
    "HalfCauchy": (lambda m, p: m.distributions.HalfCauchy(p["scale"]), {"scale": POS}, RNG.uniform(0.1, 3, (2, 3))),
    "Gumbel": (lambda m, p: m.distributions.Gumbel(p["loc"], p["scale"]), {"loc": LOC, "scale": POS},
               RNG.normal(size=(2, 3))),
    "LogisticNormal": (lambda m, p: m.distributions.LogisticNormal(p["loc"], p["scale"]),
                       {"loc": LOC, "scale": POS}, RNG.dirichlet(np.ones(4), 2)),
    "RelaxedBernoulli": (lambda m, p: m.distributions.RelaxedBernoulli(p["temp"], probs=p["probs"]),
                         {"temp": np.array(0.7), "probs": PROBS}, RNG.uniform(0.1, 0.9, (2, 3))),
    "LogitRelaxedBernoulli": (lambda m, p: m.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(
                                  p["temp"], logits=p["logits"]),
                              {"temp": np.array(0.7), "logits": LOC}, RNG.normal(size=(2, 3))),
    "MVN-cov": (lambda m, p: m.distributions.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
                {"loc": MVLOC, "cov": COV}, RNG.normal(size=(2, 3))),
    "MVN-prec": (lambda m, p: m.distributions.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
                 {"loc": MVLOC, "prec": COV}, RNG.normal(size=(2, 3))),
    "MVN-tril": (lambda m, p: m.distributions.MultivariateNormal(p["loc"], scale_tril=p["L"]),
                 {"loc": MVLOC, "L": np.linalg.cholesky(COV)}, RNG.normal(size=(4, 2, 3))),
    "LowRankMVN": (lambda m, p: m.distributions.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]),
                   {"loc": MVLOC, "W": A[..., :2].copy(), "D": POS}, RNG.normal(size=(4, 2, 3))),
    "RelaxedOneHot": (lambda m, p: m.distributions.RelaxedOneHotCategorical(p["temp"], logits=p["logits"]),
                      {"temp": np.array(0.6), "logits": CONC}, RNG.dirichlet(np.ones(4), 2)),
    "ExpRelaxedCategorical": (lambda m, p: m.distributions.relaxed_categorical.ExpRelaxedCategorical(
        p["temp"], probs=p["probs"]), {"temp": np.array(0.6), "probs": RNG.dirichlet(np.ones(4), 2)},
        np.log(RNG.dirichlet(np.ones(4), 2))),
    "Multinomial": (lambda m, p: m.distributions.Multinomial(6, probs=p["probs"]),
                    {"probs": RNG.dirichlet(np.ones(4), 2)}, np.array([[0.0, 1.0, 2.0, 3.0], [6.0, 0.0, 0.0, 0.0]])),
    "Multinomial-logits": (lambda m, p: m.distributions.Multinomial(4, logits=p["logits"]), {"logits": CONC},
                           np.array([[1.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 4.0]])),
    "Pareto": (lambda m, p: m.distributions.Pareto(p["scale"], p["alpha"]),
               {"scale": POS * 0.1, "alpha": np.array([[0.8, 1.5, 3.0], [4.0, 2.5, 9.0]])},
               RNG.uniform(0.4, 3, (2, 3))),
    "Weibull": (lambda m, p: m.distributions.Weibull(p["scale"], p["c"]), {"scale": POS, "c": POS2},
                RNG.uniform(0.1, 3, (2, 3))),
    "InverseGamma": (lambda m, p: m.distributions.InverseGamma(p["c"], p["r"]),
                     {"c": np.array([[0.8, 1.5, 3.0], [4.0, 2.5, 9.0]]), "r": POS2}, RNG.uniform(0.1, 3, (2, 3))),
    "FisherSnedecor": (lambda m, p: m.distributions.FisherSnedecor(p["d1"], p["d2"]),
                       {"d1": np.array([[1.5, 2.5, 3.0], [4.0, 2.0, 9.0]]), "d2": np.array([[1.5, 3.0, 5.0],
                                                                                         [4.5, 8.0, 2.0]])},
                       RNG.uniform(0.1, 3, (2, 3))),
    "Kumaraswamy": (lambda m, p: m.distributions.Kumaraswamy(p["a"], p["b"]),
                    {"a": np.array([[0.8, 1.5, 3.0], [4.0, 2.5, 9.0]]), "b": POS2}, RNG.uniform(0.1, 0.9, (2, 3))),
    "VonMises": (lambda m, p: m.distributions.VonMises(p["loc"], p["k"]),
                 {"loc": LOC, "k": np.array([[0.5, 3.0, 3.9], [8.0, 1.0, 20.0]])}, RNG.normal(size=(2, 3))),
    "ContinuousBernoulli": (lambda m, p: m.distributions.ContinuousBernoulli(probs=p["probs"]),
                            {"probs": np.array([[0.1, 0.4995, 0.5], [0.5004, 0.7, 0.95]])},
                            RNG.uniform(0.05, 0.95, (2, 3))),
    "ContinuousBernoulli-logits": (lambda m, p: m.distributions.ContinuousBernoulli(logits=p["logits"]),
                                   {"logits": LOC}, RNG.uniform(0.05, 0.95, (2, 3))),
    "TanhNormal": (_tanh_normal, {"loc": LOC, "scale": POS}, RNG.uniform(-0.9, 0.9, (2, 3))),
    "AffineExp": (_affine_exp, {"loc": LOC, "scale": POS}, RNG.uniform(0.1, 3, (2, 3))),
    "SigmoidNormal": (_sigmoid_normal, {"loc": LOC, "scale": POS}, RNG.uniform(0.1, 0.9, (2, 3))),
    "Mixture": (_mixture, {"logits": LOC, "loc": LOC[::-1].copy(), "scale": POS}, RNG.normal(size=(5, 2))),
    "Mixture-Independent": (_mixture_mvn, {"logits": LOC[0].copy(), "loc": LOC, "scale": POS},
                            RNG.normal(size=(4, 3))),
}
QUANTITIES = ["log_prob", "entropy", "mean", "variance", "stddev", "mode", "cdf", "icdf"]


def _evaluate(m, name, quantity):
    build, params, value = FAMILIES[name]
    p = {k: _t(m, v) for k, v in params.items()}
    d = build(m, p)
    if quantity in ("log_prob", "cdf"):
        out = getattr(d, quantity)(m.tensor(value, dtype=m.float64))
    elif quantity == "icdf":
        out = d.icdf(m.full(tuple(d.batch_shape), 0.3, dtype=m.float64))
    elif quantity == "entropy":
        out = d.entropy()
    else:
        out = getattr(d, quantity)
    grads = []
    if out.requires_grad:
        finite = m.isfinite(out)
        weights = m.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        (m.where(finite, out, m.zeros_like(out)) * weights).sum().backward()
        grads = [None if p[k].grad is None else p[k].grad.numpy() for k in sorted(p)]
    return out.detach().numpy(), repr(out.dtype), out.requires_grad, grads


def _pair(fn):
    res, _ = outcome(fn)
    return res


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("name", list(FAMILIES))
def test_values_and_gradients(name, quantity):
    t = _pair(lambda: _evaluate(torch, name, quantity))
    got = _pair(lambda: _evaluate(lg, name, quantity))
    if _same_failure(t, got):
        return
    (tv, tdt, trg, tg), (lv, ldt, lrg, lgr) = t[1], got[1]
    assert (tdt, trg) == (ldt, lrg) and tv.shape == lv.shape
    _assert_close(lv, tv, lgr, tg)


def _same_failure(t, got) -> bool:
    """Both raised the same class (True), or both returned (False)."""
    assert t[0] == got[0], (t, got)
    if t[0] == "raise":
        assert t[1] == got[1]
    return t[0] == "raise"


def _assert_close(value, want, grads, want_grads) -> None:
    np.testing.assert_allclose(value, want, rtol=1e-9, atol=1e-11, equal_nan=True)
    assert len(grads) == len(want_grads)
    for a, b in zip(grads, want_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("name", list(FAMILIES))
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_shapes_and_flags(name, sample_shape):
    def go(m):
        build, params, _ = FAMILIES[name]
        d = build(m, {k: _t(m, v) for k, v in params.items()})
        s = d.sample(sample_shape)
        out = [tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample, d.has_enumerate_support, tuple(s.shape),
               repr(s.dtype), s.requires_grad, repr(d.support), type(d).__mro__[1].__name__]
        if d.has_rsample:
            r = d.rsample(sample_shape)
            out += [tuple(r.shape), r.requires_grad]
        e = d.expand((4,) + tuple(d.batch_shape))
        es = e.sample()
        out += [type(e).__name__, tuple(e.batch_shape), tuple(es.shape), tuple(e.log_prob(es).shape)]
        return out
    same_outcome(lambda: go(torch), lambda: go(lg))


# ---------------------------------------------------------------- reparameterised gradients for the same draw
def test_standard_gamma_grad_matches_torch():
    from leafgrad.distributions._reparam import standard_gamma_grad
    alpha = np.concatenate([RNG.uniform(0.02, 1.0, 300), RNG.uniform(1.0, 8.0, 300), RNG.uniform(8.0, 200.0, 300)])
    x = RNG.gamma(alpha)
    x[:5] = [1e-30, 0.79, 0.81, 50.0, 1e-3]
    want = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(standard_gamma_grad(alpha, x), want, rtol=1e-12, atol=1e-300)


def test_dirichlet_grad_matches_torch():
    from leafgrad.distributions._reparam import dirichlet_grad
    alpha = np.concatenate([RNG.uniform(0.05, 2.0, (200, 3)), RNG.uniform(6.5, 40.0, (200, 3))])
    x = np.stack([RNG.dirichlet(a) for a in alpha])
    total = np.broadcast_to(alpha.sum(-1, keepdims=True), alpha.shape).copy()
    want = torch._dirichlet_grad(torch.tensor(x), torch.tensor(alpha), torch.tensor(total)).numpy()
    np.testing.assert_allclose(dirichlet_grad(x, alpha, total), want, rtol=1e-11, atol=1e-300)


def test_gamma_rsample_gradient_is_torchs_for_the_same_draw():
    c = lg.tensor(POS, requires_grad=True)
    rate = lg.tensor(POS2, requires_grad=True)
    x = lg.distributions.Gamma(c, rate).rsample()
    assert x.grad_fn.name() == "DivBackward0"
    assert x.grad_fn.next_functions[0][0].name() == "StandardGammaBackward0"
    x.sum().backward()
    draw = torch.tensor(x.detach().numpy() * POS2)  # the standard draw before the rate division
    want_c = torch._standard_gamma_grad(torch.tensor(POS), draw).numpy() / POS2
    np.testing.assert_allclose(c.grad.numpy(), want_c, rtol=1e-12)
    np.testing.assert_allclose(rate.grad.numpy(), -draw.numpy() / POS2 ** 2, rtol=1e-12)


def test_dirichlet_and_beta_rsample_gradient_is_torchs_for_the_same_draw():
    c = lg.tensor(CONC, requires_grad=True)
    x = lg.distributions.Dirichlet(c).rsample()
    assert x.grad_fn.name() == "_DirichletBackward"
    w = np.arange(1.0, 9.0).reshape(2, 4)
    (x * lg.tensor(w)).sum().backward()
    tc = torch.tensor(CONC, requires_grad=True)
    tx = torch.tensor(x.detach().numpy())
    # torch's _Dirichlet backward for that draw
    total = tc.sum(-1, True).expand_as(tc)
    g = torch._dirichlet_grad(tx, tc.detach(), total.detach())
    tw = torch.tensor(w)
    want = g * (tw - (tx * tw).sum(-1, True))
    np.testing.assert_allclose(c.grad.numpy(), want.numpy(), rtol=1e-12)
    b = lg.distributions.Beta(lg.tensor(2.0, requires_grad=True), lg.tensor(3.0)).rsample((3,))
    assert b.grad_fn.name() == "SelectBackward0"


def test_gamma_rsample_floor_and_seed_reproducibility():
    d = lg.distributions.Gamma(lg.tensor([1e-3, 0.5, 4.0]), lg.tensor([1.0, 2.0, 3.0]))
    lg.manual_seed(3)
    a = d.rsample((200,))
    lg.manual_seed(3)
    b = d.rsample((200,))
    assert a.equal(b) and bool((a > 0).all())


MOMENTS = {
    "Gamma": lambda m: m.distributions.Gamma(m.tensor([0.4, 3.0]), m.tensor([1.5, 0.5])),
    "Beta": lambda m: m.distributions.Beta(m.tensor([0.5, 4.0]), m.tensor([2.0, 3.0])),
    "Dirichlet": lambda m: m.distributions.Dirichlet(m.tensor([0.5, 2.0, 4.0])),
    "Poisson": lambda m: m.distributions.Poisson(m.tensor([0.3, 12.0])),
    "Binomial": lambda m: m.distributions.Binomial(m.tensor([5.0, 40.0]), m.tensor([0.3, 0.8])),
    "Geometric": lambda m: m.distributions.Geometric(m.tensor([0.2, 0.7])),
    "NegativeBinomial": lambda m: m.distributions.NegativeBinomial(m.tensor([2.0, 6.0]), m.tensor([0.3, 0.6])),
    "StudentT": lambda m: m.distributions.StudentT(m.tensor([5.0, 9.0]), m.tensor([1.0, -1.0]), m.tensor([2.0, 1.0])),
    "LogNormal": lambda m: m.distributions.LogNormal(m.tensor([0.0, 1.0]), m.tensor([0.25, 0.5])),
    "HalfNormal": lambda m: m.distributions.HalfNormal(m.tensor([1.0, 3.0])),
    "Gumbel": lambda m: m.distributions.Gumbel(m.tensor([0.0, 2.0]), m.tensor([1.0, 0.5])),
    "MVN": lambda m: m.distributions.MultivariateNormal(m.tensor(MVLOC[0]), m.tensor(COV[0])),
    "LowRankMVN": lambda m: m.distributions.LowRankMultivariateNormal(m.tensor(MVLOC[0]), m.tensor(A[0, :, :2]),
                                                                     m.tensor(POS[0])),
    "Mixture": lambda m: m.distributions.MixtureSameFamily(m.distributions.Categorical(m.tensor([0.3, 0.7])),
                                                          m.distributions.Normal(m.tensor([-2.0, 1.0]),
                                                                                 m.tensor([0.5, 1.0]))),
    "Chi2": lambda m: m.distributions.Chi2(m.tensor([3.0, 0.5])),
    "FisherSnedecor": lambda m: m.distributions.FisherSnedecor(m.tensor([5.0, 9.0]), m.tensor([12.0, 20.0])),
    "Kumaraswamy": lambda m: m.distributions.Kumaraswamy(m.tensor([0.7, 3.0]), m.tensor([2.0, 0.9])),
    "ContinuousBernoulli": lambda m: m.distributions.ContinuousBernoulli(m.tensor([0.2, 0.5, 0.9])),
    "Multinomial": lambda m: m.distributions.Multinomial(8, m.tensor([0.2, 0.3, 0.5])),
    "Pareto": lambda m: m.distributions.Pareto(m.tensor([1.0, 2.0]), m.tensor([6.0, 9.0])),
    "Weibull": lambda m: m.distributions.Weibull(m.tensor([1.0, 2.0]), m.tensor([0.8, 3.0])),
    "InverseGamma": lambda m: m.distributions.InverseGamma(m.tensor([7.0, 9.0]), m.tensor([1.0, 3.0])),
}


@pytest.mark.parametrize("name", list(MOMENTS))
def test_sample_moments(name):
    lg.manual_seed(0)
    d = MOMENTS[name](lg)
    s = d.sample((40000,)).double()
    mean, var = d.mean.double(), d.variance.double()
    se = (var / s.shape[0]).sqrt()
    assert bool(((s.mean(0) - mean).abs() < 5 * se + 1e-9).all()), (s.mean(0), mean)
    assert bool(((s.var(0) - var).abs() < 0.06 * var + 1e-9).all()), (s.var(0), var)
    ref = MOMENTS[name](torch)  # the same moments as torch's
    np.testing.assert_allclose(mean.numpy(), ref.mean.double().numpy(), rtol=1e-6)
    if name in ("MVN", "LowRankMVN"):
        cov = np.cov(s.numpy().T)
        np.testing.assert_allclose(cov, d.covariance_matrix.numpy(), rtol=0.06, atol=0.06)


def test_tanh_transform_cache_returns_the_pre_image():
    for m in (torch, lg):
        D = m.distributions
        t = D.transforms.TanhTransform(cache_size=1)
        x = m.tensor([30.0, -0.5], dtype=m.float64)
        y = t(x)
        assert t.inv(y) is x
        d = D.TransformedDistribution(D.Normal(m.zeros(2, dtype=m.float64), m.ones(2, dtype=m.float64)), [t])
        assert bool(m.isfinite(d.log_prob(y)).all())
    same_outcome(lambda: _transform_facts(torch), lambda: _transform_facts(lg))


def _transform_facts(m):
    T = m.distributions.transforms
    ts = [T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.AffineTransform(1.0, -2.0),
          T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)]), T.StickBreakingTransform(),
          T.SoftmaxTransform(), T.PowerTransform(m.tensor(2.0)), T.SoftplusTransform(), T.AbsTransform()]
    x = m.tensor([[0.3, -1.2, 0.7]], dtype=m.float64)
    out = []
    for t in ts:
        y = t(x.abs() if isinstance(t, T.PowerTransform) else x)
        row = [repr(t), repr(t.domain), repr(t.codomain), t.bijective, t.inv.inv is t, tuple(y.shape),
               np.round(y.numpy(), 10).tolist(), tuple(t.forward_shape((2, 3))), tuple(t.inverse_shape((2, 3)))]
        if t.bijective:
            xs = x.abs() if isinstance(t, T.PowerTransform) else x
            row.append(np.round(t.inv(y).numpy(), 8).tolist())
            row.append(np.round(t.log_abs_det_jacobian(xs, y).numpy(), 10).tolist())
        out.append(row)
    out.append(T.ExpTransform() == T.ExpTransform())
    out.append(T.identity_transform(x).tolist())
    return out


BAD = [
    ("gamma rate<0", lambda m: m.distributions.Gamma(m.tensor([1.0]), m.tensor([-1.0]))),
    ("beta conc 0", lambda m: m.distributions.Beta(m.tensor([0.0]), m.tensor([1.0]))),
    ("dirichlet 0-d", lambda m: m.distributions.Dirichlet(m.tensor(1.0))),
    ("dirichlet negative", lambda m: m.distributions.Dirichlet(m.tensor([1.0, -1.0]))),
    ("dirichlet off simplex", lambda m: m.distributions.Dirichlet(m.ones(3)).log_prob(m.tensor([0.5, 0.6, 0.1]))),
    ("poisson negative", lambda m: m.distributions.Poisson(m.tensor([-1.0]))),
    ("poisson non-integer", lambda m: m.distributions.Poisson(m.tensor([1.0])).log_prob(m.tensor([0.5]))),
    ("binomial count", lambda m: m.distributions.Binomial(m.tensor([2.5]), m.tensor([0.5]))),
    ("binomial over count", lambda m: m.distributions.Binomial(3, m.tensor([0.5])).log_prob(m.tensor([4.0]))),
    ("binomial both", lambda m: m.distributions.Binomial(3, m.tensor([0.5]), m.tensor([0.0]))),
    ("binomial entropy inhomogeneous", lambda m: m.distributions.Binomial(m.tensor([2.0, 3.0]),
                                                                          m.tensor([0.5, 0.5])).entropy()),
    ("geometric zero", lambda m: m.distributions.Geometric(m.tensor([0.0]))),
    ("negbin probs 1", lambda m: m.distributions.NegativeBinomial(2.0, m.tensor([1.0]))),
    ("studentT df", lambda m: m.distributions.StudentT(m.tensor([-1.0]))),
    ("lognormal support", lambda m: m.distributions.LogNormal(0.0, 1.0).log_prob(m.tensor(-1.0))),
    ("halfnormal support", lambda m: m.distributions.HalfNormal(m.tensor([1.0])).log_prob(m.tensor([-1.0]))),
    ("mvn 0-d loc", lambda m: m.distributions.MultivariateNormal(m.tensor(0.0), m.eye(1))),
    ("mvn two matrices", lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2))),
    ("mvn none", lambda m: m.distributions.MultivariateNormal(m.zeros(2))),
    ("mvn 1-d cov", lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.ones(2))),
    ("mvn 1-d tril", lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.ones(2))),
    ("mvn not pd", lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("mvn not symmetric", lambda m: m.distributions.MultivariateNormal(m.zeros(2),
                                                                       m.tensor([[1.0, 0.5], [0.0, 1.0]]))),
    ("mvn tril upper", lambda m: m.distributions.MultivariateNormal(m.zeros(2),
                                                                    scale_tril=m.tensor([[1.0, 0.5], [0.0, 1.0]]))),
    ("lowrank factor rows", lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2))),
    ("lowrank diag", lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(3))),
    ("lowrank batch", lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(3, 2), m.ones(2, 2, 1),
                                                                          m.ones(2))),
    ("lowrank 1-d factor", lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2), m.ones(2))),
    ("relaxed onehot simplex", lambda m: m.distributions.RelaxedOneHotCategorical(m.tensor(0.5),
                                                                                  probs=m.tensor([0.7, -0.5]))),
    ("multinomial count", lambda m: m.distributions.Multinomial(m.tensor(3), m.tensor([0.5, 0.5]))),
    ("multinomial value", lambda m: m.distributions.Multinomial(3, m.tensor([0.5, 0.5])).log_prob(
        m.tensor([3.0, 2.0]))),
    ("pareto support", lambda m: m.distributions.Pareto(m.tensor([2.0]), m.tensor([1.0])).log_prob(m.tensor([1.0]))),
    ("weibull concentration", lambda m: m.distributions.Weibull(m.tensor([1.0]), m.tensor([-1.0]))),
    ("mvn event", lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2)).log_prob(m.zeros(3))),
    ("transforms not list", lambda m: m.distributions.TransformedDistribution(m.distributions.Normal(0.0, 1.0),
                                                                              (m.distributions.ExpTransform(),))),
    ("transforms bad item", lambda m: m.distributions.TransformedDistribution(m.distributions.Normal(0.0, 1.0),
                                                                              [1])),
    ("cache size", lambda m: m.distributions.transforms.ExpTransform(cache_size=2)),
    ("mixture not categorical", lambda m: m.distributions.MixtureSameFamily(m.distributions.Normal(0.0, 1.0),
                                                                            m.distributions.Normal(m.zeros(2), 1.0))),
    ("mixture k", lambda m: m.distributions.MixtureSameFamily(m.distributions.Categorical(m.ones(3)),
                                                              m.distributions.Normal(m.zeros(2), 1.0))),
    ("mixture batch", lambda m: m.distributions.MixtureSameFamily(m.distributions.Categorical(m.ones(3, 2)),
                                                                  m.distributions.Normal(m.zeros(4, 2), 1.0))),
    ("no rsample poisson", lambda m: m.distributions.Poisson(m.tensor([1.0])).rsample()),
    ("gamma cdf conc grad", lambda m: m.distributions.Gamma(m.tensor([2.0], requires_grad=True), 1.0).cdf(
        m.tensor([1.0])).sum().backward()),
]


@pytest.mark.parametrize("label,fn", BAD, ids=[b[0] for b in BAD])
def test_validation_errors(label, fn):
    compare = label not in ("gamma cdf conc grad", "binomial entropy inhomogeneous")
    same_outcome(lambda: fn(torch), lambda: fn(lg), compare_message=compare)


# ---------------------------------------------------------------- KL divergence
def _kl_build(m, fam, v):
    D = m.distributions
    s = 1.0 + 0.4 * v
    def t(a):
        return m.tensor(np.asarray(a, dtype=float), dtype=m.float64, requires_grad=True)
    return {
        "Gamma": lambda: D.Gamma(t(POS * s), t(POS2)),
        "Beta": lambda: D.Beta(t(POS * s), t(POS2)),
        "Dirichlet": lambda: D.Dirichlet(t(CONC * s)),
        "Poisson": lambda: D.Poisson(t(POS * s)),
        "Binomial": lambda: D.Binomial(5, t(PROBS ** s)),
        "Geometric": lambda: D.Geometric(t(PROBS ** s)),
        "Gumbel": lambda: D.Gumbel(t(LOC + v), t(POS * s)),
        "HalfNormal": lambda: D.HalfNormal(t(POS * s)),
        "Cauchy": lambda: D.Cauchy(t(LOC + v), t(POS * s)),
        "MVN": lambda: D.MultivariateNormal(t(MVLOC + v), t(COV * s)),
        "LowRankMVN": lambda: D.LowRankMultivariateNormal(t(MVLOC - v), t(A[..., :2] * s), t(POS + v)),
        "Normal": lambda: D.Normal(t(LOC + v), t(POS * s)),
        "Exponential": lambda: D.Exponential(t(POS * s)),
        "Uniform": lambda: D.Uniform(t(PROBS * 0.5 - 0.1 * v), t(PROBS * 0.5 + 0.3 + 0.1 * v)),
        "Laplace": lambda: D.Laplace(t(LOC + v), t(POS * s)),
        "Bernoulli": lambda: D.Bernoulli(t(PROBS ** s)),
        "LogNormal": lambda: D.LogNormal(t(LOC + v), t(POS * s)),
        "ContinuousBernoulli": lambda: D.ContinuousBernoulli(t(PROBS ** s)),
        "Pareto": lambda: D.Pareto(t(POS * (0.5 - 0.2 * v)), t(POS2 * 2 * s)),
    }[fam]()


KL_FAMS = ["Gamma", "Beta", "Dirichlet", "Poisson", "Binomial", "Geometric", "Gumbel", "HalfNormal", "Cauchy", "MVN",
           "LowRankMVN", "Normal", "Exponential", "Uniform", "Laplace", "Bernoulli", "LogNormal",
           "Pareto", "ContinuousBernoulli"]


def _kl(m, fp, fq):
    p, q = _kl_build(m, fp, 0), _kl_build(m, fq, 1)
    out = m.distributions.kl_divergence(p, q)
    ps = [v for v in vars(p).values() if isinstance(v, m.Tensor) and v.is_leaf and v.requires_grad]
    if isinstance(p, m.distributions.Beta):
        ps = []
    finite = m.isfinite(out)
    grads = []
    if out.requires_grad and bool(finite.any()):
        gs = m.autograd.grad(m.where(finite, out, m.zeros_like(out)).sum(), ps, allow_unused=True) if ps else []
        grads = [None if g is None else g.numpy() for g in gs]
    return out.detach().numpy(), grads


@pytest.mark.parametrize("fq", KL_FAMS)
@pytest.mark.parametrize("fp", KL_FAMS)
def test_kl_divergence(fp, fq):
    t = _pair(lambda: _kl(torch, fp, fq))
    got = _pair(lambda: _kl(lg, fp, fq))
    if not _same_failure(t, got):
        _assert_close(got[1][0], t[1][0], got[1][1], t[1][1])


def test_second_order_gradients_of_log_prob():
    for name in ("Gamma", "Beta", "MVN-tril", "StudentT", "TanhNormal", "NegativeBinomial", "LowRankMVN",
                 "RelaxedOneHot"):
        build, params, value = FAMILIES[name]
        res = []
        for m in (torch, lg):
            p = {k: _t(m, v) for k, v in params.items()}
            lp = build(m, p).log_prob(m.tensor(value, dtype=m.float64)).sum()
            keys = sorted(p)
            g = m.autograd.grad(lp, [p[k] for k in keys], create_graph=True)
            gg = m.autograd.grad(sum((x * x).sum() for x in g), [p[k] for k in keys], allow_unused=True)
            res.append([None if x is None else x.detach().numpy() for x in gg])
        for a, b in zip(res[1], res[0]):
            assert (a is None) == (b is None), name
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10, err_msg=name)


def test_register_kl_for_new_family_pair():
    D = lg.distributions

    class MyGamma(D.Gamma):
        pass

    @D.register_kl(MyGamma, D.Gamma)
    def _kl(p, q):
        return lg.zeros(p.batch_shape)

    try:
        assert D.kl_divergence(MyGamma(lg.ones(2), 1.0), D.Gamma(lg.ones(2), 2.0)).tolist() == [0.0, 0.0]
    finally:
        from leafgrad.distributions.kl import _KL_MEMOIZE, _KL_REGISTRY
        _KL_REGISTRY.pop((MyGamma, D.Gamma))
        _KL_MEMOIZE.clear()
    with raises_exactly(NotImplementedError):
        D.kl_divergence(D.Poisson(lg.ones(2)), D.Gamma(lg.ones(2), 1.0))


def _registry_facts(m):
    D = m.distributions
    C = D.constraints
    x = m.tensor([[0.3, -1.2, 0.7], [1.5, 0.1, -0.4], [0.0, 2.0, -3.0]], dtype=m.float64)
    out = []
    for c in (C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.less_than(-1.0), C.unit_interval,
              C.interval(-2.0, 3.0), C.half_open_interval(0.0, 5.0), C.simplex, C.independent(C.positive, 1),
              C.lower_cholesky, C.real_vector):
        for reg in (D.biject_to, D.transform_to):
            row = [repr(c)]
            try:
                t = reg(c)
            except NotImplementedError as e:
                out.append(row + ["NotImplementedError", str(e)])
                continue
            y = t(x)
            row += [type(t).__name__, repr(t.domain), repr(t.codomain), bool(c.check(y).all()),
                    np.round(y.numpy(), 10).tolist()]
            if t.bijective:
                row.append(np.round(t.inv(y).numpy(), 8).tolist())
                row.append(np.round(t.log_abs_det_jacobian(x, y).numpy(), 10).tolist())
            out.append(row)
    return out


def test_biject_to_and_transform_to():
    same_outcome(lambda: _registry_facts(torch), lambda: _registry_facts(lg))
    for m in (torch, lg):
        with raises_exactly(TypeError):
            m.distributions.biject_to.register(3, lambda c: None)
        with raises_exactly(NotImplementedError):
            m.distributions.biject_to(m.distributions.constraints.lower_cholesky)


def test_independent_transform_gradients():
    res = []
    for m in (torch, lg):
        T = m.distributions.transforms
        x = m.tensor(LOC, requires_grad=True)
        t = T.IndependentTransform(T.SigmoidTransform(), 1)
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        (g,) = m.autograd.grad((ladj * m.arange(1.0, 3.0, dtype=m.float64)).sum(), x)
        res.append((repr(t), tuple(ladj.shape), ladj.detach().numpy(), g.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-12)
    np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-12)


def test_second_derivative_through_gamma_and_dirichlet_draws_as_torch():
    for m in (torch, lg):
        a = m.tensor([1.5, 0.5], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.distributions.Gamma(a, 1.0).rsample().sum(), a, create_graph=True)
        assert g.requires_grad
        with raises_exactly(NotImplementedError):
            g.sum().backward()
        d = m.distributions.Dirichlet(a).rsample()
        (g,) = m.autograd.grad((d * m.tensor([1.0, 2.0], dtype=m.float64)).sum(), a, create_graph=True)
        assert not g.requires_grad


def test_von_mises_circular_moments_and_seed():
    d = lg.distributions.VonMises(lg.tensor([0.5, -2.0]), lg.tensor([2.0, 0.3]))
    lg.manual_seed(5)
    s = d.sample((20000,)).double()
    lg.manual_seed(5)
    assert d.sample((20000,)).double().equal(s)
    c, sn = s.cos().mean(0), s.sin().mean(0)
    np.testing.assert_allclose(lg.atan2(sn, c).numpy(), [0.5, -2.0], atol=0.15)  # (se ~0.035 at k = 0.3)
    np.testing.assert_allclose((1 - (c ** 2 + sn ** 2).sqrt()).numpy(), d.variance.numpy(), atol=0.02)
    assert bool(((s >= -np.pi) & (s < np.pi)).all())
