"""leafgrad.cuda: answers as CPU-only torch 2.13 does, since leafgrad has no GPU backend.

Queries answer "no GPU" (``is_available() -> False``, ``device_count() -> 0``, memory counters
``0``); seeding and cache calls are accepted and do nothing, as CPU-only torch's are; calls that
need a device raise the ``AssertionError`` CPU-only torch raises ("Torch not compiled with CUDA
enabled"), so ``device = "cuda" if torch.cuda.is_available() else "cpu"`` code takes its CPU branch
and code that insists on a GPU stops where it would under CPU-only torch.
"""
from __future__ import annotations

from collections import OrderedDict

__all__ = ["is_available", "device_count", "is_initialized", "is_bf16_supported", "is_tf32_supported",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "get_rng_state_all", "set_rng_state", "set_rng_state_all", "synchronize", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "current_device", "set_device", "get_device_name", "get_device_properties", "get_device_capability",
           "mem_get_info", "current_stream", "default_stream", "init", "ipc_collect", "get_arch_list", "device",
           "amp"]

_NO_CUDA = "Torch not compiled with CUDA enabled"


def _lazy_init():
    """What every call that needs a device runs first: CPU-only torch fails it with this assertion."""
    raise AssertionError(_NO_CUDA)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


# ---------------------------------------------------------------- seeding: queued lazily in torch, so accepted
def manual_seed(seed: int) -> None:
    """Nothing to seed without a GPU; torch queues the seed for a device that never comes."""
    int(seed)  # torch converts first: manual_seed("x") raises ValueError there too


def manual_seed_all(seed: int) -> None:
    int(seed)


def seed() -> None:
    """Accepted and ignored, as CPU-only torch does."""


def seed_all() -> None:
    """Accepted and ignored, as CPU-only torch does."""


def set_rng_state(new_state, device="cuda") -> None:
    """Accepted and ignored, as CPU-only torch does (it queues the call for a device that never comes)."""


def set_rng_state_all(new_states) -> None:
    for state in new_states:
        set_rng_state(state)


def get_rng_state_all() -> list:
    return []  # one state per device, and there are none


def initial_seed() -> int:
    _lazy_init()


def get_rng_state(device="cuda"):
    _lazy_init()


# ---------------------------------------------------------------- memory: no allocator, so nothing is held
def empty_cache() -> None:
    """Nothing is cached without a GPU."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_stats(device=None) -> "OrderedDict":
    return OrderedDict()


# ---------------------------------------------------------------- calls that need a device
def synchronize(device=None) -> None:
    _lazy_init()


def current_device() -> int:
    _lazy_init()


def get_device_name(device=None) -> str:
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def mem_get_info(device=None):
    _lazy_init()


def current_stream(device=None):
    _lazy_init()


def default_stream(device=None):
    _lazy_init()


def init() -> None:
    _lazy_init()


def ipc_collect() -> None:
    _lazy_init()


def set_device(device) -> None:
    # CPU-only torch fails here on a missing binding, with AttributeError rather than its usual assertion
    raise AttributeError(f"torch.cuda.set_device({device!r}): {_NO_CUDA}, so there is no device to select; "
                         "keep the model and tensors on 'cpu'")


class device:
    """``with torch.cuda.device(i):``: entering it needs CUDA (index -1 means "no device" and is a no-op)."""

    def __init__(self, device) -> None:
        from .._backend import device as _device
        if isinstance(device, (str, _device)):
            dev = _device(device)
            if dev.type != "cuda":
                raise ValueError(f"Expected a cuda device, but got: {dev}")
            device = dev.index
        self.idx = device if device is None else int(device)

    def __enter__(self):
        if self.idx is None:
            raise TypeError("torch.cuda.device(None): no device index to enter (pass an int, or -1 for none)")
        if self.idx == -1:
            return self
        raise RuntimeError("PyTorch was compiled without CUDA support: leafgrad has no GPU backend, so there "
                           "is no CUDA device to enter; run the block on 'cpu'")

    def __exit__(self, *exc) -> bool:
        return False


def __getattr__(name: str):
    # torch.cuda.amp (GradScaler, autocast) and the legacy torch.cuda.FloatTensor types, loaded on first use
    import importlib
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    from .._legacy_types import cuda_type
    t = cuda_type(name)
    if t is not None:
        return t
    raise AttributeError(f"module 'leafgrad.cuda' has no attribute '{name}'")
