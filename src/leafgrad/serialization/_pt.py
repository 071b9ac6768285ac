"""Reading and writing torch's two pickle checkpoint formats (zip, and the legacy stream).

Both formats pickle the object with tensors replaced by persistent storage ids, and keep
the storages' bytes outside the pickle: as zip records (the default since torch 1.6), or
appended after the pickle as ``[int64 element count][bytes]`` (the legacy format,
``_use_new_zipfile_serialization=False``, which opens with a magic number, a protocol
version and a ``sys_info`` dict, and ends the pickles with the list of storage keys in
the order their bytes follow).

:class:`Session` resolves the storage ids of one load for either unpickler (the
weights-only one, or Python's for ``weights_only=False``) and meters the bytes it hands
out: storages may never add up to more than the file holds.
"""
from __future__ import annotations

import io
import pickle
import struct
import sys
from typing import Any, Callable

import numpy as np

from . import _dtypes as FD, _pickler, _storages as ST, _torch_names as TN, _zip
from ._unpickler import UnpicklingError, weights_only_load

_r = ST.short_repr  # file contents in messages are shown bounded

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


class Session:
    """The storages of one load, keyed by record name; ``fetch(key, nbytes)`` supplies their bytes."""

    def __init__(self, name: str, map_location: Any, fetch: Callable, budget: int, legacy: bool = False) -> None:
        self.name, self.map_location, self.fetch, self.legacy = name, map_location, fetch, legacy
        self.budget = budget  # bytes the storages may still claim (the file's size)
        self.raw: dict[str, np.ndarray] = {}
        self.refs: dict[tuple[str, str], ST.StorageRef] = {}

    def _raw(self, key: str, nbytes: int) -> np.ndarray:
        arr = self.raw.get(key)
        if arr is None:
            self.budget -= nbytes
            if self.budget < 0:
                raise RuntimeError(f"leafgrad.load({self.name!r}): the checkpoint's storages claim more bytes than "
                                   "the file holds; the file is corrupt (or was crafted to exhaust memory).")
            arr = self.raw[key] = self.fetch(key, nbytes)
        elif arr.nbytes != nbytes:
            raise RuntimeError(f"leafgrad.load({self.name!r}): storage {_r(key)} is declared with two different "
                               f"sizes ({arr.nbytes} and {nbytes} bytes); the file is corrupt.")
        return arr

    def persistent_load(self, pid: Any) -> ST.StorageRef:
        pid = tuple(p.decode("ascii") if isinstance(p, bytes) else p for p in pid)
        want = 6 if self.legacy else 5
        if len(pid) != want:
            raise UnpicklingError(f"malformed checkpoint: a storage id has {len(pid)} fields, expected {want}")
        _, storage_type, key, location, numel = pid[:5]
        if not isinstance(storage_type, ST.StorageType):
            raise UnpicklingError(f"malformed checkpoint: {ST.short_repr(storage_type)} is not a storage type")
        if type(key) is not str or type(numel) is not int or numel < 0:
            raise UnpicklingError("malformed checkpoint: a storage id needs a string key and a non-negative count")
        fd = storage_type.fd
        ref = self.refs.get((key, fd.torch_name))
        if ref is None:
            ref = ST.StorageRef(fd, key, location, numel, self._raw, deferred=self.legacy)
            self.refs[(key, fd.torch_name)] = ref
        elif ref.numel != numel:
            raise RuntimeError(f"leafgrad.load({self.name!r}): storage {_r(key)} is declared with two different "
                               f"sizes ({ref.numel} and {numel} elements); the file is corrupt.")
        ref = ST.resolve_location(location, self.map_location, ref)
        if self.legacy:
            ref.raw_bytes()  # claim the bytes now: they follow the pickle and are copied in at the end
            if pid[5] is not None:
                return self._legacy_view(ref, pid[5])
        return ref

    def _legacy_view(self, root: ST.StorageRef, view: Any) -> ST.StorageRef:
        """Old checkpoints could pickle a typed view (key, offset, size) of a storage."""
        if not (type(view) is tuple and len(view) == 3 and type(view[0]) is str
                and all(type(v) is int and v >= 0 for v in view[1:])):
            raise UnpicklingError("malformed checkpoint: bad storage view metadata")
        key, offset, size = view
        if offset + size > root.numel:
            raise RuntimeError(f"leafgrad.load({self.name!r}): a storage view runs past its storage")
        item = root.fd.itemsize

        def fetch(_key, nbytes, root=root):
            return root.raw_bytes()[offset * item:offset * item + nbytes]
        view_ref = self.refs.get((key, root.fd.torch_name))
        if view_ref is None:
            view_ref = self.refs[(key, root.fd.torch_name)] = ST.StorageRef(root.fd, key, root.location, size,
                                                                              fetch, deferred=True)
        return view_ref

    def finish(self) -> None:
        for ref in self.refs.values():
            ref.finish()


