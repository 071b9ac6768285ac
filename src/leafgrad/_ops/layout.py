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

__all__ = ["contiguous_output", "c_order", "memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "is_in_format", "suggested_format", "check_rank", "in_format", "copy_in_format",
           "input_format_output", "laid_out_like", "common_format_output"]


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


def _relayout(ops, layout_of=None) -> None:
    """Wrap each op's forward so that every array it returns is laid out as ``layout_of(args)`` (the
    forward's arguments, ``xp`` first) says: a memory format; ``layout_of`` None means row-major.
    The one mechanism behind ``contiguous_output``, ``input_format_output`` and ``common_format_output``;
    an op wrapped once is left alone."""
    for op in ops:
        forward = op.forward
        if getattr(forward, "_relaid", False):
            continue

        def run(*args, forward=forward):
            out = forward(*args)
            fmt = contiguous_format if layout_of is None else layout_of(args)
            if out.__class__ is tuple or out.__class__ is list:  # (max(dim), var_mean, pools: every output)
                return out.__class__(_as(o, fmt) for o in out)
            return _as(out, fmt)
        run.__wrapped__ = forward
        run.__name__ = getattr(forward, "__name__", "forward")
        run._relaid = True
        op.forward = run


def contiguous_output(*ops) -> None:
    """Make each op's forward return C-contiguous arrays (see the module's docstring)."""
    _relayout(ops)


