"""Datasets: where samples come from.

Two kinds, as in torch: a *map-style* dataset answers ``dataset[i]`` (and usually
``len(dataset)``), so a sampler can choose the order; an *iterable-style* dataset is a
stream (``iter(dataset)``) that decides its own order. The classes here combine or
restrict datasets without copying any sample: they only translate indices.
"""
from __future__ import annotations

import bisect
import math
import warnings
from itertools import accumulate
from typing import Generic, Iterable, Sequence, TypeVar

from ... import Tensor, default_generator, randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """Base of map-style datasets: implement ``__getitem__(index)`` and, for samplers, ``__len__``.

    ``a + b`` gives a :class:`ConcatDataset` of the two.
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError(f"Subclasses of Dataset should implement __getitem__. {type(self).__name__} "
                                  "does not: define __getitem__(self, index) returning one sample.")

    def __add__(self, other: "Dataset[T_co]") -> "ConcatDataset[T_co]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """Base of iterable-style datasets (streams): implement ``__iter__``. ``a + b`` chains two streams."""

    def __iter__(self):
        raise NotImplementedError(f"Subclasses of IterableDataset should implement __iter__. {type(self).__name__} "
                                  "does not: define __iter__(self) yielding samples.")

    def __add__(self, other: Dataset[T_co]):
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Sample ``i`` is ``(t[i] for t in tensors)``: inputs and targets that are already tensors."""

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [t.size(0) for t in tensors]
        if len(set(sizes)) > 1:
            raise AssertionError(f"Size mismatch between tensors: their first dims are {sizes}, but every tensor "
                                 "needs one row per sample")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of equal length side by side: ``StackDataset(a, b)[i] == (a[i], b[i])``;
    with keywords, ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        sizes = [len(d) for d in (args or kwargs.values())]
        if len(set(sizes)) > 1:
            raise ValueError(f"Size mismatch between datasets: lengths {sizes}")
        self._length = sizes[0]

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: d[index] for name, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after another; index ``i`` is looked up in the dataset it falls into."""

    @staticmethod
    def cumsum(sequence) -> list[int]:
        """Running totals of the lengths: where each dataset ends."""
        return list(accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset: streams have no indices; "
                                 "use ChainDataset (or stream_a + stream_b) to join them")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError(f"absolute value of index should not exceed dataset length (index {idx}, length "
                                 f"{len(self)})")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _only_iterables(datasets) -> Iterable:
    for d in datasets:
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset; use ConcatDataset for map-style "
                                 "datasets")
        yield d


class ChainDataset(IterableDataset):
    """Iterable datasets one after another (joined lazily, as they are iterated)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in _only_iterables(self.datasets):
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in _only_iterables(self.datasets))


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order (what random_split returns)."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        # a list of positions becomes a list of dataset indices, for datasets that read several at once
        wanted = [self.indices[i] for i in idx] if isinstance(idx, list) else self.indices[idx]
        return self.dataset[wanted]

    def __getitems__(self, indices: list[int]) -> list:
        # a DataLoader asks for a whole batch at once; pass that on if the dataset can do it too
        wanted = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(wanted)
        return [self.dataset[i] for i in wanted]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """Fractions summing to 1 as whole lengths: each floored, then the leftover handed out one per split in turn."""
    for i, fraction in enumerate(fractions):
        if not 0 <= fraction <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    lengths = [math.floor(total * f) for f in fractions]
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, n in enumerate(lengths):
        if n == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


def random_split(dataset: Dataset[T], lengths: Sequence[int | float], generator=default_generator) -> list[Subset[T]]:
    """Split ``dataset`` at random into non-overlapping Subsets of the given lengths (or of fractions summing to 1).

    Pass ``generator=leafgrad.Generator().manual_seed(s)`` for a split that is the same on every run.
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:  # fractions, not lengths
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    ends = list(accumulate(lengths))
    return [Subset(dataset, order[end - n:end]) for end, n in zip(ends, lengths)]
