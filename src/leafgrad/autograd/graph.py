"""The backward graph: Node, AccumulateGrad, SavedTensor and hook handles.

A Node is one recorded op seen from the backward side. It knows only its
``next_functions`` (one ``(node, input_nr)`` edge per forward input, kept flat in ``_next``), the shapes and
dtypes of those inputs (so the engine can reduce broadcast gradients in one place)
and its saved values. The engine never needs to know what op a Node stands for.

Nothing here holds a reference back to a forward output, so a graph is a tree of
plain references, freed by reference counting the moment its output is dropped.
"""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from typing import Any, Callable

from .._dtype import scalar_type_name
from ..errors import format_site, raise_autograd

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "next_sequence_nr"]

# filled in by _tensor.py and engine.py, which import this module (no import per call)
_LATE: dict = {}

_seq_counter = itertools.count()
next_sequence_nr = _seq_counter.__next__


class RemovableHandle:
    """Returned by every ``register_*hook``; holds the hook dict weakly so it never pins a graph."""

    __slots__ = ("_dict_ref", "id")
    _ids = itertools.count()

    def __init__(self, hooks_dict: dict) -> None:
        self._dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        d = self._dict_ref()
        if d is not None:
            d.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _HookDict(OrderedDict):
    """An OrderedDict that can be weakly referenced (plain dicts cannot)."""


