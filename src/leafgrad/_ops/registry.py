"""``defop``: declare an op once (NumPy forward + per-input backward formulas), and ``apply`` it.

Like PyTorch's ``derivatives.yaml``, each entry names the grad_fn class torch shows
(``MulBackward0``), what the backward needs saved, and one formula per differentiable
input. Formulas are written once against an array namespace ``xp`` (``_ops/xp.py``): the
engine runs them on raw arrays when no graph of the backward is wanted, and on leafgrad
Tensors with grad mode on (``create_graph=True``), so the backward records itself and
higher-order gradients cost nothing extra. All introspection happens here, once.

Saved names follow torch's: ``self``/``other``/``input<i>`` are inputs, ``result`` /
``result<i>`` outputs, ``self_sym_sizes`` / ``input<i>_sizes`` input shapes, and any
other name is the forward parameter of that name.
"""
from __future__ import annotations

from sys import _getframe
from typing import Callable, Sequence

from .._alloc import alloc_error_from
from .._backend import _BY_ARRAY_TYPE
from .._lowp import keep_lowp
from .._tensor import TENSOR_TYPES, Tensor, VersionCounter, _STATE, vc_of
from ..autograd.graph import Node, SavedTensor, flat_edges, next_sequence_nr
from ..autograd.grad_mode import ANOMALY_USED as _ANOMALY_USED  # (see there: anomaly mode's cheap test)
from .xp import TENSORS, array_namespace
from ..provenance import _ENABLED as _PROVENANCE_ON, note_nograd_op as _nograd_op, propagate_cut as _propagate_cut
from ..provenance import walk as _walk_from  # (a node's user line: the walk node_site_at makes, called without its frame)

__all__ = ["OpDef", "OpNode", "defop", "set_formulas", "apply", "apply_simple", "edge_of", "records",
           "composite_result", "forward_xp", "show_saved_as", "unsigned_int64"]

_new = object.__new__
_make = Tensor._make
_INPUT_NAMES = {"self": 0, "other": 1}
_FLOATING = frozenset("fcV")  # V: ml_dtypes' bfloat16 (see _bfloat16.py; no other void dtype reaches a tensor)


class _OpNodeType(type):
    """The class of every OpNode class: keeps its ``grad_fn._saved_<name>`` properties in
    step with its ``_saved_names`` (a few ops rename theirs to torch's after ``defop``).

    torch exposes saved values as ``grad_fn._saved_<name>``. They are properties rather
    than a ``__getattr__`` on OpNode because a class with ``__getattr__`` sends every
    attribute read of its instances down CPython's slow generic path, and the engine
    reads node attributes constantly.
    """

    def __setattr__(cls, name: str, value) -> None:
        super().__setattr__(name, value)
        if name == "_saved_names":
            _install_saved_properties(cls)


def _install_saved_properties(cls, fresh: bool = False) -> None:
    """(Re)make ``cls``'s ``_saved_<name>`` properties; ``fresh``: a class just made, with none to remove."""
    if not fresh:
        for attr in [a for a in vars(cls) if a.startswith("_saved_") and a != "_saved_names"]:
            type.__delattr__(cls, attr)
    names = cls._saved_names
    for k in range(len(names) - 1, -1, -1):  # (backwards: a repeated name reads its first value)
        name = names[k]
        if name != "names":  # (``_saved_names`` is the class's own list)
            read = _AS_TORCH_SHOWS.get(name)
            type.__setattr__(cls, "_saved_" + name, property(
                (lambda self, k=k: _saved_value(self, k)) if read is None else
                (lambda self, k=k, read=read: read(_saved_value(self, k)))))


def show_saved_as(op: "OpDef", name: str, read: Callable) -> None:
    """Show ``grad_fn._saved_<name>`` as ``read(value)``: the form torch shows for a value this op
    keeps in another form for its formula (prod's one dim as an int, amax's "every dim" as ())."""
    k = op.node_cls._saved_names.index(name)
    type.__setattr__(op.node_cls, "_saved_" + name, property(lambda self: read(_saved_value(self, k))))


def _saved_value(node: "OpNode", k: int):
    v = node._saved[k]
    return v.unpack(node) if v.__class__ is SavedTensor else v


# Saved values that torch shows in another form than the one leafgrad's formulas use: a loss's
# reduction as at::Reduction's number (none 0, mean 1, sum 2), and nll_loss's ignore_index as
# torch's Python binding reads that int64 back, as an unsigned 64-bit number (-100 -> 2**64 - 100).
_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def unsigned_int64(v: int) -> int:
    """A saved int64 as torch's Python binding reads it back: unsigned (-1 -> 2**64 - 1)."""
    return v % (1 << 64)


_AS_TORCH_SHOWS = {
    "reduction": lambda v: _REDUCTION_ENUM.get(v, v),
    "ignore_index": lambda v: unsigned_int64(v) if isinstance(v, int) else v,
}


