"""torch.optim.adamw: AdamW lives in adam.py (it is Adam with decoupled weight decay)."""
from __future__ import annotations

from .adam import AdamW, adam

__all__ = ["AdamW", "adamw"]


def adamw(*args, **kwargs) -> None:
    """The functional form of AdamW: ``adam`` with ``decoupled_weight_decay=True``."""
    kwargs["decoupled_weight_decay"] = True
    adam(*args, **kwargs)
