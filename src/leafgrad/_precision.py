"""torch.set_float32_matmul_precision / get_float32_matmul_precision: one global setting.

torch ties it to ``torch.backends.cuda.matmul.allow_tf32`` (tf32 is allowed unless the precision is
"highest"), so both read and write this one value. leafgrad's matmuls are NumPy's float32 on the
CPU whatever it says, as torch's CPU matmuls are.
"""
from __future__ import annotations

import warnings

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision"]

_PRECISION = ["highest"]
_SET = [False]  # written at least once (torch then reports cuBLAS's fp32 precision "ieee", not "none")


def get_float32_matmul_precision() -> str:
    return _PRECISION[0]


def set_float32_matmul_precision(precision: str) -> None:
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _PRECISION[0] = precision
    _SET[0] = True


def fp32_precision() -> str:
    """torch.backends.cuda.matmul.fp32_precision: "tf32" when tf32 is allowed, else "ieee" once set."""
    if _PRECISION[0] != "highest":
        return "tf32"
    return "ieee" if _SET[0] else "none"
