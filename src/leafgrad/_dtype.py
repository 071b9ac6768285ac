"""dtype objects with torch's names, and torch's type-promotion rules.

NumPy's own promotion differs from torch's in the cases learners hit most (an
int tensor divided by an int tensor, a float32 tensor times a 0-dim float64
tensor, an int tensor plus a Python float), so every binary op asks
:func:`result_type` first and casts the arrays itself.
"""
from __future__ import annotations

import numpy as np


__all__ = [
    "dtype", "float16", "half", "bfloat16", "float32", "float", "float64", "double",
    "complex64", "cfloat", "complex128", "cdouble", "uint8", "int8", "int16", "short",
    "int32", "int", "int64", "long", "uint16", "uint32", "uint64", "bool", "get_default_dtype", "set_default_dtype",
    "result_type", "promote_types", "can_cast", "finfo", "iinfo",
]


class dtype:
    """A torch-named wrapper around a NumPy dtype; compared by identity like torch's."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_kind")

    def __init__(self, name: str, np_dtype, kind: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self._kind = kind  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = kind == 2
        self.is_complex = kind == 3
        self.is_signed = kind != 0 and self.np.kind != "u"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> "dtype":
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)


float16 = half = dtype("float16", np.float16, 2)


class _BFloat16(dtype):
    """``bfloat16``: NumPy has none, ml_dtypes' is stored (see _bfloat16.py). Its NumPy dtype is
    looked up on first use, since importing ml_dtypes costs about a second. Without ml_dtypes (a
    dependency) the name still exists, stored as float32 and reported as float32."""

    __slots__ = ("_np",)

    def __init__(self) -> None:
        self.name, self._kind, self._np = "bfloat16", 2, None
        self.is_floating_point, self.is_complex, self.is_signed, self.itemsize = True, False, True, 2

    @property
    def np(self):  # type: ignore[override]
        if self._np is None:
            from ._bfloat16 import load
            self._np = load()
            if self._np != np.float32:
                _FROM_NP[self._np] = self
        return self._np


bfloat16 = _BFloat16()
float32 = float = dtype("float32", np.float32, 2)  # noqa: A001 - torch's name
float64 = double = dtype("float64", np.float64, 2)
complex64 = cfloat = dtype("complex64", np.complex64, 3)
complex128 = cdouble = dtype("complex128", np.complex128, 3)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = short = dtype("int16", np.int16, 1)
int32 = int = dtype("int32", np.int32, 1)  # noqa: A001
int64 = long = dtype("int64", np.int64, 1)
bool = dtype("bool", np.bool_, 0)  # noqa: A001
# torch's "shell" unsigned dtypes: storage, casts and a few kernels only, and no promotion with other
# integer dtypes (see promote_types); ops torch has no kernel for refuse them (see _unsigned_array.py)
uint16 = dtype("uint16", np.uint16, 1)
uint32 = dtype("uint32", np.uint32, 1)
uint64 = dtype("uint64", np.uint64, 1)
_UNSIGNED_WIDE = frozenset((uint16, uint32, uint64))

_ALL = (float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool,
        uint16, uint32, uint64)
_FROM_NP = {d.np: d for d in _ALL}
_NAMES = {d.name: d for d in _ALL + (bfloat16,)}

#: torch's scalar-type names, the words its messages use for dtypes ("Float" for float32)
SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                     "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                     "complex128": "ComplexDouble", "bfloat16": "BFloat16", "uint16": "UInt16",
                     "uint32": "UInt32", "uint64": "UInt64"}


#: the C++ type names some of torch's messages use for dtypes ("mask with dtype float", "dtype 'double'")
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
             "bfloat16": "c10::BFloat16", "uint16": "unsigned short",
             "uint32": "unsigned int", "uint64": "unsigned long"}


def scalar_type_name(dt) -> str:
    """torch's word for a dtype (leafgrad's or NumPy's) in messages: "Float", "Long", ...; others by name."""
    return SCALAR_TYPE_NAMES.get(dt.name, dt.name)


