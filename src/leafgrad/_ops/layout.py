"""The ops whose result is contiguous whatever their input's layout, as torch's kernels make it.

NumPy keeps an input's memory order through most calls (``order="K"``): a reduction over a
transposed array returns a column-major result, and so do softmax, cumsum, roll, tril,
concatenate and masked_fill's ``where``. torch's kernels for these ops read their input as
contiguous and allocate a contiguous result. The difference is visible to a program:
``x.t().sum(0).view(-1)``, ``F.softmax(s.transpose(1, 2), -1).view(b, -1)`` or
``torch.cat([a.mT, b.mT]).view(-1)`` work in torch and would raise "view size is not compatible
with input tensor's size and stride" here; ``stride()`` and ``is_contiguous()`` would differ too.

Element-wise ops are not listed: torch's TensorIterator keeps the inputs' layout there, as NumPy does.
Each module marks its own ops after defining them (``contiguous_output(SUM_DIM, ...)``), so a
family that loads on first use (``_ops/lazy.py``) marks its ops when it loads.
"""
from __future__ import annotations

__all__ = ["contiguous_output", "c_order"]


def c_order(a):
    """``a`` itself when it is C-contiguous (nearly always: no copy), else a C-ordered copy.

    A size-1 dim's stride is torch's too, the product of the later sizes: NumPy counts an array
    with any stride there as contiguous and leaves a reduction's kept dim (``keepdim=True``) with
    whatever stride it had, which ``stride()`` would show. A reshape from 1-d sets them afresh.
    Methods rather than ``np.ascontiguousarray``: they keep the array's class (the 16-bit
    arrays of ``_lowp.py``, CuPy's), and ``copy``'s default order is C."""
    if not a.flags.c_contiguous:
        return a.copy()
    if 1 in a.shape:
        return a.reshape(-1).reshape(a.shape)  # (a view: no data is copied)
    return a


def _contiguous(forward):
    def run(*args):
        out = forward(*args)
        if out.__class__ is tuple or out.__class__ is list:  # (max(dim), var_mean: every output)
            return out.__class__(c_order(o) for o in out)
        return c_order(out)
    run.__wrapped__ = forward
    run.__name__ = getattr(forward, "__name__", "forward")
    return run


def contiguous_output(*ops) -> None:
    """Make each op's forward return C-contiguous arrays (see the module's docstring)."""
    for op in ops:
        if not getattr(op.forward, "_contiguous", False):
            op.forward = _contiguous(op.forward)
            op.forward._contiguous = True
