"""Run the same snippet on torch and on leafgrad and compare what a user would observe."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad


def error_class(e: BaseException) -> str:
    """The exact class of an exception, by name: a built-in by its name, anything else (torch's
    ``torch.OutOfMemoryError``, a leafgrad subclass of RuntimeError) by module and name, so a
    subclass never passes for torch's built-in class."""
    cls = type(e)
    if cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__.split('.')[0].replace('leafgrad', 'torch')}.{cls.__qualname__}"


def observe(fn, m):
    """fn(m) -> value(s); returns ("ok", normalised values) or ("raise", exact class, message)."""
    try:
        out = fn(m)
    except Exception as e:  # noqa: BLE001 - the exception itself is the observation
        return ("raise", error_class(e), str(e))
    return ("ok", normalise(out))


# rtol, atol per result dtype: float64 results are held to float64's precision
_TOL = {"float64": (1e-12, 1e-13), "complex128": (1e-12, 1e-13), "float16": (2e-3, 1e-4),
        "bfloat16": (1e-2, 1e-3)}
_TOL32 = (2e-5, 1e-6)


class _Values:
    """Tensor values compared with a tolerance sized for their dtype (not exact rounding, which flips at
    boundaries): float32's for float32 and integer results, float64's for float64."""

    def __init__(self, arr: np.ndarray, dtype: str = "float32") -> None:
        self.arr = arr
        self.dtype = dtype

    def __eq__(self, other) -> bool:
        if not (isinstance(other, _Values) and self.arr.shape == other.arr.shape):
            return False
        rtol, atol = _TOL.get(self.dtype, _TOL32)
        return bool(np.allclose(self.arr, other.arr, rtol=rtol, atol=atol, equal_nan=True))

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
        dt = str(x.dtype).split(".")[-1]
        arr = np.asarray(x.detach().numpy())
        arr = arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)
        return ("tensor", _Values(arr, dt), dt)
    if hasattr(x, "name") and callable(x.name):  # a graph node
        return ("node", x.name())
    if hasattr(x, "__module__") and type(x).__name__ == "dtype":
        return str(x).split(".")[-1]
    return x


def opening(message: str) -> str:
    """A message's opening clause, whole (its first line, up to the first ". " or ": "): the words users
    search for. After it torch states particulars that leafgrad words its own way."""
    return message.split("\n")[0].split(". ")[0].split(": ")[0]


def same(torch, fn):
    t = observe(fn, torch)
    lg = observe(fn, leafgrad)
    if t[0] == "raise" and lg[0] == "raise":
        # exactly torch's class; leafgrad's message starts with torch's whole opening clause, then adds its own
        first = opening(t[2])
        assert lg[1] == t[1] and lg[2].startswith(first), f"\ntorch:    {t[:2]} {t[2][:200]}\nleafgrad: {lg[:2]} {lg[2][:200]}"
        return lg
    assert lg == t, f"\ntorch:    {t}\nleafgrad: {lg}"
    return lg


def raises_exactly(cls: type, *call, match: str | None = None):
    """``pytest.raises`` that accepts ``cls`` itself only: a subclass of RuntimeError (say) is a
    different class to code that checks ``type(err) is RuntimeError`` or prints its name.
    As ``pytest.raises``: a context manager, or ``raises_exactly(cls, fn, *args)`` calls fn."""
    if call:
        with pytest.raises(cls, match=match, check=lambda e: type(e) is cls) as info:
            call[0](*call[1:])
        return info
    return pytest.raises(cls, match=match, check=lambda e: type(e) is cls)
