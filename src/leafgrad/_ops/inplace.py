"""In-place ops with PyTorch's rules: version counters, leaf checks, rebasing, CopySlices.

An in-place op writes into the tensor's array, bumps the version counter it shares
with its views, and (when autograd is recording) moves the tensor's history onto the
op: the tensor's ``grad_fn`` becomes the op's node. Writing through a view changes the
base, so the base's ``grad_fn`` becomes a :class:`CopySlices` that routes the
gradient of the written region through the op and the rest straight through; the
view's own ``grad_fn`` is re-derived from the base (``AsStridedBackward0``).
"""
from __future__ import annotations

from ctypes import addressof as _addressof, c_char as _c_char

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _STATE, vc_of
from ..autograd.graph import Node, flat_edges, next_sequence_nr, raise_backward_twice
from ..errors import raise_autograd, user_site
from ..provenance import enabled as _provenance_on, user_line as _user_line
from .._backend import _BY_ARRAY_TYPE
from .._lowp import LowpArray, add_scaled
from . import pointwise as _pw
from .registry import _NO_EDGE, _finish_saves, _namespace_of, _record, apply, defop, edge_of, shared_in_meta
from .xp import TENSORS
from .unsigned import refuse_unsigned

_make = Tensor._make

# ----------------------------------------------------------------------------- ops only used in place
def _overwritten(xp, g):
    """The gradient of a tensor's old value after a write replaced it: zero (``g * 0``, as before)."""
    return g * 0


COPY = defop("torch::autograd::CopyBackwards", lambda xp, a, src: xp.broadcast_to(src, a.shape).astype(a.dtype, copy=False),
             (_overwritten, lambda xp, g: g), n_in=2)
FILL = defop("FillBackward2", lambda xp, a, value: xp.full(a.shape, value, dtype=a.dtype), _overwritten)
FILL_T = defop("FillBackward3", lambda xp, a, v: xp.broadcast_to(v, a.shape).astype(a.dtype, copy=False),
               (_overwritten, lambda xp, g: xp.sum(g)), n_in=2)
ZERO = defop("ZeroBackward0", lambda xp, a: xp.zeros_like(a), _overwritten)
RANDOM_FILLS = {name: defop(name, lambda xp, a, arr: arr.astype(a.dtype, copy=False), _overwritten)
                for name in ("UniformBackward0", "NormalBackward0", "BernoulliBackward0", "ExponentialBackward0",
                             "RandomBackward0")}


def _index_put_fwd(xp, a, v, key, accumulate):
    out = a.copy()
    if accumulate:
        xp.add.at(out, key, v)
    else:
        out[key] = v
    return out


def _index_put_self_grad(xp, g, key, accumulate):
    if accumulate:
        return g
    return xp.apply(INDEX_PUT, g, xp.zeros((), dtype=xp.dtype_of(g)), params=(key, False))


def _index_values_grad(xp, g, key):
    index = _INDEX[0]
    if index is None:  # (indexing imports this module: found on first use, not by an import per call)
        from .indexing import INDEX
        index = _INDEX[0] = INDEX
    return xp.apply(index, g, params=(key,))


_INDEX: list = [None]  # indexing.INDEX (see _index_values_grad)


INDEX_PUT = defop("IndexPutBackward0", _index_put_fwd,
                  (_index_put_self_grad, lambda xp, g, key, accumulate: _index_values_grad(xp, g, key)),
                  saved=("key", "accumulate"), n_in=2)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    refuse_unsigned(input.dtype, "index_put")  # (uint16/32/64: see _ops/unsigned.py)
    key = tuple(i._data if isinstance(i, Tensor) else i for i in indices) if isinstance(indices, (tuple, list)) \
        else indices
    return apply(INDEX_PUT, (input, _value_tensor(values, input)), (key, accumulate))


def _value_tensor(v, like: Tensor) -> Tensor:
    if isinstance(v, Tensor):
        return v
    return _make(np.asarray(v, dtype=like._data.dtype))


def _write_add(xp, a, b, params):
    alpha = params[0]
    if alpha != 1 and isinstance(b, LowpArray):  # (torch's alpha and fused multiply-add: _lowp.add_scaled)
        a[...] = add_scaled(a, b, alpha)
        return
    xp.add(a, b if alpha == 1 else b * alpha, out=a, casting="unsafe")


