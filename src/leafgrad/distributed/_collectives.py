"""torch.distributed's collectives (all_reduce, broadcast, gathers, scatters, barrier): one MPI nonblocking call each.

Every call starts an MPI request and returns a :class:`Work`; ``async_op=False`` (the default)
waits on it at once. What a call does once its data has arrived (copy a gathered array into the
output tensors, divide for AVG) runs in ``Work.wait``, so async and sync calls share one path.
Arguments are checked locally, before anything is sent, with torch's exception classes. With
``TORCH_DISTRIBUTED_DEBUG=DETAIL`` (read at ``init_process_group``, as torch does) every
collective first exchanges its name, shapes and dtypes, so ranks that disagree fail with a
RuntimeError naming both sides instead of hanging or reading each other's data wrongly.
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from ._group import ProcessGroup, ReduceOp, _State, resolve
from ._mpi import Buffer, mpi

__all__ = ["Work", "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter",
           "reduce_scatter_tensor", "gather", "scatter", "barrier", "group_or_skip", "check_tensor"]


class Work:
    """The handle of a started collective (torch's ``Work``): ``wait()`` blocks until it is done."""

    __slots__ = ("_requests", "_finish", "_done", "_result", "_source")

    def __init__(self, requests: list, finish: Callable[[], None] | None = None, result=None) -> None:
        self._requests, self._finish, self._done = requests, finish, False
        self._result, self._source = result or [], None

    def wait(self, timeout=None) -> bool:
        if not self._done:
            status = mpi().Status()
            if len(self._requests) == 1:
                self._requests[0].Wait(status)
                self._source = status.Get_source()
            else:
                mpi().Request.Waitall(self._requests)
            self._done = True
            if self._finish is not None:
                self._finish()
        return True

    def is_completed(self) -> bool:
        if not self._done and mpi().Request.Testall(self._requests):
            self.wait()  # already complete: runs the finishing step
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None

    def result(self) -> list:
        self.wait()
        return list(self._result)

    def source_rank(self) -> int:
        self.wait()
        return self._source

    def synchronize(self) -> None:
        self.wait()


def _done(work: Work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


def check_tensor(value, name: str) -> None:
    from .._tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(value)} instead.")


def _check_list(value, name: str) -> None:
    from .._tensor import Tensor
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, Tensor) for t in value):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(value)} instead.")


def group_or_skip(group, what: str, *tensors) -> ProcessGroup | None:
    """The group to run in (None, after torch's warning, on a rank outside it); checks ``tensors`` under DETAIL."""
    grp = resolve(group)
    if grp is None:
        warnings.warn(f"Running {what} on global rank {_State.world.rank()} which does not belong to the given "
                      "group.", stacklevel=3)
    elif _State.detail:
        _compare_fingerprints(grp, what, tensors)
    return grp


def _fingerprint(what: str, tensors) -> str:
    shapes = ", ".join("[" + ", ".join(map(str, t.shape)) + "]" for t in tensors)
    dtypes = ", ".join(str(t.dtype).replace("torch.", "") for t in tensors)
    return f"CollectiveFingerPrint(OpType={what}, TensorShape={shapes or '[]'}, TensorDtypes={dtypes or '-'})"


def _compare_fingerprints(grp: ProcessGroup, what: str, tensors) -> None:
    mine = _fingerprint(what, tensors)
    for r, theirs in enumerate(grp.comm.allgather(mine)):
        if theirs != mine:
            raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {grp.ranks[grp.rank()]} is "
                               f"running collective: {mine}, but Rank {grp.ranks[r]} is running collective: "
                               f"{theirs}. Every rank of a group must call the same collectives, in the same "
                               "order, with tensors of the same shapes and dtypes.")


def _same_layout(tensors, like, what: str, direction: str = "output") -> None:
    """Every tensor of a list has ``like``'s shape and dtype (MPI would silently misread otherwise)."""
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(like.shape):
            raise RuntimeError(f"ProcessGroupMPI::{what}: invalid tensor size at index {i} (expected "
                               f"{_shape(like)}, got {_shape(t)}) in the {direction} list")
        if t.dtype != like.dtype:
            raise RuntimeError(f"ProcessGroupMPI::{what}: invalid tensor type at index {i} (expected {like.dtype}, "
                               f"got {t.dtype}) in the {direction} list")


def _shape(t) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ")"


