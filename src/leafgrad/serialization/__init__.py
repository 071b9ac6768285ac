"""leafgrad.save / leafgrad.load, and torch.serialization's safe-globals API.

Formats (all interchangeable with PyTorch 2.13):

* ``save(obj, "model.pt")`` writes torch's own zip checkpoint: a pickle in which each
  tensor is a call of ``torch._utils._rebuild_tensor_v2`` on a storage record, so real
  ``torch.load(path)`` (``weights_only=True``) reads it, dtypes, shapes, strides and
  shared storages included. ``_use_new_zipfile_serialization=False`` writes torch's
  legacy stream format instead.
* ``save(obj, "model.safetensors")`` writes a safetensors file (what torch.load and
  ``safetensors.torch.load_file`` read for that suffix).
* ``load`` reads all three, telling them apart by their first bytes.

The safety rule: by default (``weights_only=True``, as in torch) a pickle is read by
:mod:`._unpickler`, which resolves only an explicit list of names that build data
(tensors, dtypes, containers) and refuses anything else with
``pickle.UnpicklingError("Weights only load failed...")`` before running it. Loading
whole modules or arbitrary objects takes ``weights_only=False``, the user's statement
that the file is trusted (pickle can run any code). :func:`add_safe_globals` and
:class:`safe_globals` widen the list by name, as in torch.

Only the small registry of safe globals is imported with this package; the format code
(zipfile, pickle machinery) loads on the first save or load.
"""
from __future__ import annotations

import os
import warnings
from typing import Any

from ._safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._env_override import resolve_weights_only

__all__ = ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals",
           "save_safetensors", "load_safetensors", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
_SAFETENSORS_SUFFIX = ".safetensors"


def _name_of(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return str(getattr(f, "name", None) or type(f).__name__)


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike))


def _write(f: Any, chunks) -> None:
    """Write to a path or a binary file object (the content is ready before the file is touched)."""
    if _is_path(f):
        with open(os.fspath(f), "wb") as fh:
            chunks(fh)
    else:
        chunks(f)


# ----------------------------------------------------------------------------- save
def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to ``f`` (a path or a writable binary file object) in torch's checkpoint format.

    A path ending in ``.safetensors`` gets a safetensors file instead. ``pickle_module`` is
    accepted for torch's signature; leafgrad always pickles with its own torch-compatible
    pickler. Nothing is written unless the whole object could be serialised.
    """
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'write' attribute, "
                             f"got {type(f).__name__}")
    if _is_path(f) and os.fspath(f).endswith(_SAFETENSORS_SUFFIX):
        save_safetensors(obj, f)
        return
    if not isinstance(pickle_protocol, int) or not 0 <= pickle_protocol <= 5:
        raise ValueError(f"pickle_protocol must be an int from 0 to 5, got {pickle_protocol!r}")
    from . import _pickler, _pt, _zip
    data, storages = _pickler.dumps(obj, pickle_protocol, legacy=not _use_new_zipfile_serialization)
    if _use_new_zipfile_serialization:
        prefix = _zip.archive_prefix(f)
        _write(f, lambda fh: _zip.write(fh, prefix, data, storages, not _disable_byteorder_record))
    else:
        _write(f, lambda fh: _pt.write_legacy(fh, data, storages, pickle_protocol))


def save_safetensors(obj: Any, f: Any) -> None:
    """Save tensors (a state_dict, or nested plain data with tensors) as a safetensors file, whatever the path."""
    from . import _safetensors
    payload = _safetensors.dumps(obj)
    _write(f, lambda fh: fh.write(payload))


# ----------------------------------------------------------------------------- load
def _check_map_location_for_safetensors(map_location: Any) -> None:
    if isinstance(map_location, dict) or (callable(map_location) and not isinstance(map_location, type)):
        raise RuntimeError("Loading a safetensors file with a dict or callable map_location is not supported: "
                           "pass a device string or leafgrad.device instead (leafgrad loads onto the CPU).")
    if map_location is not None:
        from ._storages import resolve_location
        resolve_location("cpu", str(map_location))


def _wo_message(message: str, name: str) -> str:
    if "was not an allowed global" in message:
        return f"Weights only load failed. {message}"
    return (f"Weights only load failed: {name!r} is not a valid weights-only checkpoint: {message}. Nothing from "
            "the file was run. If you trust where the file came from, weights_only=False unpickles it fully "
            "(which can run arbitrary code).")


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Load a checkpoint written by :func:`save` or by torch (zip, legacy or safetensors).

    ``weights_only`` (default True unless a ``pickle_module`` is given, as in torch) reads
    pickles with the restricted unpickler; ``weights_only=False`` trusts the file and
    unpickles anything. ``map_location`` may be a device string, a device, a dict of
    location renames or a callable ``(storage, location)``; leafgrad tensors live on the
    CPU. ``mmap=True`` maps a file path's storages instead of reading them (copy on write).
    """
    weights_only = resolve_weights_only(weights_only, pickle_module)  # argument, default, environment
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified: pass "
                           "weights_only=False to use your pickle_module (only for trusted files).")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", UserWarning, stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    mmap = bool(mmap)
    name = _name_of(f)
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if _is_path(f) and os.fspath(f).endswith(_SAFETENSORS_SUFFIX):
        _check_map_location_for_safetensors(map_location)
        return load_safetensors(f, mmap=mmap)
    if _is_path(f):
        with open(os.fspath(f), "rb") as fh:
            return _load_open(fh, os.fspath(f), name, map_location, weights_only, mmap, pickle_load_args)
    if not hasattr(f, "read"):
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'read' attribute, "
                             f"got {type(f).__name__}")
    import io
    raw = f.read()
    if isinstance(raw, str):
        raise RuntimeError(f"leafgrad.load({name!r}): the file object was opened in text mode; open it with 'rb'.")
    return _load_open(io.BytesIO(raw), None, name, map_location, weights_only, False, pickle_load_args)


