"""Helpers for running a script as 2 MPI ranks on this machine, from pytest, with a time limit.

The tests write a small script, launch ``mpiexec -n 2 python script.py`` (loopback only),
and read back what each rank saved (``np.savez`` of its results, one file per rank). They
skip when mpi4py or mpiexec is missing; CI installs both (``pip install -e ".[distributed]"``).
"""
from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src")
LIMIT_S = 90  # one launch of 2 ranks takes about a second; the limit only guards against a hang


def _mpiexec() -> str:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install -e '.[distributed]')")
    from leafgrad.distributed._launch import find_mpiexec
    found = find_mpiexec()
    if found is None:
        pytest.skip("mpiexec is not installed (pip install -e '.[distributed]' brings the mpich wheel)")
    return found


def rank_env() -> dict:
    from leafgrad.distributed._launch import loopback_env
    env = loopback_env(dict(os.environ))
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["MPIEXEC_TIMEOUT"] = str(LIMIT_S)  # MPICH's hydra kills the job itself past this
    env["OMP_NUM_THREADS"] = "1"
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    return env