def _write_sub(xp, a, b, params):
    alpha = params[0]
    if alpha != 1 and isinstance(b, LowpArray):
        a[...] = add_scaled(a, b, -alpha)
        return
    xp.subtract(a, b if alpha == 1 else b * alpha, out=a, casting="unsafe")


def _write_mul(xp, a, b, params):
    xp.multiply(a, b, out=a, casting="unsafe")


def _write_div(xp, a, b, params):
    xp.divide(a, b, out=a, casting="unsafe")


_WRITE_INTO: dict = {}  # filled below the op imports: op -> (xp, self's array, other's array, params) writer


# ----------------------------------------------------------------------------- checks
def _check_allowed(t: Tensor, op_name: str) -> None:
    """torch's rules for in-place writes while grad mode is on (all raise RuntimeError)."""
    base = t._base
    if base is None:
        if t._grad_fn is None and t._requires_grad:
            raise_autograd(
                "LG101",
                "a leaf Variable that requires grad is being used in an in-place operation. "
                f"The in-place op is {op_name} on a leaf of shape {list(t._data.shape)}. Autograd needs a leaf's "
                "value to stay as it was created. Fixes: use the out-of-place form (x = x + 1); or, to update "
                "parameters, wrap the update in `with torch.no_grad():`; or write to x.data if you deliberately "
                "bypass autograd.", tensor=t, op=op_name, site=user_site())
        return
    m = t._meta
    kind = m.view_kind if m is not None else None
    if base._grad_fn is None and kind is None and (base._requires_grad or t._requires_grad):
        # (torch: a view that requires grad, of a leaf; the leaf itself need not require grad)
        raise_autograd(
            "LG102",
            "a view of a leaf Variable that requires grad is being used in an in-place operation. "
            f"The in-place op is {op_name} on a view (shape {list(t._data.shape)}) of a leaf of shape "
            f"{list(base._data.shape)}; writing into the view would change the leaf. Fixes: build a new tensor "
            "instead (torch.cat / torch.stack / torch.where, or y = x.clone(); y[0] = ...); or, for a deliberate "
            "update, wrap it in `with torch.no_grad():`.", tensor=t, base=base, op=op_name, site=user_site())
    if kind == "multi_output" and (base.requires_grad or t._grad_fn is not None):
        fn = t._grad_fn.name().replace("Backward0", "") if t._grad_fn is not None else "a multi-output view op"
        raise_autograd(
            "LG110",
            f"Output {t._output_nr} of {fn} is a view and is being modified inplace. This view is the output of a "
            "function that returns multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one (or .clone() the output "
            f"first). The in-place op was {op_name}.", tensor=t, op=op_name, site=user_site())
    if kind == "no_grad" and base.requires_grad:
        raise_autograd(
            "LG111",
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
            "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
            "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
            f"tracked) or both outside (if you want the inplace to be tracked). The in-place op was {op_name}.",
            tensor=t, op=op_name, site=user_site())


def _writable_alias(arr: np.ndarray):
    """A writable array over the same memory as ``arr`` (a read-only view NumPy made, as broadcast_to does),
    or None when the memory is not ours to write (a read-only array from outside) or elements overlap."""
    if any(st == 0 and n > 1 for st, n in zip(arr.strides, arr.shape)):
        return None  # (several elements at one address: torch's internal-overlap refusal)
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.writeable or not root.flags.c_contiguous or root is arr:
        return None
    offset = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=root, offset=offset, strides=arr.strides)


