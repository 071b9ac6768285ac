"""Run the same snippet on torch and on leafgrad and compare what a user would observe."""
from __future__ import annotations

import numpy as np

import leafgrad


def observe(fn, m):
    """fn(m) -> value(s); returns ("ok", normalised values) or ("raise", type name, first 60 chars)."""
    try:
        out = fn(m)
    except Exception as e:  # noqa: BLE001 - the exception itself is the observation
        kind = "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__
        return ("raise", kind, str(e))
    return ("ok", normalise(out))


class _Values:
    """Tensor values compared with a float32-sized tolerance (not exact rounding, which flips at boundaries)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr

    def __eq__(self, other) -> bool:
        return (isinstance(other, _Values) and self.arr.shape == other.arr.shape
                and bool(np.allclose(self.arr, other.arr, rtol=2e-5, atol=1e-6, equal_nan=True)))

    def __repr__(self) -> str:
        return repr(self.arr.tolist())


def normalise(x):
    if isinstance(x, np.ndarray):
        return ("array", x.tolist(), str(x.dtype))
    if isinstance(x, dict):
        return {k: normalise(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [normalise(v) for v in x]
    if hasattr(x, "detach") and hasattr(x, "shape"):
        return ("tensor", _Values(np.asarray(x.detach().numpy(), dtype=np.float64)), str(x.dtype).split(".")[-1])
    if hasattr(x, "name") and callable(x.name):  # a graph node
        return ("node", x.name())
    if hasattr(x, "__module__") and type(x).__name__ == "dtype":
        return str(x).split(".")[-1]
    return x


def same(torch, fn):
    t = observe(fn, torch)
    lg = observe(fn, leafgrad)
    if t[0] == "raise" and lg[0] == "raise":
        # same exception type; leafgrad's message starts with torch's first sentence and adds its own
        first = t[2].split(". ")[0].split("\n")[0][:80]
        assert lg[1] == t[1] and lg[2].startswith(first), f"\ntorch:    {t[:2]} {t[2][:200]}\nleafgrad: {lg[:2]} {lg[2][:200]}"
        return lg
    assert lg == t, f"\ntorch:    {t}\nleafgrad: {lg}"
    return lg