class OpNode(Node, metaclass=_OpNodeType):
    """A recorded call of a ``defop`` op. Subclasses are made per op by :func:`defop`.

    ``apply`` runs the formulas on Tensors (the ``TENSORS`` namespace: recorded when grad mode
    is on, for ``create_graph=True``), ``apply_raw`` on the raw arrays themselves.
    """

    __slots__ = ("_saved",)
    _formulas: tuple = ()
    _saved_names: tuple = ()
    _multi: bool = False
    _variadic: bool = False
    _operand_slots: tuple = ()  # the saved values that are forward inputs (see release_variables)
    _raw: bool = True  # every formula takes ``xp``: it can run on raw arrays

    def apply(self, grads: list) -> list:
        return _run(self, grads if self._multi else grads[0], TENSORS, _saved_values(self))

    def apply_raw(self, grads: list) -> list:
        if not self._raw:
            return _apply_via_tensors(self, grads)
        if self._multi:
            for g in grads:
                if g is not None:
                    break
            return _run(self, grads, _namespace_of(g), _saved_arrays(self))
        g = grads[0]
        return _run(self, g, _namespace_of(g), _saved_arrays(self))

    def apply_masked(self, grads: list, wanted) -> list:
        """Run the formulas of the inputs flagged in ``wanted`` on Tensors (CopySlices picks its own)."""
        return _run_masked(self, grads, wanted, TENSORS, _saved_values(self))

    def apply_masked_raw(self, grads: list, wanted) -> list:
        """``apply_masked`` on raw arrays (CopySlices' ``apply_raw``); formulas not yet on ``xp`` go through Tensors."""
        if not self._raw:
            return [None if r is None else r._data for r in
                    self.apply_masked([None if g is None else _make(g) for g in grads], wanted)]
        xp = _namespace_of(next(g for g in grads if g is not None))
        return _run_masked(self, grads, wanted, xp, _saved_arrays(self))

    def release_variables(self, site=None) -> None:
        freed = site or True
        saved = self._saved
        for s in saved:
            if s.__class__ is SavedTensor:  # (SavedTensor.release, written out: runs per node per backward)
                s._tensor = s._data = None
                s._freed_site = freed
        for k in self._operand_slots:
            v = saved[k]
            if v is not None and v.__class__ is not SavedTensor:
                # a Python number operand (``x * 3``): torch saves it as a 0-d tensor and frees it
                # with the graph, so a second backward through this node is refused there too.
                # (The marker this backward already made, read here: a call fewer per node.)
                marker = _LAST_FREED_OPERAND[0]
                if marker is None or marker._freed_site is not freed:
                    marker = _freed_operand(freed)
                if saved.__class__ is not list:
                    saved = self._saved = list(saved)
                saved[k] = marker

    def saved_tensors_info(self) -> list[tuple[str, SavedTensor]]:
        """(name, SavedTensor) pairs, for drawing and explaining the graph."""
        return [(n, s) for n, s in zip(self._saved_names, self._saved)
                if s.__class__ is SavedTensor and getattr(s, "_output_nr", 0) != _NUMBER_OPERAND]


def _run(node: OpNode, g, xp, vals: tuple) -> list:
    """Each input's formula ``f(xp, g, *vals)``, for the inputs whose edge wants a gradient.

    The common shapes (one input; two inputs with two saved values) are written out:
    in CPython a star-call costs about as much as a small NumPy op, and this runs for
    every node of every backward.
    """
    edges = node._next  # (flat: node0, nr0, node1, nr1, ...)
    formulas = node._formulas
    n = len(vals)
    if len(formulas) == 1 and not node._variadic:  # one input (exp, tanh, sum, ...): no loop
        f = formulas[0]
        if f is None or edges[0] is None:
            return [None]
        if n == 1:
            return [f(xp, g, vals[0])]
        if n == 2:
            return [f(xp, g, vals[0], vals[1])]
        return [f(xp, g, *vals)]
    if len(formulas) == 2:  # two inputs (add, mul, mm, tensor-by-number ops): no loop, no list to grow
        f0, f1 = formulas
        r0 = r1 = None
        if n == 2:
            v0, v1 = vals
            if f0 is not None and edges[0] is not None:
                r0 = f0(xp, g, v0, v1)
            if f1 is not None and edges[2] is not None:
                r1 = f1(xp, g, v0, v1)
        else:
            if f0 is not None and edges[0] is not None:
                r0 = f0(xp, g, *vals)
            if f1 is not None and edges[2] is not None:
                r1 = f1(xp, g, *vals)
        return [r0, r1]
    if node._variadic:
        f = formulas[0]
        return [None if nxt is None else f(xp, g, i, *vals) for i, nxt in enumerate(edges[::2])]
    return [None if nxt is None or f is None else f(xp, g, *vals) for f, nxt in zip(formulas, edges[::2])]


def _run_masked(node: OpNode, grads: list, wanted, xp, vals: tuple) -> list:
    g = grads if node._multi else grads[0]
    if node._variadic:
        f = node._formulas[0]
        return [f(xp, g, i, *vals) if w else None for i, w in enumerate(wanted)]
    return [f(xp, g, *vals) if w and f is not None else None for f, w in zip(node._formulas, wanted)]


_NUMBER_OPERAND = -1  # the ``_output_nr`` that marks a freed number operand (not drawn as a saved tensor)
_LAST_FREED_OPERAND: list = [None]  # (see _freed_operand)


def _freed_operand(site) -> SavedTensor:
    """A saved number operand after its graph was freed: reading it raises torch's
    "backward through the graph a second time" error, naming where the graph was freed.

    Every node a backward frees gets the same ``site``, so one marker serves them all: the last
    one made is kept in ``_LAST_FREED_OPERAND``, and ``release_variables`` hands it out again while
    its site is the one being freed (a chain of ``x * 3`` steps frees one operand per node)."""
    s = _LAST_FREED_OPERAND[0] = _new(SavedTensor)
    s._tensor = s._data = s._site = None
    s._vc = VersionCounter()  # (its own: a number has no other owner)
    s._version = 0
    s._output_nr = _NUMBER_OPERAND
    s._is_output = s._requires_grad = False
    s._freed_site = site
    return s


