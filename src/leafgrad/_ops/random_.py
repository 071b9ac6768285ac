"""In-place random fills (uniform_, normal_, ...): what nn.init uses, drawn from leafgrad's generator.

Each checks its parameters as torch does, with torch's RuntimeError, before anything is drawn or
written (NumPy's own refusals are ValueErrors with other words, and some it does not make at all).
"""
from __future__ import annotations

import numpy as np

from .._creation import _num, _rng, check_random_range
from .._tensor import Tensor
from .inplace import random_fill_
from .unsigned import refuse_unsigned


def check_std(std) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


def check_p(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    refuse_unsigned(self.dtype, "check_uniform_bounds")  # (uint16/32/64: see _ops/unsigned.py)
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_num(a)} > to={_num(b)}")
    return random_fill_(self, _rng(generator).uniform(a, b, self._data.shape), "uniform_")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    refuse_unsigned(self.dtype, "normal_kernel_cpu")  # (uint16/32/64: see _ops/unsigned.py)
    check_std(std)
    return random_fill_(self, _rng(generator).normal(mean, std, self._data.shape), "normal_")


def bernoulli_(self: Tensor, p: float = 0.5, *, generator=None) -> Tensor:
    check_p(p)
    # (uint16/32/64: see _ops/unsigned.py)
    refuse_unsigned(self.dtype, "bernoulli_tensor_cpu_self_" if hasattr(p, "dtype") else "bernoulli_scalar_cpu_")
    return random_fill_(self, _rng(generator).random(self._data.shape) < p, "bernoulli_")


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return random_fill_(self, _rng(generator).exponential(1.0 / lambd, self._data.shape), "exponential_")


def _random_bound(self: Tensor) -> int:
    """torch's range of an unbounded random_(): every integer the dtype holds exactly, from 0."""
    dt = np.dtype(self._data.dtype)
    if dt == np.bool_:
        return 2
    if dt.kind in "iu":
        return int(np.iinfo(dt).max) + 1
    return 2 ** (np.finfo(dt).nmant + 1)


def random_(self: Tensor, from_: int | None = None, to: int | None = None, *, generator=None) -> Tensor:
    # (uint16/32/64: torch draws random_(to) / random_(from, to) for them, but not the full-range random_())
    refuse_unsigned(self.dtype if from_ is None and to is None else None, "random_kernel_cpu")
    if from_ is None and to is None:
        from_, to = 0, _random_bound(self)
    elif to is None:  # random_(to): [0, to)
        from_, to = 0, from_
    check_random_range(from_, to)
    return random_fill_(self, _rng(generator).integers(from_, to, self._data.shape), "random_")
