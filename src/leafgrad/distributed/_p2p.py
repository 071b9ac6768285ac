"""Point-to-point messages (send/recv and their async forms) and collectives of picklable objects.

Ranks in ``src``/``dst`` are global, as in torch; ``recv`` answers the global rank a message came
from. Object collectives pickle through mpi4py's lowercase calls, for small metadata (the
tensors' collectives in ``_collectives.py`` are the ones to use for data).
"""
from __future__ import annotations

from ._collectives import Work, check_tensor, group_or_skip
from ._group import resolve
from ._mpi import Buffer, mpi

__all__ = ["send", "recv", "isend", "irecv", "all_gather_object", "broadcast_object_list"]


def isend(tensor, dst: int, group=None, tag: int = 0) -> Work | None:
    """Start sending ``tensor`` to global rank ``dst``."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "isend")
    if grp is None:
        return None
    peer = grp.group_rank(dst, "send")
    if peer == grp.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    buf = Buffer(tensor)
    return Work([grp.comm.Isend(buf.array, dest=peer, tag=tag)], None, [tensor])


def irecv(tensor, src: int | None = None, group=None, tag: int = 0) -> Work | None:
    """Start receiving into ``tensor`` from global rank ``src`` (any rank when None)."""
    check_tensor(tensor, "tensor")
    grp = group_or_skip(group, "irecv")
    if grp is None:
        return None
    if src is None:
        peer = mpi().ANY_SOURCE
    else:
        peer = grp.group_rank(src, "recv")
        if peer == grp.rank():
            raise ValueError("Invalid source rank: source rank should not be the same as the rank of the current "
                             "process.")
    buf = Buffer(tensor)
    return Work([grp.comm.Irecv(buf.array, source=peer, tag=mpi().ANY_TAG if tag is None else tag)],
                buf.store, [tensor])


def send(tensor, dst: int, group=None, tag: int = 0) -> None:
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src: int | None = None, group=None, tag: int = 0) -> int:
    """Receive into ``tensor``; returns the global rank it came from (-1 outside the group)."""
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    grp = resolve(group)
    return grp.ranks[work.source_rank()]


def all_gather_object(object_list: list, obj, group=None) -> None:
    """``object_list[r]`` becomes rank r's (picklable) ``obj``."""
    grp = group_or_skip(group, "all_gather_object")
    if grp is None:
        return
    if len(object_list) != grp.size():
        raise ValueError(f"all_gather_object: object_list must have one slot per rank ({grp.size()}), got "
                         f"{len(object_list)}; build it with [None] * world_size")
    object_list[:] = grp.comm.allgather(obj)


def broadcast_object_list(object_list: list, src: int = 0, group=None, device=None) -> None:
    """Rank ``src``'s list of picklable objects replaces every rank's ``object_list`` contents."""
    grp = group_or_skip(group, "broadcast_object_list")
    if grp is None:
        return
    got = grp.comm.bcast(list(object_list), root=grp.group_rank(src, "broadcast_object_list"))
    if len(got) != len(object_list):
        raise RuntimeError(f"broadcast_object_list: rank {src} sent {len(got)} objects into a list of "
                           f"{len(object_list)}; every rank must pass a list of the same length")
    object_list[:] = got
