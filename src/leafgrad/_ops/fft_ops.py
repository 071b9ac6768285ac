"""torch's three FFT primitives as ``defop`` ops: real-to-complex (FftR2CBackward0), complex-to-complex
(FftC2CBackward0) and complex-to-real (FftC2RBackward0), each with torch's backward formula.

``normalization`` is torch's enum: 0 no scaling, 1 by 1/sqrt(n), 2 by 1/n (n the signal size). The
forwards run NumPy's pocketfft unscaled and apply that scale, in the input's precision (complex64 from
float32, as torch). torch.fft's public functions (``leafgrad/fft.py``) are compositions of these.
"""
from __future__ import annotations

import math

import numpy as np

from .registry import defop

__all__ = ["R2C", "C2C", "C2R", "scale_of"]

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
            np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}
_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def scale_of(sizes, normalization: int) -> float:
    n = math.prod(sizes)
    return 1.0 if normalization == 0 or n == 0 else (1.0 / math.sqrt(n) if normalization == 1 else 1.0 / n)


def _scaled(out, factor: float, dtype):
    out = out.astype(dtype, copy=False)
    return out if factor == 1.0 else out * dtype(factor)


def _r2c_fwd(xp, a, dim, normalization, onesided):
    sizes = [a.shape[d] for d in dim]
    out = np.fft.rfftn(a, axes=dim) if onesided else np.fft.fftn(a, axes=dim)
    return _scaled(out, scale_of(sizes, normalization), _COMPLEX[a.dtype])


def _c2c_fwd(xp, a, dim, normalization, forward):
    sizes = [a.shape[d] for d in dim]
    out = np.fft.fftn(a, axes=dim) if forward else np.fft.ifftn(a, axes=dim, norm="forward")
    return _scaled(out, scale_of(sizes, normalization), _COMPLEX[a.dtype])


def _c2r_fwd(xp, a, dim, normalization, last_dim_size):
    sizes = [a.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = np.fft.irfftn(a, s=sizes, axes=dim, norm="forward")
    return _scaled(out, scale_of(sizes, normalization), _REAL[a.dtype])


def _r2c_grad(xp, g, self, dim, normalization, onesided):
    last = dim[-1]
    full = self.shape[last]
    if onesided and g.shape[last] < full:  # (the dropped half of the spectrum had no gradient)
        pad = list(g.shape)
        pad[last] = full - g.shape[last]
        g = xp.concatenate([g, xp.zeros(tuple(pad), dtype=xp.dtype_of(g))], axis=last)
    return xp.apply(REAL_PART, xp.apply(C2C, g, params=(dim, normalization, False)))


def _c2r_grad(xp, g, dim, normalization):
    gI = xp.apply(R2C, g, params=(dim, normalization, True))
    last = dim[-1]
    n_in, n_out = gI.shape[last], g.shape[last]
    twice = n_out - n_in  # (the bins whose conjugate partners the transform also read: counted twice)
    if twice > 0:
        w = np.ones(n_in)
        w[1:1 + twice] = 2.0
        w = w.reshape((n_in,) + (1,) * (gI.ndim - 1 - last)).astype(_REAL[np.dtype(xp.dtype_of(gI))])
        gI = gI * xp.asarray(w)
    return gI


def _real_part_grad(xp, g, self):
    return xp.astype(g, xp.dtype_of(self))  # (a real gradient, as a complex one with no imaginary part)


# the real part inside R2C's backward, as an op, so that the backward is itself differentiable
REAL_PART = defop("RealBackward0", lambda xp, a: xp.real(a).copy(), _real_part_grad, saved=("self",))
R2C = defop("FftR2CBackward0", _r2c_fwd, _r2c_grad, saved=("self", "dim", "normalization", "onesided"))
C2C = defop("FftC2CBackward0", _c2c_fwd,
            lambda xp, g, dim, normalization, forward: xp.apply(C2C, g, params=(dim, normalization, not forward)),
            saved=("dim", "normalization", "forward"))
C2R = defop("FftC2RBackward0", _c2r_fwd, _c2r_grad, saved=("dim", "normalization"))
