"""torch's refusals for uint16 / uint32 / uint64, its "shell" dtypes.

torch 2.13 stores these dtypes, casts them, compares them for equality and multiplies them, but
builds many CPU kernels without them (``"max_all" not implemented for 'UInt32'``). NumPy would
happily compute every op on them, so the entry points of the ops torch refuses call
:func:`refuse_unsigned` first. The check is one set lookup and sits only on reduction and
creation paths, never on the float32 arithmetic fast paths.
"""
from __future__ import annotations

from .. import _dtype as D


def refuse_unsigned(dtype: D.dtype, kernel: str) -> None:
    """Raise torch's NotImplementedError when ``dtype`` is uint16/32/64 (``kernel``: torch's kernel name)."""
    if dtype in D._UNSIGNED_WIDE:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_type_name(dtype)}\': torch has no '
                                  f"CPU kernel for {dtype} here; convert first, e.g. x.to(torch.int64)")


_SHELL_NP = frozenset(d.np for d in D._UNSIGNED_WIDE)


def refuse_unsigned_array(np_dtype, kernel: str) -> None:
    """:func:`refuse_unsigned` for a forward that sees arrays (its NumPy dtype), on integer branches only."""
    if np_dtype in _SHELL_NP:
        refuse_unsigned(D._FROM_NP[np_dtype], kernel)
