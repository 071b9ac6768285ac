"""Samplers: they decide which dataset indices a DataLoader reads, and in what order.

A sampler is just an iterable of indices (BatchSampler: of lists of indices), so the
order of a pass is separate from the data. The random ones draw from a
``leafgrad.Generator`` when given one, which makes the order reproducible.
"""
from __future__ import annotations

from itertools import islice
from typing import Generic, Iterable, Iterator, Sequence, Sized, TypeVar

from ... import Generator, as_tensor, double, empty, int64, multinomial, randint, randperm

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _flag(name: str, value, error=ValueError) -> None:
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


class Sampler(Generic[T_co]):
    """Base class: implement ``__iter__`` (yielding indices) and, when the count is known, ``__len__``."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass  # accepted for old code; a sampler needs nothing from the base class

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__, yielding dataset indices")


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1: the order of a DataLoader without shuffle."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self):
        yield from range(len(self.data_source))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A new random permutation of the indices every pass (the order of ``shuffle=True``).

    With ``replacement=True`` it draws ``num_samples`` indices independently instead;
    without, ``num_samples`` larger than the dataset repeats whole permutations. Without a
    ``generator`` each pass takes a fresh seed from the global generator, so
    ``leafgrad.manual_seed`` makes the order reproducible too.
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._fixed_num_samples = num_samples  # None: one pass = the whole dataset
        self.generator = generator
        _flag("replacement", replacement, TypeError)
        _positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        # read on every pass: the dataset's size may change between passes
        fixed = self._fixed_num_samples
        return len(self.data_source) if fixed is None else fixed

    def _pass_generator(self):
        if self.generator is not None:
            return self.generator
        seed = int(empty((), dtype=int64).random_().item())  # one draw from the global generator per pass
        return Generator().manual_seed(seed)

    def __iter__(self):
        n, total = len(self.data_source), self.num_samples
        generator = self._pass_generator()
        if self.replacement:
            full, rest = divmod(total, 32)  # drawn 32 at a time, so a long pass is not one huge array
            for size in [32] * full + [rest]:
                yield from randint(0, n, (size,), dtype=int64, generator=generator).tolist()
            return
        for _ in range(total // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[:total % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a new random order every pass (for example a validation subset)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        order = randperm(len(self.indices), generator=self.generator).tolist()  # drawn when the pass starts
        yield from (self.indices[i] for i in order)

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probability proportional to ``weights`` (e.g. to balance classes)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        _positive_int("num_samples", num_samples)
        _flag("replacement", replacement)
        weights = as_tensor(weights, dtype=double)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}: give one weight per dataset index")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of ``batch_size``; the last may be short unless ``drop_last``."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        _positive_int("batch_size", batch_size)
        _flag("drop_last", drop_last)
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while batch := list(islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        whole, partial = divmod(len(self.sampler), self.batch_size)
        return whole + (1 if partial and not self.drop_last else 0)