def _apply_one(self: OpNode, grads: list) -> list:
    """``OpNode.apply_raw`` for a differentiable one-input, one-output op (exp, tanh, sum, views, ...)
    whose formula runs on arrays: the node class of such an op gets this at ``defop``, so the
    engine's call skips the general method's tests of the op's shape."""
    if self._next[0] is None:  # (an inner node of CopySlices can lack its input's edge)
        return [None]
    g = grads[0]
    xp = _NAMESPACES.get(g.__class__)
    if xp is None:
        xp = _namespace_of(g)
    saved = self._saved
    if len(saved) == 1:
        v = saved[0]
        return [self._formulas[0](xp, g, v.unpack_data(self) if v.__class__ is SavedTensor else v)]
    return [self._formulas[0](xp, g, *_saved_arrays(self))]


def _apply_two(self: OpNode, grads: list) -> list:
    """``OpNode.apply_raw`` for a two-input, one-output op whose formulas run on arrays (add, mul,
    mm, a tensor-by-number op): ``apply_raw``, ``_saved_arrays`` and ``_run`` in one frame for the
    usual two saved values (mul, mm: W3's backward 27.2 k -> 24.8 k instructions per op) or one
    (add and sub's alpha: two frames and a star-call fewer per node than ``_run``)."""
    g = grads[0]
    xp = _NAMESPACES.get(g.__class__)
    if xp is None:
        xp = _namespace_of(g)
    saved = self._saved
    n = len(saved)
    n0, _, n1, _ = self._next
    f0, f1 = self._formulas
    if n == 2:
        v0, v1 = saved
        if v0.__class__ is SavedTensor:
            v0 = v0.unpack_data(self)
        if v1.__class__ is SavedTensor:
            v1 = v1.unpack_data(self)
        return [None if n0 is None or f0 is None else f0(xp, g, v0, v1),
                None if n1 is None or f1 is None else f1(xp, g, v0, v1)]
    if n == 1:
        v = saved[0]
        if v.__class__ is SavedTensor:
            v = v.unpack_data(self)
        return [None if n0 is None or f0 is None else f0(xp, g, v),
                None if n1 is None or f1 is None else f1(xp, g, v)]
    return _run(self, g, xp, _saved_arrays(self))


# array type -> the ArrayNamespace formulas get for it (filled from the backends on first use)
_NAMESPACES: dict = {}


def _namespace_of(arr):
    xp = _NAMESPACES.get(arr.__class__)
    if xp is None:
        xp = _NAMESPACES[arr.__class__] = array_namespace(_BY_ARRAY_TYPE[arr.__class__].xp)
    return xp


def _apply_via_tensors(node: Node, grads: list) -> list:
    """``apply_raw`` for a node whose backward takes Tensors (``autograd.Function``, CopySlices,
    a formula not yet written against ``xp``): wrap the arrays, run it, unwrap."""
    outs = node.apply([None if g is None else _make(g) for g in grads])
    return [None if r is None else r._data for r in outs]


Node.apply_raw = _apply_via_tensors


def _saved_values(node: OpNode) -> tuple:
    """The node's saved values as its formulas take them on Tensors: SavedTensors unpacked (and checked).

    Written out for up to two values (nearly every op): no comprehension frame per node.
    """
    saved = node._saved
    n = len(saved)
    if n == 0:
        return ()
    if n == 1:
        a = saved[0]
        return (a.unpack(node) if a.__class__ is SavedTensor else a,)
    if n == 2:
        a, b = saved
        return (a.unpack(node) if a.__class__ is SavedTensor else a, b.unpack(node) if b.__class__ is SavedTensor else b)
    return tuple([s.unpack(node) if s.__class__ is SavedTensor else s for s in saved])


def _saved_arrays(node: OpNode) -> tuple:
    """The node's saved values for its formulas on arrays: SavedTensors checked, as their arrays."""
    saved = node._saved
    n = len(saved)
    if n == 0:
        return ()
    if n == 1:
        a = saved[0]
        return (a.unpack_data(node) if a.__class__ is SavedTensor else a,)
    if n == 2:
        a, b = saved
        return (a.unpack_data(node) if a.__class__ is SavedTensor else a,
                b.unpack_data(node) if b.__class__ is SavedTensor else b)
    return tuple([s.unpack_data(node) if s.__class__ is SavedTensor else s for s in saved])


ALL_OPS: list = []  # every OpDef, in the order of definition (for the tests and the coverage tools)