def _check_writable(t: Tensor) -> None:
    if not t._data.flags.writeable:
        alias = _writable_alias(t._data)
        if alias is not None:  # a write into expand()'s view that touches each address once: allowed, as torch
            t._data = alias
            return
        raise_autograd(
            "LG118",
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation. (It is an expand()ed view, or "
            "a tensor made from a read-only NumPy array.)", tensor=t, site=user_site())


def check_cast(t: Tensor, result_dtype, cpp_name: bool = False) -> None:
    """torch's canCast for in-place results: complex only into complex, floating not into
    integers or bool, integers not into bool (bool goes into anything)."""
    frm, to = result_dtype.kind, t._data.dtype.kind
    if (frm == "c" and to != "c") or (frm == "f" and to in "iub") or (frm in "iu" and to == "b"):
        result = {"f": "Float", "c": "ComplexFloat"}.get(frm) or D.scalar_type_name(result_dtype)
        to_name = D.CPP_NAMES.get(t.dtype.name, t.dtype.name) if cpp_name else D.scalar_type_name(t.dtype)
        raise RuntimeError(f"result type {result} can't be cast to the desired output type "
                           f"{to_name}: an in-place op keeps the tensor's dtype. "
                           "Use the out-of-place form, or convert first (e.g. .float()).")



def _cast_refused_first(self: Tensor, op, arrays: tuple, params: tuple) -> None:
    """An in-place op whose forward refused a uint16/32/64 tensor's data (``_unsigned_array.py``): when
    its result would be floating (``sigmoid_``, ``logit_``), torch refuses the cast first, so run the
    forward on the values as int64 to see the result's dtype (only on this error path)."""
    try:
        probe = op.forward(np, *(a.view(np.ndarray).astype(np.int64) if a.dtype.kind == "u" else a
                                 for a in arrays), *params)
    except Exception:  # noqa: BLE001 - no answer from the probe: the original refusal stands
        return
    check_cast(self, probe.dtype)


# ----------------------------------------------------------------------------- the one in-place path
def inplace(op, self: Tensor, others: tuple = (), params: tuple = (), op_name: str = "",
            site_skip: int = 2) -> Tensor:
    """Run ``op`` writing into ``self``; every in-place method and ``__setitem__`` comes here.

    A hand-written SGD step runs this once per parameter under ``no_grad``, so what only
    grad mode needs is looked at only with grad mode on, and ``add_``/``sub_``/``mul_``/
    ``div_`` go to their ufunc without building argument tuples. The walk for the user's
    line starts ``site_skip`` frames up (``provenance.user_line``'s count: 2 is the caller):
    each frame it steps through costs a frame object, so each leafgrad function on the way
    here adds one for its own frame (``binary_``, the ``add_``/``+=``-style methods).
    """
    grad_on = _STATE.grad
    base = self._base
    if base is not None and self._vc.v != self._view_v:
        regenerate_view_grad_fn(self)
    if grad_on:
        _check_allowed(self, op_name or op.name)
    m = self._meta
    if m is not None and m.inference and not _STATE.inference:
        raise_autograd("LG116", "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                                "make a clone to get a normal tensor before doing inplace update.See "
                                "https://github.com/pytorch/rfcs/pull/17 for more details. Make a normal tensor with "
                                "t.clone() outside inference_mode first.",
                       tensor=self)
    data = self._data
    if not data.flags.writeable:
        _check_writable(self)
        data = self._data  # (a writable alias of the same memory, where the write is allowed)
    needs = False
    if grad_on:
        needs = self._requires_grad or self._grad_fn is not None or (base is not None and base._requires_grad)
        for o in others:
            needs = needs or o._requires_grad
    xp = _BY_ARRAY_TYPE[data.__class__].xp  # (backend_for_array, one call less)
    original = data.copy() if needs and _saves_self(op) else None
    direct = _WRITE_INTO.get(op)
    if direct is not None:
        # add_/sub_/mul_/div_: one ufunc writing straight into the tensor's memory
        other = others[0]._data
        if other.dtype != data.dtype:
            rt = D.result_type(self, others[0])
            check_cast(self, np.dtype(rt.np))
            if rt.np == data.dtype and not isinstance(data, LowpArray):  # (a 0-dim float64 operand of a float32 tensor:
                # computed in float32, as torch; a 16-bit float tensor's kernels read a number in float32)
                other = other.astype(data.dtype)
        direct(xp, data, other, params)
    else:
        if len(others) == 1:  # (the common case, spelled out: no comprehension)
            arrays = (data, others[0]._data)
        else:
            arrays = (data,) + tuple([o._data for o in others]) if others else (data,)
        try:
            out = op.forward(xp, *arrays, *params)
        except NotImplementedError:
            if data.__class__ is not np.ndarray and data.dtype.kind == "u":  # (uint16/32/64's array type)
                _cast_refused_first(self, op, arrays, params)
            raise
        if out.dtype != data.dtype:
            check_cast(self, out.dtype)
        data[...] = out
    vc = self._vc
    if vc is None:
        vc = vc_of(self)
    line = _user_line(site_skip)  # (errors.user_site's answer, from provenance's cache)
    vc.bump(line)
    if not needs or data.dtype.kind not in "fcV":  # (an integer or bool tensor never requires grad)
        return self
    site = line if _provenance_on() else None  # (the node's site is the same line: no second walk)
    if base is not None and (m is None or m.view_kind is None):
        _record_copy_slices(op, self, others, params, original, site)
    else:
        _record_rebase(op, self, others, params, original, site)
    return self


def _pre_image(self: Tensor, original) -> Tensor:
    """A stand-in for ``self`` as it was before the write: its old history and (if saved) value."""
    pre = _make(original if original is not None else self._data)
    pre._grad_fn = self._grad_fn
    pre._output_nr = self._output_nr
    pre._requires_grad = self._requires_grad or self._grad_fn is not None
    pre._accumulator = self._accumulator
    return pre


def _record_rebase(op, self: Tensor, others: tuple, params: tuple, original, site) -> None:
    pre = _pre_image(self, original)
    inputs = (pre,) + others
    node = _record(op, inputs, None, site)
    self._grad_fn = node
    self._requires_grad = True
    self._output_nr = 0
    _finish_saves(op, node, inputs, (self,), params)


class CopySlices(Node):
    """The base's new history after an in-place write through one of its views.

    Its backward is written once against the namespace ``xp`` (``_backward``), as the ops'
    formulas are: ``apply`` runs it on Tensors, ``apply_raw`` on the raw arrays, each calling
    the inner node's formulas through that node's entry for the same interpreter."""

    __slots__ = ("fn", "_positions", "_base_shape", "_retype", "_freed")

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        if self._freed is not None:
            raise_backward_twice(self, self._freed)
        return self._backward(TENSORS, grads, self.fn.apply_masked)

    def apply_raw(self, grads: list) -> list:
        if self._freed is not None:
            raise_backward_twice(self, self._freed)
        return self._backward(_namespace_of(grads[0]), grads, self.fn.apply_masked_raw)

    def _backward(self, xp, grads: list, run_fn) -> list:
        g = grads[0]
        retype = self._retype  # (a view of another dtype, z.real: positions count in the base's reading)
        if retype is not None:
            g = xp.apply(retype[0], g)
        pos = self._positions
        flat = g.reshape((-1,))
        key = (pos.reshape(-1),)
        g_view = _index_values_grad(xp, flat, key).reshape(pos.shape)
        edges = self._next  # (flat: node0, nr0, node1, nr1, ...)
        # (the base, then the operands; two edges, ``y[i] += v``, spelled out: no comprehension)
        wanted = [True, edges[2] is not None] if len(edges) == 4 else [True] + [
            nxt is not None for nxt in edges[2::2]]
        res = run_fn([g_view], wanted)
        r0 = res[0]
        if r0 is None:
            r0 = xp.zeros(pos.shape, dtype=xp.dtype_of(g))
        elif r0.shape != pos.shape:
            r0 = xp.broadcast_to(r0, pos.shape) if r0.ndim <= len(pos.shape) else r0.reshape(pos.shape)
        base_grad = None
        if edges[0] is not None:
            base_grad = xp.apply(INDEX_PUT, flat, r0.reshape((-1,)), params=(key, False)).reshape(self._base_shape)
            if retype is not None:
                base_grad = xp.apply(retype[1], base_grad)
        return [base_grad, res[1]] if len(res) == 2 else [base_grad] + list(res[1:])

    def release_variables(self, site=None) -> None:
        """As torch's CopySlices, which lets go of its op when a backward frees the graph: a second
        backward through it is refused even when the op saved nothing (``y[i].add_(1.0)``)."""
        self.fn.release_variables(site)
        self._freed = site or True


class _ViewSlot(Node):
    """The first edge of the op node a :class:`CopySlices` wraps: the written view's old value, whose
    gradient CopySlices itself passes on to the base. The engine never reaches it (it walks
    CopySlices' edges); it only marks that the op's formula for its first input must run, so the
    op saves what that formula reads, and it is one shared object rather than a new leaf and
    accumulator per write."""

    __slots__ = ()

    def name(self) -> str:
        return "the written view (CopySlices passes its gradient on)"

    def apply(self, grads: list) -> list:  # pragma: no cover - never scheduled
        raise AssertionError("CopySlices' view slot is never run by the engine")


_VIEW_SLOT = _ViewSlot()
_VIEW_SLOT._next = ()
_VIEW_SLOT._seq = -1
_VIEW_SLOT._in_meta = ()
_VIEW_SLOT._extra = None
_VIEW_SLOT._site = None
_VIEW_SLOT_EDGE = (_VIEW_SLOT, 0)
_NO_EDGE_ONLY = (_NO_EDGE,)
_SLOT_THEN_NO_EDGE = (_VIEW_SLOT_EDGE, _NO_EDGE)


# op -> the inner node its last write through a view recorded, when that node holds nothing of the
# write's own (see _shared_fn)
_SHARED_FN: dict = {}


def _shared_fn(op, view: Tensor, others: tuple, params: tuple):
    """The inner node of an earlier write that this one may share, or None.

    ``y[i].add_(1.0)`` in a loop makes one CopySlices per write, each wrapping an ``AddBackward0``
    whose whole state is the same every time: no edge of its own (the view's slot, a number), the
    shared ``_in_meta`` of the same shapes, and its numbers (``alpha``) as saved values. torch keeps
    that node inside CopySlices where Python cannot reach it, so one such node serves every write
    that would make an equal one: a long chain then keeps one object fewer per write alive for the
    cyclic GC to traverse, and records no node. Equal means: the same op, the same ``_in_meta``
    object, and the very same number objects (``is``: -0.0 is not 0.0, NaN is itself)."""
    fn = _SHARED_FN.get(op)
    if fn is None:
        return None
    saved = fn._saved
    n = len(params)
    if len(saved) != n:
        return None
    if n == 1:  # (add_'s and sub_'s alpha, spelled out: no loop)
        if saved[0] is not params[0]:
            return None
    else:
        for a, b in zip(saved, params):
            if a is not b:
                return None
    o = others[0]._data
    v = view._data
    meta = fn._in_meta
    if meta[0][1] is not v.dtype or meta[1][1] is not o.dtype or meta[0][0] != v.shape or meta[1][0] != o.shape:
        return None
    return fn


def _record_copy_slices(op, view: Tensor, others: tuple, params: tuple, original, site) -> None:
    base = view._base
    if len(others) == 1:  # (the common case, ``y[i] += v``: no comprehension)
        other_edges = (edge_of(others[0]),)
    else:
        other_edges = tuple([edge_of(o) for o in others]) if others else ()
    # (a number or a tensor without grad as the other operand, ``y[i] += 1``: one shared tuple; a long
    # chain of such writes keeps fewer objects alive for the cyclic GC to traverse)
    plain = other_edges == _NO_EDGE_ONLY
    # (an inner node that may be shared: no operand edge, nothing saved but numbers; anomaly mode keeps
    # each node's own forward trace)
    shareable = plain and original is None and op.saves_params and not _STATE.anomaly
    fn = _shared_fn(op, view, others, params) if shareable else None
    if fn is None:
        pre = _make(original if original is not None else view._data)
        pre._requires_grad = True
        inputs = (pre,) + others
        fn = _record(op, inputs, _SLOT_THEN_NO_EDGE if plain else (_VIEW_SLOT_EDGE,) + other_edges, site)
        _finish_saves(op, fn, inputs, (view,), params)
        if shareable and fn._saved is params:
            _SHARED_FN[op] = fn  # (its saved values are the write's numbers alone: see _shared_fn)
    cs = object.__new__(CopySlices)
    cs._seq = next_sequence_nr()
    fb = base._grad_fn
    eb = (fb, base._output_nr) if fb is not None else edge_of(base)
    cs._next = eb + other_edges[0] if len(other_edges) == 1 else flat_edges((eb,) + other_edges)
    cs._in_meta = shared_in_meta(((base._data.shape, base._data.dtype),) + fn._in_meta[1:])
    cs._extra = None
    cs._site = site  # (its own: an inner node shared by several writes keeps the first one's)
    cs.fn = fn
    cs._freed = None
    storage, cs._retype = _retyped(view, base)
    cs._positions = view_positions(view._data, storage)
    cs._base_shape = storage.shape
    base._grad_fn = cs
    base._requires_grad = True
    base._output_nr = 0
    # the view's own history (AsStridedBackward0 from the base) is made when the view is next used:
    # the write bumped the version, so the view is behind it, as a sibling view of the base is
    # (regenerate_view_grad_fn); most written views, ``y[i]`` in a loop, are never used again


# ----------------------------------------------------------------------------- views re-derived from the base
class AsStridedBackward0(Node):
    """A view's history after its base was written in place: scatter the view's grad into the base
    (written once against ``xp``: ``apply`` on Tensors, ``apply_raw`` on raw arrays)."""

    __slots__ = ("_positions", "_base_shape")

    def apply(self, grads: list) -> list:
        return self._backward(TENSORS, grads)

    def apply_raw(self, grads: list) -> list:
        return self._backward(_namespace_of(grads[0]), grads)

    def _backward(self, xp, grads: list) -> list:
        g = grads[0]
        n = 1
        for s in self._base_shape:
            n *= s
        flat = xp.index_add_zeros(g.reshape((-1,)), (n,), (self._positions.reshape(-1),))
        return [flat.reshape(self._base_shape)]


def _retyped(view: Tensor, base: Tensor):
    """(the base's array as positions count in it, None or the (to, from) ops for a view of another dtype)."""
    if view._data.dtype.kind == base._data.dtype.kind or view._data.dtype.kind not in "fc" \
            or base._data.dtype.kind not in "fc":
        return base._data, None
    from .complex_views import retyped_base
    storage, to_op, from_op = retyped_base(view._data, base._data)
    return storage, (to_op, from_op)


def _set_as_strided(view: Tensor, base: Tensor, positions=None) -> None:
    storage, retype = _retyped(view, base)
    if retype is not None:  # (as torch: AsStridedBackward0 -> ViewAsRealBackward0 -> the base's history)
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            base = apply(retype[0], (base,))
        positions = view_positions(view._data, storage) if positions is None else positions
    node = object.__new__(AsStridedBackward0)
    node._seq = next_sequence_nr()
    node._next = edge_of(base)  # (one input: its edge is the flat tuple)
    node._in_meta = ((base._data.shape, base._data.dtype),)
    node._extra = None
    node._site = None  # re-derived lazily; the view's own creation is not recorded
    node._positions = view_positions(view._data, base._data) if positions is None else positions
    node._base_shape = base._data.shape
    view._grad_fn = node
    view._requires_grad = True
    view._output_nr = 0
    view._view_v = view._vc.v


def regenerate_view_grad_fn(view: Tensor) -> None:
    """Called lazily when a view's version moved on since its grad_fn was computed."""
    view._view_v = view._vc.v
    m = view._meta
    if m is not None and m.view_kind is not None:
        return
    base = view._base
    if base._requires_grad or base._grad_fn is not None:
        _set_as_strided(view, base)


def _address(arr: np.ndarray) -> int:
    """The address of ``arr``'s first element. ``__array_interface__`` builds a dict of seven
    entries to answer (about 1.5 us, twice per write through a view); a ctypes object over the
    array's buffer answers in a fifth of that, for the arrays that can lend one (writable and
    contiguous, as the views written in place and their bases mostly are)."""
    try:
        return _addressof(_c_char.from_buffer(arr))
    except (TypeError, ValueError, BufferError):  # (read-only, strided, empty, or a dtype with no buffer format)
        return arr.__array_interface__["data"][0]


# The 0-d positions of single elements (``y[i]``), made once per position: read-only, so the nodes that
# share one (CopySlices, AsStridedBackward0) only ever read it. Bounded as Backend.const's table is.
_POSITION: dict = {}


def _position(k: int) -> np.ndarray:
    p = _POSITION.get(k)
    if p is None:
        if len(_POSITION) >= 4096:
            _POSITION.clear()
        p = _POSITION[k] = np.array(k, dtype=np.int64)
        p.flags.writeable = False
    return p


def view_positions(view_arr: np.ndarray, base_arr: np.ndarray) -> np.ndarray:
    """For each element of a view, its flat (C-order) index in the base array."""
    item = base_arr.itemsize
    start = _address(view_arr) - _address(base_arr)
    if base_arr.flags.c_contiguous and view_arr.ndim <= 1 and start % item == 0:
        # (the common views written in place, ``y[i]`` and ``y[a:b]`` of a contiguous base: one call)
        if view_arr.ndim == 0:
            return _position(start // item)
        step = view_arr.strides[0]
        if step % item == 0:
            return np.arange(view_arr.shape[0], dtype=np.int64) * (step // item) + start // item
    addr = np.full(view_arr.shape, start, dtype=np.int64)
    for d, (n, st) in enumerate(zip(view_arr.shape, view_arr.strides)):
        shape = [1] * view_arr.ndim
        shape[d] = n
        addr = addr + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    if base_arr.flags.c_contiguous:
        return addr // item
    base_addr = np.zeros(base_arr.shape, dtype=np.int64)
    for d, (n, st) in enumerate(zip(base_arr.shape, base_arr.strides)):
        shape = [1] * base_arr.ndim
        shape[d] = n
        base_addr = base_addr + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    flat = base_addr.reshape(-1)
    order = np.argsort(flat, kind="stable")
    return order[np.searchsorted(flat[order], addr)]


# ----------------------------------------------------------------------------- public in-place entry points
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _operand(other, self: Tensor) -> Tensor:
    if isinstance(other, Tensor):
        return other
    if isinstance(other, (list, tuple, np.ndarray)):
        from .._creation import tensor
        return tensor(other)
    kind = other.__class__
    dtype = self._data.dtype
    if (kind is float or kind is int) and (dtype is _F32 or dtype is _F64):  # (``y[i] += 1.0``: the tensor's
        # dtype, result_type's answer without its work; the number's read-only 0-d array is made once, as
        # apply_simple's are: see Backend.const)
        return _make(_BY_ARRAY_TYPE[self._data.__class__].const(other, dtype))
    dt = D.result_type(self, other)
    if dt is D.bfloat16 or dt is D.float16:  # torch's kernels read a number in float32, their compute type (_lowp.py)
        return _make(np.asarray(other, dtype=np.float32))
    return _make(np.asarray(other, dtype=dt.np))


def binary_(op, self: Tensor, other, params: tuple = (), name: str = "", site_skip: int = 2) -> Tensor:
    o = other if isinstance(other, Tensor) else _operand(other, self)
    shape = self._data.shape
    other_shape = o._data.shape
    if other_shape != shape:  # (equal shapes broadcast to themselves: skip NumPy's slow check)
        try:
            out_shape = np.broadcast_shapes(shape, other_shape)
        except ValueError:
            raise_broadcast_error(shape, other_shape)
        if out_shape != shape:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                               f"{list(out_shape)}: an in-place op cannot change the shape of the tensor it "
                               "writes into.")
    return inplace(op, self, (o,), params, name, site_skip + 1)


def check_broadcast_into(self: Tensor, *others: Tensor) -> None:
    """An in-place op with several operands: they must broadcast to ``self``'s own shape."""
    shape = self._data.shape
    shapes = [o._data.shape for o in others if isinstance(o, Tensor)]
    if all(sh == shape for sh in shapes):
        return
    try:
        out = np.broadcast_shapes(shape, *shapes)
    except ValueError:
        bad = next(sh for sh in shapes if sh != shape)
        raise_broadcast_error(shape, bad)
    if out != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(out)}: an "
                           "in-place op cannot change the shape of the tensor it writes into.")


