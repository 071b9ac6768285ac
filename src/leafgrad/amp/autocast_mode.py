"""torch.autocast / torch.amp.autocast: per-device autocast state, entered and restored as torch does.

The state (enabled flag and target dtype per device type, per thread) is what torch keeps and
what code reads back (``torch.is_autocast_enabled("cpu")``). No op consults it: see the package
docstring for why leafgrad's ops keep their dtype inside a region.
"""
from __future__ import annotations

import functools
import threading
import warnings
from typing import Any

from .. import _dtype as D
from .._backend import device as _device

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled",
           "get_autocast_dtype", "set_autocast_dtype", "custom_fwd", "custom_bwd"]

# torch's autocast knows these device types; "cpu" and "cuda" are the ones a CPU-only build names
_AVAILABLE = ("cpu", "cuda")
_DEFAULT_DTYPE = {"cpu": D.bfloat16, "cuda": D.float16}


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled: dict = {}
        self.dtype: dict = {}
        self.nesting = 0


_STATE = _State()


def is_autocast_available(device_type: str) -> bool:
    return device_type in _AVAILABLE


def _check_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return device_type


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """With no argument, torch's legacy meaning: whether *CUDA* autocast is on."""
    return _STATE.enabled.get("cuda" if device_type is None else device_type, False)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    _STATE.enabled[_check_type(device_type)] = bool(enabled)
    _sync_cpu_ops()


def get_autocast_dtype(device_type: str) -> D.dtype:
    return _STATE.dtype.get(device_type, _DEFAULT_DTYPE.get(device_type, D.float16))


def set_autocast_dtype(device_type: str, dtype: D.dtype) -> None:
    _STATE.dtype[_check_type(device_type)] = dtype
    _sync_cpu_ops()


def _sync_cpu_ops() -> None:
    """Tell the lower-precision ops (``_autocast_ops``) whether a CPU region is on, and its dtype."""
    from .._autocast_ops import set_cpu
    set_cpu(get_autocast_dtype("cpu") if _STATE.enabled.get("cpu", False) else None)


class autocast:
    """``with torch.autocast("cpu"):`` or ``@torch.autocast("cpu")``: a region with autocast state on."""

    def __init__(self, device_type: str, dtype: D.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        _check_type(device_type)
        _device(device_type)  # an unknown device name fails as torch.device would
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if enabled and device_type == "cpu" and self.fast_dtype not in (D.bfloat16, D.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          UserWarning, stacklevel=2)
            enabled = False
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        _STATE.nesting += 1
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        _STATE.nesting -= 1
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value: Any, device_type: str, dtype: D.dtype):
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        return value.to(dtype) if value.dtype.is_floating_point and value.device.type == device_type else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: D.dtype | None = None):
    """Decorator for an ``autograd.Function.forward``: records the autocast state for ``custom_bwd``.

    With ``cast_inputs``, floating inputs are cast to it and the forward runs with autocast off,
    when autocast is on for ``device_type`` (as torch's helper does)."""
    _check_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for an ``autograd.Function.backward``: runs it in the forward's autocast state."""
    _check_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