def _mpi_op(op, dtype: np.dtype, what: str):
    """MPI's op for a ReduceOp on arrays of ``dtype`` (None for AVG: a SUM, divided afterwards)."""
    MPI = mpi()
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{what}: op must be a torch.distributed.ReduceOp (e.g. ReduceOp.SUM), got {op!r}")
    if op is ReduceOp.AVG and dtype.kind not in "fc":
        raise ValueError(f"{what}: ReduceOp.AVG needs a floating point or complex tensor, got dtype {dtype}; "
                         "reduce with ReduceOp.SUM and divide by the world size yourself")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "iub":
        raise ValueError(f"{what}: ReduceOp.{op.name} needs an integer or bool tensor, got dtype {dtype}")
    if dtype == np.bool_:  # a logical or / and, as torch's sum / product of bools
        return {ReduceOp.SUM: MPI.MAX, ReduceOp.MAX: MPI.MAX, ReduceOp.BOR: MPI.MAX, ReduceOp.PRODUCT: MPI.MIN,
                ReduceOp.MIN: MPI.MIN, ReduceOp.BAND: MPI.MIN, ReduceOp.BXOR: MPI.BXOR}[op]
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def _finisher(buf: Buffer, op, size: int) -> Callable[[], None]:
    def finish() -> None:
        if op is ReduceOp.AVG:
            buf.array /= size
        buf.store()
    return finish


def all_reduce(tensor, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """Every rank's ``tensor`` becomes the reduction (SUM by default) of all ranks' tensors, in place."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "all_reduce", tensor)
    if grp is None:
        return None
    buf = Buffer(tensor)
    mop = _mpi_op(op, buf.view.dtype, "all_reduce")
    req = grp.comm.Iallreduce(mpi().IN_PLACE, buf.array, op=mop)
    return _done(Work([req], _finisher(buf, op, grp.size()), [tensor]), async_op)


def reduce(tensor, dst: int, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """The reduction lands in rank ``dst``'s ``tensor``; the other ranks' tensors are left as they were."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "reduce", tensor)
    if grp is None:
        return None
    root = grp.group_rank(dst, "reduce")
    buf = Buffer(tensor)
    mop = _mpi_op(op, buf.view.dtype, "reduce")
    if grp.rank() == root:
        req = grp.comm.Ireduce(mpi().IN_PLACE, buf.array, op=mop, root=root)
        return _done(Work([req], _finisher(buf, op, grp.size()), [tensor]), async_op)
    req = grp.comm.Ireduce(buf.array, None, op=mop, root=root)
    return _done(Work([req], None, [tensor]), async_op)


def broadcast(tensor, src: int, group=None, async_op: bool = False):
    """Rank ``src``'s ``tensor`` is copied into every other rank's ``tensor``."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "broadcast", tensor)
    if grp is None:
        return None
    root = grp.group_rank(src, "broadcast")
    buf = Buffer(tensor)
    req = grp.comm.Ibcast(buf.array, root=root)
    return _done(Work([req], buf.store, [tensor]), async_op)


def all_gather(tensor_list: list, tensor, group=None, async_op: bool = False):
    """``tensor_list[r]`` becomes rank r's ``tensor``, on every rank."""
    _check_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "all_gather", tensor)
    if grp is None:
        return None
    n = grp.size()
    if len(tensor_list) != n:
        raise RuntimeError(f"ProcessGroupMPI::allgather: invalid output tensor list (expected length {n}, got "
                           f"{len(tensor_list)}): pass one tensor per rank of the group")
    _same_layout(tensor_list, tensor, "allgather")
    src = Buffer(tensor)
    out = np.empty((n,) + src.array.shape, dtype=src.array.dtype)
    req = grp.comm.Iallgather(src.array, out)

    def finish() -> None:
        for r, t in enumerate(tensor_list):
            dst = Buffer(t)
            dst.array[...] = out[r]
            dst.store()
    return _done(Work([req], finish, list(tensor_list)), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every rank's ``input_tensor``, in rank order, concatenated (or stacked) into ``output_tensor``."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    grp = group_or_skip(group, "all_gather_into_tensor", input_tensor)
    if grp is None:
        return None
    n = grp.size()
    if output_tensor.numel() != n * input_tensor.numel():
        raise RuntimeError(f"ProcessGroupMPI::allgather_into_tensor: output tensor size must be equal to "
                           f"world_size times input tensor size: output {_shape(output_tensor)} has "
                           f"{output_tensor.numel()} elements, {n} x input {_shape(input_tensor)} is "
                           f"{n * input_tensor.numel()}")
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"ProcessGroupMPI::allgather_into_tensor: output tensor must have the same type as "
                           f"input tensor (got {output_tensor.dtype} and {input_tensor.dtype})")
    src, dst = Buffer(input_tensor), Buffer(output_tensor)
    req = grp.comm.Iallgather(src.array, dst.array)
    return _done(Work([req], dst.store, [output_tensor]), async_op)


