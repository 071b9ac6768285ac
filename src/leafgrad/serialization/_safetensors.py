"""safetensors files: read and written here, checked entry by entry.

A safetensors file is an 8-byte little-endian header length, a JSON header (each
tensor's dtype code, shape and ``[begin, end)`` byte range in the data section, plus a
``__metadata__`` dict of strings), then the raw bytes. It can only hold data, which makes
it the format to share weights in; ``safetensors.torch.load_file`` reads the files
written here and the files it writes load here bit for bit.

leafgrad adds one optional thing: a nested checkpoint (an optimizer's ``state_dict``,
numbers, tuples, int keys) is stored as its tensors under dotted names plus a JSON
description of the structure in ``__metadata__["leafgrad"]``, so it comes back exactly.

Every header is validated before any tensor is made: each entry's dtype, shape and byte
range must agree, ranges must lie in the data section and must not overlap (so the
tensors of a file never add up to more than its size), on every path (bfloat16, float8
and unsigned dtypes included).
"""
from __future__ import annotations

import json
import struct
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

from .. import _dtype as D
from .._lowp import keep_lowp
from .._unsigned_array import keep_shell
from .._tensor import Tensor
from . import _dtypes as FD

_FORMAT_KEY = "leafgrad"
_FORMAT_VERSION = 1
_MAX_HEADER = 100_000_000  # the safetensors library's own limit
_MAX_DIMS = 64


def looks_like_safetensors(head: bytes) -> bool:
    """A JSON object starts at byte 8 (and the file is not a zip).

    The header length is not trusted here (its first byte may even read like a pickle's
    0x80): a damaged one is then reported as a damaged safetensors file. A torch pickle
    never has '{' at byte 8: its legacy files open with a fixed magic number there."""
    return len(head) >= 9 and head[8:9] == b"{" and head[:2] != b"PK"


