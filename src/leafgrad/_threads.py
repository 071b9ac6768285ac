"""torch.get_num_threads / set_num_threads: the size of the thread pool leafgrad's matmuls run on.

leafgrad's only parallel work is NumPy's BLAS (matmul, conv through im2col, linalg), so torch's
intra-op pool is that BLAS pool, read and set through threadpoolctl (a dependency). Installed
without it, the setting is only remembered: get returns it and set warns that it has no effect.
"""
from __future__ import annotations

import os
import warnings

__all__ = ["get_num_threads", "set_num_threads"]

_STATE: dict = {"controller": None, "set": None}


def _blas():
    """threadpoolctl's controller of NumPy's BLAS libraries, or None without threadpoolctl."""
    if _STATE["controller"] is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _STATE["controller"] = False
        else:
            import numpy  # noqa: F401  (its BLAS must be loaded to be found)
            _STATE["controller"] = ThreadpoolController().select(user_api="blas")
    return _STATE["controller"] or None


def get_num_threads() -> int:
    """The number of threads the BLAS pool uses now (as torch: the current setting, not a constant)."""
    blas = _blas()
    if blas is not None and blas.lib_controllers:
        return max(c.num_threads for c in blas.lib_controllers)
    if _STATE["set"] is not None:
        return _STATE["set"]
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def set_num_threads(n: int) -> None:
    """Use ``n`` threads for BLAS work from now on (torch's intra-op parallelism)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n}")
    blas = _blas()
    _STATE["set"] = n
    if blas is None:
        warnings.warn("set_num_threads: threadpoolctl is not installed, so leafgrad cannot resize NumPy's BLAS "
                      "pool; the setting is only remembered (pip install threadpoolctl)", UserWarning, stacklevel=2)
        return
    blas.limit(limits=n)