def _by_name(name: str) -> dtype:
    return _NAMES[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """Map a NumPy dtype to leafgrad's; unsupported ones raise TypeError like torch.from_numpy."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
            "uint16, uint8, and bool."
        ) from None


def to_dtype(obj) -> dtype:
    """Accept a leafgrad dtype, a NumPy dtype or a Python type (as torch accepts float/int/bool)."""
    if obj.__class__ is dtype or obj is bfloat16:  # (bfloat16 is the one subclass: see _BFloat16)
        return obj
    import builtins
    if obj is builtins.float:
        return float64
    if obj is builtins.int:
        return int64
    if obj is builtins.bool:
        return bool
    if obj is builtins.complex:
        return complex128
    return from_numpy_dtype(obj)


# ----------------------------------------------------------------------------- defaults
_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """torch.set_default_dtype: a floating torch dtype (float16, bfloat16, float32, float64) only.

    Python's ``float`` is refused as torch refuses it: only a dtype object names a width."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type "
                        f"(got {d!r}); pass torch.float32 or torch.float64")
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}: "
                        "pass torch.float32 or torch.float64")
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


# ----------------------------------------------------------------------------- promotion
_ORDER = {bool: 0, uint8: 1, int8: 2, int16: 3, int32: 4, int64: 5, float16: 6, bfloat16: 6,
          float32: 7, float64: 8, complex64: 9, complex128: 10}


def _promote_unsigned_wide(a: dtype, b: dtype) -> dtype:
    """torch promotes uint16/32/64 only with themselves and with real floating dtypes (which win)."""
    for fl, other in ((a, b), (b, a)):
        if fl._kind == 2 and other in _UNSIGNED_WIDE:
            return fl
    raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                       f"{scalar_type_name(a)} and {scalar_type_name(b)}: cast one operand first, e.g. "
                       f"x.to(torch.int64)")


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both fit in (uint8 + int8 -> int16 as torch)."""
    if a is b:
        return a
    if a in _UNSIGNED_WIDE or b in _UNSIGNED_WIDE:
        return _promote_unsigned_wide(a, b)
    if {a, b} == {uint8, int8}:
        return int16
    if {a, b} == {float64, complex64}:
        return complex128
    if {a, b} == {float16, bfloat16}:  # (neither holds the other: torch meets them in float32)
        return float32
    hi, lo = (a, b) if _ORDER[a] >= _ORDER[b] else (b, a)
    if hi is uint8 and lo._kind == 1:
        return lo
    return hi


def _scalar_kind(x) -> int:
    import builtins
    t = type(x)
    if t is builtins.bool or t is np.bool_:
        return 0
    if t is builtins.int or isinstance(x, np.integer):
        return 1
    if t is builtins.float or isinstance(x, np.floating):
        return 2
    return 3


def _kind_default(kind: int) -> dtype:
    return (bool, int64, _default[0], default_complex())[kind]


_TENSOR_TYPE: list = [None]  # filled by _tensor.py; avoids an import per call


def result_type(*operands) -> dtype:
    """torch.result_type over tensors and Python scalars.

    Operands rank by priority: tensors with dimensions, then 0-dim tensors, then
    Python scalars. A lower-priority operand only matters when it belongs to a
    higher category (bool < int < float < complex) than everything above it.
    """
    Tensor = _TENSOR_TYPE[0]
    dim_t = zero_t = scal = None
    scal_kind = -1
    for x in operands:
        if isinstance(x, Tensor):
            d = x.dtype
            if x._data.ndim:
                dim_t = d if dim_t is None else promote_types(dim_t, d)
            else:
                zero_t = d if zero_t is None else promote_types(zero_t, d)
        else:
            k = _scalar_kind(x)
            scal_kind = k if k > scal_kind else scal_kind
    if scal_kind >= 0:
        scal = _kind_default(scal_kind)
    result = None
    for i, group in enumerate((dim_t, zero_t, scal)):
        if group is None:
            continue
        if result is None:
            result = group
        elif group._kind > result._kind:
            # float tensor with a complex Python scalar keeps the tensor's width
            result = result.to_complex() if i == 2 and group._kind == 3 and result._kind == 2 else group
    return result if result is not None else _default[0]


def can_cast(from_: dtype, to: dtype) -> bool:
    """torch.can_cast: same-kind casting (no float -> int, no to-bool from non-bool)."""
    return from_._kind <= to._kind


def finfo(d: dtype | None = None):
    d = d or _default[0]
    if d is bfloat16 and d.np != np.float32:
        import ml_dtypes
        return ml_dtypes.finfo(d.np)
    return np.finfo(d.np)


def iinfo(d: dtype):
    return np.iinfo(d.np)
