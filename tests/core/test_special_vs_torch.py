"""torch.special (and torch.lgamma / digamma / polygamma / mvlgamma / i0 and their Tensor methods) against torch:
values, dtypes, node names, first and second gradients, errors."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from tests.core.differential import observe

POS = [0.3, 1.5, 2.7, 6.5]
ANY = [-2.5, -0.4, 0.3, 1.5, 4.0]
PROB = [0.05, 0.3, 0.5, 0.9]

CASES = {  # name: (values, fn(L, x))
    "lgamma": (ANY, lambda L, x: L.lgamma(x)),
    "Tensor.lgamma": (POS, lambda L, x: x.lgamma()),
    "gammaln": (POS, lambda L, x: L.special.gammaln(x)),
    "digamma": (ANY, lambda L, x: L.digamma(x)),
    "psi": (POS, lambda L, x: L.special.psi(x)),
    "Tensor.digamma": (POS, lambda L, x: x.digamma()),
    "polygamma 1": (POS, lambda L, x: L.polygamma(1, x)),
    "polygamma 3": (POS, lambda L, x: L.special.polygamma(3, x)),
    "Tensor.polygamma": (POS, lambda L, x: x.polygamma(2)),
    "mvlgamma": (POS, lambda L, x: L.mvlgamma(x + 2, 3)),
    "multigammaln": (POS, lambda L, x: L.special.multigammaln(x + 1, 2)),
    "Tensor.mvlgamma": (POS, lambda L, x: x.mvlgamma(1)),
    "i0": (ANY, lambda L, x: L.special.i0(x)),
    "torch.i0": (ANY, lambda L, x: L.i0(x)),
    "i0e": (ANY, lambda L, x: L.special.i0e(x)),
    "i1": (ANY, lambda L, x: L.special.i1(x)),
    "i1e": (ANY, lambda L, x: L.special.i1e(x)),
    "ndtr": (ANY, lambda L, x: L.special.ndtr(x)),
    "ndtri": (PROB, lambda L, x: L.special.ndtri(x)),
    "log_ndtr": (ANY, lambda L, x: L.special.log_ndtr(x)),
    "entr": (PROB, lambda L, x: L.special.entr(x)),
    "expit": (ANY, lambda L, x: L.special.expit(x)),
    "logit": (PROB, lambda L, x: L.special.logit(x)),
    "erf": (ANY, lambda L, x: L.special.erf(x)),
    "erfc": (ANY, lambda L, x: L.special.erfc(x)),
    "erfinv": (PROB, lambda L, x: L.special.erfinv(x)),
    "exp2": (ANY, lambda L, x: L.special.exp2(x)),
    "expm1": (ANY, lambda L, x: L.special.expm1(x)),
    "log1p": (POS, lambda L, x: L.special.log1p(x)),
    "sinc": (ANY, lambda L, x: L.special.sinc(x)),
    "xlogy": (POS, lambda L, x: L.special.xlogy(x, x + 1)),
    "xlog1py": (POS, lambda L, x: L.special.xlog1py(x, x * 2)),
    "xlog1py number": (POS, lambda L, x: L.special.xlog1py(2.0, x)),
    "logsumexp": (ANY, lambda L, x: L.special.logsumexp(x.reshape(1, 5), 1)),
    "softmax": (ANY, lambda L, x: L.special.softmax(x, 0)),
    "log_softmax": (ANY, lambda L, x: L.special.log_softmax(x, 0)),
}


def _run(L, case, dtype):
    values, fn = CASES[case]
    x = L.tensor(values, dtype=getattr(L, dtype), requires_grad=True)
    y = fn(L, x)
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = L.autograd.grad((g * g).sum(), x, allow_unused=True)
    return y, g, g2


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_special_matches_torch(torch, case, dtype):
    ty, tg, tg2 = _run(torch, case, dtype)
    ly, lgr, lg2 = _run(lg, case, dtype)
    assert str(ly.dtype) == str(ty.dtype) and tuple(ly.shape) == tuple(ty.shape)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    rtol = 1e-10 if dtype == "float64" else 2e-5
    if case.startswith("polygamma") or case.endswith("polygamma"):
        rtol = max(rtol, 1e-8)  # (torch's own zeta kernel is accurate to about 5e-10; SciPy's to the last bits)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(lgr.detach().numpy(), tg.detach().numpy(), rtol=rtol * 10, atol=rtol)
    assert (tg2 is None) == (lg2 is None)
    if tg2 is not None:
        np.testing.assert_allclose(lg2.detach().numpy(), tg2.detach().numpy(), rtol=rtol * 100, atol=rtol * 10)


def test_integer_inputs_compute_in_the_default_dtype(torch):
    for name in ("lgamma", "digamma", "i0"):
        t = getattr(torch, name)(torch.tensor([1, 2, 3]))
        lv = getattr(lg, name)(lg.tensor([1, 2, 3]))
        assert str(lv.dtype) == str(t.dtype)
        np.testing.assert_allclose(lv.numpy(), t.numpy(), rtol=1e-6)


def test_digamma_at_poles_matches_torch(torch):
    x = [0.0, -1.0, -2.0]
    np.testing.assert_array_equal(lg.digamma(lg.tensor(x)).numpy(), torch.digamma(torch.tensor(x)).numpy())


ERRORS = {
    "mvlgamma p 0": lambda L: L.mvlgamma(L.tensor([3.0]), 0),
    "polygamma negative n": lambda L: L.polygamma(-1, L.tensor([1.0])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch, name):
    t, lerr = observe(ERRORS[name], torch), observe(ERRORS[name], lg)
    assert t[0] == lerr[0] == "raise" and lerr[1] == t[1], (t, lerr)


def test_digamma_fallback_without_scipy_matches_scipy():
    from leafgrad._ops.special_ops import _digamma_numpy, _lgamma_numpy
    sp = pytest.importorskip("scipy.special")
    x = np.array([-2.5, -0.4, 0.3, 1.5, 4.0, 12.25, 100.0])
    np.testing.assert_allclose(_digamma_numpy(x), sp.psi(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_lgamma_numpy(x), sp.gammaln(x), rtol=1e-12)


def test_special_loads_on_first_use():
    import subprocess
    import sys
    code = "import sys, leafgrad; print('leafgrad.special' in sys.modules, 'scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
