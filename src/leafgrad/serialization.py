"""leafgrad.save / leafgrad.load: checkpoints as safetensors files, never pickles.

A safetensors file is an 8-byte header length, a JSON header (name, dtype, shape and
byte range of every tensor, plus a ``__metadata__`` dict of strings), then the raw
tensor bytes. Loading one only ever creates arrays, so a checkpoint can never run
code (a pickle, which ``torch.save`` writes, can).

What can be saved:

* a tensor, or a dict of tensors (a ``state_dict``, ``OrderedDict`` included): the
  tensors are stored under their keys, so ``safetensors.torch.load_file`` reads the
  file as the same dict in PyTorch, and a file written by
  ``safetensors.torch.save_file(model.state_dict(), path)`` loads here;
* nested containers mixing tensors with plain data (an optimizer's ``state_dict``
  with ints, floats, strings, None, lists, tuples and int-keyed dicts): the tensors
  are stored under dotted paths (``state.0.exp_avg``) and the structure around them
  is kept as JSON in ``__metadata__["leafgrad"]``, so it comes back exactly (tuples as
  tuples, int keys as ints, OrderedDict as OrderedDict).
"""
from __future__ import annotations

import json
import os
import struct
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

from . import _dtype as D
from ._creation import from_numpy
from ._tensor import Tensor

__all__ = ["save", "load"]

_FORMAT_KEY = "leafgrad"
_FORMAT_VERSION = 1

# safetensors dtype names -> NumPy, for checking headers and decoding what NumPy cannot load
_ST_DTYPES = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16, "U16": np.uint16,
              "F16": np.float16, "BF16": None, "I32": np.int32, "U32": np.uint32, "F32": np.float32,
              "F64": np.float64, "I64": np.int64, "U64": np.uint64, "C64": np.complex64,
              "F8_E4M3": None, "F8_E5M2": None}
_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4,
             "F64": 8, "I64": 8, "U64": 8, "C64": 8, "F8_E4M3": 1, "F8_E5M2": 1}


def _safetensors_numpy():
    try:
        import safetensors.numpy as st_np
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("leafgrad.save/leafgrad.load need the `safetensors` package: pip install safetensors "
                          "(or pip install 'leafgrad[demo]')") from exc
    return st_np


