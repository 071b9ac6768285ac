"""The life of one DataLoader worker process: seeding, ``worker_init_fn``, then fetching batches on request.

The main process sends ``(task id, index)`` on the worker's index queue; the worker answers
``(task id, batch)`` on the shared result queue. ``None`` means shut down, :class:`ResumeIteration`
means a new epoch for persistent workers (an iterable dataset's iterator is started again).
An exception while fetching travels back as an :class:`ExceptionWrapper` and is raised in the
main process with its class and the worker's traceback; an exhausted iterable dataset answers
:class:`IterableDatasetStopIteration`. Seeds follow torch: ``base_seed + worker_id`` for
Python's ``random`` and leafgrad, and NumPy's global generator seeded from a SeedSequence of
(worker_id, base_seed) — the same NumPy seed torch's workers get for the same base seed.
"""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info", "worker_loop", "ExceptionWrapper", "ResumeIteration",
           "IterableDatasetStopIteration", "numpy_seed", "STATUS_CHECK_INTERVAL"]

STATUS_CHECK_INTERVAL = 1.0  # seconds between checks that the other side of a queue is still alive


@dataclass(frozen=True)
class WorkerInfo:
    """What dataset code can learn about the worker it runs in (see :func:`get_worker_info`)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """None in the main process; in a worker process, its id, the number of workers, its seed and dataset copy.

    An IterableDataset uses it to split its stream between workers: each worker holds a full
    copy of the dataset, so without a split every worker yields every sample (as in torch).
    """
    return _worker_info


@dataclass(frozen=True)
class ResumeIteration:
    """A persistent worker's signal that a new epoch starts."""


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """An iterable dataset's worker ran out of samples."""

    worker_id: int


class _KeyErrorMessage(str):
    """A KeyError's message shown as written (KeyError shows the repr of its argument otherwise)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, where: str) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # an exception class whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exception


def numpy_seed(base_seed: int, worker_id: int) -> list[int]:
    """NumPy's global seed in worker ``worker_id``: 4 words from a SeedSequence of the ids (torch's rule)."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


def _seed_everything(base_seed: int, worker_id: int) -> int:
    import leafgrad
    seed = base_seed + worker_id
    random.seed(seed)
    leafgrad.manual_seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    return seed


def worker_loop(kind: str, dataset, index_queue, result_queue, done_event, auto_collation: bool, collate_fn,
                drop_last: bool, base_seed: int, init_fn, worker_id: int, num_workers: int, parent_pid: int) -> None:
    """The body of a worker process (the target of ``multiprocessing.Process``)."""
    from .fetch import make_fetcher
    global _worker_info
    try:
        seed = _seed_everything(base_seed, worker_id)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        where = f"in DataLoader worker process {worker_id}"
        pending_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            pending_error, fetcher = ExceptionWrapper(where), None  # reported as the answer to the first task
        ended = False
        while True:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent_pid or done_event.is_set():  # the main process died or is done
                    break
                continue
            if task is None:
                break
            if isinstance(task, ResumeIteration):
                result_queue.put((task, None))
                ended = False
                fetcher = make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if done_event.is_set() or ended:
                continue  # shutting down, or this epoch's stream is over: drain the queue until None
            task_id, index = task
            if pending_error is not None:
                answer, pending_error = pending_error, None
            else:
                try:
                    answer = fetcher.fetch(index)
                except StopIteration:
                    if kind != "iterable":
                        answer = ExceptionWrapper(where)
                    else:
                        answer, ended = IterableDatasetStopIteration(worker_id), True
                except Exception:
                    answer = ExceptionWrapper(where)
            result_queue.put((task_id, answer))
            del answer
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C; the worker just stops
    if done_event.is_set():
        result_queue.cancel_join_thread()  # nobody reads the rest: do not block exit on a full pipe
    result_queue.close()