def reduce_scatter(output, input_list: list, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """Rank r's ``output`` becomes the reduction over all ranks of their ``input_list[r]``."""
    check_tensor(output, "output")
    _check_list(input_list, "input_list")
    grp = group_or_skip(group, "reduce_scatter", output)
    if grp is None:
        return None
    n = grp.size()
    if len(input_list) != n:
        raise RuntimeError(f"invalid input tensor list size, must be world size: got {len(input_list)} tensors "
                           f"for a group of {n}")
    _same_layout(input_list, output, "reduce_scatter", "input")
    send = np.ascontiguousarray(np.stack([Buffer(t).array for t in input_list]))
    return _reduce_scatter(grp, send, output, op, async_op)


def reduce_scatter_tensor(output, input, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """As :func:`reduce_scatter`, with the inputs as consecutive chunks of one tensor."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    grp = group_or_skip(group, "reduce_scatter_tensor", output)
    if grp is None:
        return None
    if input.numel() != grp.size() * output.numel() or input.dtype != output.dtype:
        raise RuntimeError(f"ProcessGroupMPI::reduce_scatter_tensor: input tensor must be the same type as the "
                           f"output tensor and world_size times its size (got input {_shape(input)} "
                           f"{input.dtype}, output {_shape(output)} {output.dtype}, world size {grp.size()})")
    return _reduce_scatter(grp, Buffer(input).array, output, op, async_op)


def _reduce_scatter(grp: ProcessGroup, send: np.ndarray, output, op, async_op: bool):
    buf = Buffer(output)
    mop = _mpi_op(op, buf.view.dtype, "reduce_scatter")
    req = grp.comm.Ireduce_scatter_block(send, buf.array, op=mop)
    return _done(Work([req], _finisher(buf, op, grp.size()), [output]), async_op)


def gather(tensor, gather_list: list | None = None, dst: int = 0, group=None, async_op: bool = False):
    """Rank ``dst``'s ``gather_list[r]`` becomes rank r's ``tensor``."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "gather", tensor)
    if grp is None:
        return None
    root = grp.group_rank(dst, "gather")
    src = Buffer(tensor)
    if grp.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        return _done(Work([grp.comm.Igather(src.array, None, root=root)]), async_op)
    if not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    _check_list(gather_list, "gather_list")
    if len(gather_list) != grp.size():
        raise RuntimeError(f"ProcessGroupMPI::gather: Incorrect output list size {len(gather_list)}. Output list "
                           f"size should be {grp.size()}, same as size of the process group.")
    _same_layout(gather_list, tensor, "gather")
    out = np.empty((grp.size(),) + src.array.shape, dtype=src.array.dtype)
    req = grp.comm.Igather(src.array, out, root=root)

    def finish() -> None:
        for r, t in enumerate(gather_list):
            b = Buffer(t)
            b.array[...] = out[r]
            b.store()
    return _done(Work([req], finish, list(gather_list)), async_op)


def scatter(tensor, scatter_list: list | None = None, src: int = 0, group=None, async_op: bool = False):
    """Rank r's ``tensor`` becomes rank ``src``'s ``scatter_list[r]``."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "scatter", tensor)
    if grp is None:
        return None
    root = grp.group_rank(src, "scatter")
    buf = Buffer(tensor)
    send = None
    if grp.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, "scatter_list")
        if len(scatter_list) != grp.size():
            raise RuntimeError(f"ProcessGroupMPI::scatter: Incorrect input list size {len(scatter_list)}. Input "
                               f"list size should be {grp.size()}, same as size of the process group.")
        _same_layout(scatter_list, tensor, "scatter", "input")
        send = np.ascontiguousarray(np.stack([Buffer(t).array for t in scatter_list]))
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    req = grp.comm.Iscatter(send, buf.array, root=root)
    return _done(Work([req], buf.store, [tensor]), async_op)


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait until every rank of the group has reached its barrier."""
    grp = group_or_skip(group, "barrier")
    if grp is None:
        return None
    return _done(Work([grp.comm.Ibarrier()]), async_op)