# ----------------------------------------------------------------------------- memory formats
class memory_format:  # noqa: N801  (torch's class name)
    """A tensor memory layout as torch names it: ``torch.contiguous_format`` (row-major),
    ``torch.channels_last`` (NCHW data stored as NHWC: a 4-d tensor's channels innermost),
    ``torch.channels_last_3d`` (the same for 5-d NCDHW) and ``torch.preserve_format`` (keep the
    input's layout, the default of ``clone`` and the ``*_like`` constructors)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):  # (pickled by name: the same object comes back)
        return (_format_named, (self._name,))


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
_FORMATS = {f._name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}
# the dims from innermost to outermost in each channels-last layout, and the rank it needs
_CL_ORDER = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}


def _format_named(name: str) -> memory_format:
    return _FORMATS[name]


def is_in_format(a, fmt) -> bool:
    """``Tensor.is_contiguous(memory_format=fmt)`` on an array: torch's rule, where a size-1 dim's
    stride does not count (an array of a single channel is both row-major and channels-last)."""
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return bool(a.flags.c_contiguous)
    order, rank = _CL_ORDER[fmt]
    if a.ndim != rank:
        return False
    expected = a.itemsize
    for d in order:
        n = a.shape[d]
        if n != 1:
            if a.strides[d] != expected:
                return False
            expected *= n
    return True


def _strides_like_channels_last(a) -> bool:
    """torch's ``is_channels_last_strides_2d``/``_3d``: are ``a``'s strides ordered as a channels-last
    layout (channels innermost), though not necessarily dense? Decides what ``suggested_format`` says."""
    fmt = channels_last if a.ndim == 4 else channels_last_3d if a.ndim == 5 else None
    if fmt is None:
        return False
    order, _ = _CL_ORDER[fmt]
    strides, shape = a.strides, a.shape
    if strides[1] == 0:
        return False
    least = 0
    for d in order:
        if shape[d] == 0 or strides[d] < least:
            return False
        if d == 0 and least == strides[1]:  # (N and C with one stride: ambiguous, so row-major wins)
            return False
        least = strides[d]
        if shape[d] > 1:
            least *= shape[d]
    return True


def suggested_format(a) -> memory_format:
    """torch's ``suggest_memory_format``: channels-last for a 4-d (5-d) array laid out channels
    innermost, else row-major; what the NN kernels (conv, pooling, batch norm, ...) give their result."""
    if a.ndim < 4 or a.flags.c_contiguous or not _strides_like_channels_last(a):
        return contiguous_format
    return channels_last if a.ndim == 4 else channels_last_3d


def check_rank(fmt, ndim: int) -> None:
    """torch refuses a channels-last format for a tensor of another rank."""
    if fmt in _CL_ORDER and ndim != _CL_ORDER[fmt][1]:
        rank = _CL_ORDER[fmt][1]
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format: this tensor has {ndim} dims; "
                           f"{fmt!r} lays out {'NCHW' if rank == 4 else 'NCDHW'} data with the channels innermost.")


def in_format(a, fmt):
    """``a``'s values laid out as ``fmt`` says (``a`` itself when it already is): a method-only copy,
    so a 16-bit array keeps its class. ``preserve_format`` keeps a dense layout's strides and packs
    any other in the same dim order, as torch's ``clone`` (NumPy's ``order="K"``)."""
    if fmt is None or fmt is preserve_format:
        if a.flags.c_contiguous:
            return a
        sug = suggested_format(a)
        return in_format(a, sug) if sug is not contiguous_format else a.copy(order="K")
    if is_in_format(a, fmt):
        return a if fmt is not contiguous_format else c_order(a)
    if fmt is contiguous_format:
        return a.copy()
    order, rank = _CL_ORDER[fmt]
    to_last = (0,) + tuple(range(2, rank)) + (1,)  # (NCHW -> NHWC, copied row-major, viewed back as NCHW)
    back = (0, rank - 1) + tuple(range(1, rank - 1))
    return a.transpose(to_last).copy().transpose(back)


def copy_in_format(a, fmt):
    """A fresh copy of ``a`` laid out as ``fmt`` says (``clone(memory_format=...)``)."""
    out = in_format(a, fmt)
    return a.copy(order="K") if out is a else out


def _as(o, fmt):
    if fmt is contiguous_format or o.ndim != _CL_ORDER[fmt][1]:
        return c_order(o)
    return in_format(o, fmt)


def input_format_output(*ops, operands: int = 1) -> None:
    """Make each op's result channels-last when its input (or, with ``operands=2``, its weight) is,
    and contiguous otherwise: torch's NN kernels (conv, pooling, batch norm, interpolation, padding)
    keep a channels-last input's layout, as the CPU's channels-last kernels are chosen for it."""
    def layout_of(args):
        for a in args[1:1 + operands]:  # (conv: the input, then the weight; torch's mkldnn rule: either one)
            fmt = suggested_format(a) if getattr(a, "ndim", 0) >= 4 else contiguous_format
            if fmt is not contiguous_format:
                return fmt
        return contiguous_format
    _relayout(ops, layout_of)


def laid_out_like(arr, proto, fmt=None):
    """``arr`` (a fresh row-major array of ``proto``'s shape) laid out as torch lays out the result of
    ``zeros_like(proto, memory_format=fmt)`` and the other ``*_like`` constructors: by default
    (``preserve_format``) in ``proto``'s own dim order, as NumPy's ``order="K"``."""
    if fmt is None or fmt is preserve_format:
        if proto.flags.c_contiguous:
            return arr
        sug = suggested_format(proto)
        if sug is not contiguous_format:
            return in_format(arr, sug)
        strides = proto.strides
        perm = sorted(range(proto.ndim), key=lambda d: -abs(strides[d]))  # (outermost first; stable on ties)
        back = sorted(range(proto.ndim), key=perm.__getitem__)
        return arr.transpose(perm).copy().transpose(back)
    check_rank(fmt, arr.ndim)
    return in_format(arr, fmt)


def common_format_output(*ops) -> None:
    """Make each variadic op's result (``cat``) channels-last when every input is, else contiguous, as torch's."""
    def layout_of(args):
        fmt = None
        for a in args[1]:  # (torch's cat: one row-major input, or two layouts, make the result row-major)
            f = suggested_format(a)
            if f is contiguous_format or (fmt is not None and f is not fmt):
                return contiguous_format
            fmt = f
        return fmt or contiguous_format
    _relayout(ops, layout_of)


def _dense(a) -> bool:
    """Non-overlapping and dense: the elements fill one block of memory, in some dim order."""
    expected = a.itemsize
    for stride, n in sorted(zip(a.strides, a.shape)):
        if n != 1:
            if stride != expected:
                return False
            expected *= n
    return True


def grad_for_leaf(g, leaf):
    """A new ``.grad`` array holding ``g`` for a leaf whose array ``leaf`` is not row-major: torch's
    layout contract for accumulated gradients, laid out as the leaf when the leaf is dense (a
    transposed or channels-last parameter), row-major when it is not (a strided slice)."""
    if not _dense(leaf):
        return g.copy()
    out = laid_out_like(g, leaf)
    return out if out is not g else g.copy(order="K")
