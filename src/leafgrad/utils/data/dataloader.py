"""DataLoader: turn a dataset into an iterable of batches.

A pass is a pipeline of four small parts, each replaceable by an argument::

    sampler        which indices, in what order   (SequentialSampler, or RandomSampler with shuffle=True)
    batch_sampler  which indices form a batch      (BatchSampler(sampler, batch_size, drop_last))
    fetch          the samples of those indices    ([dataset[i] for i in batch], or dataset.__getitems__)
    collate_fn     one batch from those samples    (default_collate stacks tensors, numbers, arrays, dicts...)

``batch_size=None`` switches batching off: the loader then yields single samples,
converted by ``default_convert``. An IterableDataset has no indices; it is read in order.

With ``num_workers=0`` everything runs in the calling process. With ``num_workers > 0``,
worker processes fetch and collate (``_multiprocess.py``, ``_utils/worker.py``) as torch's
do: seeded per worker, ``worker_init_fn`` run in each, an IterableDataset copied into every
worker, batches handed out in order, workers kept between epochs with ``persistent_workers``.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Generic, Iterable, TypeVar

from ... import empty, int64
from ._multiprocess import MultiProcessPass, mp_context, warn_if_too_many_workers
from ._utils.fetch import make_fetcher
from ._utils.worker import WorkerInfo, get_worker_info
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]


class _Forever(Sampler):
    """The "sampler" of an IterableDataset: no indices, only a signal to read the next sample."""

    def __iter__(self):
        while True:
            yield None


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor, persistent_workers: bool):
    """The multiprocessing options, checked by torch's rules (and messages); the prefetch factor to keep."""
    rules = [
        (num_workers < 0, "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
        (timeout < 0, "timeout option should be non-negative"),
        (num_workers == 0 and prefetch_factor is not None,
         "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
         "multiprocessing, otherwise set prefetch_factor to None."),
        (prefetch_factor is not None and prefetch_factor < 0, "prefetch_factor option should be non-negative"),
        (persistent_workers and num_workers == 0, "persistent_workers option needs num_workers > 0"),
    ]
    for broken, message in rules:
        if broken:
            raise ValueError(message)
    return 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor


def _reject_for_stream(shuffle, sampler, batch_sampler) -> None:
    """An IterableDataset chooses its own order, so the ordering options must be left unset."""
    given = {"shuffle": shuffle or None, "sampler": sampler, "batch_sampler": batch_sampler}
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                             f"{name}={value} (the dataset's __iter__ decides the order)")


T_co = TypeVar("T_co", covariant=True)


class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches (torch.utils.data.DataLoader).

    Args:
        dataset: a map-style :class:`Dataset` (anything with ``__getitem__`` and ``__len__``) or an
            :class:`IterableDataset`.
        batch_size: samples per batch; ``None`` turns batching off.
        shuffle: a new random order every pass (map-style datasets only).
        sampler / batch_sampler: your own index order, or your own batches (either excludes shuffle).
        num_workers: worker processes that fetch and collate (0: load in this process).
        worker_init_fn: called as ``worker_init_fn(worker_id)`` in each worker, after it is seeded.
        prefetch_factor: batches each worker loads ahead (2 by default with workers).
        persistent_workers: keep the worker processes between epochs instead of starting new ones.
        multiprocessing_context: start method (``"fork"``, ``"spawn"``, ``"forkserver"``) or context.
        collate_fn: list of samples -> batch (``default_collate`` by default).
        drop_last: leave out the last batch when it is smaller than ``batch_size``.
        generator: the ``leafgrad.Generator`` that drives the shuffling (seed it for a reproducible order).
    """

    _initialized = False
    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        self.prefetch_factor = _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset, self.num_workers, self.timeout = dataset, num_workers, timeout
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = mp_context(multiprocessing_context, num_workers)
        self.in_order = in_order
        self._iterator = None  # the pass persistent workers keep between epochs

        streaming = isinstance(dataset, IterableDataset)
        self._dataset_kind = "iterable" if streaming else "map"
        if streaming:
            _reject_for_stream(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            # a batch sampler makes every batching decision itself
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")

        if sampler is None:
            sampler = (_Forever() if streaming else
                       RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:  # batches are stacked; single samples (batch_size=None) only converted
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn, self.persistent_workers = collate_fn, persistent_workers
        self._IterableDataset_len_called = None  # the length len(loader) reported, for a warning if it was wrong
        self._initialized = True

    def __setattr__(self, name, value) -> None:
        # the sampling setup is built from these in __init__; changing one afterwards would be ignored
        if self._initialized and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized; "
                             "build a new DataLoader with the new value instead")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what one pass draws from: lists of indices when batching, single indices when not
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.persistent_workers and self._iterator is not None:
            self._iterator.reset(self)
            return self._iterator
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        if self.num_workers == 0:
            return _LoaderPass(self)
        warn_if_too_many_workers(self.num_workers)
        it = MultiProcessPass(self)
        if self.persistent_workers:
            self._iterator = it
        return it

    def __len__(self) -> int:
        if self._dataset_kind == "map":
            return len(self._index_sampler)
        samples = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return samples
        return samples // self.batch_size if self.drop_last else math.ceil(samples / self.batch_size)


class _LoaderPass:
    """One pass over a DataLoader in this process: draws from its index sampler, fetches, collates."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._dataset = loader.dataset
        self._streaming = loader._dataset_kind == "iterable"
        self._indices = iter(loader._index_sampler)
        # like torch, every pass draws a base seed from the loader's generator (it seeds workers when there are any)
        empty((), dtype=int64).random_(generator=loader.generator)
        self._reported_len = loader._IterableDataset_len_called
        self._yielded = 0
        self._fetcher = make_fetcher(loader._dataset_kind, self._dataset, loader._auto_collation,
                                     loader.collate_fn, loader.drop_last)

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._loader._index_sampler)

    def __next__(self):
        index = next(self._indices)  # StopIteration here ends the pass
        batch = self._fetcher.fetch(index)
        self._yielded += 1
        reported = self._reported_len
        if self._streaming and reported is not None and self._yielded > reported:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be {reported}(when accessing "
                          f"len(dataloader)), but {self._yielded} samples have been fetched. ", stacklevel=2)
        return batch