class FullUnpickler(pickle.Unpickler):
    """Python's unpickler (weights_only=False: the user trusts the file), with torch's names mapped to leafgrad."""

    def __init__(self, file: Any, session: Session | None, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self.session = session

    def find_class(self, module: str, name: str) -> Any:
        found = TN.DEFAULT_GLOBALS.get(f"{module}.{name}")
        return found if found is not None else super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if self.session is None or not (isinstance(pid, tuple) and pid and pid[0] in ("storage", b"storage")):
            raise UnpicklingError(f"unsupported persistent id {ST.short_repr(pid)}")
        return self.session.persistent_load(pid)


# ----------------------------------------------------------------------------- zip
def load_zip(reader: _zip.Reader, map_location: Any, weights_only: bool, mapped: np.ndarray | None,
             pickle_load_args: dict) -> Any:
    name = reader.name
    if reader.is_torchscript():
        raise RuntimeError(f"leafgrad.load({name!r}): this zip is a TorchScript archive (torch.jit.save), which "
                           "holds compiled code rather than a checkpoint; leafgrad cannot load it.")
    byteorder = reader.read("byteorder").decode("ascii", "replace") if reader.has("byteorder") else "little"
    if byteorder not in ("little", "big"):
        raise RuntimeError(f"leafgrad.load({name!r}): unknown byteorder record {byteorder!r}")

    def fetch(key: str, nbytes: int) -> np.ndarray:
        if mapped is not None:
            start = reader.data_offset(f"data/{key}", nbytes, mapped)
            arr = mapped[start:start + nbytes]
        else:
            arr = reader.read_array(f"data/{key}", nbytes)
        return arr

    session = Session(name, map_location, fetch, reader.size)
    data = reader.read("data.pkl")
    if byteorder == "big":
        session.fetch = _big_endian_fetch(fetch, session)
    if weights_only:
        obj, _ = weights_only_load(data, 0, session.persistent_load)
        return obj
    return FullUnpickler(io.BytesIO(data), session, **pickle_load_args).load()


def _big_endian_fetch(fetch: Callable, session: Session) -> Callable:
    """Big-endian checkpoints: byte-swap each storage into a fresh little-endian copy (as torch does)."""
    def swapped(key: str, nbytes: int) -> np.ndarray:
        fd = next((ref.fd for (k, _), ref in session.refs.items() if k == key), FD.UNTYPED)
        raw = np.array(fetch(key, nbytes))
        if fd.itemsize > 1 and raw.nbytes % fd.itemsize == 0:
            raw = raw.view(fd.raw.newbyteorder(">")).astype(fd.raw).view(np.uint8)
        return raw
    return swapped


# ----------------------------------------------------------------------------- legacy
def load_legacy(raw: bytes, name: str, map_location: Any, weights_only: bool, pickle_load_args: dict) -> Any:
    """Read the legacy (non-zip) format from the whole file's bytes."""
    filled: dict[str, np.ndarray] = {}

    def fetch(key: str, nbytes: int) -> np.ndarray:
        arr = filled[key] = np.zeros(nbytes, dtype=np.uint8)  # filled in once the pickles are read
        return arr

    session = Session(name, map_location, fetch, len(raw), legacy=True)
    if weights_only:
        def next_obj(pos: int, pl: Callable | None = None) -> tuple[Any, int]:
            return weights_only_load(raw, pos, pl)
    else:
        buf = io.BytesIO(raw)

        def next_obj(pos: int, pl: Callable | None = None) -> tuple[Any, int]:
            buf.seek(pos)
            obj = FullUnpickler(buf, session if pl else None, **pickle_load_args).load()
            return obj, buf.tell()

    try:
        magic, pos = next_obj(0)
    except (UnpicklingError, ValueError, EOFError, IndexError, KeyError, TypeError, struct.error):
        magic = None
    if magic is None:
        raise UnpicklingError(f"invalid load key, {raw[:1]!r}: {name!r} is not a checkpoint leafgrad can read; it is "
                              "neither a zip archive (torch.save), a safetensors file nor a legacy torch pickle (it "
                              f"starts with {raw[:16]!r}).")
    if magic != MAGIC_NUMBER:
        raise RuntimeError(f"leafgrad.load({name!r}): Invalid magic number; corrupt file? (a legacy torch.save "
                           "file starts with a fixed pickled number, and this one does not)")
    version, pos = next_obj(pos)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"leafgrad.load({name!r}): Invalid protocol version: {version!r}")
    sys_info, pos = next_obj(pos)
    if isinstance(sys_info, dict) and sys_info.get("little_endian") is False:
        raise RuntimeError(f"leafgrad.load({name!r}): this legacy checkpoint was written on a big-endian machine; "
                           "re-save it with a current torch.save (zip format) to load it here.")
    result, pos = next_obj(pos, session.persistent_load)
    keys, pos = next_obj(pos)
    if type(keys) is not list or not all(type(k) is str for k in keys):
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt legacy checkpoint: the storage key list is missing")
    roots = {ref.key: ref for ref in session.refs.values() if ref.key in filled}
    for key in keys:
        ref = roots.get(key)
        if ref is None:
            raise RuntimeError(f"leafgrad.load({name!r}): corrupt legacy checkpoint: storage {_r(key)} is listed but "
                               "never used")
        if pos + 8 > len(raw):
            raise RuntimeError(f"leafgrad.load({name!r}): the file is truncated before the bytes of storage {_r(key)}")
        (count,) = struct.unpack("<q", raw[pos:pos + 8])
        nbytes = filled[key].nbytes
        if count * ref.fd.itemsize != nbytes:
            raise RuntimeError(f"leafgrad.load({name!r}): storage {_r(key)} has wrong byte size: expected {nbytes} "
                               f"bytes, the file says {count} elements of {ref.fd.itemsize} bytes")
        pos += 8
        if pos + nbytes > len(raw):
            raise RuntimeError(f"leafgrad.load({name!r}): the file is truncated inside the bytes of storage {_r(key)}")
        filled[key][:] = np.frombuffer(raw, dtype=np.uint8, count=nbytes, offset=pos)
        pos += nbytes
    missing = set(filled) - set(keys)
    if missing:
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt legacy checkpoint: storage {sorted(missing)[0]!r} "
                           "has no bytes in the file")
    session.finish()
    return result


def write_legacy(fh: Any, data: bytes, storages: list, protocol: int) -> None:
    """Write the legacy format: header pickles, the object's pickle ``data``, the key list, the storages."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    parts = [_pickler.dumps_plain(MAGIC_NUMBER, protocol), _pickler.dumps_plain(PROTOCOL_VERSION, protocol),
             _pickler.dumps_plain(sys_info, protocol), data,
             _pickler.dumps_plain(sorted(s.key for s in storages), protocol)]
    for part in parts:
        fh.write(part)
    for s in sorted(storages, key=lambda s: s.key):
        fh.write(struct.pack("<q", s.numel))
        fh.write(s.data())


