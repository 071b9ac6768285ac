"""Text rendering of tensors, matching ``str(tensor)`` / ``repr(tensor)`` of PyTorch 2.13.

The layout rules below were worked out by comparing against real PyTorch output;
they are re-implemented here on top of NumPy so that leafgrad prints exactly what a
PyTorch user expects to see.

Overall shape of the output
---------------------------
``prefix + body + suffixes + ")"``, e.g. ``tensor([1., 2.], dtype=torch.float64)``.

* ``body`` is ``[]`` for an empty tensor, a single element for a 0-dim tensor, and
  nested brackets otherwise.  Inner rows are indented by the width of the (last line
  of the) prefix plus one per nesting level; rows of an n-d block are separated by
  ``n - 1`` newlines.
* Suffixes are, in order: ``size=(...)``, ``dtype=...``, then the caller's ``extras``
  (``requires_grad=True``, ``grad_fn=<...>``).  A suffix goes on a new line when the
  current line would become too long.

When is ``dtype=`` shown?
-------------------------
For a non-empty tensor PyTorch hides the dtype when it is one of the "default"
types a literal would produce: ``torch.float32`` (the default float dtype),
``torch.int64``, ``torch.bool`` and ``torch.complex64`` (the default complex dtype).
Every other dtype is shown.  :func:`default_hides_dtype` encodes this rule; the
caller decides and passes ``show_dtype``.

For an empty tensor there are no elements to hint at the type, so PyTorch shows the
dtype unless it is the default *float* dtype: ``tensor([], dtype=torch.int64)``.
:func:`format_tensor` applies that itself: with an empty array the dtype is shown
when ``show_dtype`` is true or the array is not of a real floating kind.

When is ``size=`` shown?
------------------------
* Empty tensors whose shape is not ``(0,)``: ``tensor([], size=(0, 3))``.
* Every non-empty tensor while ``edgeitems == 0``, because then a summarised body is
  just ``[...]`` and would otherwise say nothing about the shape.

Number formatting
-----------------
Integers and booleans print with ``str``.  Floating values are formatted from their
exact value widened to float64 (float16 goes through float32 first, which is exact).
One format is chosen for the whole tensor (for complex tensors: one for the real
parts, one for the imaginary parts) by looking at the nonzero finite values only:

* all of them integral -> "integer mode": ``1.``, ``-3.`` (no digits after the point),
  unless max/min of their magnitudes exceeds 1000 or the max exceeds 1e8, in which
  case scientific notation is used;
* otherwise fixed notation with ``precision`` digits, unless max/min > 1000,
  max > 1e8 or min < 1e-4, in which case scientific notation is used;
* ``sci_mode=True/False`` in the print options forces the choice, except when there
  are no nonzero finite values at all (then integer mode is kept).

Each float element is right-aligned to the widest formatted nonzero finite value;
zeros, nan and inf do not count towards that width (so ``-0.`` or ``nan`` may stick
out).  Integers and booleans are right-aligned to the widest of all printed values
(``tensor([ True, False])``).

Line wrapping
-------------
A 1-d row holds ``floor((linewidth - indent) / (width + 2))`` elements per line
(complex: ``width`` is real width + imaginary width + 1 for the ``j``), at least one.

Summarisation
-------------
When ``numel > threshold`` only ``edgeitems`` leading and trailing entries of every
dimension are printed, with ``...`` in between; the number format is chosen from the
printed entries only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator, Sequence

import numpy as np


__all__ = [
    "PrintOptions",
    "default_hides_dtype",
    "format_tensor",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]


# --------------------------------------------------------------------------- options


@dataclasses.dataclass
class PrintOptions:
    """Global knobs of tensor printing; same meaning and defaults as PyTorch's."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_PROFILES: dict[str, dict[str, float | int]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