def broadcast_or_raise(*shapes: tuple) -> tuple:
    """The shapes broadcast left to right, as torch's TensorIterator does, so a clash is
    reported (with torch's message) between the shape so far and the operand that breaks it."""
    out = shapes[0]
    for s in shapes[1:]:
        if s != out:
            try:
                out = np.broadcast_shapes(out, s)
            except ValueError:
                raise_broadcast_error(out, s)
    return tuple(out)


def raise_broadcast_error(a: tuple, b: tuple) -> None:
    """torch's wording for shapes that do not broadcast, naming the first dimension that clashes."""
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for d in range(n - 1, -1, -1):
        if pa[d] != pb[d] and pa[d] != 1 and pb[d] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[d]}) must match the size of tensor b ({pb[d]}) at "
                               f"non-singleton dimension {d}. Shapes {list(a)} and {list(b)} do not broadcast.")
    raise RuntimeError(f"shapes {list(a)} and {list(b)} do not broadcast")


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    return binary_(COPY, self, src, (), "copy_")


def fill_(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return inplace(FILL_T, self, (value,), (), "fill_")
    return inplace(FILL, self, (), (value,), "fill_")


def zero_(self: Tensor) -> Tensor:
    return inplace(ZERO, self, (), (), "zero_")


def random_fill_(self: Tensor, arr: np.ndarray, name: str) -> Tensor:
    grad_fn = name[0].upper() + name[1:-1] + "Backward0"  # uniform_ -> UniformBackward0
    return inplace(RANDOM_FILLS[grad_fn], self, (), (arr,), name)


def check_index_put(self: Tensor, key: tuple, value: Tensor, value_given: bool) -> None:
    """What torch's index_put_ checks before writing: index dtypes, the value's shape and dtype (a tensor the user
    gave must match exactly), indices in range, and a value that broadcasts to the indexed shape."""
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    try:  # the indexed shape, from a one-byte stand-in for self (the real data is not touched)
        target = np.broadcast_to(np.zeros((), dtype=np.int8), self._data.shape)[key].shape
    except IndexError as e:
        msg = str(e).replace(" for axis ", " for dimension ")
        if msg.startswith("boolean index did not match"):
            raise IndexError(f"The shape of the mask does not match the shape of the indexed tensor "
                             f"{list(self.shape)}: {msg}") from None
        raise IndexError(msg) from None
    try:
        ok = np.broadcast_shapes(value._data.shape, target) == target
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(target)}")
    if value_given and value.dtype is not self.dtype:  # (torch checks the shapes first)
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{D.scalar_type_name(self.dtype)} for the destination and "
                           f"{D.scalar_type_name(value.dtype)} for the source.")


