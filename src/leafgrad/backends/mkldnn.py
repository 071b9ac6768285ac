"""torch.backends.mkldnn: leafgrad calls no oneDNN kernels (its CPU math is NumPy's)."""
from __future__ import annotations

enabled: bool = True
deterministic: bool = False


def is_available() -> bool:
    return False