# ----------------------------------------------------------------------------- save
class _Packer:
    """Walk an object: tensors go to ``self.tensors`` (name -> array), everything else becomes JSON."""

    def __init__(self) -> None:
        self.tensors: dict[str, np.ndarray] = {}
        self._seen: dict[int, str] = {}  # the same tensor twice (tied weights) is stored once

    def _unique(self, name: str) -> str:
        base, i = name or "tensor", 1
        name = base
        while name in self.tensors:
            name = f"{base}#{i}"
            i += 1
        return name

    def tensor(self, t: Tensor, path: str) -> dict:
        if id(t) in self._seen:
            return {"__tensor__": self._seen[id(t)]}
        name = self._unique(path)
        self.tensors[name] = np.array(t.detach()._data, order="C", copy=True)  # (_data: numpy() refuses bfloat16)
        self._seen[id(t)] = name
        out: dict[str, Any] = {"__tensor__": name}
        if t.requires_grad:
            out["requires_grad"] = True
        if type(t).__name__ == "Parameter":
            out["parameter"] = True
        return out

    def pack(self, obj: Any, path: str) -> Any:
        if isinstance(obj, Tensor):
            return self.tensor(obj, path)
        if isinstance(obj, np.ndarray):
            name = self._unique(path)
            self.tensors[name] = np.array(obj, order="C", copy=True)
            return {"__ndarray__": name}
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if isinstance(obj, np.generic):
            return obj.item()
        if isinstance(obj, D.dtype):
            return {"__dtype__": obj.name}
        if isinstance(obj, tuple):
            return {"__tuple__": [self.pack(v, _join(path, i)) for i, v in enumerate(obj)]}
        if isinstance(obj, list):
            return [self.pack(v, _join(path, i)) for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            kind = "OrderedDict" if isinstance(obj, OrderedDict) else "Counter" if isinstance(obj, Counter) else "dict"
            items = []
            for k, v in obj.items():
                if not (k is None or isinstance(k, (bool, int, float, str, tuple))):
                    raise TypeError(f"leafgrad.save: dict keys must be strings, numbers, None or tuples in a "
                                    f"safetensors file; got a key of type {type(k).__name__}{_where(path)}")
                items.append([self.pack(k, path), self.pack(v, _join(path, k))])
            return {"__dict__": items, "type": kind}
        kind = type(obj).__qualname__ if type(obj).__module__ == "builtins" else \
            f"{type(obj).__module__}.{type(obj).__qualname__}"
        raise TypeError(
            f"leafgrad.save cannot store an object of type {kind}{_where(path)} in a safetensors file, which holds "
            "tensors plus plain data (numbers, strings, None, lists, tuples and dicts of those). Save a "
            "state_dict(), or save to a .pt path (torch's pickle format).")


def _where(path: str) -> str:
    return f" (at {path!r})" if path else ""


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def dumps(obj: Any) -> bytes:
    """The bytes of a safetensors file holding ``obj``."""
    packer = _Packer()
    structure = packer.pack(obj, "tensor" if isinstance(obj, Tensor) else "")
    metadata = {"format": "pt", _FORMAT_KEY: json.dumps({"version": _FORMAT_VERSION, "structure": structure},
                                                        separators=(",", ":"))}
    header: dict[str, Any] = {"__metadata__": metadata}
    chunks, offset = [], 0
    for name, arr in packer.tensors.items():
        fd = FD.FOR_SAVING.get(D._FROM_NP.get(arr.dtype))
        if fd is None or fd.st_code is None:
            raise TypeError(f"leafgrad.save: {name!r} has NumPy dtype {arr.dtype}, which safetensors cannot store")
        data = arr.astype(fd.raw, copy=False).tobytes() if arr.dtype != np.bool_ else arr.tobytes()
        header[name] = {"dtype": fd.st_code, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)  # the data section starts 8-byte aligned, as safetensors writes it
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


# ----------------------------------------------------------------------------- load
def _fail(name: str, msg: str) -> RuntimeError:
    return RuntimeError(f"leafgrad.load({name!r}): {msg}")


def _no_duplicates(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a JSON object repeats a key")
    return out


def parse_header(buf: Any, name: str) -> tuple[dict, dict, int]:
    """Validate a safetensors header; returns (entries, metadata, data start).

    ``buf`` is the file's bytes (or a memory map of them). Raises RuntimeError, naming the
    file and the problem, for anything malformed.
    """
    size = len(buf)
    if size < 8:
        raise _fail(name, f"not a safetensors file, or truncated: it has only {size} bytes, fewer than the 8-byte "
                          "header length that starts every safetensors file.")
    (n,) = struct.unpack("<Q", bytes(buf[:8]))
    if n > size - 8:
        if n > _MAX_HEADER or (size > 8 and bytes(buf[8:9]) != b"{"):
            raise _fail(name, f"not a safetensors file (the first 8 bytes should give the length of a JSON header, "
                              f"but they read {n}, and the file has {size} bytes).")
        raise _fail(name, f"the file is truncated: its header says the JSON header is {n} bytes long, but only "
                          f"{size - 8} bytes follow the length field.")
    if n > _MAX_HEADER:
        raise _fail(name, f"corrupt safetensors header: it claims {n} bytes; headers are limited to {_MAX_HEADER}.")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail(name, f"corrupt safetensors header: it is not valid JSON ({str(exc)[:200]}).") from None
    if not isinstance(header, dict):
        raise _fail(name, f"corrupt safetensors header: expected a JSON object, got {type(header).__name__}.")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _fail(name, "corrupt safetensors header: __metadata__ must map strings to strings.")
    data_len = size - 8 - n
    spans = []
    for key, info in header.items():
        _check_entry(name, key, info, data_len)
        spans.append((info["data_offsets"][0], info["data_offsets"][1], key))
    spans.sort()
    reach, owner = 0, None  # the furthest end so far, and whose it is
    for begin, end, key in spans:
        if end > begin:
            if begin < reach:
                raise _fail(name, f"corrupt safetensors header: the byte ranges of tensors {owner!r} and {key!r} "
                                  "overlap.")
            reach, owner = end, key
    return header, metadata, 8 + n


def _check_entry(name: str, key: str, info: Any, data_len: int) -> None:
    if not (isinstance(info, dict) and "dtype" in info and "shape" in info and "data_offsets" in info):
        raise _fail(name, f"corrupt safetensors header: the entry for tensor {key!r} lacks dtype, shape or "
                          "data_offsets.")
    dt, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    fd = FD.BY_ST_CODE.get(dt) if isinstance(dt, str) else None
    if fd is None:
        raise _fail(name, f"tensor {key!r} has dtype {str(dt)[:40]!r}, which leafgrad cannot represent (it reads "
                          f"{', '.join(sorted(FD.BY_ST_CODE))}).")
    if not (isinstance(shape, list) and len(shape) <= _MAX_DIMS and
            all(type(s) is int and s >= 0 for s in shape)):
        raise _fail(name, f"corrupt safetensors header: tensor {key!r} has shape {str(shape)[:80]}; a shape is a "
                          f"list of at most {_MAX_DIMS} non-negative integers.")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)):
        raise _fail(name, f"corrupt safetensors header: tensor {key!r} has data_offsets {str(offsets)[:80]}; they "
                          "must be two integers [begin, end).")
    begin, end = offsets
    numel = 1
    for s in shape:
        numel *= s
        if numel * fd.itemsize > data_len:
            break
    expected = numel * fd.itemsize
    if begin < 0 or end - begin != expected:
        raise _fail(name, f"corrupt safetensors header: tensor {key!r} of shape {shape} and dtype {dt} needs "
                          f"{expected} bytes, but its byte range is [{begin}, {end}).")
    if end > data_len:
        raise _fail(name, f"the file is truncated: tensor {key!r} needs bytes up to {end} of the data section, "
                          f"which has only {data_len} bytes.")