def setitem(self: Tensor, key, value) -> None:
    """``t[key] = value``: basic keys write through a view (CopySlices), advanced ones use ``index_put_``."""
    from .indexing import _is_advanced, getitem, normalize_key
    nkey = normalize_key(key)
    if isinstance(value, (list, tuple, np.ndarray)):  # (torch writes tensors and numbers only)
        raise TypeError(f"can't assign a {_type_name(value)} to a {self.type()}: convert the value first, "
                        f"e.g. t[key] = torch.tensor(value)")
    if key is False or key is True:  # (torch's own cases: False writes nothing, True writes x.unsqueeze(0))
        if key is False:
            _scalar_operand(value, self)
            return
        key, nkey = None, (None,)
    if any(_is_advanced(k) for k in nkey):
        v = _scalar_operand(_without_leading_ones(value) if isinstance(value, Tensor) else value, self)
        check_index_put(self, nkey, v, isinstance(value, Tensor))
        if self.dtype in D._UNSIGNED_WIDE:  # (torch writes through a bool mask with masked_fill: see unsigned.py)
            mask = len(nkey) == 1 and getattr(nkey[0], "dtype", None) == np.bool_
            refuse_unsigned(self.dtype, "masked_fill" if mask else "index_put")
        inplace(INDEX_PUT, self, (v,), (nkey, False), "index_put_")
        return
    view = self if _whole(nkey) else getitem(self, key)
    if isinstance(value, Tensor):
        if value._data.ndim == 0:
            inplace(FILL_T, view, (value,), (), "fill_")  # torch fills with a 0-dim value
        else:
            if value._data.shape != view._data.shape:  # the value is expanded to the view: torch's expand error
                from .shape import expanded_sizes
                value = _without_leading_ones(value)
                expanded_sizes(value, view._data.shape)
            copy_(view, value)
    else:
        fill_(view, _scalar_operand(value, self) if isinstance(value, str) else value)


