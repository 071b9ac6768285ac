"""The array backend: the one place that knows which array library holds a tensor's data.

Op definitions receive the backend's array module as ``xp`` and call ``xp.exp``,
``xp.matmul`` and so on; they never import NumPy for array math themselves. A CuPy
``cuda`` backend is one more :class:`Backend` registered here, with no op touched.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Backend", "device", "backend_for_array", "backend_for_device", "register_backend",
           "set_default_device", "get_default_device"]


class device:
    """torch.device look-alike: ``device("cpu")``, ``device("cuda", 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device", index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        type = str(type)
        if ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in ("cpu", "cuda", "mps", "meta"):
            raise RuntimeError(
                f"Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
                f"vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))


class Backend:
    """An array module (``xp``) plus the array type it produces and the device it serves."""

    __slots__ = ("name", "xp", "array_type", "device", "consts", "special_module", "_special")

    def __init__(self, name: str, xp, array_type: type, dev: device, special_module: str | None = None) -> None:
        self.name = name
        self.xp = xp
        self.array_type = array_type
        self.device = dev
        self.consts: dict = {}  # dtype -> {Python number: read-only 0-d array}, see const()
        self.special_module = special_module  # where optional one-pass kernels live (see special())
        self._special: dict = {}

    def special(self, name: str):
        """An optional special-function kernel (``expit``, ``erf``) for this backend's arrays, or None.

        For NumPy these are SciPy's (``scipy.special``): one pass over the array, and more
        accurate than a composition of NumPy ufuncs. SciPy is optional, and importing it
        costs more than importing leafgrad, so it is looked up on first use; a CuPy backend
        names ``cupyx.scipy.special``. Ops keep a pure-``xp`` fallback for None.
        """
        try:
            return self._special[name]
        except KeyError:
            pass
        kernel = None
        if self.special_module is not None:
            try:
                import importlib
                kernel = getattr(importlib.import_module(self.special_module), name, None)
            except ImportError:
                kernel = None
        self._special[name] = kernel
        return kernel

    def const(self, value, dtype):
        """A Python number as a read-only 0-d array of ``dtype``, made once per value.

        NumPy 2 converts a Python number to the array's dtype on every call (NEP 50's weak
        scalars), which costs about as much as the arithmetic on a small array; a 0-d array
        of that dtype gives the same result without the conversion. Tensor-by-number ops
        (``x * 0.5``, and the formulas of their backward) reuse one per value. Zero is not
        kept: ``0.0`` and ``-0.0`` are equal keys but must stay different numbers.
        (``registry.apply_simple`` looks ``consts`` up itself before calling this: its fast case.)
        """
        table = self.consts.get(dtype)
        if table is not None:
            c = table.get(value)
            if c is not None:
                return c
        if value.__class__ is int and dtype.kind == "i" and -(1 << 63) <= value < (1 << 63):
            bits = 8 * dtype.itemsize  # torch casts a number out of the tensor's range with wrap-around
            value_in_range = (value + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
            c = self.xp.asarray(value_in_range, dtype=dtype)
        else:
            c = self.xp.asarray(value, dtype=dtype)
        if value != 0 and value == value:  # (and NaN: never equal to itself, never found again)
            table = self.consts.get(dtype)
            if table is None or len(table) >= 256:  # (a program sweeping through many numbers: start over)
                table = self.consts[dtype] = {}
            c.flags.writeable = False
            table[value] = c
        return c

    def asarray(self, obj, dtype=None):
        return self.xp.asarray(obj, dtype=dtype)

    def to_numpy(self, arr) -> np.ndarray:
        return arr


CPU = Backend("numpy", np, np.ndarray, device("cpu"), special_module="scipy.special")
_BY_ARRAY_TYPE: dict[type, Backend] = {np.ndarray: CPU}
_BY_DEVICE: dict[str, Backend] = {"cpu": CPU}


def register_backend(backend: Backend) -> None:
    """Make a new device available (e.g. a CuPy backend under ``"cuda"``)."""
    _BY_ARRAY_TYPE[backend.array_type] = backend
    _BY_DEVICE[backend.device.type] = backend


def backend_for_array(arr) -> Backend:
    return _BY_ARRAY_TYPE[arr.__class__]


def backend_for_device(dev) -> Backend:
    dev = dev if isinstance(dev, device) else device(dev)
    try:
        return _BY_DEVICE[dev.type]
    except KeyError:
        if dev.type == "cuda":
            raise AssertionError(  # (CPU-only torch's class for this: its lazy CUDA init asserts)
                "Torch not compiled with CUDA enabled: leafgrad has no 'cuda' backend installed here, so "
                "tensors stay on the CPU. Remove the .cuda()/.to('cuda') call, or use "
                "device = 'cuda' if leafgrad.cuda.is_available() else 'cpu'.") from None
        raise RuntimeError(f"leafgrad has no backend for device '{dev}'; available: {sorted(_BY_DEVICE)}") from None


# torch.set_default_device: the device factories use when none is given (None: the CPU)
DEFAULT_DEVICE: list = [None]


def set_default_device(dev) -> None:
    """torch.set_default_device: later factories without ``device=`` make tensors there."""
    # CPU-only torch accepts 'cuda' here and fails at the first factory call, and so does this
    DEFAULT_DEVICE[0] = None if dev is None else device(dev)


def get_default_device() -> device:
    dev = DEFAULT_DEVICE[0]
    if dev is None:
        return device("cpu")
    backend_for_device(dev)
    return dev


# uint16/32/64 data: an array type of its own that refuses what torch has no kernel for (_unsigned_array.py)
from ._unsigned_array import register as _register_unsigned  # noqa: E402

_register_unsigned(_BY_ARRAY_TYPE, CPU)
