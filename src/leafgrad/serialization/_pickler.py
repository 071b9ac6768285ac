"""The pickler behind leafgrad.save: torch's pickle layout, written without torch.

A leafgrad tensor is pickled exactly as torch pickles its own: a call of
``torch._utils._rebuild_tensor_v2`` on a persistent storage id, an element offset, a
size and a stride. The storage is the whole NumPy memory block the tensor's array views
(so views of one block share one storage, as views of one torch storage do), and its
bytes become one record of the file. dtypes, ``Size`` and ``device`` are written as the
torch globals they stand for, so real ``torch.load(..., weights_only=True)`` accepts the
file. Every other object pickles as Python pickles it (a whole module, say), which only
``weights_only=False`` will load, as in torch.

This builds on ``pickle._Pickler``, the pure-Python pickler of the standard library,
because it lets a subclass write a ``GLOBAL`` for a name (``torch FloatStorage``) whose
module is not importable here.
"""
from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np

from .. import _dtype as D
from .._backend import device as _device
from .._tensor import Size, Tensor
from . import _dtypes as FD


class TorchGlobal:
    """A ``module.name`` to be written as a pickle GLOBAL without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce insists that the function be callable
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint, not a function")


_GLOBALS: dict[tuple[str, str], TorchGlobal] = {}


def torch_global(module: str, name: str) -> TorchGlobal:
    """One object per name, so the pickle memo writes each global once (as torch's files do)."""
    key = (module, name)
    if key not in _GLOBALS:
        _GLOBALS[key] = TorchGlobal(module, name)
    return _GLOBALS[key]


class StorageOut:
    """A storage being saved: a C-contiguous NumPy block, its file dtype and its record key."""

    __slots__ = ("block", "fd", "key")

    def __init__(self, block: np.ndarray, fd: FD.FileDtype, key: str) -> None:
        self.block, self.fd, self.key = block, fd, key

    @property
    def numel(self) -> int:
        """Elements of a typed storage; bytes of an untyped one (uint16/32/64 have no typed storage class)."""
        return int(self.block.size if self.fd.storage_name else self.block.nbytes)

    def data(self) -> memoryview:
        """The block's bytes, little-endian, without a copy when the machine is little-endian."""
        block = self.block if self.block.dtype.byteorder in "=|<" and np.little_endian else \
            self.block.astype(self.block.dtype.newbyteorder("<"))
        return memoryview(block.reshape(-1).view(np.uint8))


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def _contiguous_strides(shape: tuple) -> tuple:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


class Pickler(pickle._Pickler):
    """Pickles objects with torch's tensor layout; ``storages`` lists the storages met, in key order."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file: io.BytesIO, protocol: int, legacy: bool = False) -> None:
        super().__init__(file, protocol)
        self.legacy = legacy
        self.storages: list[StorageOut] = []
        self._by_block: dict[int, StorageOut] = {}

    # ------------------------------------------------------------------ storages
    def storage_for(self, arr: np.ndarray) -> tuple[StorageOut, int, tuple]:
        """(storage, element offset, element strides) for an array, sharing storages between views."""
        item = arr.itemsize
        fd = FD.FOR_SAVING.get(D._FROM_NP.get(arr.dtype))
        if fd is None:  # e.g. a uint16 array wrapped by from_numpy: save the values in leafgrad's dtype
            arr = arr.astype(D._FROM_NP[arr.dtype].np)
            item, fd = arr.itemsize, FD.FOR_SAVING[D._FROM_NP[arr.dtype]]
        block = arr
        while isinstance(block.base, np.ndarray):
            block = block.base
        if arr.size and block.dtype == arr.dtype and block.flags.c_contiguous and arr.dtype.isnative \
                and all(s >= 0 and s % item == 0 for s in arr.strides):
            start = _address(arr) - _address(block)
            end = start + sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) + item
            if start >= 0 and start % item == 0 and end <= block.nbytes:
                return self._storage(block, fd), start // item, tuple(s // item for s in arr.strides)
        copy = np.array(arr, order="C", copy=True)
        return self._storage(copy, fd), 0, _contiguous_strides(arr.shape)

    def _storage(self, block: np.ndarray, fd: FD.FileDtype) -> StorageOut:
        found = self._by_block.get(id(block))
        if found is None:
            found = self._by_block[id(block)] = StorageOut(block, fd, str(len(self.storages)))
            self.storages.append(found)
        return found

    def persistent_id(self, obj: Any):
        if type(obj) is StorageOut:
            kind = torch_global("torch", obj.fd.storage_name) if obj.fd.storage_name else \
                torch_global("torch.storage", "UntypedStorage")  # (torch's way for dtypes without one)
            pid = ("storage", kind, obj.key, "cpu", obj.numel)
            return pid + (None,) if self.legacy else pid
        return None

    # ------------------------------------------------------------------ tensors
    def reducer_override(self, obj: Any):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        storage, offset, stride = self.storage_for(np.asarray(t._data))
        args = (storage, offset, tuple(t._data.shape), stride, bool(t.requires_grad), OrderedDict())
        v2 = torch_global("torch._utils", "_rebuild_tensor_v2")
        if not storage.fd.storage_name:  # an untyped storage: v3 names the dtype (torch.uint16, ...) last
            args, v2 = args + (torch_global("torch", storage.fd.torch_name),), \
                torch_global("torch._utils", "_rebuild_tensor_v3")
        cls, state = type(t), dict(t.__dict__)
        if cls is Tensor and not state:
            return v2, args
        from ..nn import Parameter
        if cls is Parameter:
            data = Tensor._make(t._data)
            if not state:
                return torch_global("torch._utils", "_rebuild_parameter"), (data, bool(t.requires_grad),
                                                                            OrderedDict())
            return torch_global("torch._utils", "_rebuild_parameter_with_state"), (
                data, bool(t.requires_grad), OrderedDict(), state)
        new_type = torch_global("torch", "Tensor") if cls is Tensor else cls
        return torch_global("torch._tensor", "_rebuild_from_type_v2"), (v2, new_type, args, state)

    # ------------------------------------------------------------------ torch's globals
    def _save_torch_global(self, obj: TorchGlobal) -> None:
        self.write(pickle.GLOBAL + obj.module.encode("ascii") + b"\n" + obj.name.encode("ascii") + b"\n")
        self.memoize(obj)

    def _save_dtype(self, obj: D.dtype) -> None:
        self.save(torch_global("torch", obj.name))

    def _save_size(self, obj: Size) -> None:
        self.save_reduce(torch_global("torch", "Size"), (tuple(obj),), obj=obj)

    def _save_device(self, obj: _device) -> None:
        args = (obj.type,) if obj.index is None else (obj.type, obj.index)
        self.save_reduce(torch_global("torch", "device"), args, obj=obj)

    dispatch[TorchGlobal] = _save_torch_global
    dispatch[D.dtype] = _save_dtype
    dispatch[Size] = _save_size
    dispatch[_device] = _save_device


def dumps(obj: Any, protocol: int, legacy: bool = False) -> tuple[bytes, list[StorageOut]]:
    """Pickle ``obj``; returns the pickle bytes and the storages it refers to."""
    buf = io.BytesIO()
    p = Pickler(buf, protocol, legacy)
    p.dump(obj)
    return buf.getvalue(), p.storages


def dumps_plain(obj: Any, protocol: int) -> bytes:
    """Pickle plain data (the legacy format's header values)."""
    buf = io.BytesIO()
    Pickler(buf, protocol).dump(obj)
    return buf.getvalue()
