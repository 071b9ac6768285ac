"""Storages as a checkpoint describes them, and where they may be placed (map_location).

A pickled tensor names its storage by a persistent id: a storage type (a legacy class
such as ``torch.FloatStorage``, or ``torch.UntypedStorage`` for raw bytes), a record key,
the device it was saved on and its element count. :class:`StorageRef` is that id made
concrete; its bytes are fetched (and checked to have exactly the declared size) on first
use, and one decoded array is shared by every tensor that views the storage.
"""
from __future__ import annotations

import reprlib
from typing import Any, Callable

import numpy as np

from .._backend import device as _device
from . import _dtypes as FD


def bad(msg: str) -> RuntimeError:
    """A file describing something impossible: RuntimeError exactly, as torch raises for bad storages."""
    return RuntimeError(msg)


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 60, 60, 40


def short_repr(value: Any) -> str:
    """A bounded repr for messages about file contents (a shared, deeply nested tuple has an exponential repr)."""
    try:
        return _REPR.repr(value)
    except Exception:  # e.g. an int too long to print
        return f"<{type(value).__name__}>"


# ----------------------------------------------------------------------------- storages
class StorageType:
    """What a legacy storage class global (``torch.FloatStorage``) stands for: a file dtype."""

    __slots__ = ("fd", "name")

    def __init__(self, fd: FD.FileDtype, name: str) -> None:
        self.fd, self.name = fd, name

    def __repr__(self) -> str:
        return f"<storage type torch.{self.name}>"


class ForeignDtype:
    """A torch dtype leafgrad has no dtype for (torch.uint16, float8, ...): usable to describe stored tensors."""

    __slots__ = ("name", "fd")

    def __init__(self, name: str) -> None:
        self.name, self.fd = name, FD.BY_TORCH_NAME.get(name)

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class StorageRef:
    """One storage of a checkpoint: its file dtype, record key and element count; its bytes load on first use.

    ``fetch(key, nbytes)`` returns the record's bytes as a 1-d uint8 array of exactly ``nbytes``
    bytes (it raises if the record is missing or has another size). The decoded array is
    cached per element type, so every tensor viewing this storage shares one array.
    """

    __slots__ = ("fd", "key", "location", "numel", "_fetch", "_raw", "_decoded", "_pending", "deferred")

    def __init__(self, fd: FD.FileDtype, key: str, location: str, numel: int, fetch: Callable,
                 deferred: bool = False) -> None:
        self.fd, self.key, self.location, self.numel = fd, key, location, numel
        self._fetch = fetch
        self._raw: np.ndarray | None = None
        self._decoded: dict[str, np.ndarray] = {}
        # legacy files put the bytes after the pickle: arrays that need decoding are filled by finish()
        self.deferred = deferred
        self._pending: list[Callable[[], None]] = []

    @property
    def nbytes(self) -> int:
        return self.numel * self.fd.itemsize

    def raw_bytes(self) -> np.ndarray:
        if self._raw is None:
            self._raw = self._fetch(self.key, self.nbytes)
        return self._raw

    def as_elements(self, fd: FD.FileDtype, what: str) -> np.ndarray:
        """The storage's bytes as a 1-d writable array of ``fd``'s leafgrad dtype."""
        arr = self._decoded.get(fd.torch_name)
        if arr is None:
            raw = self.raw_bytes()
            if raw.nbytes % fd.itemsize:
                raise bad(f"{what}: its storage {short_repr(self.key)} holds {raw.nbytes} bytes, not a whole "
                           f"number of {fd!r} elements ({fd.itemsize} bytes each); the file is corrupt.")
            elems = raw.view(fd.raw)
            if fd.direct:
                arr = elems
            elif self.deferred:
                arr = np.empty(elems.shape, dtype=fd.target.np)
                self.later(lambda arr=arr, elems=elems: np.copyto(arr, FD.decode(elems, fd, what)))
            else:
                arr = FD.decode(elems, fd, what)
            self._decoded[fd.torch_name] = arr
        return arr

    def later(self, fill: Callable[[], None]) -> None:
        """Run ``fill`` once the bytes are in (legacy files), in the order of the calls."""
        self._pending.append(fill)

    def finish(self) -> None:
        """Fill the arrays handed out before the bytes were read (legacy files)."""
        for fill in self._pending:
            fill()
        self._pending.clear()

    # map_location callables receive a storage and may return it, or .cpu() of it
    def cpu(self) -> "StorageRef":
        return self

    def cuda(self, *args, **kwargs):
        raise RuntimeError(_cuda_message(self.location))

    @property
    def device(self) -> _device:
        return _device("cpu")

    def __repr__(self) -> str:
        return f"<storage {short_repr(self.key)}: {self.numel} x {self.fd!r} on {short_repr(self.location)}>"


def _cuda_message(location: str) -> str:
    return (f"Attempting to deserialize object on a CUDA device ({location}) but leafgrad.cuda.is_available() is "
            "False: leafgrad has no GPU backend here. Load it onto the CPU with map_location='cpu' (or "
            "map_location=leafgrad.device('cpu')).")


def resolve_location(location: Any, map_location: Any, storage: StorageRef | None = None):
    """Where a storage saved on ``location`` goes under ``map_location``; leafgrad only has the CPU."""
    if not isinstance(location, str):
        raise bad(f"corrupt checkpoint: a storage's device should be a string like 'cpu', got "
                   f"{type(location).__name__}")
    target = location
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif map_location is not None and not callable(map_location):
        target = map_location
    elif callable(map_location) and storage is not None:
        result = map_location(storage, location)
        if result is None:  # torch falls back to the saved location
            target = location
        elif isinstance(result, StorageRef):
            return result
        else:
            raise TypeError(f"map_location returned {type(result).__name__}; it should return the storage it was "
                            "given (or storage.cpu()), or None")
    target = str(target)
    kind = target.partition(":")[0]
    if kind == "cpu":
        return storage
    if kind == "cuda":
        raise RuntimeError(_cuda_message(location))
    raise RuntimeError(f"leafgrad.load: cannot place a storage saved on {short_repr(location)} on "
                       f"{short_repr(target)}: leafgrad "
                       "tensors live on the CPU. Pass map_location='cpu'.")
