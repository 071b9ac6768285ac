"""torch.fft against torch: values and dtypes (complex64 from float32), node names, gradients through
chains that end real (the tensors a loss is made of), n / s / dim / norm, shifts and frequencies."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 6))
X3 = RNG.standard_normal((2, 3, 5))
C = RNG.standard_normal((4, 5)) + 1j * RNG.standard_normal((4, 5))
NORMS = [None, "backward", "ortho", "forward"]

VALUES = {
    "fft": lambda F, x, c: F.fft(x), "fft n pad": lambda F, x, c: F.fft(x, n=9), "fft n trim dim 0":
    lambda F, x, c: F.fft(x, n=3, dim=0), "fft complex": lambda F, x, c: F.fft(c),
    "ifft": lambda F, x, c: F.ifft(x), "ifft complex dim 0": lambda F, x, c: F.ifft(c, dim=0),
    "rfft": lambda F, x, c: F.rfft(x), "rfft n 7": lambda F, x, c: F.rfft(x, n=7),
    "irfft": lambda F, x, c: F.irfft(c), "irfft n 7": lambda F, x, c: F.irfft(c, n=7),
    "irfft of real": lambda F, x, c: F.irfft(x),
    "fft2": lambda F, x, c: F.fft2(x), "ifft2 s": lambda F, x, c: F.ifft2(c, s=(3, 6)),
    "rfft2": lambda F, x, c: F.rfft2(x), "irfft2": lambda F, x, c: F.irfft2(c), "irfft2 s": lambda F, x, c:
    F.irfft2(c, s=(4, 7)), "fftn": lambda F, x, c: F.fftn(x), "fftn dim": lambda F, x, c: F.fftn(x, dim=(0,)),
    "ifftn": lambda F, x, c: F.ifftn(c), "rfftn": lambda F, x, c: F.rfftn(x), "irfftn": lambda F, x, c:
    F.irfftn(c, s=(4, 8)), "hfft": lambda F, x, c: F.hfft(c), "hfft n": lambda F, x, c: F.hfft(c, n=6),
    "ihfft": lambda F, x, c: F.ihfft(x), "fftshift": lambda F, x, c: F.fftshift(x),
    "ifftshift dim": lambda F, x, c: F.ifftshift(x, dim=1), "fftshift of freqs": lambda F, x, c:
    F.fftshift(F.fftfreq(5)),
}


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(VALUES))
def test_fft_values_match_torch(torch, name, dtype, norm):
    def run(L):
        cd = L.complex64 if dtype == "float32" else L.complex128
        x, c = L.tensor(X, dtype=getattr(L, dtype)), L.tensor(C, dtype=cd)
        fn = VALUES[name]
        if norm is not None and "shift" not in name:
            import functools
            F = type("F", (), {k: staticmethod(functools.partial(getattr(L.fft, k), norm=norm))
                               for k in ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
                                         "ifftn", "rfftn", "irfftn", "hfft", "ihfft")})
            F.fftshift, F.ifftshift, F.fftfreq = L.fft.fftshift, L.fft.ifftshift, L.fft.fftfreq
            return fn(F, x, c)
        return fn(L.fft, x, c)
    t, lv = run(torch), run(lg)
    assert str(lv.dtype) == str(t.dtype) and tuple(lv.shape) == tuple(t.shape)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(_np(lv), _np(t), rtol=tol, atol=tol)


def _np(t):
    """A tensor's values (torch's conjugate views resolved first; leafgrad keeps no conjugate bit)."""
    return (t.resolve_conj() if hasattr(t, "resolve_conj") else t).detach().numpy()


GRADS = {  # real in, real out: fn(L, x) where x is a float64 leaf; or a complex leaf for the "c:" cases
    "rfft then irfft": lambda L, x: L.fft.irfft(L.fft.rfft(x) * _cw(L, (4, 4)), n=6),
    "rfft ortho then irfft n 7": lambda L, x: L.fft.irfft(L.fft.rfft(x, norm="ortho") * _cw(L, (4, 4)), n=7),
    "fft, ifft, hfft": lambda L, x: L.fft.hfft(L.fft.ifft(L.fft.fft(x, norm="forward")) * _cw(L, (4, 6)), n=9),
    "fft2 then irfft2": lambda L, x: L.fft.irfft2(L.fft.fft2(x)[..., :4] * _cw(L, (4, 4)), s=(4, 6)),
    "ihfft then hfft": lambda L, x: L.fft.hfft(L.fft.ihfft(x, dim=0) * _cw(L, (3, 6)), n=4, dim=0),
    "rfftn then irfftn": lambda L, x: L.fft.irfftn(L.fft.rfftn(x, s=(5, 8)) * _cw(L, (5, 5)), s=(5, 8)),
    "fft n pad then hfft": lambda L, x: L.fft.hfft(L.fft.fft(x, n=8) * _cw(L, (4, 8))),
    "fftshift": lambda L, x: L.fft.fftshift(x) * L.tensor(X),
}


def _cw(L, shape):
    w = np.random.default_rng(sum(shape)).standard_normal(shape + (2,))
    return L.tensor(w[..., 0] + 1j * w[..., 1])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_fft_gradients_match_torch(torch, name):
    def run(L):
        x = L.tensor(X, requires_grad=True)
        y = GRADS[name](L, x)
        (g,) = L.autograd.grad((y * y).sum(), x)
        return y, g
    (ty, tg), (ly, lgr) = run(torch), run(lg)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(_np(ly), _np(ty), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(_np(lgr), _np(tg), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("fn", ["irfft", "hfft", "irfft2"])
def test_complex_leaf_gradients_match_torch(torch, fn):
    def run(L):
        c = L.tensor(C, requires_grad=True)
        y = getattr(L.fft, fn)(c)
        (g,) = L.autograd.grad((y * L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum(), c)
        return g
    np.testing.assert_allclose(_np(run(lg)), _np(run(torch)), rtol=1e-9, atol=1e-10)


def test_frequencies_and_saved_values_match_torch(torch):
    for L in (torch, lg):
        assert L.fft.fftfreq(4).dtype == L.float32
    np.testing.assert_allclose(lg.fft.rfftfreq(7, d=0.5).numpy(), torch.fft.rfftfreq(7, d=0.5).numpy())
    np.testing.assert_allclose(lg.fft.fftfreq(6, dtype=lg.float64).numpy(), torch.fft.fftfreq(6, dtype=torch.float64))
    t = torch.fft.rfft(torch.tensor(X, requires_grad=True), norm="ortho").grad_fn
    lgf = lg.fft.rfft(lg.tensor(X, requires_grad=True), norm="ortho").grad_fn
    assert lgf._saved_normalization == t._saved_normalization and lgf._saved_onesided == t._saved_onesided
    assert tuple(lgf._saved_dim) == tuple(t._saved_dim)


def test_errors_match_torch(torch):
    from tests.core.differential import observe
    for fn in (lambda L: L.fft.rfft(L.tensor(C)), lambda L: L.fft.fft(L.tensor(X), norm="bad"),
               lambda L: L.fft.fft(L.tensor(X), dim=3), lambda L: L.fft.fft(L.tensor(X), n=0)):
        t, lv = observe(fn, torch), observe(fn, lg)
        assert t[0] == lv[0] == "raise" and t[1] == lv[1], (t, lv)


def test_fft_loads_on_first_use():
    import subprocess
    import sys
    code = "import sys, leafgrad; print('leafgrad.fft' in sys.modules); leafgrad.fft; print('leafgrad.fft' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


@pytest.mark.parametrize("name", ["rfft then irfft", "fft, ifft, hfft", "fft2 then irfft2"])
def test_fft_second_gradients_match_torch(torch, name):
    def run(L):
        x = L.tensor(X, requires_grad=True)
        y = GRADS[name](L, x)
        (g,) = L.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (g2,) = L.autograd.grad((g * g).sum(), x)
        return g2
    np.testing.assert_allclose(_np(run(lg)), _np(run(torch)), rtol=1e-8, atol=1e-9)
