"""torch.backends.cuda: CUDA switches of a build without CUDA, kept and read back as torch's are."""
from __future__ import annotations

import contextlib
import warnings

from .. import _precision

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp", "math_sdp_enabled", "enable_math_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp",
           "sdp_kernel"]


def is_built() -> bool:
    return False


class cuBLASModule:
    """``torch.backends.cuda.matmul``: ``allow_tf32`` is the float32 matmul precision seen as a flag."""

    _FLAGS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction",
              "allow_fp16_accumulation")

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", {"allow_fp16_reduced_precision_reduction": True,
                                            "allow_bf16_reduced_precision_reduction": True,
                                            "allow_fp16_accumulation": False})

    def __getattr__(self, name: str):
        if name == "allow_tf32":
            return _precision.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return _precision.fp32_precision()
        if name in cuBLASModule._FLAGS:
            return self._flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value) -> None:
        if name == "allow_tf32":
            _precision.set_float32_matmul_precision("high" if value else "highest")
        elif name in cuBLASModule._FLAGS:
            self._flags[name] = bool(value)
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()

# which scaled-dot-product-attention kernels may be chosen: kept as settings (leafgrad has one, the math one)
_SDP = {"flash": True, "math": True, "mem_efficient": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _SDP["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _SDP["flash"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _SDP["math"]


def enable_math_sdp(enabled: bool) -> None:
    _SDP["math"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _SDP["mem_efficient"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _SDP["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """Deprecated in torch 2.13 (FutureWarning): sets the four switches for a block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will "
                  "be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=3)
    old = dict(_SDP)
    _SDP.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient),
                cudnn=bool(enable_cudnn))
    try:
        yield
    finally:
        _SDP.update(old)
