"""``defop``: declare an op once (NumPy forward + per-input backward formulas), and ``apply`` it.

Like PyTorch's ``derivatives.yaml``, each entry names the grad_fn class torch shows
(``MulBackward0``), what the backward needs saved, and one formula per differentiable
input. Formulas are written with leafgrad ops, so the engine running them with grad
mode on (``create_graph=True``) records the backward itself: higher-order gradients
cost nothing extra. All introspection happens here, once, at import time.

Saved names follow torch's: ``self``/``other``/``input<i>`` are inputs, ``result`` /
``result<i>`` outputs, ``self_sym_sizes`` / ``input<i>_sizes`` input shapes, and any
other name is the forward parameter of that name.
"""
from __future__ import annotations

from typing import Callable, Sequence

from .._backend import _BY_ARRAY_TYPE
from .._tensor import TENSOR_TYPES, Tensor, _STATE, vc_of
from ..autograd.graph import Node, SavedTensor, next_sequence_nr
from ..provenance import node_site as _node_site, note_nograd_op as _nograd_op, propagate_cut as _propagate_cut

__all__ = ["OpDef", "OpNode", "defop", "apply", "apply_nograd", "edge_of"]

_new = object.__new__
_make = Tensor._make
_INPUT_NAMES = {"self": 0, "other": 1}
_FLOATING = frozenset("fc")


class OpNode(Node):
    """A recorded call of a ``defop`` op. Subclasses are made per op by :func:`defop`."""

    __slots__ = ("_saved",)
    _formulas: tuple = ()
    _saved_names: tuple = ()
    _multi: bool = False
    _variadic: bool = False

    def apply(self, grads: list) -> list:
        saved = self._saved
        if not saved:
            vals = ()
        elif len(saved) == 1:
            s = saved[0]
            vals = (s.unpack(self) if s.__class__ is SavedTensor else s,)
        else:
            vals = [s.unpack(self) if s.__class__ is SavedTensor else s for s in saved]
        g = grads if self._multi else grads[0]
        if self._variadic:
            f = self._formulas[0]
            return [None if nxt is None else f(g, i, *vals) for i, (nxt, _) in enumerate(self.next_functions)]
        out = []
        for f, (nxt, _) in zip(self._formulas, self.next_functions):
            out.append(f(g, *vals) if nxt is not None and f is not None else None)
        return out

    def apply_masked(self, grads: list, wanted) -> list:
        """Run the formulas of the inputs flagged in ``wanted`` (CopySlices picks its own)."""
        vals = [s.unpack(self) if s.__class__ is SavedTensor else s for s in self._saved]
        g = grads if self._multi else grads[0]
        if self._variadic:
            f = self._formulas[0]
            return [f(g, i, *vals) if w else None for i, w in enumerate(wanted)]
        return [f(g, *vals) if w and f is not None else None for f, w in zip(self._formulas, wanted)]

    def release_variables(self, site=None) -> None:
        for s in self._saved:
            if s.__class__ is SavedTensor:
                s.release(site)

    def __getattr__(self, name: str):
        # torch exposes saved values as grad_fn._saved_<name>; keep them out of the slots
        if name.startswith("_saved_"):
            key = name[7:]
            names = type(self)._saved_names
            if key in names:
                v = self._saved[names.index(key)]
                return v.unpack(self) if v.__class__ is SavedTensor else v
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def saved_tensors_info(self) -> list[tuple[str, SavedTensor]]:
        """(name, SavedTensor) pairs, for drawing and explaining the graph."""
        return [(n, s) for n, s in zip(self._saved_names, self._saved) if s.__class__ is SavedTensor]


