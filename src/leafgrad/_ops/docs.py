"""Names and docstrings for the methods bound onto Tensor from the op table.

The binding helpers in ``methods.py`` build closures (``add_`` is ``_binary_(ADD, "add_")``), which
would show in ``help()`` and tracebacks as ``_binary_.<locals>.m`` with no docstring. After binding,
:func:`document` gives each such function its public ``__name__``/``__qualname__`` and, where it
has none, a docstring generated from what the op table knows: the top-level function it is the
method form of, the autograd node(s) it records and what they save, and the in-place rules.

Generating them reads every function's code and closure, which cost a fifth of ``import leafgrad``;
so ``tools/gen_stubs.py`` writes the generated texts into ``_docstrings.py`` (a test fails when that
table is stale) and import only looks them up. A name the table lacks (an op added since) still gets
its docstring, generated on the spot.
"""
from __future__ import annotations

import inspect
import types

from .registry import OpDef

try:
    from ._docstrings import DOCS as _TABLE
except ImportError:  # (the table is being regenerated)
    _TABLE = {}

#: every docstring generated this run: key ("Tensor.add_", "leafgrad.logical_and") -> (maker, *args),
#: so that ``tools/gen_stubs.py`` can regenerate the table from the makers themselves
GENERATED: dict[str, tuple] = {}


def _generated_doc(key: str, maker, *args) -> str:
    GENERATED[key] = (maker, *args)
    doc = _TABLE.get(key)
    return doc if doc is not None else maker(*args)

_INPLACE_RULES = (
    "In place: writes into this tensor and returns it; bumps its version counter, so a node that "
    "saved it earlier refuses to run backward; refused (RuntimeError) on a leaf that requires grad "
    "while grad mode is on; on a view the base's history is rewritten as well.")


def _opdefs(fn) -> list[OpDef]:
    """The op-table entries ``fn`` names in its code (its globals and closure): the nodes it records."""
    found: list[OpDef] = []
    fn = inspect.unwrap(fn)  # (through functools.wraps decorators: numpy_kwargs)
    code = getattr(fn, "__code__", None)
    if code is None:
        return found
    g = getattr(fn, "__globals__", {})
    cands = [g.get(n) for n in code.co_names]
    cands += [c.cell_contents for c in (fn.__closure__ or ()) if _filled(c)]
    for c in cands:
        if isinstance(c, OpDef) and c not in found:
            found.append(c)
    return found


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _autograd_line(ops: list[OpDef]) -> str:
    if not ops:
        return ""
    parts = []
    for op in ops:
        saved = tuple(getattr(op.node_cls, "_saved_names", ()) or ())
        parts.append(f"``{op.name}``" + (f" (saves {', '.join(saved)})" if saved else " (saves nothing)"))
    return "Autograd: records " + " or ".join(parts) + " as the result's grad_fn."


def method_doc(name: str, fn) -> str:
    """A docstring for ``Tensor.name`` bound to ``fn`` (which may be an op module's own function)."""
    base = name[:-1] if name.endswith("_") else name
    lines: list[str] = []
    if base != name:
        lines.append(f"``t.{name}(...)``: the in-place form of ``t.{base}(...)``, torch's semantics.")
    elif "<" not in fn.__qualname__ and fn.__qualname__ == fn.__name__ and fn.__module__.startswith(__package__):
        lines.append(f"``leafgrad.{fn.__name__}(input, ...)``, also the method ``input.{name}(...)``: "
                     f"``torch.{fn.__name__}``'s semantics, on leafgrad's arrays.")
    else:
        lines.append(f"``t.{name}(...)``: ``torch.Tensor.{name}``'s semantics, on leafgrad's arrays.")
    auto = _autograd_line(_opdefs(fn))
    if auto:
        lines += ["", auto]
    if base != name:
        lines += ["", _INPLACE_RULES]
    if _callable_without_arguments(fn):
        lines += ["", "Example::", "", f"    >>> leafgrad.ones(3).{name}()"]
    return "\n".join(lines)


def _callable_without_arguments(method) -> bool:
    """Whether ``t.method()`` needs no argument: every positional parameter after ``self`` has a
    default. Read from the code object (``inspect.signature`` costs ~20 µs a method, and this runs
    for every method at import)."""
    fn = inspect.unwrap(method)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    return code.co_argcount - len(fn.__defaults__ or ()) <= 1


