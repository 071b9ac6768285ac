"""Allocation failures reported as torch's CPU allocator reports them.

NumPy raises MemoryError (or a ValueError for sizes past what an address can hold); torch raises
RuntimeError from its allocator, with the byte count, and a RuntimeError before allocating when
the byte count overflows. Code that catches ``RuntimeError`` (or reads the byte count) sees the same.
"""
from __future__ import annotations

_MAX_BYTES = 2 ** 63 - 1


def alloc_error(nbytes: int) -> RuntimeError:
    return RuntimeError(
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. This machine cannot "
        "hold a tensor that size: make it smaller (a smaller batch, or process it in chunks).")


def alloc_error_from(exc: MemoryError) -> RuntimeError:
    """torch's error for NumPy's MemoryError, whose ``shape`` and ``dtype`` give the byte count."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    n = 0
    if shape is not None and dtype is not None:
        n = dtype.itemsize
        for s in shape:
            n *= int(s)
    return alloc_error(n)


def check_size(shape: tuple, itemsize: int) -> None:
    """torch's refusal of a size whose byte count overflows, before anything is allocated."""
    n = itemsize
    for s in shape:
        n *= s
    if n > _MAX_BYTES:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")


def allocate(make, shape: tuple, itemsize: int):
    """``make()`` (which allocates ``shape`` of ``itemsize`` bytes each), failing as torch's allocator."""
    check_size(shape, itemsize)
    try:
        return make()
    except MemoryError:
        n = itemsize
        for s in shape:
            n *= s
        raise alloc_error(n) from None
