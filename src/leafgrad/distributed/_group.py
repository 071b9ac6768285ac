"""Process groups: the default (world) group made by ``init_process_group``, and ``new_group`` subsets.

Every group owns its own MPI communicator (a ``Dup`` of COMM_WORLD, or a ``Split`` of it), so
traffic in one group never matches a message of another. Ranks given to the API are global
ranks, as in torch; a group translates them to its own numbering.
"""
from __future__ import annotations

import enum
import os
from datetime import timedelta
from typing import Any

from ._mpi import available, mpi

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "group", "init_process_group",
           "destroy_process_group", "is_initialized", "is_available", "is_mpi_available", "is_gloo_available",
           "is_nccl_available", "get_rank", "get_world_size", "get_backend", "new_group",
           "get_process_group_ranks", "get_global_rank", "get_group_rank", "resolve"]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp(enum.Enum):
    """How a reduction combines the ranks' values (torch.distributed.ReduceOp)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


class Backend(str):
    """Backend names as torch spells them; ``"gloo"`` and ``"mpi"`` both run on MPI here."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got {type(name)}")
        value = name.lower()
        if value.startswith("cpu:"):  # torch's "cpu:gloo,cuda:nccl" form: the CPU part is what runs here
            value = value.split(",")[0][4:]
        if value not in ("gloo", "mpi", "nccl", "undefined"):
            raise ValueError(f"Invalid backend: '{name}'; leafgrad.distributed runs the 'gloo' and 'mpi' "
                             "backend names on MPI")
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of ranks that run collectives together, over one MPI communicator."""

    __slots__ = ("comm", "ranks", "backend_name", "name", "__weakref__")

    def __init__(self, comm, ranks: list[int], backend_name: str, name: str) -> None:
        self.comm, self.ranks, self.backend_name, self.name = comm, ranks, backend_name, name

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return len(self.ranks)

    def group_rank(self, global_rank: int, what: str) -> int:
        """The rank inside this group of global rank ``global_rank`` (torch's src/dst are global)."""
        if not isinstance(global_rank, int) or not 0 <= global_rank < _world_size_or_raise():
            raise RuntimeError(f"ProcessGroupMPI::{what}: invalid root rank: {global_rank} (global ranks run "
                               f"0..{_world_size_or_raise() - 1})")
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"Global rank {global_rank} is not part of group {self.name}: pass a rank "
                             f"of {self.ranks}") from None

    def __repr__(self) -> str:
        return f"ProcessGroup(name={self.name!r}, ranks={self.ranks}, backend={self.backend_name!r})"


class _NonMember:
    """What ``new_group`` returns on a rank left out of the group (torch's GroupMember.NON_GROUP_MEMBER)."""

    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class _State:
    world: ProcessGroup | None = None
    detail = False  # TORCH_DISTRIBUTED_DEBUG=DETAIL at init: every collective first compares its arguments
    groups: list = []  # every live group (the world first), so destroy_process_group can free them
    counter = 0


class _WorldDescriptor:
    def __get__(self, obj, owner=None):
        return _State.world


class GroupMember:
    WORLD = _WorldDescriptor()
    NON_GROUP_MEMBER = _NonMember()


class group:  # noqa: N801 - torch's name (dist.group.WORLD)
    WORLD = _WorldDescriptor()


def is_available() -> bool:
    return available()


def is_mpi_available() -> bool:
    return available()


def is_gloo_available() -> bool:
    """The name "gloo" is served by MPI here, so it is available whenever MPI is."""
    return available()


def is_nccl_available() -> bool:
    return False


def is_initialized() -> bool:
    return _State.world is not None


def _world_size_or_raise() -> int:
    if _State.world is None:
        raise ValueError(_NOT_INITIALIZED)
    return _State.world.size()