def _load_open(fh: Any, path: str | None, name: str, map_location: Any, weights_only: bool, mmap: bool,
               pickle_load_args: dict) -> Any:
    head = fh.read(16)
    fh.seek(0, 2)
    size = fh.tell()
    fh.seek(0)
    if size == 0:
        raise EOFError(f"Ran out of input: {name!r} is empty (0 bytes), so it holds no checkpoint; it was probably "
                       "not written completely.")
    from . import _pt, _safetensors, _zip
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        mapped = _map(path) if mmap else None
        reader = _zip.Reader(fh, name, size)
        try:
            return _explained(weights_only, name, _pt.load_zip, reader, map_location, weights_only, mapped,
                              pickle_load_args)
        finally:
            reader.close()
    if _safetensors.looks_like_safetensors(head):  # e.g. a .pt written by an older leafgrad
        _check_map_location_for_safetensors(map_location)
        return _safetensors.loads(_map(path) if mmap else _read_all(fh, size), name)
    if mmap:
        raise RuntimeError(f"mmap can only be used with files saved with torch.save({name!r}, "
                           "_use_new_zipfile_serialization=True); this one is in the legacy format. Load it "
                           "without mmap, or re-save it in the zip format.")
    raw = fh.read()
    if raw[257:262] == b"ustar":
        raise RuntimeError(f"leafgrad.load({name!r}): this is a checkpoint in torch's legacy .tar format (from "
                           "torch before 0.4), which leafgrad does not read; re-save it with a current torch.")
    return _explained(weights_only, name, _pt.load_legacy, raw, name, map_location, weights_only, pickle_load_args)


def _explained(weights_only: bool, name: str, fn, *args) -> Any:
    """Run a pickle loader; a weights-only refusal gets torch's opening words and the way out."""
    import pickle
    try:
        return fn(*args)
    except pickle.UnpicklingError as exc:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(_wo_message(str(exc), name)) from None


def _read_all(fh: Any, size: int) -> bytearray:
    buf = bytearray(size)
    view, got = memoryview(buf), 0
    while got < size:
        n = fh.readinto(view[got:])
        if not n:
            break
        got += n
    return buf[:got] if got < size else buf


def _map(path: str):
    import numpy as np
    # copy-on-write: tensors may be modified, the file never is; a plain ndarray view (which keeps the
    # mapping alive) so that leafgrad's ops see an ordinary array
    return np.memmap(path, dtype=np.uint8, mode="c").view(np.ndarray)


def load_safetensors(f: Any, mmap: bool = False) -> Any:
    """Load a safetensors file (path or binary file object), whatever its name: a dict of tensors, or what
    :func:`save_safetensors` stored."""
    from . import _safetensors
    name = _name_of(f)
    if _is_path(f):
        if mmap:
            if os.path.getsize(os.fspath(f)) == 0:
                return _safetensors.loads(b"", name)
            return _safetensors.loads(_map(os.fspath(f)), name)
        with open(os.fspath(f), "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(0)
            return _safetensors.loads(_read_all(fh, size), name)
    raw = f.read()
    if isinstance(raw, str):
        raise RuntimeError(f"leafgrad.load({name!r}): the file object was opened in text mode; open it with 'rb'.")
    return _safetensors.loads(bytearray(raw), name)
