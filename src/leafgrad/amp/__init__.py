"""leafgrad.amp: torch.amp's autocast regions and GradScaler, with CPU-only torch's behaviour.

``GradScaler`` is complete (scale, unscale_, step, update, state_dict, the inf/NaN check and the
growth/backoff rule), on 'cpu' and disabled, as torch runs it. ``autocast`` is a real context
manager that keeps torch's per-device autocast state (``is_autocast_enabled``,
``get_autocast_dtype``, nesting, decorators, the warnings that disable it), but it does not
change any op's dtype: leafgrad has no bfloat16 arithmetic (bfloat16 is stored as float32), so
ops inside the region compute in their inputs' dtype, where torch's CPU autocast would give
matmul-like ops a bfloat16 result. The numbers are then float32's, closer to the exact values
than torch's bfloat16 ones.
"""
from __future__ import annotations

from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available,
                            is_autocast_enabled, set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler, OptState

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "is_autocast_available"]
