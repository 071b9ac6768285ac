"""leafgrad.distributed: torch.distributed's API, run on MPI (mpi4py).

    import leafgrad.distributed as dist          # or, under `leafgrad run`: import torch.distributed
    dist.init_process_group("gloo")              # "gloo" and "mpi" both run on MPI
    t = leafgrad.ones(3) * dist.get_rank()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)

Launch the ranks with ``leafgrad run --nproc-per-node 2 script.py`` (torchrun's environment) or
``mpiexec -n 2 python script.py``. Install the transport with ``pip install "leafgrad[distributed]"``.
MPI is the engine torch's own ``mpi`` backend uses; nothing here speaks a socket protocol of its own.
"""
from ._collectives import (Work, all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, reduce,
                           reduce_scatter, reduce_scatter_tensor, scatter)
from ._p2p import all_gather_object, broadcast_object_list, irecv, isend, recv, send
from ._group import (Backend, GroupMember, ProcessGroup, ReduceOp, destroy_process_group, get_backend,
                     get_global_rank, get_group_rank, get_process_group_ranks, get_rank, get_world_size, group,
                     init_process_group, is_available, is_gloo_available, is_initialized, is_mpi_available,
                     is_nccl_available, new_group)

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_gather_object", "all_reduce", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group", "irecv",
           "is_available", "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available", "isend",
           "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send"]