def _name_of(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return getattr(f, "name", None) or repr(f)


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
        self.tensors[name] = _contiguous(t.detach().cpu().numpy())
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
            self.tensors[name] = _contiguous(obj)
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
                    raise TypeError(f"leafgrad.save: dict keys must be strings, numbers, None or tuples; got a key of "
                                    f"type {type(k).__name__}{_where(path)}")
                items.append([self.pack(k, path), self.pack(v, _join(path, k))])
            return {"__dict__": items, "type": kind}
        kind = type(obj).__qualname__ if type(obj).__module__ == "builtins" else \
            f"{type(obj).__module__}.{type(obj).__qualname__}"
        raise TypeError(
            f"leafgrad.save cannot store an object of type {kind}{_where(path)}. A safetensors checkpoint holds "
            "tensors plus plain data: numbers, strings, None, lists, tuples and dicts of those. Save a state_dict() "
            "rather than a whole module or optimizer.")


def _where(path: str) -> str:
    return f" (at {path!r})" if path else ""


def _contiguous(arr: np.ndarray) -> np.ndarray:
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def save(obj: Any, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save a tensor, a state_dict, or nested plain data with tensors to a safetensors file.

    ``f`` is a path or a writable binary file object. The pickle arguments of torch.save
    are accepted and ignored: nothing is ever pickled.
    """
    st_np = _safetensors_numpy()
    packer = _Packer()
    structure = packer.pack(obj, "tensor" if isinstance(obj, Tensor) else "")
    metadata = {"format": "pt", _FORMAT_KEY: json.dumps({"version": _FORMAT_VERSION, "structure": structure},
                                                        separators=(",", ":"))}
    data = st_np.save(packer.tensors, metadata=metadata)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    with open(path, "wb") as fh:
        fh.write(data)


# ----------------------------------------------------------------------------- load
def _not_safetensors(name: str, raw: bytes) -> str | None:
    """A precise message when the bytes are some other well-known format."""
    convert = (f"Convert it once with PyTorch:\n    import torch\n    from safetensors.torch import save_file\n"
               f"    save_file(torch.load({name!r}, weights_only=True), 'model.safetensors')\n"
               "(for a state_dict of tensors; save_file needs a flat dict), then leafgrad.load('model.safetensors').")
    if raw[:4] == b"PK\x03\x04":
        return (f"leafgrad.load only reads safetensors files, and {name!r} is a zip archive: a PyTorch pickle "
                "checkpoint written by torch.save. Pickles can run arbitrary code when loaded, so leafgrad never "
                "opens them. " + convert)
    if raw[:1] == b"\x80" and len(raw) > 1 and raw[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return (f"leafgrad.load only reads safetensors files, and {name!r} is a Python pickle (a legacy torch.save "
                "checkpoint). Pickles can run arbitrary code when loaded, so leafgrad never opens them. " + convert)
    if raw[:6] == b"\x93NUMPY":
        return (f"leafgrad.load only reads safetensors files, and {name!r} is a NumPy .npy file: load it with "
                "numpy.load and wrap it with leafgrad.from_numpy.")
    return None


def _check_file(name: str, raw: bytes) -> tuple[dict, int]:
    """Validate the header before handing the bytes to safetensors; returns (header, data start)."""
    plausible = len(raw) >= 9 and raw[8:9] == b"{" and struct.unpack("<Q", raw[:8])[0] <= len(raw) - 8
    other = None if plausible else _not_safetensors(name, raw)
    if other is not None:
        raise RuntimeError(other)
    if len(raw) < 8:
        raise RuntimeError(f"leafgrad.load({name!r}): not a safetensors file, or truncated: it has only {len(raw)} "
                           "bytes, fewer than the 8-byte header length that starts every safetensors file.")
    (n,) = struct.unpack("<Q", raw[:8])
    available = len(raw) - 8
    if n > available:
        if n > 100_000_000 or (available and raw[8:9] != b"{"):
            raise RuntimeError(f"leafgrad.load({name!r}): not a safetensors file (the first 8 bytes should give the "
                               f"length of a JSON header, but they read {n}, and the file has {len(raw)} bytes). "
                               "leafgrad only loads safetensors checkpoints.")
        raise RuntimeError(f"leafgrad.load({name!r}): the file is truncated: its header says the JSON header is {n} "
                           f"bytes long, but only {available} bytes follow the length field.")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        hint = " leafgrad only loads safetensors checkpoints." if raw[8:9] != b"{" else ""
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt safetensors header: it is not valid JSON "
                           f"({exc}).{hint}") from None
    if not isinstance(header, dict):
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt safetensors header: expected a JSON object, got "
                           f"{type(header).__name__}.")

    data_len = available - n
    for key, info in header.items():
        if key == "__metadata__":
            continue
        if not (isinstance(info, dict) and "dtype" in info and "shape" in info and "data_offsets" in info):
            raise RuntimeError(f"leafgrad.load({name!r}): corrupt safetensors header: the entry for tensor {key!r} "
                               "lacks dtype, shape or data_offsets.")
        dt, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        if dt not in _ITEMSIZE:
            raise RuntimeError(f"leafgrad.load({name!r}): tensor {key!r} has dtype {dt}, which leafgrad cannot "
                               "represent.")
        expected = int(np.prod(shape, dtype=np.int64)) * _ITEMSIZE[dt]
        if end - begin != expected or begin < 0:
            raise RuntimeError(f"leafgrad.load({name!r}): corrupt safetensors header: tensor {key!r} of shape "
                               f"{shape} and dtype {dt} needs {expected} bytes, but its byte range is "
                               f"[{begin}, {end}).")
        if end > data_len:
            raise RuntimeError(f"leafgrad.load({name!r}): the file is truncated: tensor {key!r} needs bytes up to "
                               f"{end} of the data section, which has only {data_len} bytes "
                               f"({len(raw)} bytes in the file).")
    return header, 8 + n


def _decode_manually(header: dict, raw: bytes, start: int) -> dict[str, np.ndarray]:
    """Read every tensor straight from the bytes (only for dtypes NumPy lacks, e.g. bfloat16 -> float32)."""
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        buf = raw[start + begin: start + end]
        if info["dtype"] == "BF16":
            # a bfloat16 is the top half of a float32
            arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif _ST_DTYPES[info["dtype"]] is None:
            raise RuntimeError(f"tensor {key!r} has dtype {info['dtype']}, which leafgrad cannot represent")
        else:
            arr = np.frombuffer(buf, dtype=np.dtype(_ST_DTYPES[info["dtype"]]).newbyteorder("<")).copy()
        out[key] = arr.reshape(info["shape"])
    return out


def _to_tensor(arr: np.ndarray, name: str, key: str) -> Tensor:
    if not arr.flags.writeable:
        arr = arr.copy()
    try:
        return from_numpy(arr)
    except TypeError as exc:
        raise RuntimeError(f"leafgrad.load({name!r}): tensor {key!r} has NumPy dtype {arr.dtype}, which leafgrad "
                           f"cannot represent ({exc}).") from None


def _unpack(node: Any, tensors: dict[str, Tensor], arrays: dict[str, np.ndarray], name: str) -> Any:
    if isinstance(node, list):
        return [_unpack(v, tensors, arrays, name) for v in node]
    if not isinstance(node, dict):
        return node
    if "__tensor__" in node:
        key = node["__tensor__"]
        if key not in tensors:
            raise RuntimeError(f"leafgrad.load({name!r}): corrupt leafgrad metadata: it refers to a tensor {key!r} "
                               "that is not in the file.")
        t = tensors[key]
        if node.get("parameter"):
            try:
                from .nn import Parameter
                t = tensors[key] = Parameter(t, requires_grad=bool(node.get("requires_grad", False)))
                return t
            except Exception:  # no leafgrad.nn (yet): a plain tensor will do
                pass
        if node.get("requires_grad") and not t.requires_grad:
            t.requires_grad_(True)
        return t
    if "__ndarray__" in node:
        return arrays[node["__ndarray__"]]
    if "__dtype__" in node:
        return D.to_dtype(node["__dtype__"])
    if "__tuple__" in node:
        return tuple(_unpack(v, tensors, arrays, name) for v in node["__tuple__"])
    if "__dict__" in node:
        items = [(_unpack(k, tensors, arrays, name), _unpack(v, tensors, arrays, name))
                 for k, v in node["__dict__"]]
        kind = node.get("type", "dict")
        return OrderedDict(items) if kind == "OrderedDict" else Counter(dict(items)) if kind == "Counter" \
            else dict(items)
    raise RuntimeError(f"leafgrad.load({name!r}): corrupt leafgrad metadata: unknown entry {node!r}.")


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args) -> Any:
    """Load what :func:`save` wrote, or any safetensors file (as a dict of tensors).

    ``f`` is a path or a readable binary file object. ``map_location``, ``weights_only``
    and ``mmap`` are accepted for compatibility with torch.load: a safetensors file only
    ever holds data, and leafgrad tensors live on the CPU.
    """
    st_np = _safetensors_numpy()
    name = _name_of(f)
    if hasattr(f, "read"):
        raw = f.read()
    else:
        with open(os.fspath(f), "rb") as fh:
            raw = fh.read()
    if isinstance(raw, str):
        raise RuntimeError(f"leafgrad.load({name!r}): the file object was opened in text mode; open it with 'rb'.")

    header, start = _check_file(name, raw)
    needs_manual = any(isinstance(v, dict) and _ST_DTYPES.get(v.get("dtype")) is None
                       for k, v in header.items() if k != "__metadata__")
    try:
        arrays = _decode_manually(header, raw, start) if needs_manual else st_np.load(raw)
    except RuntimeError as exc:
        raise RuntimeError(f"leafgrad.load({name!r}): {exc}") from None
    except Exception as exc:  # SafetensorError and friends
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt safetensors file: {exc}") from None

    order = [k for k in header if k != "__metadata__"]
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict) or _FORMAT_KEY not in metadata:
        # a plain safetensors file (e.g. from safetensors.torch.save_file): a dict of tensors
        return {k: _to_tensor(arrays[k], name, k) for k in order}

    try:
        info = json.loads(metadata[_FORMAT_KEY])
        structure = info["structure"]
    except (json.JSONDecodeError, TypeError, KeyError) as exc:
        raise RuntimeError(f"leafgrad.load({name!r}): corrupt leafgrad metadata in the safetensors header "
                           f"({exc!r}).") from None
    ndarray_keys = set()
    _collect_ndarrays(structure, ndarray_keys)
    tensors = {k: _to_tensor(arrays[k], name, k) for k in order if k not in ndarray_keys}
    return _unpack(structure, tensors, {k: arrays[k] for k in ndarray_keys}, name)


def _collect_ndarrays(node: Any, out: set) -> None:
    if isinstance(node, list):
        for v in node:
            _collect_ndarrays(v, out)
    elif isinstance(node, dict):
        if "__ndarray__" in node:
            out.add(node["__ndarray__"])
        for v in node.values():
            _collect_ndarrays(v, out)

