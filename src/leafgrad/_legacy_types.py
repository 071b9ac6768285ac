"""torch's legacy tensor types and constructors: ``torch.FloatTensor(4, 1)``, ``x.new(2, 3)``, ``x.type()``.

Before dtypes, torch named a tensor's kind by a class per dtype and device (``torch.FloatTensor``,
``torch.cuda.LongTensor``). In torch 2.13 those classes still exist and old programs still use
them, but they are not subclasses of ``torch.Tensor``: calling one builds a plain Tensor of its
dtype, and ``isinstance(x, torch.FloatTensor)`` asks whether ``x`` is a float32 CPU tensor. The
same rules drive ``torch.Tensor(...)`` (the default dtype's type), ``Tensor.new(...)`` (the
tensor's own type) and ``Tensor.type(...)``:

- integers or a ``torch.Size`` are a shape (uninitialised in torch; zeros here, as ``empty``);
- a tensor of the same dtype is *aliased* (no copy), of another dtype refused with TypeError;
- other data (lists, tuples, NumPy arrays) is copied into the dtype, except an ndarray that already
  has it, which is shared as ``torch.from_numpy`` would;
- the only keyword is ``device`` (and ``size`` for the shape form).

The CUDA types exist so that ``isinstance`` checks and ``x.type(torch.cuda.FloatTensor)`` fail as
CPU-only torch's do.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtype as D
from ._backend import device as Device
from ._tensor import Size, Tensor

__all__ = ["LEGACY_TYPES", "legacy_new", "tensor_type", "cuda_type", "set_default_tensor_type"]

# (torch's name stem, dtype), in torch's order
_STEMS = (("Double", D.float64), ("Float", D.float32), ("Half", D.float16), ("BFloat16", D.bfloat16),
          ("Long", D.int64), ("Int", D.int32), ("Short", D.int16), ("Char", D.int8), ("Byte", D.uint8),
          ("Bool", D.bool))

_NO_CUDA_TYPE = "type torch.cuda.{name} not available. Torch not compiled with CUDA enabled."
_NO_CUDA_INIT = ("Cannot initialize CUDA without ATen_cuda library: this is a CPU-only build (leafgrad has no GPU "
                 "backend), so a tensor cannot become a torch.cuda type; keep it on the CPU, e.g. "
                 "x.type(torch.FloatTensor)")


class tensortype(type):
    """The metaclass of the legacy types: instance checks ask about dtype and device, not the class."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and not cls.is_cuda and obj.dtype is cls.dtype

    def __subclasscheck__(cls, sub) -> bool:
        return type.__subclasscheck__(cls, sub)

    def __repr__(cls) -> str:
        return f"<class '{cls._torch_name}'>"

    def __call__(cls, *args, **kwargs):
        if cls.is_cuda:
            raise TypeError(_NO_CUDA_TYPE.format(name=cls.__name__))
        return legacy_new(cls.dtype, args, kwargs, "new")


def _make_type(stem: str, dtype: D.dtype, cuda: bool) -> tensortype:
    name = f"{stem}Tensor"
    torch_name = f"torch.cuda.{name}" if cuda else f"torch.{name}"
    ns = {"dtype": dtype, "is_cuda": cuda, "is_sparse": False, "layout": "torch.strided", "_torch_name": torch_name,
          "__module__": "leafgrad.cuda" if cuda else "leafgrad", "__qualname__": name,
          "__doc__": f"{torch_name}: calling it makes a {dtype} Tensor; isinstance asks for that dtype on the "
                     f"{'GPU' if cuda else 'CPU'}."}
    return tensortype(name, (), ns)


LEGACY_TYPES = {f"{s}Tensor": _make_type(s, d, False) for s, d in _STEMS}
_CUDA_TYPES = {f"{s}Tensor": _make_type(s, d, True) for s, d in _STEMS}
_BY_DTYPE = {t.dtype: t for t in LEGACY_TYPES.values()}
_BY_STRING = {t._torch_name: t for t in (*LEGACY_TYPES.values(), *_CUDA_TYPES.values())}


