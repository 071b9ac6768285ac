"""What the torch names in a checkpoint's pickle mean in leafgrad: the built-in allow-list.

A ``torch.save`` pickle builds each tensor by calling ``torch._utils._rebuild_tensor_v2``
(or ``_v3`` for dtypes without a legacy storage class) on a *storage* (a persistent id
naming a byte record), an element offset, a size and a stride; parameters wrap that in
``_rebuild_parameter``. Here each of those names maps to a leafgrad function that checks
its arguments and builds a leafgrad Tensor viewing the loaded storage, so tensors that
shared a storage in the file share memory after loading.

:data:`DEFAULT_GLOBALS` is the complete list of names a weights-only load resolves
without the user's say-so. Everything in it only builds data: containers, numbers,
dtypes, sizes, devices and tensors.
"""
from __future__ import annotations

import codecs
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

from .. import _dtype as D
from .._backend import device as _device
from .._lowp import keep_lowp
from .._unsigned_array import keep_shell
from .._tensor import Size, Tensor
from . import _dtypes as FD
from ._storages import ForeignDtype, StorageRef, StorageType, bad as _bad, short_repr

_MAX_DIMS = 64  # NumPy's limit; torch's is similar in practice
_MAX_EXTENT = 1 << 48  # no real size or stride comes near; bigger ones would overflow NumPy's byte strides


# ----------------------------------------------------------------------------- tensors
def _ints(value: Any, what: str, field: str) -> tuple:
    if not isinstance(value, tuple) or len(value) > _MAX_DIMS or \
            not all(type(v) is int and 0 <= v < _MAX_EXTENT for v in value):
        raise _bad(f"corrupt checkpoint: {what} has an invalid {field} {short_repr(value)} (expected a tuple of at most "
                   f"{_MAX_DIMS} non-negative ints below 2**48).")
    return value




def _view(storage: Any, offset: Any, size: Any, stride: Any, fd: FD.FileDtype | None, what: str) -> np.ndarray:
    if not isinstance(storage, StorageRef):
        raise _bad(f"corrupt checkpoint: {what} is built on {type(storage).__name__}, not a storage.")
    fd = fd or storage.fd
    if fd.target is None:
        raise RuntimeError(f"{what} has dtype {fd!r}, which leafgrad cannot represent.")
    size, stride = _ints(tuple(size) if isinstance(size, Size) else size, what, "size"), _ints(stride, what, "stride")
    if len(size) != len(stride) or type(offset) is not int or offset < 0:
        raise _bad(f"corrupt checkpoint: {what} has size {size}, stride {stride} and offset {short_repr(offset)}, which "
                   "do not describe a tensor (size and stride must have the same length, offset must be >= 0).")
    if any(n == 0 for n in size):  # no element is read: keep the saved strides on an empty array
        empty = np.empty(0, dtype=fd.target.np)
        return np.lib.stride_tricks.as_strided(empty, shape=size, strides=tuple(s * empty.itemsize for s in stride))
    elems = storage.as_elements(fd, what)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride))
    if last >= elems.size:
        raise _bad(f"{what}: size {list(size)}, stride {list(stride)} and offset {offset} reach element {last} of "
                   f"its storage, which has only {elems.size} {fd!r} elements; the file is corrupt.")
    item = elems.itemsize
    return np.lib.stride_tricks.as_strided(elems[offset:], shape=size, strides=tuple(s * item for s in stride))


def _finish(arr: np.ndarray, requires_grad: Any, what: str) -> Tensor:
    if type(requires_grad) is not bool:
        raise _bad(f"corrupt checkpoint: {what} has requires_grad={short_repr(requires_grad)}, not a bool.")
    t = Tensor._make(keep_shell(keep_lowp(arr)))  # (float16, bfloat16, uint16/32/64: array types of their own)
    if requires_grad:
        if arr.dtype.kind not in "fcV":
            raise _bad(f"corrupt checkpoint: {what} of dtype {t.dtype} is marked requires_grad, but only floating "
                       "point and complex tensors can require gradients.")
        t.requires_grad_(True)
    return t


