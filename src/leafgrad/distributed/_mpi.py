"""The bridge to MPI: importing mpi4py lazily, and tensors as the contiguous buffers MPI reads and writes.

Importing ``mpi4py.MPI`` initialises MPI, so it happens at ``init_process_group`` time, not at
``import leafgrad.distributed`` (a script that only imports the package stays a plain process).
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["mpi", "available", "Buffer"]

_MPI: Any = None


def available() -> bool:
    """True when mpi4py (and the MPI library it loads) can be imported."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi():
    """The ``mpi4py.MPI`` module (MPI is initialised on first call)."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise RuntimeError(
                "Distributed package doesn't have MPI available: leafgrad.distributed runs on MPI through "
                "mpi4py. Install it with pip install 'leafgrad[distributed]' (mpi4py and the mpich wheel).") from exc
        _MPI = MPI
    return _MPI


class Buffer:
    """A tensor's elements as a C-contiguous array MPI can use, and the way back into the tensor.

    When the tensor's own memory is contiguous the array *is* that memory, so an in-place
    collective writes the tensor directly (no copy, no version bump: torch's collectives do not
    bump ``_version`` either). Otherwise MPI works on a copy and :meth:`store` writes it back.
    Booleans travel as uint8 (MPI has no sum for C bool; torch's sum of bools is a logical or).
    """

    __slots__ = ("tensor", "view", "array", "_copied")

    def __init__(self, tensor) -> None:
        self.tensor = tensor
        self.view = tensor.detach().numpy()
        arr = self.view
        self._copied = not (arr.flags.c_contiguous and arr.flags.writeable)
        if self._copied:
            arr = np.ascontiguousarray(arr)
        if arr.dtype == np.bool_:
            arr = arr.view(np.uint8)
        self.array = arr

    def store(self) -> None:
        """Make the tensor hold what MPI wrote into :attr:`array`."""
        if self._copied:
            self.view[...] = self.array.view(self.view.dtype).reshape(self.view.shape)
