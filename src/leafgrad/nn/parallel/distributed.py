"""DistributedDataParallel: one model replica per rank, gradients averaged across ranks in backward.

At wrap time every parameter and buffer is broadcast from rank 0, so all replicas start equal;
each forward re-broadcasts the buffers (``broadcast_buffers=True``); each backward averages the
gradients through the bucketed :class:`~._reducer.Reducer`. With the same optimizer step on
every rank the replicas then stay equal, and N ranks on batches of B train as one process on
the global batch of N*B would.
"""
from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ... import Tensor, from_numpy, is_grad_enabled
from ... import distributed as dist
from ..modules.module import Module
from ._reducer import FIRST_BUCKET_BYTES, Reducer

__all__ = ["DistributedDataParallel"]


def _tensors_in(value, out: list) -> list:
    """The tensors inside a forward's output (nested tuples, lists and dicts included)."""
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensors_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _tensors_in(v, out)
    return out


def _reached_leaves(outputs: list) -> set[int]:
    """ids of the leaf tensors the outputs' graphs reach (through grad_fn.next_functions)."""
    seen, leaves = set(), set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    for t in outputs:
        if t.grad_fn is None and t.requires_grad:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.add(id(var))
        stack.extend(nxt for nxt, _ in node.next_functions)
    return leaves


class DistributedDataParallel(Module):
    """Data parallelism over the ranks of a process group (torch.nn.parallel.DistributedDataParallel).

    Args:
        module: the model; wrapped as ``self.module`` (state_dict keys gain the ``module.`` prefix).
        broadcast_buffers: re-send rank 0's buffers (e.g. BatchNorm's running stats) before each forward.
        process_group: the group to average over (the default group when None).
        bucket_cap_mb: bucket size in MiB (25 by default, and then the first-defined parameters' bucket
            is 1 MiB, as in torch).
        find_unused_parameters: after each forward, walk the output's graph and count the parameters it
            does not reach as ready, so a backward that skips them still finishes its averaging.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **unsupported: Any) -> None:
        super().__init__()
        if unsupported:
            raise TypeError(f"DistributedDataParallel got options leafgrad does not implement: "
                            f"{sorted(unsupported)} (there is no device mesh or mixed precision on MPI/CPU)")
        if device_ids is not None or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with single-device/"
                f"multiple-device GPU modules or CPU modules, but got device_ids {device_ids}, output_device "
                "None, and module parameters {device(type='cpu')}: leave both unset for a CPU module.")
        dist.get_world_size(process_group)  # without a default group: torch's ValueError
        if dist.get_rank(process_group) < 0:
            raise ValueError("DistributedDataParallel: this rank is not a member of the given process_group; "
                             "wrap the model only on the ranks of the group")
        params, seen = [], set()
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.process_group = process_group  # None: the default group
        self.dim, self.broadcast_buffers = dim, broadcast_buffers
        self.find_unused_parameters, self.static_graph = find_unused_parameters, static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._verify_same_model(module)
        if init_sync:
            self._broadcast_coalesced([t for t in module.state_dict().values() if isinstance(t, Tensor)])
        self._module_buffers = [b for b in module.buffers()]
        self._params = params
        first = FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap  # torch's rule
        self.reducer = Reducer(params, process_group, self.bucket_bytes_cap, first, find_unused_parameters)

    # ------------------------------------------------------------------ wrap-time checks and syncing
    def _global_rank(self, group_rank: int) -> int:
        return group_rank if self.process_group is None else dist.get_global_rank(self.process_group, group_rank)

    def _verify_same_model(self, module: Module) -> None:
        mine = [(name, tuple(p.shape), str(p.dtype)) for name, p in module.named_parameters()]
        everyone: list = [None] * dist.get_world_size(self.process_group)
        dist.all_gather_object(everyone, mine, group=self.process_group)
        me = dist.get_rank()
        for r, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {me} has {len(mine)} params, "
                                   f"while rank {self._global_rank(r)} has inconsistent {len(theirs)} params.")
            for (name, shape, dtype), (_, s2, d2) in zip(mine, theirs):
                if (shape, dtype) != (s2, d2):
                    raise RuntimeError(
                        f"DDP expects same model across all ranks, but parameter {name} has shape {list(shape)} "
                        f"({dtype}) on rank {me} and {list(s2)} ({d2}) on rank {self._global_rank(r)}: build the "
                        "same model on every rank.")

    def _broadcast_coalesced(self, tensors: list) -> None:
        """Rank 0's values into ``tensors`` on every rank: one broadcast per dtype, of all of them flattened."""
        if dist.get_world_size(self.process_group) == 1 or not tensors:
            return
        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        for group in by_dtype.values():
            arrays = [t.detach().numpy() for t in group]  # the tensors' own memory
            flat = np.concatenate([a.reshape(-1) for a in arrays])
            dist.broadcast(from_numpy(flat), self._global_rank(0), group=self.process_group)
            off = 0
            for a in arrays:
                a[...] = flat[off:off + a.size].reshape(a.shape)
                off += a.size

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs, **kwargs):
        if self.require_forward_param_sync and self.broadcast_buffers and self._module_buffers:
            self._broadcast_coalesced(self._module_buffers)
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            unused: list[int] = []
            if self.find_unused_parameters:
                reached = _reached_leaves(_tensors_in(output, []))
                unused = [i for i, p in enumerate(self._params) if id(p) not in reached]
            self.reducer.prepare(unused)
        else:
            self.reducer.disarm()
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Backwards run inside accumulate gradients locally; the first synced backward after averages them."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
