"""torch.backends.cudnn: no cuDNN in this build; the flags are kept as settings, read back unchanged."""
from __future__ import annotations

enabled: bool = True
benchmark: bool = False
benchmark_limit: int = 10
deterministic: bool = False
allow_tf32: bool = True


def is_available() -> bool:
    return False


def version():
    """cuDNN's version, None where there is none (as CPU-only torch answers)."""
    return None


class _Flags:
    """``with torch.backends.cudnn.flags(enabled=False):``: set the flags for a block, then restore them."""

    def __init__(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
        self.new = {"enabled": enabled, "benchmark": benchmark, "benchmark_limit": benchmark_limit,
                    "deterministic": deterministic, "allow_tf32": allow_tf32}

    def __enter__(self):
        g = globals()
        self.old = {k: g[k] for k in self.new}
        g.update(self.new)

    def __exit__(self, *exc) -> bool:
        globals().update(self.old)
        return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True) -> _Flags:
    return _Flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