PRINT_OPTS = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change the global print options, like ``torch.set_printoptions``.

    A known ``profile`` is applied first (an unknown one is ignored, as in PyTorch),
    then every explicitly given option overrides it.  ``sci_mode`` is always
    assigned, so any call without it goes back to automatic notation.
    """
    if profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """Return a copy of the current print options as a plain dict."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs) -> Iterator[None]:
    """Temporarily apply ``set_printoptions(**kwargs)``; restore the old options after."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(PRINT_OPTS, name, value)


# ------------------------------------------------------------------------ dtype rule

_DTYPES_HIDDEN_BY_DEFAULT = frozenset(
    {"torch.float32", "torch.int64", "torch.bool", "torch.complex64"}
)


def default_hides_dtype(dtype_name: str) -> bool:
    """True when PyTorch omits ``dtype=`` for a non-empty tensor of this dtype.

    These are the dtypes a Python literal turns into with the default dtype
    float32: float32, int64, bool and complex64.
    """
    return dtype_name in _DTYPES_HIDDEN_BY_DEFAULT


# ------------------------------------------------------------------- element format


class _RealFormatter:
    """Formats the elements of one real-valued (or bool) tensor to a common width.

    The notation is chosen once from a sample of the values (the ones that will be
    printed), so that all elements line up in columns.
    """

    def __init__(self, values: np.ndarray, opts: PrintOptions) -> None:
        self.precision = int(opts.precision)
        self.is_float = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if self.is_float:
            self._choose_float_notation(values, opts.sci_mode)
        elif values.size:
            self.width = max(len(str(v)) for v in values.tolist())

    def _choose_float_notation(self, values: np.ndarray, forced: bool | None) -> None:
        """Pick integer / fixed / scientific notation from the nonzero finite values."""
        with np.errstate(invalid="ignore", over="ignore"):
            sample = values[np.isfinite(values) & (values != 0)]
        if sample.size == 0:
            return  # nothing informative: integer mode, even if sci_mode is forced
        magnitudes = np.abs(sample)
        smallest = float(magnitudes.min())
        largest = float(magnitudes.max())
        wide_range = largest / smallest > 1000.0 or largest > 1.0e8
        self.int_mode = bool(np.all(sample == np.ceil(sample)))
        if self.int_mode:
            self.sci_mode = wide_range
        else:
            self.sci_mode = wide_range or smallest < 1.0e-4
        if forced is not None:
            self.sci_mode = forced
        self.width = max(len(self._render(v)) for v in sample.tolist())

    def _render(self, value: float | int | bool) -> str:
        """Format one value in the chosen notation, without padding."""
        if not self.is_float:
            return str(value)
        if self.sci_mode:
            return f"{value:.{self.precision}e}"
        if self.int_mode:
            text = f"{value:.0f}"
            # The trailing point marks a float; nan/inf already look non-integer.
            return text if math.isinf(value) or math.isnan(value) else text + "."
        return f"{value:.{self.precision}f}"

    def format(self, value: float | int | bool) -> str:
        """Format one value, right-aligned to the common width."""
        return self._render(value).rjust(self.width)


class _ElementFormatter:
    """Formats elements of a real or complex tensor; complex uses two real formatters."""

    def __init__(self, sample: np.ndarray, opts: PrintOptions) -> None:
        self.is_complex = sample.dtype.kind == "c"
        if self.is_complex:
            self.real = _RealFormatter(sample.real.astype(np.float64), opts)
            self.imag: _RealFormatter | None = _RealFormatter(
                sample.imag.astype(np.float64), opts
            )
        else:
            self.real = _RealFormatter(sample, opts)
            self.imag = None

    def width(self) -> int:
        """Printed width of one element (complex: real part, sign/imag part and 'j')."""
        if self.imag is None:
            return self.real.width
        return self.real.width + self.imag.width + 1

    def format(self, value) -> str:
        """Format one Python scalar (float, int, bool or complex)."""
        if self.imag is None:
            return self.real.format(value)
        real_text = self.real.format(value.real)
        imag_text = (self.imag.format(value.imag) + "j").lstrip()
        if imag_text[0] in "+-":
            return real_text + imag_text
        return real_text + "+" + imag_text


def _as_printable(array: np.ndarray) -> np.ndarray:
    """Widen floats to float64 and complex to complex128 before choosing a notation.

    Widening is exact, and it keeps the magnitude arithmetic in double precision as
    PyTorch does.  (Elements themselves reach the formatter through ``tolist`` /
    ``item``, which already yield exact Python floats.)
    """
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(np.float64)
    if kind == "c":
        return array.astype(np.complex128)
    return array


# --------------------------------------------------------------------- summarisation


def _printed_values(array: np.ndarray, edgeitems: int) -> np.ndarray:
    """Flat array of the values a summarised print shows (decides the number format)."""
    if array.ndim == 0:
        return array.reshape(1)
    if array.shape[0] > 2 * edgeitems:
        rows = [array[:edgeitems], array[len(array) - edgeitems :]]
        if array.ndim == 1:
            return np.concatenate(rows)
        rows = list(rows[0]) + list(rows[1])
    elif array.ndim == 1:
        return array
    else:
        rows = list(array)
    return np.concatenate([_printed_values(row, edgeitems) for row in rows])


# ------------------------------------------------------------------------ layout


def _vector_str(
    array: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter, opts: PrintOptions
) -> str:
    """Lay out a 1-d array, wrapping so that lines stay within ``linewidth``.

    The number of elements per line is fixed from the element width (plus ", "),
    so every line of a tensor holds the same count.
    """
    edge = opts.edgeitems
    if summarize and len(array) > 2 * edge:
        items = [fmt.format(v) for v in array[:edge].tolist()]
        items.append(" ...")
        items += [fmt.format(v) for v in array[len(array) - edge :].tolist()]
    else:
        items = [fmt.format(v) for v in array.tolist()]
    element_length = fmt.width() + 2
    per_line = max(1, int(math.floor((opts.linewidth - indent) / element_length)))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block_str(
    array: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter, opts: PrintOptions
) -> str:
    """Recursively lay out an array of any rank (0-dim gives a bare element)."""
    if array.ndim == 0:
        return fmt.format(array.item())
    if array.ndim == 1:
        return _vector_str(array, indent, summarize, fmt, opts)
    edge = opts.edgeitems
    if summarize and array.shape[0] > 2 * edge:
        rows = [_block_str(r, indent + 1, summarize, fmt, opts) for r in array[:edge]]
        rows.append("...")
        rows += [
            _block_str(r, indent + 1, summarize, fmt, opts)
            for r in array[len(array) - edge :]
        ]
    else:
        rows = [_block_str(r, indent + 1, summarize, fmt, opts) for r in array]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _body_str(array: np.ndarray, indent: int, opts: PrintOptions) -> str:
    """The bracketed data part of a non-empty tensor."""
    summarize = array.size > opts.threshold
    if summarize and opts.edgeitems == 0 and array.ndim > 0:
        return "[...]"
    sample = _printed_values(array, opts.edgeitems) if summarize else array.reshape(-1)
    fmt = _ElementFormatter(_as_printable(sample), opts)
    return _block_str(array, indent, summarize, fmt, opts)


def _append_suffixes(text: str, suffixes: Sequence[str], indent: int, linewidth: int) -> str:
    """Append ``, suffix`` items and the closing parenthesis, wrapping long lines.

    PyTorch measures the line holding the data as two characters longer than it
    is; that quirk is kept because it decides where the wrap happens.
    """
    parts = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _size_suffix(shape: tuple[int, ...]) -> str:
    """``size=(2, 3)`` written like Python prints a tuple (``(5,)``, ``()``)."""
    return "size=" + str(tuple(int(d) for d in shape))


def format_tensor(
    array: np.ndarray,
    *,
    dtype_name: str,
    show_dtype: bool,
    extras: Sequence[str] = (),
    prefix: str = "tensor(",
) -> str:
    """Render ``array`` exactly as PyTorch 2.13 renders a tensor with the same data.

    ``dtype_name`` is PyTorch's name (``"torch.float64"``), printed as
    ``dtype=...`` when ``show_dtype`` is true (see :func:`default_hides_dtype`;
    empty arrays follow their own rule, see the module docstring).  ``extras`` are
    already formatted items placed after the dtype, e.g. ``["requires_grad=True"]``.
    The continuation indent is the length of the last line of ``prefix``, so
    ``"Parameter containing:\\ntensor("`` lays out like ``"tensor("``.
    """
    array = np.asarray(array)
    if array.dtype.kind == "V":  # (exact in float32, whose layout rules torch's printing shares)
        array = array.astype(np.float32)
    opts = PRINT_OPTS
    indent = len(prefix) - prefix.rfind("\n") - 1
    suffixes: list[str] = []
    if array.size == 0:
        if array.ndim != 1:
            suffixes.append(_size_suffix(array.shape))
        if show_dtype or array.dtype.kind != "f":
            suffixes.append("dtype=" + dtype_name)
        body = "[]"
    else:
        if opts.edgeitems == 0:
            suffixes.append(_size_suffix(array.shape))
        if show_dtype:
            suffixes.append("dtype=" + dtype_name)
        body = _body_str(array, indent, opts)
    suffixes.extend(extras)
    return _append_suffixes(prefix + body, suffixes, indent, opts.linewidth)
