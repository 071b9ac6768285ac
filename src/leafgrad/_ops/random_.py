"""In-place random fills (uniform_, normal_, ...): what nn.init uses, drawn from leafgrad's generator."""
from __future__ import annotations

import numpy as np

from .._creation import _rng
from .._tensor import Tensor
from .inplace import random_fill_


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    return random_fill_(self, _rng(generator).uniform(a, b, self._data.shape), "uniform_")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    return random_fill_(self, _rng(generator).normal(mean, std, self._data.shape), "normal_")


def bernoulli_(self: Tensor, p: float = 0.5, *, generator=None) -> Tensor:
    return random_fill_(self, _rng(generator).random(self._data.shape) < p, "bernoulli_")


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    return random_fill_(self, _rng(generator).exponential(1.0 / lambd, self._data.shape), "exponential_")


def _random_bound(self: Tensor) -> int:
    """torch's range of an unbounded random_(): every integer the dtype holds exactly, from 0."""
    dt = np.dtype(self._data.dtype)
    if dt == np.bool_:
        return 2
    if dt.kind in "iu":
        return int(np.iinfo(dt).max) + 1
    return 2 ** (np.finfo(dt).nmant + 1)


def random_(self: Tensor, from_: int = 0, to: int | None = None, *, generator=None) -> Tensor:
    if to is None:
        from_, to = 0, from_ if from_ else _random_bound(self)
    return random_fill_(self, _rng(generator).integers(from_, to, self._data.shape), "random_")
