"""``import torch`` resolving to leafgrad: the import hook behind ``leafgrad run``, in this process and its children.

In this process, :class:`TorchAlias` sits first on ``sys.meta_path`` and answers ``torch`` and
``torch.X`` with ``leafgrad`` and ``leafgrad.X`` (the same module objects, not copies). A
submodule leafgrad lacks is a ModuleNotFoundError: the real torch, when installed, is never
mixed in. Child processes (``multiprocessing`` spawn/forkserver workers, ``mpiexec`` ranks)
start a fresh interpreter, so ``SHIM_DIR`` is put on their path: it holds a ``torch`` package
whose ``__init__`` installs the same hook there before anything else can import the real torch.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys

__all__ = ["TorchAlias", "SHIM_DIR", "install", "aliased_modules"]

SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_shim")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real: str) -> None:
        self.real = real
        self._spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.real)
        self._spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module) -> None:
        # module_from_spec() overwrote __spec__ with the alias's: give leafgrad's back
        if self._spec is not None:
            module.__spec__ = self._spec


class TorchAlias(importlib.abc.MetaPathFinder):
    """``torch`` and ``torch.X`` resolve to ``leafgrad`` and ``leafgrad.X``, or fail: never the real torch."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "leafgrad" + fullname[5:]
        try:
            found = importlib.util.find_spec(real)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}': under leafgrad run, torch is leafgrad, and leafgrad has no "
                f"{real} (the installed torch is deliberately not used for it). Import it from a separate "
                "process without leafgrad run, or ask for it in leafgrad.", name=fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


def aliased_modules() -> dict:
    """The ``torch`` / ``torch.*`` entries of ``sys.modules`` now."""
    return {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}


def install() -> TorchAlias:
    """Make ``import torch`` give leafgrad in this interpreter from now on (what the shim runs)."""
    import leafgrad
    for finder in sys.meta_path:
        if isinstance(finder, TorchAlias):
            break
    else:
        finder = TorchAlias()
        sys.meta_path.insert(0, finder)
    for name in aliased_modules():
        if name != "torch":
            del sys.modules[name]
    sys.modules["torch"] = leafgrad
    return finder
