"""Run the same snippet on torch and on leafgrad and compare what a user would observe."""
from __future__ import annotations

import warnings

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


def observe(fn, m, exact: bool = False, signed_zero: bool = False):
    """fn(m) -> value(s); returns ("ok", normalised values) or ("raise", exact class, message).
    ``exact`` and ``signed_zero`` are passed on to ``normalise`` (see ``same``)."""
    try:
        out = fn(m)
    except Exception as e:  # noqa: BLE001 - the exception itself is the observation
        return ("raise", error_class(e), str(e))
    return ("ok", normalise(out, exact, signed_zero))


# rtol, atol per result dtype: float64 results are held to float64's precision
_TOL = {"float64": (1e-12, 1e-13), "complex128": (1e-12, 1e-13), "float16": (2e-3, 1e-4),
        "bfloat16": (1e-2, 1e-3)}
_TOL32 = (2e-5, 1e-6)


def _signbits(a: np.ndarray) -> np.ndarray:
    """The sign bit of every element (of both parts, for complex), NaNs masked out: a NaN's sign is
    not something torch promises."""
    parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
    return np.stack([np.signbit(p) & ~np.isnan(p) for p in parts])


class _Values:
    """Tensor values, held in their own dtype, compared as their dtype calls for.

    * integer, unsigned and bool results: bit for bit (``np.array_equal`` on the original array;
      no float64 detour, so int64 values past 2**53 keep every bit);
    * float and complex results, by default: with a tolerance sized for the dtype (not exact
      rounding, which flips at boundaries), float32's for float32, float64's for float64;
    * float and complex results with ``exact`` (set on either side): bit for bit in their own
      dtype, NaN positions included (equal_nan). -0.0 and 0.0 count as equal, as ``==`` has them,
      unless ``signed_zero`` is set too, which also compares every non-NaN sign bit.
    """

    def __init__(self, arr: np.ndarray, dtype: str = "float32", exact: bool = False,
                 signed_zero: bool = False) -> None:
        self.arr = arr
        self.dtype = dtype
        self.exact = exact
        self.signed_zero = signed_zero

    def __eq__(self, other) -> bool:
        if not (isinstance(other, _Values) and self.arr.shape == other.arr.shape):
            return False
        a, b = self.arr, other.arr
        if a.dtype.kind in "biu" or b.dtype.kind in "biu":
            return a.dtype == b.dtype and bool(np.array_equal(a, b))
        if self.exact or other.exact:
            if a.dtype != b.dtype or not np.array_equal(a, b, equal_nan=True):
                return False
            if self.signed_zero or other.signed_zero:
                return bool(np.array_equal(_signbits(a), _signbits(b)))
            return True
        rtol, atol = _TOL.get(self.dtype, _TOL32)
        wide = np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64
        return bool(np.allclose(a.astype(wide), b.astype(wide), rtol=rtol, atol=atol, equal_nan=True))

    def __repr__(self) -> str:
        mode = "exact" if self.exact else "close"
        return f"{self.arr.tolist()!r} ({self.arr.dtype}, {mode})"


def _array_of(x) -> np.ndarray:
    """A tensor's values as a numpy array of its own dtype (bfloat16, which numpy lacks, as float32:
    which holds every bfloat16 value exactly)."""
    x = x.detach()
    if str(x.dtype).endswith("bfloat16"):
        x = x.float()
    return np.array(x.numpy(), copy=True)


def normalise(x, exact: bool = False, signed_zero: bool = False):
    if isinstance(x, np.ndarray):
        return ("array", x.tolist(), str(x.dtype))
    if isinstance(x, dict):
        return {k: normalise(v, exact, signed_zero) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [normalise(v, exact, signed_zero) for v in x]
    if hasattr(x, "detach") and hasattr(x, "shape"):
        dt = str(x.dtype).split(".")[-1]
        return ("tensor", _Values(_array_of(x), dt, exact, signed_zero), dt)
    if hasattr(x, "name") and callable(x.name):  # a graph node
        return ("node", x.name())
    if hasattr(x, "__module__") and type(x).__name__ == "dtype":
        return str(x).split(".")[-1]
    return x


def opening(message: str) -> str:
    """A message's opening clause, whole (its first line, up to the first ". " or ": "): the words users
    search for. After it torch states particulars that leafgrad words its own way."""
    return message.split("\n")[0].split(". ")[0].split(": ")[0]


def _same_error(t, lg) -> None:
    """Both raised: exactly torch's class; leafgrad's message starts with torch's whole opening
    clause, then adds its own."""
    first = opening(t[2])
    assert lg[1] == t[1] and lg[2].startswith(first), f"\ntorch:    {t[:2]} {t[2][:200]}\nleafgrad: {lg[:2]} {lg[2][:200]}"


def same(torch, fn, exact: bool = False, signed_zero: bool = False):
    """Run ``fn(m)`` with m = torch and m = leafgrad and assert a user sees the same thing: the same
    values (see ``_Values``: integer and bool tensors always bit for bit; float tensors within
    their dtype's tolerance, or bit for bit with ``exact=True`` - for ops whose result torch
    computes exactly: copies, indexing, views, cat/stack, comparisons, where, sign, abs, neg,
    max/min, sort, clamp ...; ``signed_zero=True`` also tells -0.0 from 0.0), or the same error."""
    t = observe(fn, torch, exact, signed_zero)
    lg = observe(fn, leafgrad, exact, signed_zero)
    if t[0] == "raise" and lg[0] == "raise":
        _same_error(t, lg)
        return lg
    assert lg == t, f"\ntorch:    {t}\nleafgrad: {lg}"
    return lg


def same_after_failure(torch, setup, fail, look, exact: bool = True):
    """A call that fails must leave nothing half-changed, and must fail as torch's does.

    ``state = setup(m)`` builds the objects; ``fail(m, state)`` is the call that must raise (on
    both libraries, with torch's exact class and opening clause); ``look(m, state)`` then returns
    what a user could observe (values, versions, flags, .grad, param groups ...), compared as
    ``same`` compares - bit for bit by default, since a failed call must not move a value at all."""
    def run(m):
        state = setup(m)
        outcome = observe(lambda m: fail(m, state), m)
        return outcome, observe(lambda m: look(m, state), m, exact)

    (t_fail, t_seen), (lg_fail, lg_seen) = run(torch), run(leafgrad)
    assert t_fail[0] == "raise", f"torch did not fail: {t_fail}"
    assert lg_fail[0] == "raise", f"leafgrad did not fail: {lg_fail}"
    _same_error(t_fail, lg_fail)
    assert lg_seen == t_seen, f"\nstate after the failed call\ntorch:    {t_seen}\nleafgrad: {lg_seen}"
    return lg_seen


def raises_exactly(cls: type, *call, match: str | None = None):
    """``pytest.raises`` that accepts ``cls`` itself only: a subclass of RuntimeError (say) is a
    different class to code that checks ``type(err) is RuntimeError`` or prints its name.
    As ``pytest.raises``: a context manager, or ``raises_exactly(cls, fn, *args)`` calls fn."""
    if call:
        with pytest.raises(cls, match=match, check=lambda e: type(e) is cls) as info:
            call[0](*call[1:])
        return info
    return pytest.raises(cls, match=match, check=lambda e: type(e) is cls)