class OpDef:
    """Everything known about one op, computed at registration."""

    __slots__ = ("name", "node_cls", "forward", "n_in", "params", "saved", "n_out", "view", "diff_out", "variadic",
                 "needed_by", "spec", "formulas", "saves_params", "saves_result", "saves_self", "scalar_saves_other",
                 "saves_crossed", "saves_sizes_params", "simple", "single_view")

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def defop(grad_fn: str, forward: Callable, grads: Sequence[Callable | None] | Callable | None = None, *,
          saved: Sequence[str] = (), n_in: int = 1, n_out: int = 1, view: bool = False,
          diff_outputs: Sequence[bool] | None = None, variadic: bool = False) -> OpDef:
    """Register an op.

    ``forward(xp, *arrays, *params)`` computes on raw arrays; ``grads[i](xp, grad, *saved)``
    returns the gradient for input ``i`` (or None), written against the namespace ``xp``
    (see ``_ops/xp.py``): the engine runs it on raw arrays, or on Tensors when a graph of the
    backward is wanted. With ``n_out > 1`` the formulas receive the list of output grads (None
    where an output got no grad); ``n_out=-1`` means the forward decides how many (split,
    unbind). A ``variadic`` op (cat, stack) takes ``forward(xp, arrays, *params)`` and one
    formula ``grad(xp, g, input_index, *saved)`` shared by all inputs.
    """
    code = forward.__code__
    sig = list(code.co_varnames[1:code.co_argcount])  # drop xp
    params = sig[1:] if variadic else sig[n_in:]
    if grads is None:
        grads = (None,) * n_in
    elif callable(grads):
        grads = (grads,)
    if not variadic and len(grads) != n_in:
        raise ValueError(f"{grad_fn}: {n_in} inputs but {len(grads)} formulas")
    spec = []
    for s in saved:
        if s in _INPUT_NAMES:
            spec.append((0, _INPUT_NAMES[s]))
        elif s.startswith("input") and s[5:].isdigit():
            spec.append((0, int(s[5:])))
        elif s == "result" or (s.startswith("result") and s[6:].isdigit()):
            spec.append((1, int(s[6:] or 0)))
        elif s == "self_sym_sizes":
            spec.append((2, 0))
        elif s.startswith("input") and s.endswith("_sizes"):
            spec.append((2, int(s[5:-6])))
        elif s in params:
            spec.append((3, params.index(s)))
        else:
            raise ValueError(f"{grad_fn}: saved name {s!r} is not an input, output, shape or parameter")
    attrs = {}
    if "::" in grad_fn:  # torch's C++-only nodes: class CopyBackwards, name() "torch::autograd::CopyBackwards"
        attrs["name"] = lambda self, _n=grad_fn: _n
    raw = all(f is None or _takes_xp(f) for f in grads)
    if n_in == 1 and n_out == 1 and not variadic and grads[0] is not None and raw:
        attrs["apply_raw"] = _apply_one
    elif n_in == 2 and n_out == 1 and not variadic and raw:
        attrs["apply_raw"] = _apply_two
    node_cls = type(grad_fn.rsplit("::", 1)[-1], (OpNode,), {**attrs,
        "__slots__": (), "_formulas": tuple(_as_xp_formula(f) for f in grads), "_saved_names": tuple(saved),
        "_multi": n_out != 1, "_variadic": variadic, "_raw": raw,
        "__module__": "leafgrad.autograd.functions"})
    node_cls._operand_slots = tuple(k for k, (kind, _) in enumerate(spec) if kind == 0)
    _install_saved_properties(node_cls, fresh=True)
    op = OpDef()
    ALL_OPS.append(op)
    op.name = grad_fn
    op.node_cls = node_cls
    op.forward = forward
    op.n_in = n_in
    op.params = tuple(params)
    op.saved = tuple(spec)
    op.n_out = n_out
    op.view = view
    op.diff_out = tuple(diff_outputs) if diff_outputs is not None else None
    op.variadic = variadic
    # the ops ``apply`` hands to its fast case, ``apply_simple``: one or two inputs, one output, not a view
    op.simple = n_in <= 2 and n_out == 1 and not view and not variadic
    # the views ``apply`` hands to :func:`_apply_view`: one input, one output (select, slice, transpose, ...)
    op.single_view = view and n_in == 1 and n_out == 1 and not variadic and diff_outputs is None
    op.spec = tuple(spec)
    op.formulas = tuple(grads)
    op.saved = None  # (kind, index, users) per saved value: worked out on the op's first recording
    # (common cases needing no loop per recorded node: set with op.saved)
    op.saves_params = op.saves_result = op.saves_self = op.scalar_saves_other = op.saves_crossed = False
    op.saves_sizes_params = False
    return op


def set_formulas(op: OpDef, grads: Sequence[Callable | None]) -> None:
    """Give ``op`` its backward formulas after ``defop`` (for a formula that must name an op
    defined after this one, as a backward op's own backward names the loss it came from)."""
    op.formulas = tuple(grads)
    cls = op.node_cls
    raw = all(f is None or _takes_xp(f) for f in grads)
    type.__setattr__(cls, "_formulas", tuple(_as_xp_formula(f) for f in grads))
    type.__setattr__(cls, "_raw", raw)
    if "apply_raw" in vars(cls) and not raw:
        type.__delattr__(cls, "apply_raw")
    op.saved = None  # (which inputs read which saved value: worked out again on first recording)


def _takes_xp(f) -> bool:
    """Is ``f`` written against an array namespace (its first parameter named ``xp``)?"""
    code = getattr(f, "__code__", None)
    return code is not None and code.co_argcount > 0 and code.co_varnames[0] == "xp"


def _as_xp_formula(f):
    """A formula as the node calls it, ``f(xp, g, *saved)``. A formula still written on Tensors
    alone (no ``xp``) is called without it, and only ever on Tensors (the node's ``_raw`` is False)."""
    if f is None or _takes_xp(f):
        return f
    return lambda xp, *args: f(*args)


def _resolve_saved(op: OpDef) -> tuple:
    """Attach to each saved value the inputs whose formula reads it (bytecode analysis, once per op).

    Done on first use rather than at import: ``import leafgrad`` stays fast.
    """
    op.needed_by = _needed_by(op.formulas, len(op.spec), op.variadic)
    # a one-input op is only recorded when its input requires grad: a value its formula
    # reads is then always saved, with no per-call check of the edges (None: "any input")
    single = op.n_in == 1 and not op.variadic
    op.saved = tuple((kind, i, None if single and users == (0,) else users)
                     for (kind, i), users in zip(op.spec, op.needed_by))
    # three common cases that need no loop per recorded node
    op.saves_params = len(op.params) > 0 and op.spec == tuple((3, k) for k in range(len(op.params)))  # add's alpha
    # exp, tanh, relu, ... (the result alone), softmax, log_softmax (the result, then every parameter)
    op.saves_result = op.n_out == 1 and op.saved == ((1, 0, None),) + tuple((3, k, None) for k in range(len(op.params)))
    op.saves_self = op.n_in == 1 and op.saved == ((0, 0, None),)  # log, abs, ...: the input alone
    op.scalar_saves_other = _saves_only_the_number(op.saved)  # tensor * number, tensor / number
    # mm, mul of two tensors: each input's formula reads the other input (and nothing else)
    op.saves_crossed = op.n_in == 2 and op.saved == ((0, 0, (1,)), (0, 1, (0,)))
    # select, slice, narrow, ...: the input's shape, then every parameter (no tensor, no edge to test)
    op.saves_sizes_params = single and op.spec == ((2, 0),) + tuple((3, k) for k in range(len(op.params)))
    return op.saved


