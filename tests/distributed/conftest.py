"""The ``run_ranks`` fixture: a script run as MPI ranks on this machine (helpers in mpi_ranks.py)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mpi_ranks import LIMIT_S, _mpiexec, rank_env


@pytest.fixture(scope="module")
def run_ranks(tmp_path_factory):
    """``run_ranks(code, n=2, argv=None) -> [results of rank 0, results of rank 1, ...]``.

    ``code`` runs in every rank with ``OUT`` (a folder) defined and a ``save(**arrays)`` helper
    that stores this rank's results; the returned dicts map names to NumPy arrays. ``argv``
    replaces ``mpiexec -n N python`` as the launcher (the script's path is appended).
    """
    mpiexec = _mpiexec()

    def run(code: str, n: int = 2, argv: list | None = None):
        tmp_path = tmp_path_factory.mktemp("ranks")
        prelude = textwrap.dedent(f"""
            import os, sys
            import numpy as np
            OUT = {str(tmp_path)!r}
            def save(**arrays):
                np.savez(os.path.join(OUT, "rank%s.npz" % os.environ.get("PMI_RANK",
                         os.environ.get("OMPI_COMM_WORLD_RANK", "0"))), **arrays)
        """)
        script = tmp_path / "script.py"
        script.write_text(prelude + textwrap.dedent(code))
        cmd = [mpiexec, "-n", str(n), sys.executable, str(script)] if argv is None else argv + [str(script)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, env=rank_env(), timeout=LIMIT_S + 15,
                                 cwd=str(tmp_path))
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"the ranks did not finish in {LIMIT_S + 15}s:\n{exc.stdout}\n{exc.stderr}")
        assert res.returncode == 0, f"ranks failed (rc={res.returncode}):\n{res.stdout}\n{res.stderr}"
        out = []
        for r in range(n):
            with np.load(tmp_path / f"rank{r}.npz", allow_pickle=False) as f:
                out.append({k: f[k] for k in f.files})
        return out

    return run
