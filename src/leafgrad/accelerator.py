"""torch.accelerator: the device-agnostic queries, answered as CPU-only torch 2.13 does.

Current tutorials pick their device with
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``:
here there is no accelerator, so that line picks "cpu"; calls that need one raise torch's
RuntimeError.
"""
from __future__ import annotations

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "synchronize", "current_stream", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "reset_accumulated_memory_stats", "get_memory_info",
           "get_device_capability", "device_index"]

_NONE = ("Cannot access accelerator device when none is available.")


def _none(*args, **kwargs):
    raise RuntimeError(_NONE)


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's device type, or None where there is none (the case on this build)."""
    return None


def device_count() -> int:
    return 0


def current_device_index() -> int:
    _none()


def current_device_idx() -> int:
    import warnings
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    _none()


def set_device_index(device) -> None:
    _none()


def set_device_idx(device) -> None:
    _none()


def synchronize(device=None) -> None:
    _none()


def current_stream(device=None):
    _none()


def empty_cache() -> None:
    _none()


def memory_allocated(device_index=None) -> int:
    _none()


def max_memory_allocated(device_index=None) -> int:
    _none()


def memory_reserved(device_index=None) -> int:
    _none()


def max_memory_reserved(device_index=None) -> int:
    _none()


def memory_stats(device_index=None):
    _none()


def reset_peak_memory_stats(device_index=None) -> None:
    _none()


def reset_accumulated_memory_stats(device_index=None) -> None:
    _none()


def get_memory_info(device_index=None):
    _none()


def get_device_capability(device=None):
    _none()


class device_index:
    """``with torch.accelerator.device_index(i):``: None is a no-op; an index needs an accelerator."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            _none()
        return None

    def __exit__(self, *exc) -> bool:
        return False