def _saves_only_the_number(saved: tuple) -> bool:
    """Does ``tensor (op) number`` save exactly ``(None, number)``? It does when ``self`` is read only
    by the number's formula and ``other`` by the tensor's: only the tensor (input 0) has an edge."""
    if len(saved) != 2 or saved[0][:2] != (0, 0) or saved[1][:2] != (0, 1):
        return False
    self_users, other_users = saved[0][2], saved[1][2]
    return self_users is not None and 0 not in self_users and (other_users is None or 0 in other_users)


def _needed_by(formulas, n_saved: int, variadic: bool) -> tuple:
    """For each saved value, the inputs whose formula reads it (as torch saves only what is needed).

    ``mul`` by a constant then saves only the constant, not the tensor. Found once, at
    registration, from the formulas' bytecode; ``None`` means "any input".
    """
    if variadic:
        return (None,) * n_saved
    users = [set() for _ in range(n_saved)]
    for i, f in enumerate(formulas):
        if f is None:
            continue
        code = getattr(f, "__code__", None)
        if code is None:
            return (None,) * n_saved
        offset = (2 if variadic else 1) + _takes_xp(f)  # ([xp,] grad, [index,] *saved)
        params = code.co_varnames[offset:code.co_argcount]
        import dis
        loaded = {ins.argval for ins in dis.get_instructions(f) if ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF"))}
        loaded |= set(code.co_cellvars)
        for k, name in enumerate(params[:n_saved]):
            if name in loaded:
                users[k].add(i)
    return tuple(tuple(sorted(u)) for u in users)


def _sync_view(t: Tensor) -> None:
    if t._vc.v != t._view_v:
        from .inplace import regenerate_view_grad_fn
        regenerate_view_grad_fn(t)


def apply(op: OpDef, inputs: tuple, params: tuple = (), cast=None):
    """Run ``op`` forward on ``inputs`` (Tensors) and record a node when grad is needed.

    ``cast`` (a NumPy dtype) converts inputs of another dtype first: torch's type
    promotion is decided by the caller, the engine casts gradients back.

    Most ops (one output, not a view, one or two inputs) take :func:`apply_simple`; this
    general path adds what the others need: any number of inputs, a list input
    (``cat``), several outputs, views of the input, and the cast. Both paths record
    through the same :func:`_record`, :func:`_finish_saves` and :func:`_untracked`.
    """
    if cast is None:
        if op.simple:
            return apply_simple(op, inputs[0], inputs[1] if op.n_in == 2 else None, params)
        if op.single_view:
            return _apply_view(op, inputs[0], params)
    needs = False
    grad_on = _STATE.grad
    if grad_on:
        for t in inputs:
            if t._base is not None:
                _sync_view(t)
            if t._requires_grad:
                needs = True
    n_in = len(inputs)
    if n_in == 1:  # (views, the common case here: no comprehension's frame)
        arrays = (inputs[0]._data,)
    elif n_in == 2:
        arrays = (inputs[0]._data, inputs[1]._data)
    else:
        arrays = [t._data for t in inputs]
    if cast is not None:
        arrays = [a if a.dtype == cast else keep_lowp(a.astype(cast)) for a in arrays]  # (_lowp.py)
    first = arrays[0]
    xp = _BY_ARRAY_TYPE[first.__class__].xp
    try:
        if op.variadic:
            out = op.forward(xp, arrays, *params)
        elif n_in == 1 and len(params) <= 2:  # (direct calls: a star-call costs about a small NumPy op)
            out = (op.forward(xp, first) if not params else op.forward(xp, first, params[0]) if len(params) == 1
                   else op.forward(xp, first, params[0], params[1]))
        else:
            out = op.forward(xp, *arrays, *params)
    except ValueError as e:
        if "broadcast" in str(e) and len(arrays) >= 2:
            from .inplace import raise_broadcast_error
            raise_broadcast_error(first.shape, arrays[1].shape)
        raise
    except MemoryError as e:  # torch's allocator error, not NumPy's MemoryError
        raise alloc_error_from(e) from None
    multi = op.n_out != 1  # (-1: the forward decides how many, split)
    outs = []
    for o in (out if multi else (out,)):
        if o.__class__ is not first.__class__:
            o = xp.asarray(o)
        r = _make(o)
        if op.view:
            _mark_view(r, inputs[0], multi)
        outs.append(r)
    if needs:
        node = None
        for i, r in enumerate(outs):
            if (op.diff_out is None or op.diff_out[i]) and r._data.dtype.kind in _FLOATING:
                if node is None:
                    node = _record(op, inputs)
                r._requires_grad = True
                r._grad_fn = node
                r._output_nr = i
        if node is not None:
            _finish_saves(op, node, inputs, outs, params)
    else:
        _untracked(op, outs, inputs)
    return tuple(outs) if multi else outs[0]


def _apply_view(op: OpDef, t: Tensor, params: tuple) -> Tensor:
    """:func:`apply` for a view with one input and one output (``y[i]``'s select, slice, transpose):
    the general path's steps for that shape alone, without its loops over inputs and outputs."""
    grad_on = _STATE.grad
    if grad_on and t._base is not None:
        _sync_view(t)
    a = t._data
    xp = _BY_ARRAY_TYPE[a.__class__].xp
    n = len(params)
    try:
        out = (op.forward(xp, a) if not n else op.forward(xp, a, params[0]) if n == 1
               else op.forward(xp, a, params[0], params[1]) if n == 2 else op.forward(xp, a, *params))
    except MemoryError as e:  # torch's allocator error, not NumPy's MemoryError
        raise alloc_error_from(e) from None
    if out.__class__ is not a.__class__:
        out = xp.asarray(out)
    r = _make(out)
    _mark_view(r, t)
    if grad_on and t._requires_grad:
        if out.dtype.kind in _FLOATING:
            inputs = (t,)
            node = _record(op, inputs)
            r._requires_grad = True
            r._grad_fn = node
            _finish_saves(op, node, inputs, (r,), params)
    else:
        _untracked(op, (r,), (t,))
    return r


def apply_simple(op: OpDef, a: Tensor, b=None, params: tuple = (), dt=None):
    """The fast case of :func:`apply`: one output, not a view, and the inputs ``a`` alone (``b``
    None: ``exp``, ``relu``, ``sum``), ``a`` and a tensor ``b`` (``a + b``, ``mm``, most nodes of a
    backward pass under ``create_graph``) or ``a`` and a Python number ``b`` that keeps ``a``'s
    dtype (``x * 2``).

    The number is passed to NumPy as a cached 0-d array of ``a``'s dtype (NumPy's weak typing
    of Python numbers matches torch's rule) and recorded as an input without history, so no
    tensor is made for it. Forwards are called with their arguments spelled out, not
    ``*args``: in CPython a star-call costs about as much as a small NumPy op.

    ``dt``: ``a``'s NumPy dtype, where the caller has read it already (the operators and the unary
    functions do, for their dtype rules): each read of an ndarray attribute costs ~300 instructions.
    """
    st = _STATE
    x = a._data
    if dt is None:
        dt = x.dtype
    be = _BY_ARRAY_TYPE[x.__class__]
    xp = be.xp
    if b is None:
        other = None
    elif b.__class__ in TENSOR_TYPES:
        other = b
        y = b._data
    else:
        other = None
        table = be.consts.get(dt)  # (see Backend.const)
        y = table.get(b) if table is not None else None
        if y is None:
            y = be.const(b, dt)
    needs = False
    if st.grad:
        if a._base is not None:
            _sync_view(a)
        needs = a._requires_grad
        if other is not None:
            if other._base is not None:
                _sync_view(other)
            needs = needs or other._requires_grad
    fwd = op.forward  # (read as an attribute, then called: ``op.forward(...)`` is a method lookup that
    # CPython 3.11 cannot specialise for a slot, ~250 instructions per call)
    try:
        if not params:
            out = fwd(xp, x) if b is None else fwd(xp, x, y)
        elif len(params) == 1:
            out = fwd(xp, x, params[0]) if b is None else fwd(xp, x, y, params[0])
        else:
            out = fwd(xp, x, *params) if b is None else fwd(xp, x, y, *params)
    except ValueError as e:
        if other is not None and "broadcast" in str(e):
            from .inplace import raise_broadcast_error
            raise_broadcast_error(x.shape, y.shape)
        raise
    except MemoryError as e:  # torch's allocator error, not NumPy's MemoryError
        raise alloc_error_from(e) from None
    if out.__class__ is not x.__class__:
        out = xp.asarray(out)
    if not needs:
        res = _make(out)
        _untracked(op, (res,), (a,) if b is None else (a, b))
        return res
    if out.dtype.kind not in _FLOATING:
        return _make(out)
    # the node: _record's work, written out for the three forms of input
    node = _new(op.node_cls)
    node._seq = next_sequence_nr()
    fa = a._grad_fn  # (an input with history needs no call to _edge: the common case, inside a model)
    if fa is not None:
        na = a._output_nr
    else:
        fa, na = _edge(a)
    shape = x.shape
    if b is None:
        node._next = (fa, na)
        key = (shape, dt)
        meta = _SIMPLE_META.get(key)
        node._in_meta = meta if meta is not None else _shared_simple_meta(key, ((shape, dt),))
    elif other is not None:
        fb = other._grad_fn
        if fb is not None:
            node._next = (fa, na, fb, other._output_nr)
        else:
            fb, nb = _edge(other)
            node._next = (fa, na, fb, nb)
        key = (shape, dt, y.shape, y.dtype)
        meta = _SIMPLE_META.get(key)
        node._in_meta = meta if meta is not None else _shared_simple_meta(key, ((shape, dt), key[2:]))
    else:  # a Python number: no edge, so its meta is never read
        node._next = (fa, na, None, 0)
        key = (shape, dt, None)
        meta = _SIMPLE_META.get(key)
        node._in_meta = meta if meta is not None else _shared_simple_meta(key, ((shape, dt), _NO_META))
    node._extra = None
    node._site = site = _walk_from(_getframe(2)) if _PROVENANCE_ON[0] else None  # (from the caller's caller up)
    if _ANOMALY_USED[0] and st.anomaly:
        from ..autograd.anomaly import record_forward_trace
        record_forward_trace(node)
    # the result: ``Tensor._make``'s slots written out, its history set once (~500 instructions
    # fewer than the call and the two stores after it); a slot added to ``_make`` must be set here too
    res = _new(Tensor)
    res._data = out
    res._requires_grad = True
    res._grad_fn = node
    res._grad = res._vc = res._base = res._accumulator = res._meta = None
    res._view_v = res._output_nr = 0
    # the saved values: _finish_saves' answer, without its loop, in the common cases
    if op.scalar_saves_other and other is None and b is not None:  # tensor * number: the number alone
        node._saved = (None, b)
    elif op.saves_result and params.__class__ is tuple:  # exp, tanh, relu, softmax: the result (and numbers)
        node._saved = (_saved_result(res, site),) + params
    elif op.saves_self and b is None:  # log, abs, ...: the input alone
        node._saved = (SavedTensor(a, False, site),)
    elif op.saves_params and params.__class__ is tuple and len(params) == 1 and params[0].__class__ is int:
        node._saved = params  # add, sub: their integer alpha alone, the caller's tuple
    elif op.saves_crossed and other is not None:  # mm, mul: each input, where the other one needs it
        node._saved = (None if fb is None else SavedTensor(a, False, site),  # (fa, fb: the edges' nodes)
                       None if fa is None else SavedTensor(other, False, site))
    else:
        _finish_saves(op, node, (a,) if b is None else (a, b), (res,), params)
    return res


def _saved_result(res: Tensor, site) -> SavedTensor:
    """``SavedTensor(res, True, site)`` for a result ``apply_simple`` has just made (it requires grad,
    is output 0 and has no version counter yet), its slots set here: no type call, no ``__init__``
    and none of its tests. (exp, tanh, sigmoid, relu: ~1.5 k instructions fewer per recorded op.)
    A slot added to ``SavedTensor.__init__`` must be set here too."""
    vc = res._vc = _new(VersionCounter)
    vc.v = 0
    vc.last_site = None
    s = _new(SavedTensor)
    s._vc = vc
    s._version = 0
    s._is_output = True
    s._site = site
    s._freed_site = None
    s._tensor = None
    s._data = res._data
    s._output_nr = 0
    s._requires_grad = True
    return s


def _mark_view(res: Tensor, inp: Tensor, multi: bool = False) -> None:
    vc = inp._vc
    if vc is None:
        vc = vc_of(inp)
    res._vc = vc
    res._base = inp._base if inp._base is not None else inp
    res._view_v = vc.v
    if multi or not _STATE.grad:
        res._m().view_kind = "multi_output" if multi else "no_grad"
    elif inp._meta is not None and inp._meta.view_kind in ("multi_output", "no_grad"):
        res._m().view_kind = inp._meta.view_kind


_NO_EDGE = (None, 0)
_NO_META = ((), None)

# A node's ``_in_meta`` (the inputs' shapes and dtypes) is an immutable tuple, the same for
# every node recorded with inputs of the same shapes and dtypes: one shared copy per
# combination, so recording allocates two tuples fewer per op. That matters beyond the
# allocation itself: every object a graph keeps alive is traversed by the cyclic GC's
# collections, which a long forward pass triggers many times over.
_IN_META: dict = {}


def _shared_meta(key: tuple, meta: tuple) -> tuple:
    if len(_IN_META) >= 4096:  # (a program cycling through many shapes: start over)
        _IN_META.clear()
    _IN_META[key] = meta
    return meta


# ``apply_simple``'s own table of the same shared tuples, keyed flat: ``(shape, dtype)`` for one
# input, ``(shape, dtype, None)`` with a number, ``(shape, dtype, shape, dtype)`` for two tensors.
# A flat key is one tuple to build and hash instead of two or three: about 1 k instructions per
# recorded op fewer than looking up the ``_in_meta`` tuple itself.
_SIMPLE_META: dict = {}


def _shared_simple_meta(key: tuple, meta: tuple) -> tuple:
    if len(_SIMPLE_META) >= 4096:  # (as in _shared_meta)
        _SIMPLE_META.clear()
    _SIMPLE_META[key] = meta
    return meta


def shared_in_meta(meta: tuple) -> tuple:
    """The one shared copy of an ``_in_meta`` tuple equal to ``meta`` (for nodes made outside ``apply``)."""
    kept = _IN_META.get(meta)
    return kept if kept is not None else _shared_meta(meta, meta)


def _edge(t: Tensor) -> tuple:
    """The (node, input_nr) edge through which gradient reaches ``t``."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        ref = t._accumulator
        acc = ref() if ref is not None else None
        return (acc if acc is not None else t._grad_accumulator(), 0)
    return _NO_EDGE


edge_of = _edge  # the public name (autograd.Function, CopySlices)


_FIND_SITE = object()  # (``_record``'s ``site`` when the caller has not looked it up; None means "switched off")


def _record(op: OpDef, inputs, edges: tuple | None = None, site=_FIND_SITE) -> OpNode:
    """A new node of ``op`` with an edge to each input (or the given ``edges``) and the inputs'
    shapes and dtypes (shared per combination, see ``_IN_META``), for ``apply``'s general path
    and the in-place ops (``apply_simple`` writes the same steps out for its one or two inputs).
    ``site``: the user's line, when the caller already found it (an in-place write does, for the
    version counter)."""
    node = _new(op.node_cls)
    node._seq = next_sequence_nr()
    if len(inputs) == 1:  # (views and most in-place writes: no comprehension's frame)
        a = inputs[0]._data
        node._next = _edge(inputs[0]) if edges is None else flat_edges(edges)
        key = ((a.shape, a.dtype),)
    else:
        node._next = tuple([x for t in inputs for x in _edge(t)]) if edges is None else flat_edges(edges)
        key = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    meta = _IN_META.get(key)
    node._in_meta = meta if meta is not None else _shared_meta(key, key)
    node._extra = None
    if site is _FIND_SITE:
        site = _walk_from(_getframe(2)) if _PROVENANCE_ON[0] else None  # (from apply's caller up)
    node._site = site
    if _ANOMALY_USED[0] and _STATE.anomaly:
        from ..autograd.anomaly import record_forward_trace
        record_forward_trace(node)
    return node


def _finish_saves(op: OpDef, node: OpNode, inputs, outs, params) -> None:
    spec = op.saved
    if spec is None:
        spec = _resolve_saved(op)
    if not spec:
        node._saved = ()
        return
    if op.saves_params and params.__class__ is tuple and _numbers_only(params):  # (add's alpha, ...): shared
        node._saved = params
        return
    if op.saves_sizes_params and params.__class__ is tuple and _numbers_only(params):  # (the views' common case)
        node._saved = (inputs[0]._data.shape,) + params
        return
    saved = []
    edges = node._next
    for kind, i, users in spec:
        if kind <= 1 and users is not None:
            for u in users:
                if edges[2 * u] is not None:
                    break
            else:
                saved.append(None)  # no input whose formula reads this value requires grad
                continue
        if kind == 0:
            t = inputs[i]
            if t.__class__ in TENSOR_TYPES:
                aliased = t is outs[0]  # x.mul_(x): the operand is the tensor being written
                s = SavedTensor(t, aliased, node._site)  # (kept as data + version: no node <-> tensor cycle)
                if aliased:
                    s._version -= 1  # it was saved before the write
                saved.append(s)
            else:
                saved.append(t)
        elif kind == 1:
            saved.append(SavedTensor(outs[i], True, node._site))
        elif kind == 2:
            saved.append(inputs[i]._data.shape)
        else:
            p = params[i]
            # a tensor argument (an index, a mask, a target) is saved as torch saves it: checked
            # for in-place changes when backward reads it, and freed with the graph
            saved.append(SavedTensor(p, False, node._site) if p.__class__ in TENSOR_TYPES else p)
    node._saved = saved


def _numbers_only(params: tuple) -> bool:
    """No tensor among ``params``: they can be kept as the caller's tuple (``_finish_saves``)."""
    for p in params:
        if p.__class__ in TENSOR_TYPES:
            return False
    return True