def cuda_type(name: str):
    """``torch.cuda.FloatTensor`` and friends, or None for a name that is not one."""
    return _CUDA_TYPES.get(name)


def tensor_type(dtype: D.dtype) -> tensortype:
    return _BY_DTYPE[dtype]


def _reject(what: str, args, kwargs) -> TypeError:
    got = ", ".join([type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args]
                    + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    return TypeError(f"{what}() received an invalid combination of arguments - got ({got}), but expected one of: "
                     "(*, device), (tuple of ints size, *, device), (Tensor other), (object data, *, device); "
                     "for a dtype or requires_grad use torch.tensor(data, dtype=..., requires_grad=...)")


def legacy_new(dtype: D.dtype, args: tuple, kwargs: dict, what: str) -> Tensor:
    """The legacy constructor (see the module docstring) for a tensor of ``dtype``."""
    from ._creation import from_numpy, tensor, zeros
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    size = kwargs.pop("size", None)
    if kwargs or (size is not None and args):
        raise _reject(what, args, kwargs if not size else {**kwargs, "size": size})
    if device is not None:
        dev = device if isinstance(device, Device) else Device(device)
        if dev.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {dev.type} was passed")
    if size is not None:
        args = (Size(size),)
    if not args:
        return zeros(0, dtype=dtype)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if device is not None:
            raise RuntimeError(f"Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  "
                               "Use torch.as_tensor(...) instead.")
        if first.dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {first.dtype}): {what}(tensor) shares the tensor's memory, so "
                            f"the dtypes must match; convert first with .to({dtype})")
        return Tensor._make(first._data)  # an alias: writes through either show in both
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(first, Size)):
        shape = tuple(first) if isinstance(first, Size) else args
        return zeros(*(int(s) for s in shape), dtype=dtype)
    if len(args) > 1:
        raise _reject(what, args, {})
    if isinstance(first, np.ndarray):
        if first.dtype == dtype.np and dtype is not D.bfloat16:
            return from_numpy(first)  # shared, as torch shares an array of the same dtype
        return tensor(first.astype(dtype.np), dtype=dtype)
    if not isinstance(first, (list, tuple)) and not hasattr(first, "__len__"):
        raise TypeError(f"{what}(): data must be a sequence (got {type(first).__name__})")
    return tensor(first, dtype=dtype)


def type_(t: Tensor, dtype=None, non_blocking: bool = False, **kwargs):
    """Tensor.type: the legacy name with no argument, else a cast (to a type, its name, or a dtype)."""
    if dtype is None:
        dtype = kwargs.pop("dst_type", None)
        if dtype is None:  # (uint16/32/64 have a name but, as in torch, no legacy class)
            legacy = _BY_DTYPE.get(t.dtype)
            return legacy._torch_name if legacy is not None else f"torch.{D.scalar_type_name(t.dtype)}Tensor"
    if isinstance(dtype, str):
        target = _BY_STRING.get(dtype)
        if target is None:
            raise ValueError(f"invalid type: '{dtype}'")
    elif isinstance(dtype, tensortype):
        target = dtype
    elif isinstance(dtype, D.dtype):
        return t if t.dtype is dtype else t.to(dtype)
    else:
        raise ValueError(f"invalid type: '{getattr(dtype, '__name__', dtype)}'")
    if target.is_cuda:
        raise RuntimeError(_NO_CUDA_INIT)
    return t if t.dtype is target.dtype else t.to(target.dtype)


_WARNED: list = []


def set_default_tensor_type(t) -> None:
    """Deprecated in torch (UserWarning, once per process): sets the default dtype from a floating CPU type."""
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                      stacklevel=2)
    target = _BY_STRING.get(t) if isinstance(t, str) else t
    if not isinstance(target, tensortype):
        raise TypeError(f"invalid type: {t!r}: pass a tensor type such as torch.DoubleTensor")
    if target.is_cuda:
        raise TypeError(_NO_CUDA_TYPE.format(name=target.__name__))
    if not target.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(target.dtype)