def _array(buf: Any, start: int, info: dict, key: str) -> np.ndarray:
    fd = FD.BY_ST_CODE[info["dtype"]]
    begin, end = info["data_offsets"]
    shape = tuple(info["shape"])
    if fd.direct:  # one array object straight on the file's bytes (no copy when the buffer is writable)
        arr = np.ndarray(shape, dtype=fd.raw, buffer=buf, offset=start + begin)
        return arr if arr.flags.writeable else arr.copy()
    elems = np.frombuffer(buf, dtype=fd.raw, count=(end - begin) // fd.itemsize, offset=start + begin)
    return FD.decode(elems, fd, f"tensor {key!r}").reshape(shape)


def loads(buf: Any, name: str) -> Any:
    """Load a safetensors file from its bytes (``bytearray``/memory map for writable, shared arrays)."""
    header, metadata, start = parse_header(buf, name)
    plain = _FORMAT_KEY not in metadata  # e.g. from safetensors.torch.save_file: a dict of tensors
    arrays: dict[str, Any] = {}
    for key in list(header):  # each entry is dropped once used, so the header and the tensors never peak together
        arr = _array(buf, start, header.pop(key), key)
        arrays[key] = Tensor._make(keep_shell(keep_lowp(arr))) if plain else arr
    if plain:
        return arrays
    try:
        info = json.loads(metadata[_FORMAT_KEY])
        structure = info["structure"]
        ndarray_keys: set = set()
        _collect_ndarrays(structure, ndarray_keys)
        tensors = {k: Tensor._make(keep_shell(keep_lowp(a))) for k, a in arrays.items() if k not in ndarray_keys}
        return _unpack(structure, tensors, {k: arrays[k] for k in ndarray_keys if k in arrays}, name)
    except (ValueError, TypeError, KeyError, RecursionError, AttributeError) as exc:
        raise _fail(name, f"corrupt leafgrad metadata in the safetensors header ({type(exc).__name__}: "
                          f"{str(exc)[:200]}).") from None


def _unpack(node: Any, tensors: dict[str, Tensor], arrays: dict[str, np.ndarray], name: str) -> Any:
    if isinstance(node, list):
        return [_unpack(v, tensors, arrays, name) for v in node]
    if not isinstance(node, dict):
        return node
    if "__tensor__" in node:
        key = node["__tensor__"]
        if key not in tensors:
            raise _fail(name, f"corrupt leafgrad metadata: it refers to a tensor {str(key)[:80]!r} that is not in "
                              "the file.")
        t = tensors[key]
        if node.get("parameter"):
            from ..nn import Parameter
            if not isinstance(t, Parameter):
                t = tensors[key] = Parameter(t, requires_grad=bool(node.get("requires_grad", False)))
            return t
        if node.get("requires_grad") and not t.requires_grad:
            t.requires_grad_(True)
        return t
    if "__ndarray__" in node:
        if node["__ndarray__"] not in arrays:
            raise _fail(name, "corrupt leafgrad metadata: it refers to an array that is not in the file.")
        return arrays[node["__ndarray__"]]
    if "__dtype__" in node:
        return D._by_name(node["__dtype__"])
    if "__tuple__" in node:
        return tuple(_unpack(v, tensors, arrays, name) for v in node["__tuple__"])
    if "__dict__" in node:
        items = [(_hashable(_unpack(k, tensors, arrays, name)), _unpack(v, tensors, arrays, name))
                 for k, v in node["__dict__"]]
        kind = node.get("type", "dict")
        return OrderedDict(items) if kind == "OrderedDict" else Counter(dict(items)) if kind == "Counter" \
            else dict(items)
    raise _fail(name, f"corrupt leafgrad metadata: unknown entry {str(node)[:80]}.")


def _hashable(key: Any) -> Any:
    if isinstance(key, (list, dict)):
        raise TypeError("a dict key in the metadata is a list or dict")
    return key


def _collect_ndarrays(node: Any, out: set) -> None:
    if isinstance(node, list):
        for v in node:
            _collect_ndarrays(v, out)
    elif isinstance(node, dict):
        if "__ndarray__" in node:
            out.add(node["__ndarray__"])
        for v in node.values():
            _collect_ndarrays(v, out)