class OpDef:
    """Everything known about one op, computed at registration."""

    __slots__ = ("name", "node_cls", "forward", "n_in", "params", "saved", "n_out", "view", "diff_out", "variadic",
                 "needed_by", "spec", "formulas")

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def defop(grad_fn: str, forward: Callable, grads: Sequence[Callable | None] | Callable | None = None, *,
          saved: Sequence[str] = (), n_in: int = 1, n_out: int = 1, view: bool = False,
          diff_outputs: Sequence[bool] | None = None, variadic: bool = False) -> OpDef:
    """Register an op.

    ``forward(xp, *arrays, *params)`` computes on raw arrays; ``grads[i](grad, *saved)``
    returns the gradient for input ``i`` as a leafgrad Tensor (or None). With ``n_out > 1``
    the formulas receive the list of output grads (None where an output got no grad);
    ``n_out=-1`` means the forward decides how many (split, unbind). A ``variadic`` op
    (cat, stack) takes ``forward(xp, arrays, *params)`` and one formula
    ``grad(g, input_index, *saved)`` shared by all inputs.
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
    node_cls = type(grad_fn.rsplit("::", 1)[-1], (OpNode,), {**attrs,
        "__slots__": (), "_formulas": tuple(grads), "_saved_names": tuple(saved), "_multi": n_out != 1,
        "_variadic": variadic,
        "__module__": "leafgrad.autograd.functions"})
    op = OpDef()
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
    op.spec = tuple(spec)
    op.formulas = tuple(grads)
    op.saved = None  # (kind, index, users) per saved value: worked out on the op's first recording
    return op


def _resolve_saved(op: OpDef) -> tuple:
    """Attach to each saved value the inputs whose formula reads it (bytecode analysis, once per op).

    Done on first use rather than at import: ``import leafgrad`` stays fast.
    """
    op.needed_by = _needed_by(op.formulas, len(op.spec), op.variadic)
    op.saved = tuple((kind, i, users) for (kind, i), users in zip(op.spec, op.needed_by))
    return op.saved


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
        offset = 2 if variadic else 1  # (grad, [index,] *saved)
        params = code.co_varnames[offset:code.co_argcount]
        import dis
        loaded = {ins.argval for ins in dis.get_instructions(f) if ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF"))}
        loaded |= set(code.co_cellvars)
        for k, name in enumerate(params[:n_saved]):
            if name in loaded:
                users[k].add(i)
    return tuple(tuple(sorted(u)) for u in users)


def edge_of(t: Tensor) -> tuple:
    """The (node, input_nr) edge through which gradient reaches ``t``."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (t._grad_accumulator(), 0)
    return (None, 0)


def _sync_view(t: Tensor) -> None:
    if t._vc.v != t._view_v:
        from .inplace import regenerate_view_grad_fn
        regenerate_view_grad_fn(t)


def apply(op: OpDef, inputs: tuple, params: tuple = (), cast=None):
    """Run ``op`` forward on ``inputs`` (Tensors) and record a node when grad is needed.

    ``cast`` (a NumPy dtype) converts inputs of another dtype first: torch's type
    promotion is decided by the caller, the engine casts gradients back.
    """
    needs = False
    grad_on = _STATE.grad
    if grad_on:
        for t in inputs:
            if t._base is not None:
                _sync_view(t)
            if t._requires_grad:
                needs = True
    if len(inputs) == 2:  # (the common case, without a comprehension's frame)
        arrays = (inputs[0]._data, inputs[1]._data)
    else:
        arrays = [t._data for t in inputs]
    if cast is not None:
        arrays = [a if a.dtype == cast else a.astype(cast) for a in arrays]
    xp = _BY_ARRAY_TYPE[arrays[0].__class__].xp
    try:
        out = op.forward(xp, arrays, *params) if op.variadic else op.forward(xp, *arrays, *params)
    except ValueError as e:
        if "broadcast" in str(e) and len(arrays) >= 2:
            from .inplace import raise_broadcast_error
            raise_broadcast_error(arrays[0].shape, arrays[1].shape)
        raise
    if op.n_out == 1:
        if out.__class__ is not arrays[0].__class__:
            out = xp.asarray(out)
        res = _make(out)
        if op.view:
            _mark_view(res, inputs[0])
        if needs and out.dtype.kind in _FLOATING:
            node = _record(op, inputs, params, (res,))
            res._requires_grad = True
            res._grad_fn = node
            _finish_saves(op, node, inputs, (res,), params)
        elif not needs:  # provenance: where a chain from a tensor that requires grad is cut
            if not grad_on:
                if not _STATE.in_backward:
                    _nograd_op(op.name, (res,), inputs)
            else:
                for t in inputs:
                    if t._meta is not None and t._meta.cut is not None:
                        _propagate_cut((res,), inputs)
                        break
        return res
    outs = []
    for o in out:
        if o.__class__ is not arrays[0].__class__:
            o = xp.asarray(o)
        r = _make(o)
        if op.view:
            _mark_view(r, inputs[0], multi=True)
        outs.append(r)
    if needs:
        node = _record(op, inputs, params, outs)
        for i, r in enumerate(outs):
            if (op.diff_out is None or op.diff_out[i]) and r._data.dtype.kind in _FLOATING:
                r._requires_grad = True
                r._grad_fn = node
                r._output_nr = i
        _finish_saves(op, node, inputs, outs, params)
    elif not _STATE.grad:
        if not _STATE.in_backward:
            _nograd_op(op.name, outs, inputs)
    else:
        _propagate_cut(outs, inputs)
    return tuple(outs)


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


def _edge(t: Tensor) -> tuple:
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        ref = t._accumulator
        acc = ref() if ref is not None else None
        return (acc if acc is not None else t._grad_accumulator(), 0)
    return _NO_EDGE


