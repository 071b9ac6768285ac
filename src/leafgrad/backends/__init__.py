"""leafgrad.backends: torch.backends' switches, answering as CPU-only torch 2.13 does.

The flags are kept and read back as torch's are (``cudnn.deterministic``, ``cudnn.benchmark``,
``cuda.matmul.allow_tf32`` tied to ``torch.get_float32_matmul_precision()``); none changes how
leafgrad computes, since leafgrad has one CPU path and it is always deterministic.
"""
from __future__ import annotations

import importlib

__all__ = ["cuda", "cudnn", "mps", "mkldnn"]


def __getattr__(name: str):
    if name in __all__:
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'leafgrad.backends' has no attribute '{name}'")
