"""Fetchers: the samples of one batch (or one sample), read from a dataset and collated.

The same fetcher runs in the main process (``num_workers=0``) and inside every worker
process, so a batch is built the same way wherever it is built. A map-style dataset is
indexed; an iterable one is read from the iterator the fetcher holds, and a fetch that finds
the stream exhausted raises StopIteration (with ``drop_last``, also for a short last batch).
"""
from __future__ import annotations

from typing import Callable

__all__ = ["make_fetcher"]


class _MapFetcher:
    __slots__ = ("dataset", "auto_collation", "collate_fn")

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if getattr(self.dataset, "__getitems__", None):  # the dataset can read a whole batch at once
            return self.collate_fn(self.dataset.__getitems__(index))
        return self.collate_fn([self.dataset[i] for i in index])


class _StreamFetcher:
    __slots__ = ("stream", "auto_collation", "collate_fn", "drop_last", "ended")

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.stream = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        samples = []
        for _ in index:
            try:
                samples.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(index)):
            raise StopIteration
        return self.collate_fn(samples)


def make_fetcher(kind: str, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool):
    """A fetcher for a ``"map"`` or ``"iterable"`` dataset (an iterable one starts its iterator here)."""
    cls = _StreamFetcher if kind == "iterable" else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
