"""The dtype tables every checkpoint format shares, and decoders for dtypes leafgrad lacks.

Three vocabularies name the same element types: torch's dtype names (``torch.float32``,
written as pickle globals), torch's legacy storage classes (``torch.FloatStorage``) and
safetensors' codes (``F32``). Each maps here to a *file dtype*: how the bytes are laid out
(a little-endian NumPy dtype) and which leafgrad dtype the values arrive as.

bfloat16 is stored as ml_dtypes' bfloat16 (``_bfloat16.py``), byte for byte as in the file.
uint16/32/64 load as leafgrad's dtypes of those names (and save as torch's, which also loads them
as such). leafgrad has no float8 or complex32 storage (its dtype label comes from the NumPy
array), so those are decoded to the smallest leafgrad dtype that holds every value exactly:
float8 and complex32 widen to float32/complex64 (and bfloat16 to float32 without ml_dtypes).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import _bfloat16 as _bf


class FileDtype:
    """One element type as stored in a file: its names, byte layout and leafgrad dtype."""

    __slots__ = ("torch_name", "storage_name", "st_code", "itemsize", "raw", "target", "direct")

    def __init__(self, torch_name: str, storage_name: str | None, st_code: str | None, raw: str,
                 target: D.dtype | None) -> None:
        self.torch_name = torch_name      # "float32": the name after ``torch.``
        self.storage_name = storage_name  # "FloatStorage" (legacy typed storage class), or None
        self.st_code = st_code            # "F32" (safetensors), or None
        self.raw = np.dtype(raw)          # how one element is laid out in the file (little-endian)
        self.itemsize = self.raw.itemsize
        self.target = target              # the leafgrad dtype the values arrive as (None: refused)
        # True when the file's bytes are already the leafgrad array's bytes (no decoding needed)
        self.direct = target is not None and self.raw.isnative and self.raw == target.np

    def __repr__(self) -> str:
        return f"torch.{self.torch_name}"


class _BFloat16File(FileDtype):
    """bfloat16's entry. Its layout is ml_dtypes' bfloat16, looked up the first time a bfloat16
    tensor is read or written (importing ml_dtypes costs about a second: see _bfloat16.py);
    without ml_dtypes the raw 16-bit words are read and widened to float32."""

    __slots__ = ()

    def __init__(self) -> None:
        self.torch_name, self.storage_name, self.st_code, self.itemsize = "bfloat16", "BFloat16Storage", "BF16", 2
        self.target = D.bfloat16 if _bf.available() else D.float32
        self.direct = False

    @property
    def raw(self):  # type: ignore[override]
        bf = D.bfloat16.np  # (float32 where ml_dtypes is missing: then the raw words are read)
        return bf if bf != np.float32 else np.dtype("<u2")


_TABLE = [
    FileDtype("float32", "FloatStorage", "F32", "<f4", D.float32),
    FileDtype("float64", "DoubleStorage", "F64", "<f8", D.float64),
    FileDtype("float16", "HalfStorage", "F16", "<f2", D.float16),
    # bfloat16: ml_dtypes' (little-endian, 2 bytes: a file's bytes are the array's); without it, float32
    _BFloat16File(),
    FileDtype("complex32", "ComplexHalfStorage", None, "<u4", D.complex64),
    FileDtype("complex64", "ComplexFloatStorage", "C64", "<c8", D.complex64),
    FileDtype("complex128", "ComplexDoubleStorage", "C128", "<c16", D.complex128),
    FileDtype("uint8", "ByteStorage", "U8", "u1", D.uint8),
    FileDtype("int8", "CharStorage", "I8", "i1", D.int8),
    FileDtype("int16", "ShortStorage", "I16", "<i2", D.int16),
    FileDtype("int32", "IntStorage", "I32", "<i4", D.int32),
    FileDtype("int64", "LongStorage", "I64", "<i8", D.int64),
    FileDtype("bool", "BoolStorage", "BOOL", "u1", D.bool),
    FileDtype("uint16", None, "U16", "<u2", D.uint16),
    FileDtype("uint32", None, "U32", "<u4", D.uint32),
    FileDtype("uint64", None, "U64", "<u8", D.uint64),
    FileDtype("float8_e4m3fn", None, "F8_E4M3", "u1", D.float32),
    FileDtype("float8_e5m2", None, "F8_E5M2", "u1", D.float32),
    FileDtype("float8_e4m3fnuz", None, None, "u1", D.float32),
    FileDtype("float8_e5m2fnuz", None, None, "u1", D.float32),
    FileDtype("float8_e8m0fnu", None, "F8_E8M0", "u1", D.float32),
]
#: torch dtype name -> FileDtype
BY_TORCH_NAME = {d.torch_name: d for d in _TABLE}
#: legacy storage class name ("FloatStorage") -> FileDtype
BY_STORAGE_NAME = {d.storage_name: d for d in _TABLE if d.storage_name}
#: safetensors code ("F32") -> FileDtype
BY_ST_CODE = {d.st_code: d for d in _TABLE if d.st_code}
#: the byte view torch uses for an untyped storage
UNTYPED = FileDtype("uint8", "UntypedStorage", None, "u1", D.uint8)
#: leafgrad dtype -> the FileDtype it is saved as (always its own type: nothing is lost on save)
FOR_SAVING = {BY_TORCH_NAME[n].target: BY_TORCH_NAME[n] for n in (
    "float32", "float64", "float16", "complex64", "complex128", "uint8", "int8", "int16", "int32", "int64", "bool",
    "uint16", "uint32", "uint64")}
if _bf.available():
    FOR_SAVING[D.bfloat16] = BY_TORCH_NAME["bfloat16"]



def _float8_table(exp_bits: int, man_bits: int, bias: int, kind: str) -> np.ndarray:
    """The 256 float32 values of a float8 format (kind: "ieee", "fn" (no inf) or "fnuz" (no -0, one NaN))."""
    out = np.empty(256, dtype=np.float32)
    top = (1 << exp_bits) - 1
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e, m = (b >> man_bits) & top, b & ((1 << man_bits) - 1)
        if e == 0:
            v = m / (1 << man_bits) * 2.0 ** (1 - bias)
        else:
            v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        if kind == "ieee" and e == top:
            v = float("inf") if m == 0 else float("nan")
        elif kind == "fn" and e == top and m == (1 << man_bits) - 1:
            v = float("nan")
        out[b] = sign * v
    if kind == "fnuz":
        out[0x80] = np.nan
    return out


_LUTS: dict[str, np.ndarray] = {}


def _lut(name: str) -> np.ndarray:
    if name not in _LUTS:
        if name == "float8_e8m0fnu":  # exponent only: 2**(e - 127); 0xFF is NaN
            lut = np.append(np.exp2(np.arange(255, dtype=np.float64) - 127).astype(np.float32), np.float32("nan"))
        else:
            lut = {"float8_e4m3fn": lambda: _float8_table(4, 3, 7, "fn"),
                   "float8_e5m2": lambda: _float8_table(5, 2, 15, "ieee"),
                   "float8_e4m3fnuz": lambda: _float8_table(4, 3, 8, "fnuz"),
                   "float8_e5m2fnuz": lambda: _float8_table(5, 2, 16, "fnuz")}[name]()
        _LUTS[name] = lut
    return _LUTS[name]


def _half_to_float(bits: np.ndarray) -> np.ndarray:
    return bits.astype("<u2").view("<f2").astype(np.float32)


def decode(raw: np.ndarray, fd: FileDtype, what: str) -> np.ndarray:
    """Turn a 1-d array of ``fd.raw`` elements into a writable array of ``fd.target``'s NumPy dtype.

    ``what`` names the tensor (kept for callers' messages; no stored dtype is refused here today).
    """
    name = fd.torch_name
    if name == "bfloat16":
        if _bf.BF16 is not None:  # (reading ``fd.raw`` loaded it, when ml_dtypes is there)
            return _bf.as_bf16(raw.astype(_bf.BF16))  # (a byte-swapped or read-only copy made native and writable)
        return (raw.astype(np.uint32) << 16).view(np.float32)  # a bfloat16 is the top half of a float32
    if name == "complex32":  # two float16 halves: real in the low 16 bits, imaginary in the high
        out = np.empty(raw.shape, dtype=np.complex64)
        out.real = _half_to_float(raw & 0xFFFF)
        out.imag = _half_to_float(raw >> 16)
        return out
    if name.startswith("float8"):
        return _lut(name)[raw]
    return raw.astype(fd.target.np)  # native byte order, a fresh writable copy