def _record(op: OpDef, inputs, params, outs) -> OpNode:
    node = _new(op.node_cls)
    node._seq = next_sequence_nr()
    if len(inputs) == 2:
        a, b = inputs
        node.next_functions = (_edge(a), _edge(b))
        node._in_meta = ((a._data.shape, a._data.dtype), (b._data.shape, b._data.dtype))
    else:
        node.next_functions = tuple([_edge(t) for t in inputs])
        node._in_meta = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    node._extra = None
    node._site = _node_site()
    if _STATE.anomaly:
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
    saved = []
    edges = node.next_functions
    for kind, i, users in spec:
        if kind <= 1 and users is not None:
            for u in users:
                if edges[u][0] is not None:
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
            saved.append(params[i])
    node._saved = saved


def apply_unary(op: OpDef, a: Tensor, params: tuple = ()):
    """``apply`` for the common one-tensor-in, one-tensor-out, non-view op (exp, relu, sum, ...)."""
    st = _STATE
    if st.grad:
        if a._base is not None:
            _sync_view(a)
        needs = a._requires_grad
    else:
        needs = False
    arr = a._data
    xp = _BY_ARRAY_TYPE[arr.__class__].xp
    out = op.forward(xp, arr, *params)
    if out.__class__ is not arr.__class__:
        out = xp.asarray(out)
    res = _make(out)
    if needs:
        if out.dtype.kind in _FLOATING:
            node = _new(op.node_cls)
            node._seq = next_sequence_nr()
            fn = a._grad_fn
            if fn is not None:
                node.next_functions = ((fn, a._output_nr),)
            else:
                ref = a._accumulator
                acc = ref() if ref is not None else None
                node.next_functions = ((acc if acc is not None else a._grad_accumulator(), 0),)
            node._in_meta = ((arr.shape, arr.dtype),)
            node._extra = None
            node._site = _node_site()
            if st.anomaly:
                from ..autograd.anomaly import record_forward_trace
                record_forward_trace(node)
            res._requires_grad = True
            res._grad_fn = node
            _finish_saves(op, node, (a,), (res,), params)
    elif st.grad:
        if a._meta is not None and a._meta.cut is not None:
            _propagate_cut((res,), (a,))
    elif not st.in_backward:
        _nograd_op(op.name, (res,), (a,))
    return res


def apply_scalar(op: OpDef, a: Tensor, scalar, params: tuple = ()):
    """``apply`` for tensor (op) Python number when the number keeps the tensor's dtype.

    The number is passed to NumPy as is (its weak typing matches torch's rule) and is
    recorded as an input without history, so no wrapper tensor is made for it.
    """
    if _STATE.grad:
        if a._base is not None:
            _sync_view(a)
        needs = a._requires_grad
    else:
        needs = False
    arr = a._data
    out = op.forward(_BY_ARRAY_TYPE[arr.__class__].xp, arr, scalar, *params)
    if out.__class__ is not arr.__class__:
        out = _BY_ARRAY_TYPE[arr.__class__].xp.asarray(out)
    res = _make(out)
    if needs and out.dtype.kind in _FLOATING:
        node = _new(op.node_cls)
        node._seq = next_sequence_nr()
        fn = a._grad_fn
        if fn is not None:
            first = (fn, a._output_nr)
        else:
            ref = a._accumulator
            acc = ref() if ref is not None else None
            first = (acc if acc is not None else a._grad_accumulator(), 0)
        node.next_functions = (first, _NO_EDGE)
        node._in_meta = ((arr.shape, arr.dtype), _NO_META)  # the number's edge is None: never read
        node._extra = None
        node._site = _node_site()
        if _STATE.anomaly:
            from ..autograd.anomaly import record_forward_trace
            record_forward_trace(node)
        res._requires_grad = True
        res._grad_fn = node
        _finish_saves(op, node, (a, scalar), (res,), params)
    elif not needs:  # provenance: where a chain from a tensor that requires grad is cut
        if not _STATE.grad:
            if not _STATE.in_backward:
                _nograd_op(op.name, (res,), (a,))
        elif a._meta is not None and a._meta.cut is not None:
            _propagate_cut((res,), (a,))
    return res


def apply_nograd(fn: Callable, *tensors: Tensor, dtype_out=None):
    """Run a non-differentiable op (comparisons, argmax, ...): its result never requires grad."""
    arrays = [t._data for t in tensors]
    xp = _BY_ARRAY_TYPE[arrays[0].__class__].xp
    out = fn(xp, *arrays)
    if out.__class__ is not arrays[0].__class__:
        out = xp.asarray(out)
    return _make(out)