# ----------------------------------------------------------------------------- composites that record nothing
def records(*inputs) -> bool:
    """Whether an op on ``inputs`` records a node: grad mode is on and one of them requires grad (a
    view whose base was written in place since it was made is brought up to date first, as ``apply``
    does, since that can make it require grad).

    A composite function (matmul's batched case, ``linear``) asks first: its steps exist so that its
    graph has torch's nodes (ExpandBackward0, ViewBackward0, BmmBackward0, ...). When none will be
    recorded (evaluation under ``no_grad``, or data that requires no grad), it runs the same steps'
    forwards on the arrays in one go and wraps the result with :func:`composite_result`: the same
    values (the same NumPy calls on the same arrays), one Tensor instead of up to seven. (Measured
    under no_grad on this project's 2-core machine: attention scores ``q @ k.transpose(-2, -1)`` on
    (1, 4, 16, 16) 162 -> 30 us, ``F.linear`` of a (1, 16, 64) batch to 192 features 94 -> 54 us, of
    which NumPy's matmul and bias add are 38 us; a minGPT-shaped model's forward on 16 tokens 3.91 ->
    2.94 ms.)"""
    if not _STATE.grad:
        return False
    for t in inputs:
        if t is not None:
            if t._base is not None:
                _sync_view(t)
            if t._requires_grad:
                return True
    return False