# the attributes whose getter is state rather than an op (their text here keeps _tensor.py small)
PROPERTY_DOCS = {
    "dtype": "The element type (``leafgrad.float32``, ...): torch's dtype objects.",
    "shape": "The size as a ``Size`` (a tuple): same as ``t.size()``.",
    "ndim": "The number of dimensions: same as ``t.dim()``.",
    "device": "Where the data lives: always ``device('cpu')`` in leafgrad.",
    "is_cuda": "False: leafgrad computes on the CPU only.",
    "layout": "``torch.strided``: leafgrad tensors are dense.",
    "is_sparse": "False: leafgrad has no sparse tensors.",
    "requires_grad": "Whether autograd records ops on this tensor. Settable on leaves only (a non-leaf's "
                     "flag follows its inputs); setting it on an integer tensor raises RuntimeError.",
    "grad_fn": "The node that made this tensor (``AddBackward0``, ...), or None for a leaf.",
    "is_leaf": "True for a tensor not made by a recorded op: backward accumulates into leaves' ``.grad``.",
    "output_nr": "Which output of its grad_fn this tensor is (0 for single-output ops).",
    "grad": "The gradient backward accumulated into this leaf (None before any backward). A non-leaf "
            "has one only after ``retain_grad()``; reading it otherwise warns, as torch does.",
    "retains_grad": "Whether ``retain_grad()`` was called on this non-leaf.",
    "data": "This tensor's values as a tensor with no history that shares its memory; writes to it are "
            "not seen by autograd (prefer ``detach()``).",
    "volatile": "Always False: the pre-0.4 flag, kept for old code (use ``no_grad``).",
    "T": "The transpose: the dimensions reversed (a view; warns for other than 2-D, as torch does).",
    "mT": "The last two dimensions swapped (a view): matrix transpose of a batch.",
    "H": "The conjugate transpose of a matrix.",
    "real": "The real part (a tensor).",
    "imag": "The imaginary part (a tensor).",
}


def document(cls: type, names=None) -> None:
    """Name every closure or private helper bound on ``cls`` after its first public name
    (``Tensor.add_``, not ``_binary_.<locals>.m``), and give each bound function that has no
    docstring one generated from the op table. ``names``: only these (methods bound later, by
    an op family loaded after methods.py)."""
    seen: set[int] = set()
    items = list(vars(cls).items()) if names is None else [(n, vars(cls)[n]) for n in names if n in vars(cls)]
    for name, value in items:
        if isinstance(value, property) and not value.__doc__ and not name.startswith("_"):
            doc = PROPERTY_DOCS.get(name) or f"``torch.Tensor.{name}``'s attribute."
            setattr(cls, name, property(value.fget, value.fset, value.fdel, doc))
        fn = value.fget if isinstance(value, property) else value
        if not isinstance(fn, types.FunctionType) or id(fn) in seen:
            continue
        seen.add(id(fn))
        if "<" in fn.__qualname__ or (fn.__name__.startswith("_") and not fn.__name__.startswith("__")):
            fn.__name__ = name
            fn.__qualname__ = f"{cls.__name__}.{name}"
        if not fn.__doc__ and not name.startswith("_") and not isinstance(value, property):
            fn.__doc__ = _generated_doc(f"{cls.__name__}.{name}", method_doc, name, fn)


def document_functions(namespace: dict, prefix: str = "leafgrad") -> None:
    """The same for a namespace's public functions (``leafgrad.logical_and`` is made by a
    factory): their public name where they carry a factory's, and a generated docstring where
    they have none."""
    for name, fn in list(namespace.items()):
        if name.startswith("_") or not isinstance(fn, types.FunctionType):
            continue
        if "<" in fn.__qualname__:
            fn.__name__ = fn.__qualname__ = name
        if not fn.__doc__:
            fn.__doc__ = _generated_doc(f"{prefix}.{name}", function_doc, prefix, name, fn)


def function_doc(prefix: str, name: str, fn) -> str:
    """A docstring for the top-level function ``prefix.name`` (``fn``), from the op table."""
    lines = [f"``{prefix}.{name}(...)``: ``torch.{name}``'s semantics, on leafgrad's arrays."]
    auto = _autograd_line(_opdefs(fn))
    return "\n".join(lines + (["", auto] if auto else []))