def resolve(grp) -> ProcessGroup | None:
    """The group a call runs in: the world for None; None for a rank outside ``grp``."""
    if _State.world is None:
        raise ValueError(_NOT_INITIALIZED)
    if grp is None:
        return _State.world
    if grp is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(grp, ProcessGroup) or grp not in _State.groups:
        raise ValueError(f"Group {grp} is not registered, please create group with torch.distributed.new_group "
                         "API (or pass group=None for the default group)")
    return grp


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                         f"{name} must be an integer, got {value!r}") from None


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1, store: Any = None,
                       group_name: str = "", pg_options: Any = None, device_id: Any = None) -> None:
    """Join the default process group: every rank MPI started (mpiexec / ``leafgrad run``) takes part.

    MPI already knows each process's rank and the world size, so the rendezvous is MPI's. The
    torch-style ``rank``/``world_size`` arguments and the ``env://`` variables (RANK, WORLD_SIZE, as
    torchrun and ``leafgrad run --nproc-per-node`` set them) are checked against MPI's numbers, so a
    script launched the wrong way fails here instead of hanging in its first collective.
    """
    if _State.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else "gloo")
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in: leafgrad has no GPU backend; use "
                           "backend='gloo' (or 'mpi'), which runs on MPI")
    if store is not None:
        raise ValueError("store is not used by leafgrad.distributed: MPI does the rendezvous; leave store=None")
    MPI = mpi()
    comm = MPI.COMM_WORLD
    mpi_rank, mpi_size = comm.Get_rank(), comm.Get_size()
    env_method = init_method is None or init_method.startswith("env://")
    for label, given, env_name, actual in (("rank", rank, "RANK", mpi_rank),
                                           ("world_size", world_size, "WORLD_SIZE", mpi_size)):
        wanted = given if given != -1 else (_env_int(env_name) if env_method else None)
        if wanted is not None and wanted != actual:
            raise ValueError(
                f"init_process_group: {label}={wanted} does not match MPI's {label} {actual}. The ranks are the "
                f"processes MPI started: launch {mpi_size if label == 'rank' else wanted} of them with "
                f"leafgrad run --nproc-per-node N script.py (or mpiexec -n N python script.py).")
    world = ProcessGroup(comm.Dup(), list(range(mpi_size)), str(name), group_name or "default_pg")
    _State.world, _State.groups = world, [world]
    _State.detail = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "").upper() == "DETAIL"


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free a group's communicator; with no argument, every group (init_process_group may run again)."""
    if _State.world is None:
        raise AssertionError("Process group cannot be None: there is no process group to destroy (call "
                             "init_process_group first)")
    if group is None or group is _State.world:
        for g in _State.groups:
            g.comm.Free()
        _State.world, _State.groups = None, []
        return
    grp = resolve(group)
    if grp is not None:
        grp.comm.Free()
        _State.groups.remove(grp)


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the world by default); -1 when it is not a member."""
    grp = resolve(group)
    return -1 if grp is None else grp.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    grp = resolve(group)
    return -1 if grp is None else grp.size()


def get_backend(group: ProcessGroup | None = None) -> str:
    grp = resolve(group)
    if grp is None:
        raise ValueError("Invalid process group specified: this rank is not a member of the group")
    return grp.backend_name


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    grp = resolve(group)
    return [] if grp is None else list(grp.ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    grp = resolve(group)
    if grp is None or not 0 <= group_rank < grp.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return grp.ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    grp = resolve(group)
    if grp is None or global_rank not in grp.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return grp.ranks.index(global_rank)


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None, backend: str | None = None,
              pg_options: Any = None, use_local_synchronization: bool = False, group_desc: str | None = None):
    """A group of some ranks (all by default). Every rank of the world must call it, members or not.

    Group ranks follow the sorted global ranks, as in torch; a rank outside ``ranks`` gets
    ``GroupMember.NON_GROUP_MEMBER``, on which collectives do nothing.
    """
    world = resolve(None)
    size = world.size()
    members = sorted(set(range(size) if ranks is None else ranks))
    if len(members) > size:
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in members:
        if not isinstance(r, int) or not 0 <= r < size:
            raise ValueError("The new group's rank should be within the world_size set by init_process_group "
                             f"(got rank {r}; world size {size})")
    MPI = mpi()
    me = world.rank()
    inside = me in members
    comm = world.comm.Split(0 if inside else MPI.UNDEFINED, members.index(me) if inside else 0)
    _State.counter += 1
    if not inside:
        return GroupMember.NON_GROUP_MEMBER
    grp = ProcessGroup(comm, members, str(Backend(backend)) if backend else world.backend_name,
                       group_desc or str(_State.counter))
    _State.groups.append(grp)
    return grp
