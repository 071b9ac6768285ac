"""Tensor's per-backend flags (``t.is_cpu``, ``t.is_xpu``, ``t.is_mps`` ...) that torch programs test.

Why: device-agnostic scripts ask ``if x.is_xpu`` / ``x.is_mps`` before choosing a code path
(pytorch/examples' dcgan does), so every flag torch has must exist and say False here: leafgrad's
tensors live on the CPU (or the emulated CUDA device, which ``is_cuda`` already reports). Layout
and representation flags (quantized, MKL-DNN, nested, sparse CSR) are False because leafgrad has
only strided dense tensors. A flag the Tensor class already defines is left as it is.
"""
from __future__ import annotations

from ._tensor import Tensor

_DEVICE_TYPES = ("cpu", "xpu", "mps", "meta", "ipu", "maia", "mtia", "vulkan", "xla", "hpu")
_ALWAYS_FALSE = ("is_quantized", "is_mkldnn", "is_nested", "is_sparse_csr")


def _device_flag(kind: str) -> property:
    def flag(self: Tensor) -> bool:
        return self.device.type == kind
    flag.__name__ = f"is_{kind}"
    flag.__qualname__ = f"Tensor.is_{kind}"
    flag.__doc__ = f"Is the tensor stored on the {kind!r} device?"
    return property(flag)


def _false_flag(name: str) -> property:
    def flag(self: Tensor) -> bool:
        return False
    flag.__name__ = name
    flag.__qualname__ = f"Tensor.{name}"
    flag.__doc__ = "Always False: leafgrad tensors are strided, dense and unquantized."
    return property(flag)


def bind() -> None:
    for kind in _DEVICE_TYPES:
        if not hasattr(Tensor, f"is_{kind}"):
            setattr(Tensor, f"is_{kind}", _device_flag(kind))
    for name in _ALWAYS_FALSE:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _false_flag(name))


bind()