def _add_hook(d: _HookDict, fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(d)
    d[handle.id] = fn
    return handle


def flat_edges(edges) -> tuple:
    """``((node, nr), (node, nr), ...)`` as the flat tuple a node keeps (see ``Node._next``)."""
    if len(edges) == 1:
        e = edges[0]
        return e if e.__class__ is tuple else tuple(e)
    return tuple([x for e in edges for x in e])


class Node:
    """Base of every backward node. Subclasses implement ``apply(grads) -> tuple``."""

    # ``_next``: the edges flat, ``(node0, input_nr0, node1, input_nr1, ...)``; ``_site``: provenance.
    # One tuple per node instead of a tuple of pairs: every container a graph keeps alive is one more
    # object for each of the cyclic GC's collections to traverse (a long forward pass triggers many),
    # and a one-input node's ``_next`` is the ``(node, nr)`` edge itself, with nothing to build.
    __slots__ = ("_next", "_seq", "_in_meta", "_extra", "_site", "__weakref__")

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """One ``(node, input_nr)`` pair per forward input, as torch's (``(None, 0)``: no gradient flows there)."""
        n = self._next
        it = iter(n)
        return tuple(zip(it, it))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        self._next = flat_edges(edges)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- what the engine calls
    def apply(self, grads: list) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def release_variables(self, site=None) -> None:
        """Free saved tensors after a backward without retain_graph (``site``: where that backward ran)."""

    def __call__(self, *grads):
        """Run this node's backward formula directly (as torch's ``grad_fn(grad)``)."""
        return self.apply(list(grads))

    # -- the extras live in one lazily made dict to keep recorded nodes small
    def _x(self) -> dict:
        extra = self._extra
        if extra is None:
            extra = self._extra = {}
        return extra

    @property
    def metadata(self) -> dict:
        return self._x().setdefault("metadata", {})

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        return _add_hook(self._x().setdefault("post", _HookDict()), fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        return _add_hook(self._x().setdefault("pre", _HookDict()), fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        hooks = self._x().setdefault("tensor_pre", {})
        return _add_hook(hooks.setdefault(output_nr, _HookDict()), fn)

    def _set_retains_grad(self, output_nr: int, tensor) -> None:
        self._x().setdefault("retains", {})[output_nr] = weakref.ref(tensor)

    def _hooks_dict(self, key: str):
        extra = self._extra
        return None if extra is None else extra.get(key)

    @property
    def _sequence_nr(self) -> int:
        return self._seq


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: writes (or adds into) ``variable.grad``."""

    __slots__ = ("variable",)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def __init__(self, variable) -> None:
        self.variable = variable
        self._next = ()
        self._seq = float("inf")  # run as soon as ready: torch gives it UINT64_MAX
        self._in_meta = ()
        self._extra = None
        self._site = None

    def apply(self, grads: list) -> tuple:
        _LATE["accumulate"](self.variable, grads[0])
        return ()


_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                    "normal tensor and use it in autograd.")


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    An op's own output is stored as its array plus version counter, not as the
    tensor, because the tensor points at the node and the node would point back: that
    cycle would keep the graph alive until the cyclic GC runs.
    """

    __slots__ = ("_tensor", "_data", "_vc", "_version", "_is_output", "_output_nr", "_requires_grad",
                 "_freed_site", "_site")

    def __init__(self, tensor, is_output: bool, site=None) -> None:
        vc = tensor._vc
        if vc is None:  # (vc_of(tensor), written out without its __init__ call: an op's result has none yet)
            vc = tensor._vc = _new(_VersionCounter)
            vc.v = 0
            vc.last_site = None
        self._vc = vc
        self._version = vc.v
        self._is_output = is_output
        self._site = site
        self._freed_site = None
        if is_output:
            self._tensor = None
            self._data = tensor._data
            self._output_nr = tensor._output_nr
            self._requires_grad = tensor._requires_grad
        else:
            if tensor._meta is not None and tensor._meta.inference:  # (torch's rule; see the message)
                raise RuntimeError(_INFERENCE_SAVED)
            self._tensor = tensor
            self._data = None

    def release(self, site=None) -> None:
        self._tensor = None
        self._data = None
        self._freed_site = site or True

    def peek(self):
        """The saved tensor without checks, or None once freed (for drawing and explaining)."""
        if self._freed_site is not None:
            return None
        return self._tensor if not self._is_output else self._data

    @property
    def version_saved(self) -> int:
        return self._version

    @property
    def version_now(self) -> int:
        return self._vc.v

    def unpack(self, node: Node | None = None):
        if self._freed_site is not None:
            raise_backward_twice(node, self._freed_site)
        vc = self._vc
        if vc.v != self._version:
            raise_saved_modified(self, node)
        if not self._is_output:
            return self._tensor
        t = _new(_TensorType)  # (Tensor._make, written out: this runs for nearly every node of a backward)
        t._data = self._data
        t._vc = vc
        t._grad = t._base = t._accumulator = t._meta = None
        t._view_v = 0
        if self._requires_grad and node is not None:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = self._output_nr
        else:
            t._requires_grad = False
            t._grad_fn = None
            t._output_nr = 0
        return t

    def unpack_data(self, node: Node | None = None):
        """``unpack``'s checks, then the saved array itself: for formulas running on raw arrays."""
        if self._freed_site is not None:
            raise_backward_twice(node, self._freed_site)
        if self._vc.v != self._version:
            raise_saved_modified(self, node)
        return self._data if self._is_output else self._tensor._data

    def shape_dtype(self) -> tuple:
        arr = self._data if self._is_output else (self._tensor._data if self._tensor is not None else None)
        return (None, None) if arr is None else (tuple(arr.shape), arr.dtype)


# set by _tensor.py (which imports this module): unpack rebuilds saved outputs, saving makes counters
_TensorType = None  # Tensor
_VersionCounter = None
_new = object.__new__


def raise_backward_twice(node, freed_site) -> None:
    where = ""
    if isinstance(freed_site, tuple):
        where = f" The graph was freed by the backward() at {format_site(freed_site)}."
    raise_autograd(
        "LG104",
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed). "
        f"{node.name() if node is not None else 'A node'} needed a tensor it had saved during the forward "
        f"pass, but the earlier backward() released it.{where} Fixes: pass retain_graph=True to the first "
        "backward() if you really need to run backward twice; or recompute the forward pass before each "
        "backward(); or, for a value carried across iterations (an RNN hidden state), call .detach() on it "
        "so each iteration builds a fresh graph.",
        node=node, freed_site=freed_site if isinstance(freed_site, tuple) else None)


def raise_saved_modified(saved: SavedTensor, node) -> None:
    from .._dtype import from_numpy_dtype
    shape, np_dtype = saved.shape_dtype()
    type_name = _legacy_type_name(from_numpy_dtype(np_dtype)) if np_dtype is not None else "Tensor"
    shape_txt = "[" + ", ".join(str(s) for s in shape) + "]" if shape is not None else "[]"
    op = node.name() if node is not None else "an op"
    op_short = op[:-9] if op.endswith("Backward0") or op.endswith("Backward1") else op
    role = f"which is output 0 of {op_short}" if saved._is_output else f"which was saved by {op}"
    last = saved._vc.last_site
    where = f" The in-place change was made at {format_site(last)}." if last else ""
    created = f" It was saved at {format_site(saved._site)}." if saved._site else ""
    raise_autograd(
        "LG103",
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{type_name} {shape_txt}], {role}, is at version {saved._vc.v}; expected version {saved._version} "
        f"instead.{where}{created} {op} needs the value this tensor had when it was saved. Fixes: use the "
        "out-of-place form (x = x + 1 instead of x += 1 or x.add_(1)); or .clone() the tensor before "
        "changing it; remember that .detach() and .data share memory, so writing through them counts too.",
        node=node, saved=saved, site=last, version_now=saved._vc.v, version_saved=saved._version)


def _legacy_type_name(d) -> str:
    return f"torch.{scalar_type_name(d)}Tensor"


def short_name(node: Any) -> str:
    """A node's torch name without the ``torch::autograd::`` prefix, for drawings and explanations."""
    try:
        name = node.name()
    except Exception:
        name = type(node).__name__
    return name[17:] if name.startswith("torch::autograd::") else name

