"""leafgrad.fft: torch.fft, loaded on first use.

Every function is torch's composition of its three primitives (``_ops/fft_ops.py``): a real input
goes through FftR2CBackward0 (ifft and ihfft conjugate it: ConjBackward0), a complex one through
FftC2CBackward0, and the inverse real transforms through FftC2RBackward0, so the recorded nodes and
the gradients are torch's. ``n`` / ``s`` trim (narrow) or zero-pad the input first.
"""
from __future__ import annotations

import numpy as np

from . import _dtype as D
from ._ops.fft_ops import C2C, C2R, R2C
from ._ops.registry import apply
from ._tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
           "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = {None: (0, 2), "backward": (0, 2), "ortho": (1, 1), "forward": (2, 0)}


def _mode(norm, forward: bool) -> int:
    try:
        return _NORMS[norm][0 if forward else 1]
    except (KeyError, TypeError):
        raise RuntimeError(f'Invalid normalization mode: "{norm}". Use "backward" (the default), "ortho" or '
                           '"forward".') from None


def _dims(x: Tensor, dim, s, default_all: bool):
    nd = x._data.ndim
    if dim is None:
        if s is not None:
            dim = tuple(range(nd - len(s), nd))
        else:
            dim = tuple(range(nd)) if default_all else (-2, -1)
    dims = tuple(d % nd if -nd <= d < nd else _bad_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"FFT dims must be unique: got {tuple(dim)}")
    if s is not None and len(s) != len(dims):
        raise RuntimeError(f"When given, dim and shape arguments must have the same length: got s={tuple(s)} and "
                           f"dim={tuple(dim)}")
    return dims


def _bad_dim(d: int, nd: int):
    raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], but "
                     f"got {d})")


def _resize(x: Tensor, dims, sizes) -> Tensor:
    """``x`` trimmed or zero-padded along ``dims`` to ``sizes`` (None keeps a dim's size)."""
    from ._creation import zeros
    from ._ops.shape import cat
    for d, n in zip(dims, sizes):
        if n is None:
            continue
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified: give n >= 1.")
        have = x._data.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            pad = list(x._data.shape)
            pad[d] = n - have
            x = cat([x, zeros(*pad, dtype=x.dtype)], d)
    return x


def _complex(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return x
    if not x.dtype.is_floating_point:
        x = x.to(D.get_default_dtype())
    return x.to(D.complex128 if x.dtype == D.float64 else D.complex64)


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(D.get_default_dtype())


def _require_real(x: Tensor, name: str) -> None:
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {D.scalar_type_name(x.dtype)}: "
                           "use torch.fft.fft for a complex input.")


def _c2c_or_r2c(x, dims, sizes, norm, forward: bool, to_complex: bool) -> Tensor:
    x = _resize(_float(x), dims, sizes)
    if x.dtype.is_complex or to_complex:
        return apply(C2C, (_complex(x),), (dims, _mode(norm, forward), forward))
    out = apply(R2C, (x,), (dims, _mode(norm, forward), False))
    return out if forward else out.conj()  # (the inverse of a real signal: the conjugate of its transform)


def fft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _c2c_or_r2c(input, _dims(input, dim, None, False), (n,), norm, True, False)


def ifft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _c2c_or_r2c(input, _dims(input, dim, None, False), (n,), norm, False, False)


def fftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    dims = _dims(input, dim, s, True)
    return _c2c_or_r2c(input, dims, s or (None,) * len(dims), norm, True, True)


def ifftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    dims = _dims(input, dim, s, True)
    return _c2c_or_r2c(input, dims, s or (None,) * len(dims), norm, False, True)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return fftn(input, s, dim, norm)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return ifftn(input, s, dim, norm)


def _r2c(input, dims, sizes, norm, forward: bool, name: str) -> Tensor:
    _require_real(input, name)
    x = _resize(_float(input), dims, sizes)
    out = apply(R2C, (x,), (dims, _mode(norm, forward), True))
    return out if forward else out.conj()


def rfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _r2c(input, _dims(input, dim, None, False), (n,), norm, True, "rfft")


def rfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    dims = _dims(input, dim, s, True)
    return _r2c(input, dims, s or (None,) * len(dims), norm, True, "rfftn")


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return rfftn(input, s, dim, norm)


def ihfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _r2c(input, _dims(input, dim, None, False), (n,), norm, False, "ihfft")


def _c2r(input, dims, sizes, norm, forward: bool, conj: bool) -> Tensor:
    x = _complex(_float(input))
    last = sizes[-1] if sizes[-1] is not None else 2 * (x._data.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified: give n >= 1.")
    x = _resize(x, dims, tuple(sizes[:-1]) + (last // 2 + 1,))
    if conj:
        x = x.conj()
    return apply(C2R, (x,), (dims, _mode(norm, forward), last))


def irfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _c2r(input, _dims(input, dim, None, False), (n,), norm, False, False)


def irfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    dims = _dims(input, dim, s, True)
    return _c2r(input, dims, tuple(s) if s else (None,) * len(dims), norm, False, False)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return irfftn(input, s, dim, norm)


def hfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _c2r(input, _dims(input, dim, None, False), (n,), norm, True, True)


def _freq(values: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    from ._creation import tensor
    return tensor(values, dtype=dtype or D.get_default_dtype(), requires_grad=requires_grad)


def fftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return _freq(np.fft.fftfreq(n, d), dtype, requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return _freq(np.fft.rfftfreq(n, d), dtype, requires_grad)


def _shift(input: Tensor, dim, inverse: bool) -> Tensor:
    from ._ops.shape import roll
    nd = input._data.ndim
    dims = list(range(nd)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    sizes = [input._data.shape[d] for d in dims]
    shifts = [(n + 1) // 2 if inverse else n // 2 for n in sizes]
    return roll(input, shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, False)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, True)
