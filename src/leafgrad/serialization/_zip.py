"""torch's zip checkpoint container: writing one, and reading one defensively.

``torch.save`` writes an uncompressed zip whose entries all sit under one folder (the
file's stem, or ``archive``): ``data.pkl`` (the pickle), ``data/<key>`` (one record of
raw little-endian bytes per storage, each starting at a multiple of 64 bytes so it can
be memory-mapped), ``byteorder``, ``version`` and two small format markers.

Reading checks what a hostile file could get wrong before acting on it: every entry
must be stored uncompressed (torch never compresses, and a compressed entry could expand
far beyond the file's size), records must lie inside the file and have exactly the size
their storage declares, and the CRC of every record read is verified.
"""
from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib
from typing import Any

import numpy as np

_ALIGN = 64
_LOCAL_HEADER = 30


def zip_error(name: str, detail: str) -> RuntimeError:
    return RuntimeError(f"PytorchStreamReader failed reading zip archive {name!r}: {detail}. The file is truncated "
                        "or corrupt (or is not a torch.save checkpoint).")


def archive_prefix(f: Any) -> str:
    """torch's folder name inside the zip: the file's stem for a path, ``archive`` for a file object."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem)
        if stem:
            return stem
    return "archive"


def write(fh: Any, prefix: str, pickle_bytes: bytes, storages: list, byteorder: bool = True) -> None:
    """Write a torch checkpoint zip to the binary file object ``fh``."""
    records: list[tuple[str, Any]] = [("data.pkl", pickle_bytes), (".format_version", b"1"),
                                      (".storage_alignment", str(_ALIGN).encode())]
    if byteorder:
        records.append(("byteorder", b"little"))
    records += [(f"data/{s.key}", s.data()) for s in storages]
    records.append(("version", b"3\n"))
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, data in records:
            full = f"{prefix}/{name}"
            info = zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o600 << 16
            size = len(data) if isinstance(data, bytes) else data.nbytes
            # pad the local header with an extra field so the record's bytes start 64-byte aligned
            head = zf.start_dir + _LOCAL_HEADER + len(full.encode()) + 4 + (20 if size > zipfile.ZIP64_LIMIT else 0)
            pad = (-head) % _ALIGN
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            zf.writestr(info, data)


class Reader:
    """The records of a torch zip checkpoint; every failure is a RuntimeError naming the file."""

    def __init__(self, fh: Any, name: str, size: int) -> None:
        self.name, self.size = name, size
        try:
            self.zf = zipfile.ZipFile(fh, "r")
            infos = self.zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, struct.error, IndexError,
                KeyError, OverflowError, NotImplementedError, UnicodeDecodeError) as exc:
            raise zip_error(name, f"failed finding central directory ({exc})") from None
        if not infos:
            raise zip_error(name, "the archive is empty")
        self.prefix = infos[0].filename.split("/", 1)[0]
        self.infos = {i.filename: i for i in infos}
        for info in infos:
            if info.compress_type != zipfile.ZIP_STORED:
                raise zip_error(name, f"entry {info.filename!r} is compressed; torch checkpoints store every "
                                      "record uncompressed")
            if info.file_size != info.compress_size or info.header_offset + info.file_size > size:
                raise zip_error(name, f"entry {info.filename!r} claims {info.file_size} bytes at offset "
                                      f"{info.header_offset}, beyond the file's {size} bytes")

    def has(self, record: str) -> bool:
        return f"{self.prefix}/{record}" in self.infos

    def is_torchscript(self) -> bool:
        return self.has("constants.pkl") or any(n.startswith(f"{self.prefix}/code/") for n in self.infos)

    def info(self, record: str, nbytes: int | None = None) -> zipfile.ZipInfo:
        info = self.infos.get(f"{self.prefix}/{record}")
        if info is None:
            raise zip_error(self.name, f"failed finding file {self.prefix}/{record}")
        if nbytes is not None and info.file_size != nbytes:
            raise RuntimeError(f"leafgrad.load({self.name!r}): the record {record!r} holds {info.file_size} bytes, "
                               f"but its storage needs exactly {nbytes}; the file is corrupt.")
        return info

    def read(self, record: str, nbytes: int | None = None) -> bytes:
        info = self.info(record, nbytes)
        try:
            return self.zf.read(info)
        except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, struct.error, OverflowError) as exc:
            raise zip_error(self.name, f"cannot read {info.filename} ({exc})") from None

    def read_array(self, record: str, nbytes: int) -> np.ndarray:
        """A record as a writable 1-d uint8 array of exactly ``nbytes`` bytes."""
        return np.frombuffer(bytearray(self.read(record, nbytes)), dtype=np.uint8)

    def data_offset(self, record: str, nbytes: int, mapped: np.ndarray) -> int:
        """Where a record's bytes start in the file (for memory-mapping), checked against the mapping."""
        info = self.info(record, nbytes)
        head = bytes(mapped[info.header_offset:info.header_offset + _LOCAL_HEADER])
        if len(head) < _LOCAL_HEADER or head[:4] != b"PK\x03\x04":
            raise zip_error(self.name, f"bad local header for {info.filename}")
        n, m = struct.unpack("<HH", head[26:30])
        start = info.header_offset + _LOCAL_HEADER + n + m
        if start + nbytes > mapped.size:
            raise zip_error(self.name, f"{info.filename} runs past the end of the file")
        return start

    def close(self) -> None:
        self.zf.close()