def _type_name(value) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def _without_leading_ones(value: Tensor) -> Tensor:
    """torch drops a written value's leading size-1 dims (``t[0] = ones(1, n)`` on an (m, n)
    tensor), through a view that autograd records, before broadcasting it to the target."""
    shape = value._data.shape
    n = 0
    while n < len(shape) and shape[n] == 1:
        n += 1
    if not n:
        return value
    from .shape import view
    return view(value, shape[n:])


def _whole(key: tuple) -> bool:
    """``t[...] = v`` and ``t[:, :] = v`` write the tensor itself, not a view of it."""
    return len(key) > 0 and all(k is Ellipsis for k in key) or (
        len(key) > 1 and all(isinstance(k, slice) and k == slice(None) for k in key))


def index_put_(self: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    key = tuple(i._data if isinstance(i, Tensor) else i for i in indices)
    v = _operand(values, self)
    check_index_put(self, key, v, isinstance(values, Tensor))
    refuse_unsigned(self.dtype, "index_put")  # (uint16/32/64, after torch's checks: see _ops/unsigned.py)
    return inplace(INDEX_PUT, self, (v,), (key, accumulate), "index_put_")


def _scalar_operand(value, self: Tensor) -> Tensor:
    """A value written into ``self``: a number is refused unless it is one (torch: "can't assign a str")."""
    if isinstance(value, str):
        raise TypeError(f"can't assign a str to a {self.type()}")
    return _operand(value, self)


_WRITE_INTO.update({_pw.ADD: _write_add, _pw.SUB: _write_sub, _pw.MUL: _write_mul, _pw.DIV: _write_div})

def _saves_self(op) -> bool:
    """Does the op's backward read the input being overwritten (so its old value must be copied)?"""
    flag = _SAVES_SELF.get(op)
    if flag is None:
        flag = _SAVES_SELF[op] = any(kind == 0 and i == 0 for kind, i in op.spec)
    return flag


_SAVES_SELF: dict = {}
