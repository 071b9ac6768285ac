"""leafgrad.amp: torch.amp's autocast regions and GradScaler, with CPU-only torch's behaviour.

``GradScaler`` is complete (scale, unscale_, step, update, state_dict, the inf/NaN check and the
growth/backoff rule), on 'cpu' and disabled, as torch runs it. ``autocast`` keeps torch's per-device
autocast state (``is_autocast_enabled``, ``get_autocast_dtype``, nesting, decorators, the warnings
that disable it) and, on 'cpu', casts the floating inputs (but float64) of torch's lower-precision
ops (linear, matmul, mm, bmm, addmm, conv1d, conv2d) to the region's dtype, bfloat16 by default,
so they answer in bfloat16 as torch's do (``leafgrad/_autocast_ops.py``). Its float32 list (ops
torch widens back to float32 inside a region) is not applied: those run in their inputs' dtype.
"""
from __future__ import annotations

from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available,
                            is_autocast_enabled, set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler, OptState

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "is_autocast_available"]