def _apply_metadata(arr: np.ndarray, metadata: Any, what: str, storage: StorageRef) -> np.ndarray:
    """torch's lazy conjugate/negative bits, which leafgrad has not: the values are made real (a copy)."""
    if not metadata:
        return arr
    if not isinstance(metadata, dict) or not set(metadata) <= {"conj", "neg"} or \
            not all(type(v) is bool for v in metadata.values()):
        raise _bad(f"corrupt checkpoint: {what} carries tensor metadata {short_repr(metadata)}; leafgrad knows only "
                   "torch's 'conj' and 'neg' flags.")
    conj, neg = metadata.get("conj", False), metadata.get("neg", False)
    out = np.empty_like(arr)

    def fill() -> None:
        vals = np.conj(arr) if conj else arr
        np.copyto(out, np.negative(vals) if neg else vals)
    if storage.deferred:
        storage.later(fill)
    else:
        fill()
    return out


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                      metadata=None) -> Tensor:
    """torch._utils._rebuild_tensor_v2: a tensor viewing a typed storage."""
    arr = _apply_metadata(_view(storage, storage_offset, size, stride, None, "a tensor"), metadata, "a tensor",
                          storage)
    return _finish(arr, requires_grad, "a tensor")


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                      metadata=None) -> Tensor:
    """torch._utils._rebuild_tensor_v3: a tensor viewing an untyped (byte) storage as ``dtype``."""
    if isinstance(dtype, ForeignDtype):
        fd = dtype.fd
        if fd is None:
            raise RuntimeError(f"a tensor in this checkpoint has dtype torch.{dtype.name}, which leafgrad cannot "
                               "represent.")
    elif isinstance(dtype, D.dtype):
        fd = FD.BY_TORCH_NAME[dtype.name]
    else:
        raise _bad(f"corrupt checkpoint: a tensor's dtype is {short_repr(dtype)}, not a dtype.")
    what = f"a {fd!r} tensor"
    arr = _apply_metadata(_view(storage, storage_offset, size, stride, fd, what), metadata, what, storage)
    return _finish(arr, requires_grad, what)


def rebuild_tensor(storage, storage_offset, size, stride) -> Tensor:
    """torch._utils._rebuild_tensor (checkpoints from old torch versions)."""
    return rebuild_tensor_v2(storage, storage_offset, size, stride)


def _parameter_class():
    from ..nn import Parameter  # on first need: loading plain tensors never imports nn
    return Parameter


def rebuild_parameter(data, requires_grad, backward_hooks=None):
    """torch._utils._rebuild_parameter: a leafgrad nn.Parameter around a rebuilt tensor."""
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise _bad("corrupt checkpoint: a Parameter must wrap a tensor and give requires_grad as a bool.")
    return _parameter_class()(data, requires_grad)


def set_state(obj: Tensor, state: Any) -> Tensor:
    """A tensor's Python attributes from a checkpoint; names the Tensor class itself defines are refused."""
    if state is None:
        return obj
    if not isinstance(state, dict) or not all(type(k) is str for k in state):
        raise _bad("corrupt checkpoint: a tensor's extra state must be a dict with string keys.")
    clash = [k for k in state if hasattr(type(obj), k) or k.startswith("__")]
    if clash:
        raise _bad(f"corrupt checkpoint: a tensor's extra state would overwrite its own attribute {clash[0]!r}.")
    obj.__dict__.update(state)
    return obj


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state: a Parameter with Python attributes."""
    return set_state(rebuild_parameter(data, requires_grad), state)


class TensorClass:
    """``torch.Tensor`` / ``torch.nn.parameter.Parameter`` as a weights-only pickle may name them."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<class {self.name}>"


TENSOR, PARAMETER = TensorClass("torch.Tensor"), TensorClass("torch.nn.parameter.Parameter")


def rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: a tensor (or Parameter) with Python attributes."""
    if func not in _REBUILDERS or not isinstance(args, tuple):
        raise _bad("corrupt checkpoint: _rebuild_from_type_v2 must call a tensor rebuild function.")
    t = func(*args)
    if new_type is PARAMETER and not isinstance(t, _parameter_class()):
        t = _parameter_class()(t, t.requires_grad)
    elif new_type is not TENSOR and new_type is not PARAMETER and new_type is not type(t):
        raise _bad(f"leafgrad cannot rebuild a tensor of class {short_repr(new_type)}; only torch.Tensor and "
                   "torch.nn.Parameter load as weights.")
    return set_state(t, state)


def _new_parameter(data=None, requires_grad=True):
    """NEWOBJ on torch.nn.Parameter (how some checkpoints pickle parameters)."""
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise _bad("corrupt checkpoint: Parameter(data, requires_grad) needs a tensor and a bool.")
    return _parameter_class()(data, requires_grad)


def _unsupported(kind: str) -> Callable:
    def refuse(*args, **kwargs):
        raise RuntimeError(f"this checkpoint holds {kind}, which leafgrad cannot represent (it has dense CPU "
                           "tensors only). Convert them in PyTorch first, e.g. t.to_dense() or t.dequantize().")
    refuse.__name__ = f"refuse_{kind.replace(' ', '_')}"
    return refuse


# ----------------------------------------------------------------------------- plain constructors
def torch_size(dims=()) -> Size:
    if not isinstance(dims, (tuple, list)) or not all(type(d) is int for d in dims):
        raise _bad("corrupt checkpoint: torch.Size needs a sequence of ints.")
    return Size(dims)


def torch_device(kind, index=None) -> _device:
    if not isinstance(kind, str) or not (index is None or type(index) is int):
        raise _bad("corrupt checkpoint: torch.device needs a string and an optional int index.")
    return _device(kind, index)


_ENCODINGS = {"latin1", "latin-1", "utf-8", "utf8", "ascii"}


def codecs_encode(text, encoding="utf-8", errors="strict") -> bytes:
    """_codecs.encode as protocol-2 pickles use it for bytes (text codecs only)."""
    if not isinstance(text, str) or encoding not in _ENCODINGS or errors != "strict":
        raise _bad("corrupt checkpoint: _codecs.encode may only encode a string with a text codec.")
    return codecs.encode(text, encoding)


def safe_bytearray(data=b"", encoding=None):
    if isinstance(data, (bytes, bytearray)) and encoding is None:
        return bytearray(data)
    if isinstance(data, str) and encoding in _ENCODINGS:
        return bytearray(data, encoding)
    raise _bad("corrupt checkpoint: bytearray() may only copy bytes or encode a string (never allocate by size).")


def safe_complex(real=0.0, imag=0.0) -> complex:
    if not all(type(x) in (int, float) for x in (real, imag)) and not (isinstance(real, str) and imag == 0.0):
        raise _bad("corrupt checkpoint: complex() needs numbers (or one string).")
    return complex(real, imag) if not isinstance(real, str) else complex(real)


def _get_layout(name):
    if name != "torch.strided":
        raise RuntimeError(f"leafgrad has only strided tensors; this checkpoint uses the layout {short_repr(name)}.")
    return "torch.strided"


# ----------------------------------------------------------------------------- the allow-list
_REBUILDERS = {rebuild_tensor_v2, rebuild_tensor_v3, rebuild_tensor, rebuild_parameter, rebuild_parameter_with_state}


def _build_defaults() -> dict[str, Any]:
    table: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.bytearray": safe_bytearray,
        "builtins.complex": safe_complex,
        "_codecs.encode": codecs_encode,
        "torch.Size": torch_size,
        "torch.device": torch_device,
        "torch.Tensor": TENSOR,
        "torch.nn.parameter.Parameter": PARAMETER,
        "torch.serialization._get_layout": _get_layout,
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
    }
    for kind, names in (("sparse tensors", ("_rebuild_sparse_tensor", "_rebuild_sparse_csr_tensor")),
                        ("quantized tensors", ("_rebuild_qtensor",)),
                        ("nested tensors", ("_rebuild_nested_tensor",)),
                        ("meta or tensor-subclass tensors", ("_rebuild_meta_tensor_no_storage",
                                                             "_rebuild_wrapper_subclass")),
                        ("device tensors", ("_rebuild_device_tensor_from_numpy",
                                            "_rebuild_device_tensor_from_cpu_tensor"))):
        for n in names:
            table[f"torch._utils.{n}"] = _unsupported(kind)
    for name in D._NAMES:
        table[f"torch.{name}"] = D._NAMES[name]
    for name in FD.BY_TORCH_NAME:
        table.setdefault(f"torch.{name}", ForeignDtype(name))
    for name in ("qint8", "quint8", "qint32", "quint4x2", "quint2x4", "complex32", "float4_e2m1fn_x2"):
        table.setdefault(f"torch.{name}", ForeignDtype(name))
    for name, fd in FD.BY_STORAGE_NAME.items():
        table[f"torch.{name}"] = StorageType(fd, name)
        table[f"torch.cuda.{name}"] = StorageType(fd, f"cuda.{name}")
    table["torch.storage.UntypedStorage"] = table["torch.UntypedStorage"] = StorageType(FD.UNTYPED,
                                                                                           "UntypedStorage")
    return table


#: "module.qualname" (as written in checkpoints) -> what the weights-only loader gives for it
DEFAULT_GLOBALS: dict[str, Any] = _build_defaults()
#: the entries a pickle may call (REDUCE); everything else in the table is a plain value
CALLABLE_IDS = {id(v) for v in DEFAULT_GLOBALS.values() if callable(v) and not isinstance(v, type)}
#: classes whose instances a pickle may create and fill (NEWOBJ/BUILD/SETITEMS)
CLASSES = (OrderedDict, Counter, set, frozenset)
CALLABLE_IDS.update(id(c) for c in CLASSES)
NEW_PARAMETER = _new_parameter
