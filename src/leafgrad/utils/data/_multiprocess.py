"""One pass of a DataLoader with ``num_workers > 0``: worker processes load, this process hands batches out in order.

Batches are dealt to the workers in turn (task i to worker i mod N while all are active), at
most ``prefetch_factor`` per worker ahead of what has been handed out; answers may come back
in any order and are held until their turn (``in_order=True``). An iterable dataset is copied
into every worker, and each copy is read to its end: a worker that runs out answers
"stopped" and leaves the rotation. With ``persistent_workers`` the pass object is kept by the
loader and restarted each epoch (:meth:`reset`) instead of starting new processes.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import warnings

from ... import empty, int64
from ._utils.worker import (STATUS_CHECK_INTERVAL, ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration,
                            worker_loop)

__all__ = ["MultiProcessPass", "mp_context", "warn_if_too_many_workers"]

_JOIN_TIMEOUT = 5.0  # seconds a worker gets to exit after being told to, before it is terminated


def mp_context(choice, num_workers: int):
    """The multiprocessing context to start workers with, checked by torch's rules."""
    if choice is None:
        return None
    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                         f"but got num_workers={num_workers}")
    if isinstance(choice, str):
        valid = multiprocessing.get_all_start_methods()
        if choice not in valid:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in {valid!r}, "
                             f"but got multiprocessing_context={choice!r}")
        return multiprocessing.get_context(choice)
    if not isinstance(choice, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a string specifying "
                        f"the start method, but got multiprocessing_context={choice}")
    return choice


def warn_if_too_many_workers(num_workers: int) -> None:
    """torch's warning when a loader starts more workers than this process may use cores."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cores is not None and num_workers > cores:
        warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. Our suggested max "
                      f"number of worker in current system is {cores}, which is smaller than what this DataLoader "
                      "is going to create: extra workers only compete for the same cores and may slow loading "
                      "down or stall it; lower num_workers.", UserWarning, stacklevel=4)


class MultiProcessPass:
    """Iterator over a loader's batches, loaded by ``loader.num_workers`` worker processes."""

    def __init__(self, loader) -> None:
        # no reference to the loader itself: a persistent loader holds this pass, and a cycle between
        # them would leave the shutdown to the garbage collector, after the queues' threads are gone
        self._index_sampler, self._dataset = loader._index_sampler, loader.dataset
        self._streaming = loader._dataset_kind == "iterable"
        self._n = loader.num_workers
        self._prefetch = loader.prefetch_factor
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._in_order = loader.in_order
        self._indices = iter(loader._index_sampler)
        # like torch, the pass draws its workers' base seed from the loader's generator
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._result_queue = ctx.Queue()
        self._done = ctx.Event()
        self._index_queues, self._workers = [], []
        self._shutdown = False
        for wid in range(self._n):
            iq = ctx.Queue()
            iq.cancel_join_thread()  # a dead worker must not keep the main process from exiting
            w = ctx.Process(target=worker_loop, daemon=True, args=(
                loader._dataset_kind, loader.dataset, iq, self._result_queue, self._done, loader._auto_collation,
                loader.collate_fn, loader.drop_last, self._base_seed, loader.worker_init_fn, wid, self._n,
                os.getpid()))
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._reset(loader, first=True)

    # ------------------------------------------------------------------ epochs
    def reset(self, loader) -> None:
        """A new epoch on the same (persistent) workers."""
        self._index_sampler = loader._index_sampler
        self._indices = iter(loader._index_sampler)
        self._reset(loader, first=False)

    def _reset(self, loader, first: bool) -> None:
        self._send_idx = self._rcvd_idx = 0
        self._tasks: dict = {}  # task id -> (worker,) while pending, (worker, batch) once it arrived early
        self._outstanding = 0
        self._active = [True] * self._n
        self._cycle = itertools.cycle(range(self._n))
        self._yielded = 0
        self._reported_len = loader._IterableDataset_len_called
        if not first:
            for iq in self._index_queues:
                iq.put(ResumeIteration())
            waiting = self._n
            while waiting:  # answers of the last epoch still in flight are dropped here
                task_id, _ = self._get()
                if isinstance(task_id, ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch * self._n):
            self._dispatch()

    # ------------------------------------------------------------------ iteration
    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _dispatch(self) -> None:
        """Send the next index to the next active worker (nothing when the sampler or the workers are done)."""
        try:
            index = next(self._indices)
        except StopIteration:
            return
        for _ in range(self._n):
            wid = next(self._cycle)
            if self._active[wid]:
                break
        else:
            return  # every worker's stream has ended: the index (a stream placeholder) is not needed
        self._index_queues[wid].put((self._send_idx, index))
        self._tasks[self._send_idx] = (wid,)
        self._outstanding += 1
        self._send_idx += 1

    def _get(self):
        """The next answer from any worker; raises if the wait times out or a worker died."""
        if self._timeout > 0:
            try:
                return self._result_queue.get(timeout=self._timeout)
            except queue.Empty:
                self._close()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return self._result_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                dead = [w.pid for w, up in zip(self._workers, self._active) if up and not w.is_alive()]
                if dead:
                    self._close()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited "
                                       "unexpectedly (killed, out of memory, or crashed in native code) before "
                                       "answering") from None

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:  # skip tasks of workers that left the rotation
                task = self._tasks.get(self._rcvd_idx)
                if task is not None and (len(task) == 2 or self._active[task[0]]):
                    break
                self._tasks.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._close()
                raise StopIteration
            task = self._tasks[self._rcvd_idx]
            if len(task) == 2:  # it arrived earlier, out of turn
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._hand_out(task[1])
            task_id, data = self._get()
            self._outstanding -= 1
            if isinstance(data, IterableDatasetStopIteration):
                self._retire(data.worker_id)
                self._dispatch()
                continue
            if task_id == self._rcvd_idx or not self._in_order:
                self._tasks.pop(task_id, None)
                if task_id == self._rcvd_idx:
                    self._rcvd_idx += 1
                return self._hand_out(data)
            self._tasks[task_id] += (data,)

    def _hand_out(self, data):
        self._dispatch()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        self._yielded += 1
        reported = self._reported_len
        if self._streaming and reported is not None and self._yielded > reported:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be {reported}(when "
                          f"accessing len(dataloader)), but {self._yielded} samples have been fetched. For "
                          "multiprocessing data-loading, every worker holds a full copy of the dataset: split "
                          "the stream with get_worker_info() in __iter__.", stacklevel=3)
        return data

    def _retire(self, wid: int) -> None:
        """An iterable dataset's worker ran out: it takes no more tasks (and exits unless persistent)."""
        self._active[wid] = False
        if not self._persistent:
            self._index_queues[wid].put(None)

    # ------------------------------------------------------------------ shutdown
    def _close(self) -> None:
        """Stop every worker: ask, wait a bounded time, then terminate; close the queues."""
        if self._shutdown:
            return
        self._shutdown = True
        self._done.set()
        for iq in self._index_queues:
            try:
                iq.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=_JOIN_TIMEOUT)
            if w.is_alive():
                w.terminate()
                w.join(timeout=_JOIN_TIMEOUT)
        for q in self._index_queues:
            q.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()

    def __del__(self):
        try:
            self._close()
        except Exception:  # interpreter shutdown: the daemon workers go with the process anyway
            pass
