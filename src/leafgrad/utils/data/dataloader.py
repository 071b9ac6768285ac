"""DataLoader: combine a dataset and a sampler, and iterate over batches.

The loading pipeline is torch's, in one process::

    sampler        -> indices (SequentialSampler, or RandomSampler when shuffle=True)
    batch_sampler  -> lists of batch_size indices (BatchSampler; None when batch_size=None)
    fetch          -> [dataset[i] for i in indices]      (or dataset.__getitems__(indices))
    collate_fn     -> one batch (default_collate stacks tensors, numbers, arrays, dicts, ...)

``num_workers > 0`` is accepted so PyTorch code runs unchanged, but the samples are
still loaded in this process, one batch at a time, as one worker would: inside
``worker_init_fn`` and the dataset, :func:`get_worker_info` reports worker 0 of 1.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ... import empty, int64
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker knows about itself (see :func:`get_worker_info`)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """None in the main process; while a ``num_workers > 0`` loader fetches, worker 0 of 1."""
    return _worker_info


@contextlib.contextmanager
def _as_worker(info: WorkerInfo | None):
    global _worker_info
    previous, _worker_info = _worker_info, info
    try:
        yield
    finally:
        _worker_info = previous


class _InfiniteConstantSampler(Sampler):
    """For iterable datasets: yields None forever (the dataset's iterator decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches (torch.utils.data.DataLoader, run in-process).

    Args:
        dataset: a map-style :class:`Dataset` or an :class:`IterableDataset`.
        batch_size: samples per batch (``None`` turns batching off).
        shuffle: reshuffle the indices every pass (map-style datasets only).
        sampler / batch_sampler: custom index order / custom batches (exclusive with shuffle).
        num_workers: accepted for compatibility; loading stays in this process.
        collate_fn: list of samples -> batch (``default_collate`` by default).
        drop_last: drop the last, incomplete batch.
        generator: a ``leafgrad.Generator`` driving the shuffle (seed it for a reproducible order).
    """

    _initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            # a batch_sampler decides everything about batches
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                                 "drop_last")

        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self._initialized = True

    def __setattr__(self, attr, val) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the iterator draws from: lists of indices when batching, single indices otherwise
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _DataLoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _DataLoaderIter:
    """One pass over a DataLoader (torch's _SingleProcessDataLoaderIter)."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._collate_fn = loader.collate_fn
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)
        self._sampler_iter = iter(self._index_sampler)
        # torch draws a base seed for the workers from the loader's generator on every pass
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._num_yielded = 0
        self._worker_info = (WorkerInfo(id=0, num_workers=1, seed=self._base_seed, dataset=self._dataset)
                             if self._num_workers > 0 else None)
        with _as_worker(self._worker_info):
            if self._worker_info is not None and loader.worker_init_fn is not None:
                loader.worker_init_fn(0)
            self._dataset_iter = iter(self._dataset) if self._dataset_kind == "iterable" else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _fetch(self, index):
        if self._dataset_kind == "iterable":
            if self._ended:
                raise StopIteration
            if self._auto_collation:
                data = []
                for _ in index:
                    try:
                        data.append(next(self._dataset_iter))
                    except StopIteration:
                        self._ended = True
                        break
                if len(data) == 0 or (self._drop_last and len(data) < len(index)):
                    raise StopIteration
            else:
                data = next(self._dataset_iter)
            return self._collate_fn(data)

        if self._auto_collation:
            if hasattr(self._dataset, "__getitems__") and self._dataset.__getitems__:
                data = self._dataset.__getitems__(index)
            else:
                data = [self._dataset[idx] for idx in index]
        else:
            data = self._dataset[index]
        return self._collate_fn(data)

    def __next__(self):
        index = next(self._sampler_iter)  # StopIteration ends the pass
        with _as_worker(self._worker_info):
            data = self._fetch(index)
        self._num_yielded += 1
        if (self._dataset_kind == "iterable" and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data
