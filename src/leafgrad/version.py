"""torch.version: what a CPU-only torch 2.13 build reports (no CUDA, no ROCm, release build)."""
from __future__ import annotations

from .torch_version import TorchVersion

__all__ = ["__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]

#: the torch release whose semantics leafgrad follows (leafgrad's own: leafgrad.__leafgrad_version__)
__version__ = TorchVersion("2.13.0+cpu")
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "leafgrad"
