"""torch's window functions (the tapers ``torch.stft`` and signal code take): hann_window,
hamming_window, blackman_window, bartlett_window and kaiser_window.

Each is ATen's (TensorFactories.cpp), step by step in the window's dtype so that the values are
torch's: ``arange(N)`` scaled by ``2 pi / (N - 1)`` (or ``pi``, ``2``), then the cosine terms.
``periodic=True`` (the default) computes the window of length ``N + 1`` and drops its last value, the
form spectral analysis wants. Lengths 0 and 1 give ``[]`` and ``[1.]``. A window is a factory's
result: a leaf, ``requires_grad`` on request.

Loaded on first use of one of its names (``leafgrad.__getattr__``, see lazy.py).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._creation import _finish

#: C++'s names of the dtypes that torch's refusal prints inside its TensorOptions(...)
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _checks(name: str, window_length: int, dtype) -> D.dtype:
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        short = str(dt).replace("torch.", "")
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_NAMES.get(short, short)}, device=cpu, layout=Strided (default), requires_grad=false "
                           f"(default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return dt


def _work_dtype(dt: D.dtype):
    """The NumPy dtype the steps run in: the window's own (16-bit floats: float32, rounded at the end)."""
    return np.float64 if dt.np == np.float64 else np.float32


def _window(name: str, window_length: int, periodic: bool, dtype, device, requires_grad: bool, body):
    """The shared frame: checks, the lengths 0 and 1, the periodic form; ``body(n, work)`` computes the
    symmetric window of length ``n >= 2`` in the NumPy dtype ``work``."""
    window_length = int(window_length)
    dt = _checks(name, window_length, dtype)
    if window_length <= 1:
        arr = np.ones(window_length, dtype=dt.np)
    else:
        n = window_length + 1 if periodic else window_length
        arr = body(n, _work_dtype(dt))[:window_length].astype(dt.np)
    return _finish(arr, dt, device, requires_grad)


def _scaled_arange(n: int, work, scale: float):
    """``arange(n).mul_(scale)``: the scale rounded to the window's dtype, as torch's scalar is."""
    return np.arange(n, dtype=work) * work(scale)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, pin_memory: bool = False,
                   requires_grad: bool = False):
    """``alpha - beta * cos(2 pi k / (N - 1))``: the Hamming window (Hann's with alpha = beta = 0.5)."""
    def body(n, work):
        return np.cos(_scaled_arange(n, work, math.pi * 2.0 / (n - 1))) * work(-beta) + work(alpha)
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, body)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                pin_memory: bool = False, requires_grad: bool = False):
    """``0.5 - 0.5 cos(2 pi k / (N - 1))``: the Hann window."""
    _checks("hann_window", int(window_length), dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False):
    """``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``: the Blackman window."""
    def body(n, work):
        w = _scaled_arange(n, work, math.pi / (n - 1))
        return np.cos(w * work(4)) * work(0.08) - np.cos(w * work(2)) * work(0.5) + work(0.42)
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, body)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False):
    """The triangular window: ``2k / (N - 1)`` rising to 1, then ``2 - 2k / (N - 1)``."""
    def body(n, work):
        w = _scaled_arange(n, work, 2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        w[half:] = w[half:] * work(-1) + work(2)
        return w
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, body)


def kaiser_window(window_length: int, periodic: bool | None = None, beta: float | None = None, *, dtype=None,
                  layout=None, device=None, pin_memory: bool = False, requires_grad: bool = False):
    """``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``: the Kaiser window
    (``beta`` 12 unless given; as torch's overloads, ``beta`` only after ``periodic``)."""
    if beta is not None and periodic is None:
        raise TypeError("kaiser_window() received an invalid combination of arguments - got (int, beta=float), but "
                        "expected one of:")
    periodic = True if periodic is None else periodic
    beta = 12.0 if beta is None else float(beta)

    def body(n, work):
        alpha = (n - 1) / 2.0
        k = np.arange(n, dtype=np.float64)
        # (I0 in double, rounded once: within a rounding of torch's single-precision Cephes series)
        return (np.i0(beta * np.sqrt(np.abs(1 - ((k - alpha) / alpha) ** 2))) / np.i0(beta)).astype(work)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, body)


NAMES = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")

#: torch's top-level functions here, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {name: globals()[name] for name in NAMES}