def forward_xp(arr):
    """The array namespace forwards get for ``arr`` (``apply``'s own choice, by the array's type)."""
    return _BY_ARRAY_TYPE[arr.__class__].xp


def composite_result(out, op: OpDef, inputs: tuple, staged: tuple, view_of=None) -> Tensor:
    """The Tensor of a composite's result ``out`` (an array), computed without recording (see
    :func:`records`), carrying what its steps would have left on it: the chain's cut (``inputs``
    enter the last op ``op`` as they are, or through a view first, ``staged[i]`` naming it: see
    ``provenance.note_nograd_op``) and, when the last step is a view of the step before
    (``linear``'s ``addmm(...).view(...)``), a view of a base holding ``view_of``, as torch's is."""
    res = _make(out)
    outs = (res,)
    if view_of is not None:
        base = _make(view_of)
        outs = (base, res)
        _mark_view(res, base)
    _untracked(op, outs, inputs, staged)
    return res


def _untracked(op: OpDef, outs, inputs, staged=None) -> None:
    """Provenance for results that record no node: where a chain from a tensor that requires
    grad is cut (grad mode on: copied forward from an input that carries a cut; off: a new
    cut, see ``provenance.note_nograd_op``, which also reads a composite's ``staged``). Skipped,
    with its checks, inside a backward."""
    st = _STATE
    if st.grad:
        for t in inputs:
            if t.__class__ in TENSOR_TYPES:  # (not a Python number)
                m = t._meta
                if m is not None and m.cut is not None:
                    _propagate_cut(outs, inputs)
                    return
    elif not st.in_backward:
        if st.inference:
            _nograd_op(op.name, outs, inputs, staged)
            return
        for t in inputs:  # (only then has provenance anything to note)
            if t.__class__ in TENSOR_TYPES and (t._requires_grad or t._meta is not None):
                _nograd_op(op.name, outs, inputs, staged)
                return
