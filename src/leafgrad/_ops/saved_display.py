"""``grad_fn._saved_<name>`` as torch shows it, for ops whose formulas keep their values in another form.

A few nodes save what leafgrad's formulas need (layer norm's variance, a convolution's padding as
(before, after) pairs, a transposed convolution's output shape) where torch saves other values
(the inverse standard deviation, one padding per dim, the output padding), or torch shows values
leafgrad's formulas never read (embedding's ``sparse``, a convolution's ``transposed``). This
module gives a node class torch's attribute set: its formulas keep their parameter names and
positions; only the properties users read change.
"""
from __future__ import annotations

from typing import Callable

from .registry import OpDef, _saved_value


def show_saved(op: OpDef, names: tuple, *, hide: tuple = (), shown: dict[str, Callable] | None = None) -> None:
    """Name ``op``'s saved values ``names`` (one per saved value, in order), then drop the properties of
    the ``hide`` names (values kept for a formula or for another property, which torch does not show)
    and add ``shown``: ``{name: read(values)}``, where ``values(name)`` reads the saved value ``name``."""
    cls = op.node_cls
    cls._saved_names = tuple(names)  # (reinstalls one property per name: see registry._OpNodeType)
    for name in hide:
        type.__delattr__(cls, "_saved_" + name)
    for name, read in (shown or {}).items():
        type.__setattr__(cls, "_saved_" + name, property(
            lambda node, read=read: read(lambda n: _saved_value(node, cls._saved_names.index(n)))))


def _spatial(v, values) -> tuple:
    """A geometry tuple of a convolution's node for its own spatial dims: a 1-d convolution runs as a
    2-d one over a height of 1, so its tuples carry one extra leading dim that torch's do not."""
    return tuple(values)[-(len(v("input_sizes")) - 2):]


def _output_padding(v) -> tuple:
    """A transposed convolution's output padding: what its output shape has beyond the input's reach."""
    out, size, ks = v("output_shape")[2:], v("input_sizes")[2:], v("weight_sizes")[2:]
    geometry = zip(size, ks, out, _spatial(v, v("stride")), _spatial(v, v("pad")), _spatial(v, v("dilation")))
    return tuple(o - ((h - 1) * s - top - bottom + d * (k - 1) + 1) for h, k, o, s, (top, bottom), d in geometry)


def show_conv_saved(op: OpDef, names: tuple, transposed: bool = False) -> None:
    """Give a ConvolutionBackward0 node torch's saved values: one padding per spatial dim (the smaller
    side where 'same' pads unevenly: torch pads the input for the rest), stride and dilation per spatial
    dim, ``transposed``, ``output_padding`` and ``bias_sym_sizes_opt`` ((0,) without a bias); the
    shapes the formulas and these properties read (``*_sizes``, ``output_shape``) stay hidden."""
    shown = {
        "stride": lambda v: _spatial(v, v("stride")),
        "dilation": lambda v: _spatial(v, v("dilation")),
        "padding": lambda v: tuple(min(p) for p in _spatial(v, v("pad"))),
        "transposed": lambda v: transposed,
        "output_padding": _output_padding if transposed else lambda v: (0,) * (len(v("input_sizes")) - 2),
        "bias_sym_sizes_opt": lambda v: tuple(v("bias_sizes")) if "bias_sizes" in names and v("bias_sizes")
        else (0,),
    }
    hide = tuple(n for n in names if n.endswith("_sizes") or n in ("pad", "output_shape"))
    show_saved(op, names, hide=hide, shown=shown)
