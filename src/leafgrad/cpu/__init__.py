"""torch.cpu: the device-module queries for the CPU (always there, one device, nothing asynchronous)."""
from __future__ import annotations

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device", "synchronize", "amp"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """There is one CPU device: selecting it changes nothing (as in torch)."""


def synchronize(device=None) -> None:
    """CPU ops finish before they return: there is nothing to wait for."""


def __getattr__(name: str):
    if name == "amp":
        import importlib
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'leafgrad.cpu' has no attribute '{name}'")
