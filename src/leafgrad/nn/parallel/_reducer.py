"""The gradient reducer behind DistributedDataParallel: buckets of gradients averaged over the ranks.

Parameters are packed into buckets of one dtype and a capped size, reduced last-layer-first
(the order backward usually produces their gradients). Each parameter's
post-accumulate-grad hook marks it ready; when every parameter of the next bucket is ready,
its gradients are flattened into one array and a nonblocking MPI allreduce starts, while
backward goes on computing earlier layers' gradients. Buckets are launched strictly in order,
because every rank must issue its collectives in the same sequence. When the last bucket has
started, the reducer waits for all of them and writes the averages back into ``.grad``.
"""
from __future__ import annotations

import numpy as np

from ... import from_numpy, no_grad
from ...distributed import ReduceOp, all_reduce, get_world_size

__all__ = ["Reducer", "assign_buckets"]

FIRST_BUCKET_BYTES = 1024 * 1024  # torch's first bucket with the default cap (the first-defined parameters)


def assign_buckets(params: list, cap_bytes: int, first_bytes: int) -> list[list[int]]:
    """Parameter indices per bucket, in the order the buckets are reduced (torch's initial assignment).

    Buckets are filled in registration order, one dtype per bucket, each closing once it holds
    ``cap_bytes`` (a dtype's first bucket: ``first_bytes``, so the first layers' gradients, which
    backward produces last, do not wait in a big bucket); they are then reduced last-first,
    the order backward usually makes their gradients ready.
    """
    buckets: list[list[int]] = []
    open_by_dtype: dict = {}  # dtype -> [indices of its open bucket, bytes in it, limit of it]
    for i, p in enumerate(params):
        entry = open_by_dtype.get(p.dtype)
        if entry is None or entry[1] >= entry[2]:
            entry = open_by_dtype[p.dtype] = [[], 0, first_bytes if entry is None else cap_bytes]
            buckets.append(entry[0])
        entry[0].append(i)
        entry[1] += p.numel() * p.element_size()
    return buckets[::-1]


class _Bucket:
    """One flat array of several parameters' gradients, and the allreduce in flight on it."""

    __slots__ = ("indices", "pending", "flat", "tensor", "work", "offsets")

    def __init__(self, indices: list[int], params: list) -> None:
        self.indices = indices
        self.offsets, total = [], 0
        for i in indices:
            self.offsets.append(total)
            total += params[i].numel()
        self.flat = np.zeros(total, dtype=params[indices[0]].detach().numpy().dtype)
        self.tensor = from_numpy(self.flat)  # the same memory: the collective reduces the array in place
        self.pending = len(indices)
        self.work = None


class Reducer:
    """Averages the gradients of ``params`` over ``group`` during each armed backward pass.

    It talks to the other ranks only through ``leafgrad.distributed``'s public collectives
    (``all_reduce(..., async_op=True)`` and its ``Work`` handles).
    """

    def __init__(self, params: list, group, cap_bytes: int, first_bytes: int, find_unused: bool) -> None:
        self.params, self.group, self.find_unused = params, group, find_unused
        self.buckets = [_Bucket(ix, params) for ix in assign_buckets(params, cap_bytes, first_bytes)]
        self.bucket_of = {}
        for b, bucket in enumerate(self.buckets):
            for slot, i in enumerate(bucket.indices):
                self.bucket_of[i] = (b, slot)
        self.armed = False       # a DDP forward asked for this backward to be synchronised
        self.started = False     # a hook of the armed backward has fired; cleared when the reduction finishes
        self.ready = [False] * len(params)
        self.used = np.zeros(len(params), dtype=np.int32)
        self.next_bucket = 0
        self.handles = [p.register_post_accumulate_grad_hook(self._hook_for(i)) for i, p in enumerate(params)]

    # ------------------------------------------------------------------ one iteration
    def prepare(self, unused: list[int]) -> None:
        """Arm the reducer for the backward of the forward that just ran."""
        if self.started:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss: their gradients "
                "never arrived, so the averaging of the last backward could not finish. Pass "
                "find_unused_parameters=True to DistributedDataParallel, or make sure every parameter takes part "
                f"in the loss (parameter indices that received no gradient: {self._missing()})")
        self.armed = True
        self.ready = [False] * len(self.params)
        self.used[:] = 0
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.pending, bucket.work = len(bucket.indices), None
        for i in unused:
            self._mark_ready(i, used=False)

    def disarm(self) -> None:
        self.armed = False

    def _missing(self) -> list[int]:
        return [i for i, r in enumerate(self.ready) if not r]

    def _hook_for(self, index: int):
        def hook(param) -> None:
            if self.armed:
                self.started = True
                self._mark_ready(index, used=True)
        return hook

    def _mark_ready(self, index: int, used: bool) -> None:
        if self.ready[index]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter index {index} received a second gradient "
                "in one synchronised iteration: a backward through the same graph twice, or a parameter used by "
                "two reentrant backwards. Run one synchronised backward per forward; run any extra backward "
                "under ddp.no_sync().")
        self.ready[index] = True
        self.used[index] = 1 if used else 0
        b, _ = self.bucket_of[index]
        self.buckets[b].pending -= 1
        self._launch_ready_buckets()

    def _launch_ready_buckets(self) -> None:
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            for slot, i in enumerate(bucket.indices):
                grad, n, off = self.params[i].grad, self.params[i].numel(), bucket.offsets[slot]
                if grad is None:
                    bucket.flat[off:off + n] = 0
                else:
                    bucket.flat[off:off + n] = grad.detach().numpy().reshape(-1)
            bucket.work = all_reduce(bucket.tensor, ReduceOp.SUM, group=self.group, async_op=True)
            self.next_bucket += 1
        for bucket in self.buckets[:self.next_bucket]:
            bucket.work.is_completed()  # a test lets MPI move the transfers on while backward goes on
        if self.next_bucket == len(self.buckets):
            self._finish()

    def _finish(self) -> None:
        for bucket in self.buckets:
            bucket.work.wait()
        size = get_world_size(self.group)
        used = self.used
        if self.find_unused:  # a parameter unused on every rank keeps its .grad untouched, as in torch
            used = from_numpy(self.used.copy())
            all_reduce(used, ReduceOp.MAX, group=self.group)
            used = used.numpy()
        with no_grad():
            for bucket in self.buckets:
                bucket.flat /= size
                for slot, i in enumerate(bucket.indices):
                    if self.find_unused and not used[i]:
                        continue
                    p, off = self.params[i], bucket.offsets[slot]
                    avg = from_numpy(bucket.flat[off:off + p.numel()].reshape(tuple(p.shape)).copy())
                    if p.grad is None:
                        p.grad = avg
                    else:
                        p.grad.copy_(avg)
        self.armed = self.started = False
