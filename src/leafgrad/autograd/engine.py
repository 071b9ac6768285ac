"""The backward engine: dependency counting and a ready-heap, in PyTorch's order, with no recursion.

1. Walk the graph from the roots with an explicit stack, counting how many edges
   point into each node (and, for ``inputs=``, which nodes lead to a wanted input).
2. A node is ready when every edge into it has delivered its gradient; the ready
   node with the highest sequence number (the op recorded last) runs first, and
   ``AccumulateGrad`` runs as soon as it is ready.
3. Gradients for one node input are summed; a gradient whose shape differs from the
   input's (broadcasting) is reduced here, once, for every op; dtypes are cast back.
"""
from __future__ import annotations

import heapq
import sys
import threading

import numpy as np

from .._backend import _BY_ARRAY_TYPE
from .._tensor import Tensor, vc_of
from .._ops.layout import grad_for_leaf
from .._quiet import quiet_numpy
from ..errors import raise_autograd
from .grad_mode import STATE
from .graph import _LATE, AccumulateGrad, Node
from ..provenance import backward_site as _backward_site
from .._creation import ones_like_array  # (the engine is imported on the first backward, after the ops)
from .._ops.reduction import sum_dims

__all__ = ["run_backward", "accumulate_into_leaf", "accumulate_array"]

_getrefcount = sys.getrefcount
_make = Tensor._make
# Leaf gradients are written under one lock: backward calls from several threads into the same
# leaf add up exactly, as torch's AccumulateGrad does under its mutex.
_ACCUMULATE = threading.Lock()


def _gradient_edge(t: Tensor):
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    return t._grad_accumulator(), 0


def _root_grads(tensors, grad_tensors, is_grad_call: bool):
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not t.requires_grad:
            raise_autograd(
                "LG105",
                f"element {i} of tensors does not require grad and does not have a grad_fn. "
                "Nothing that went into this tensor requires grad, or the chain was cut: check that a leaf "
                "was created with requires_grad=True, and that no torch.no_grad() block, .detach(), .data, "
                ".item() or NumPy round-trip sits between that leaf and this tensor.", tensor=t, index=i)
        if g is None:
            if t._data.size != 1:
                raise_autograd(
                    "LG106",
                    f"grad can be implicitly created only for scalar outputs. This tensor has shape "
                    f"{list(t._data.shape)}; backward() needs a scalar such as loss.sum() or loss.mean(), or "
                    "an explicit gradient of the same shape: t.backward(torch.ones_like(t)).", tensor=t)
            g = Tensor._make(ones_like_array(t._data))
        else:
            if not isinstance(g, Tensor):
                from .._creation import tensor as _tensor
                g = _tensor(g, dtype=t.dtype)
            if g._data.shape != t._data.shape:
                raise_autograd(
                    "LG109",
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {t.shape}. The gradient passed for an output must have exactly the output's shape.",
                    tensor=t, index=i)
        roots.append((t, g))
    return roots


def _edge_at(n: int) -> tuple:
    """``((0, 0, 1), (1, 2, 3), ...)``: (edge number, index of its node, index of its input_nr) for each
    edge of a node's flat ``_next`` of ``n`` items. The loops over a node's edges iterate this shared
    tuple and index ``_next``: as cheap as unpacking stored pairs, where a zip or a slice per node
    would cost ~100 ns."""
    return tuple([(k, 2 * k, 2 * k + 1) for k in range(n // 2)])


_EDGES_INDEXED = 64  # (a node with more inputs, a long cat, builds its index when it runs)
_EDGE_AT = [_edge_at(n) for n in range(_EDGES_INDEXED)]
_NODE_AT = [tuple(range(0, n, 2)) for n in range(_EDGES_INDEXED)]  # (the nodes' indices alone)


def _collect(roots_edges, capture_edges):
    """Dependency counts over the reachable graph; with captures, only nodes that lead to one.

    The roots enter the count dict at 0, so the dict doubles as the "seen" set: a node
    is pushed on the stack the first time an edge reaches it, and a root never twice.
    """
    deps: dict = {fn: 0 for fn, _ in roots_edges if fn is not None}
    stack = list(deps)
    pop, push, count = stack.pop, stack.append, deps.get
    while stack:
        edges = pop()._next  # (flat: node0, nr0, node1, nr1, ...)
        n = len(edges)
        for j in (_NODE_AT[n] if n < _EDGES_INDEXED else range(0, n, 2)):
            nxt = edges[j]
            if nxt is None:
                continue
            c = count(nxt)
            if c is None:
                deps[nxt] = 1
                push(nxt)
            else:
                deps[nxt] = c + 1
    if capture_edges is None:
        return deps, None
    targets = {fn for fn, _ in capture_edges}
    needed = set()
    # one sweep over a topological order (built here, iteratively) marks every node on a path
    indeg = dict(deps)
    topo = []
    ready = [fn for fn, c in deps.items() if c == 0]
    while ready:
        fn = ready.pop()
        topo.append(fn)
        for nxt in fn._next[::2]:
            if nxt is None:
                continue
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                ready.append(nxt)
    for fn in reversed(topo):
        if fn in targets or any(n is not None and n in needed for n in fn._next[::2]):
            needed.add(fn)
    # recount dependencies among needed nodes only
    deps2: dict = {}
    for fn in needed:
        for nxt in fn._next[::2]:
            if nxt is not None and nxt in needed:
                deps2[nxt] = deps2.get(nxt, 0) + 1
    return deps2, needed


def run_backward(tensors, grad_tensors, retain_graph: bool, create_graph: bool, inputs=None,
                 allow_unused: bool = False, accumulate: bool = True):
    """Shared by ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad``.

    Returns the captured gradients for ``inputs`` when ``accumulate`` is False.
    """
    roots = _root_grads(tensors, grad_tensors, not accumulate)
    root_edges = [_gradient_edge(t) for t, _ in roots]
    capture_edges = None
    if inputs is not None:
        capture_edges = []
        for i, inp in enumerate(inputs):
            if not inp.requires_grad:
                raise_autograd(
                    "LG115",
                    f"One of the differentiated Tensors does not require grad (input {i}, shape "
                    f"{list(inp._data.shape)}). Set requires_grad=True on it before the forward pass.",
                    tensor=inp, index=i)
            capture_edges.append(_gradient_edge(inp))
    deps, needed = _collect(root_edges, capture_edges)
    # The formulas run on raw arrays unless a graph of the backward is wanted (create_graph) or
    # anomaly mode traces every node: gradients then flow as arrays, and Tensors are made only
    # where user code sees a gradient (hooks, retain_grad, .grad, autograd.grad's results).
    raw = not create_graph and not STATE.anomaly

    buffers: dict = {}
    for (fn, nr), (_, g) in zip(root_edges, roots):
        if needed is not None and fn not in needed:
            continue
        _add_to_buffer(buffers, fn, nr, g._data if raw else g)

    captured = {}
    capture_index = {}
    if capture_edges is not None:
        for i, (fn, nr) in enumerate(capture_edges):
            capture_index.setdefault(fn, []).append((nr, i))

    heap = []
    tie = 0
    for fn in list(buffers):
        if deps.get(fn, 0) == 0:
            heapq.heappush(heap, (-fn._seq, tie, fn, buffers.pop(fn)))
            tie += 1

    freed_site = None if retain_graph else (_backward_site() or True)  # provenance: who freed the graph
    prev_mode = STATE.grad
    STATE.in_backward += 1
    STATE.grad = create_graph
    heappush, heappop = heapq.heappush, heapq.heappop
    anomaly = STATE.anomaly
    # one flag for what an ordinary backward never needs (captured inputs, a pruned graph,
    # anomaly mode): the common loop tests it once per node instead of three conditions
    special = bool(capture_index) or needed is not None or anomaly
    array_types = _BY_ARRAY_TYPE
    # ``only`` holds the next node to run when it is the one node ready (a chain, the common
    # case): the heap would hand it back at once, so it skips the push and pop. As soon as a
    # second node is ready, both go on the heap in the order they became ready.
    only = only_grads = None
    try:
        with quiet_numpy():  # (NumPy's warnings for inf/nan: torch's backward prints none)
            while True:
                if only is not None:
                    fn = only
                    grads = only_grads
                    only = only_grads = None
                elif heap:
                    _, _, fn, grads = heappop(heap)
                else:
                    break
                if fn.__class__ is AccumulateGrad:  # a leaf's sink: its hooks, then .grad
                    var = fn.variable
                    m = var._meta
                    if raw:
                        if (m is not None and m.hooks) or (capture_index and fn in capture_index):
                            grads = _wrap(grads)  # (user code sees this gradient)
                        elif accumulate:
                            accumulate_array(var, grads[0])
                            continue
                    if m is not None and m.hooks:
                        grads = _call_pre_hooks(fn, grads)
                    if capture_index and fn in capture_index:
                        _capture(fn, grads, capture_index, captured, inputs, False)
                    if accumulate:
                        accumulate_into_leaf(var, grads[0])  # (AccumulateGrad.apply, one call less)
                    continue
                if fn._extra is not None:
                    grads = _call_pre_hooks_raw(fn, grads) if raw else _call_pre_hooks(fn, grads)
                if special:
                    if capture_index and fn in capture_index:
                        _capture(fn, _wrap(grads) if raw else grads, capture_index, captured, inputs, accumulate)
                    if needed is not None and fn not in needed:
                        continue
                    if anomaly:  # names the forward line of a failing node; stops at the first NaN
                        from .anomaly import apply_traced
                        outputs = apply_traced(fn, grads)
                    else:
                        outputs = fn.apply_raw(grads) if raw else fn.apply(grads)
                elif raw:
                    outputs = fn.apply_raw(grads)
                else:
                    outputs = fn.apply(grads)
                extra = fn._extra  # (read again: a hook may have registered another while running)
                if extra is not None:
                    post = extra.get("post")
                    if post:
                        outputs = _call_post_hooks(post, outputs, grads, raw)
                if freed_site is not None:
                    fn.release_variables(freed_site)
                edges = fn._next  # (flat: node0, nr0, node1, nr1, ...)
                n = len(edges)
                if len(outputs) * 2 != n:  # a node or hook returned too few: pad with None
                    outputs = list(outputs) + [None] * (n // 2 - len(outputs))
                in_meta = fn._in_meta
                for i, j, k in (_EDGE_AT[n] if n < _EDGES_INDEXED else _edge_at(n)):
                    nxt = edges[j]
                    if nxt is None or (needed is not None and nxt not in needed):
                        continue
                    nr = edges[k]
                    g = outputs[i]
                    if g is not None:
                        meta = in_meta[i]
                        if raw:
                            if g.__class__ not in array_types:  # (NumPy gives scalars for 0-d results)
                                g = _as_array(g)
                            if g.shape != meta[0]:
                                g = _reduce_array(g, meta[0], fn, i)
                            if g.dtype is not meta[1] and g.dtype != meta[1]:
                                # (a complex gradient for a real input: its real part, as torch, silently)
                                g = (g.real if g.dtype.kind == "c" and meta[1].kind != "c" else g).astype(meta[1])
                        else:
                            d = g._data
                            if d.shape != meta[0]:
                                g = _reduce_to(g, meta[0], fn, i)
                            if d.dtype is not meta[1] and d.dtype != meta[1]:
                                g = g.to(_dtype_of(meta[1]))
                    # ``buffers`` holds the gradients of nodes still waiting for an edge; a node's
                    # last edge takes its buffer out, and it travels with the node from then on
                    # (``only`` or the heap): a chain's node costs two dict operations, not five
                    c = deps[nxt] - 1
                    buf = buffers.get(nxt) if c else buffers.pop(nxt, None)
                    if g is not None:
                        if buf is None:
                            if nr == 0:
                                buf = [g]
                            else:
                                buf = [None] * (nr + 1)
                                buf[nr] = g
                            if c:
                                buffers[nxt] = buf
                        else:
                            if len(buf) <= nr:
                                buf.extend([None] * (nr + 1 - len(buf)))
                            old = buf[nr]
                            if old is not None:
                                g = old + g
                                if raw and g.__class__ not in array_types:  # (0-d + 0-d is a NumPy scalar)
                                    g = _as_array(g)
                            buf[nr] = g
                    if c:
                        deps[nxt] = c
                        continue
                    if buf is None:  # (no gradient reached it at all: it does not run)
                        continue
                    if only is None and not heap:
                        only = nxt
                        only_grads = buf
                        continue
                    if only is not None:
                        heappush(heap, (-only._seq, tie, only, only_grads))
                        tie += 1
                        only = None
                    heappush(heap, (-nxt._seq, tie, nxt, buf))
                    tie += 1
                # drop this frame's references to the gradients, so AccumulateGrad can tell a
                # buffer nobody else holds (and adopt it) from a shared one (and copy it)
                outputs = g = d = grads = buf = old = None
    finally:
        STATE.grad = prev_mode
        STATE.in_backward -= 1
    if inputs is None:
        return None
    result = []
    for i, inp in enumerate(inputs):
        g = captured.get(i)
        if g is None and not allow_unused and not accumulate:
            raise_autograd(
                "LG114",
                f"The differentiated Tensor at index {i} appears to not have been used in the graph (shape "
                f"{list(inp._data.shape)}). Set allow_unused=True if this is the desired behavior; otherwise check "
                "that the output really is computed from this tensor.", tensor=inp, index=i)
        result.append(g)
    return tuple(result)


def _wrap(grads: list) -> list:
    """Gradients on raw arrays as Tensors, where user code is about to see them."""
    return [None if g is None else _make(g) for g in grads]


def _unwrap(grads) -> list:
    return [None if g is None else g._data for g in grads]


# A formula's 0-d result that NumPy handed back as a scalar, as a 0-d array again (NumPy's own
# function, no Python frame: W3's every mul node needs it)
_as_array = np.asarray


def _call_pre_hooks_raw(fn, grads: list) -> list:
    """``_call_pre_hooks`` for gradients on raw arrays: Tensors are made only when a hook (or a
    ``retain_grad``) is there to see them."""
    extra = fn._extra
    if not (extra.get("tensor_pre") or extra.get("retains") or extra.get("pre")):
        return grads
    return _unwrap(_call_pre_hooks(fn, _wrap(grads)))


def _capture(fn, grads, capture_index, captured, inputs, fill_grad: bool) -> None:
    """Record the gradients reaching a wanted input (``autograd.grad`` / ``backward(inputs=...)``)."""
    for nr, i in capture_index[fn]:
        g = grads[nr] if nr < len(grads) else None
        captured[i] = g
        if fill_grad and g is not None:
            accumulate_into_leaf(inputs[i], g)  # backward(inputs=[non_leaf]) fills its .grad


def _dtype_of(np_dtype):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(np_dtype)


def _reduce_to(g: Tensor, shape: tuple, fn: Node, i: int) -> Tensor:
    """Sum a broadcast gradient back to the input's shape: the one place this happens."""
    gs = g._data.shape
    key = (gs, shape)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan_reduction(gs, shape)
    if plan is _INCOMPATIBLE:
        if g._data.size == _numel(shape):
            return g.reshape(shape)
        raise_autograd(
            "LG109",
            f"Function {fn.name()} returned an invalid gradient at index {i} - got {list(gs)} but expected "
            f"shape compatible with {list(shape)}. A backward formula (or a hook) must return a gradient "
            "with the shape of the corresponding input.", node=fn, index=i)
    lead, ones = plan
    if not STATE.grad:  # a plain backward records nothing: the sums on the arrays themselves
        return _make(_sum_array(g._data, lead, ones))
    if lead is not None:  # create_graph: recorded, so the reduction has its own backward
        g = sum_dims(g, lead if lead.__class__ is tuple else (lead,))  # no keepdim: fresh array, no view
    if ones is not None:
        g = sum_dims(g, ones, True)
    return g


def _reduce_array(d, shape: tuple, fn: Node, i: int):
    """``_reduce_to`` for a gradient on a raw array."""
    gs = d.shape
    plan = _PLANS.get((gs, shape))
    if plan is None:
        plan = _plan_reduction(gs, shape)
    if plan is _INCOMPATIBLE:
        return _reduce_to(_make(d), shape, fn, i)._data  # (a reshape, or the error)
    return _sum_array(d, plan[0], plan[1])


def _sum_array(d, lead, ones):
    add = _BY_ARRAY_TYPE[d.__class__].xp.add  # (its reduce directly: ndarray.sum is a Python wrapper)
    cls = d.__class__
    if lead is not None:  # (no keepdims: a fresh array, not a view, so .grad may adopt it)
        d = add.reduce(d, lead)
    if ones is not None:
        d = add.reduce(d, ones, None, None, True)
    if d.__class__ is not cls:  # (NumPy gives a scalar for a sum over every dim)
        d = _BY_ARRAY_TYPE[cls].xp.asarray(d)
    return d


# (gradient shape, input shape) -> (leading axes to sum away, size-1 axes to sum keeping them),
# each None when there are none; a bias sees the same pair every step, so it is worked out once.
_PLANS: dict = {}
_INCOMPATIBLE = ("incompatible",)


def _plan_reduction(gs: tuple, shape: tuple):
    lead = len(gs) - len(shape)
    plan = _INCOMPATIBLE
    if lead >= 0:
        ones = []  # the input's size-1 dims that the gradient has broadcast
        for k, s in enumerate(shape):
            if s != gs[lead + k]:
                if s != 1:
                    break
                ones.append(k)
        else:
            # one leading axis as an int: NumPy reduces over an int axis faster than over a tuple
            plan = (None if lead == 0 else 0 if lead == 1 else tuple(range(lead)),
                    tuple(ones) if ones else None)
    if len(_PLANS) >= 4096:  # (a program cycling through many shapes: start over)
        _PLANS.clear()
    _PLANS[(gs, shape)] = plan
    return plan


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _add_to_buffer(buffers: dict, fn, nr: int, g) -> None:
    buf = buffers.get(fn)
    if buf is None:
        buf = buffers[fn] = [None] * (nr + 1)
    elif len(buf) <= nr:
        buf.extend([None] * (nr + 1 - len(buf)))
    old = buf[nr]
    if old is not None:
        g = old + g
        if g.__class__ not in _BY_ARRAY_TYPE and not isinstance(g, Tensor):  # (0-d + 0-d is a NumPy scalar)
            g = _as_array(g)
    buf[nr] = g


def _call_pre_hooks(fn, grads: list) -> list:
    if fn.__class__ is AccumulateGrad:
        m = fn.variable._meta
        hooks = m.hooks if m is not None else None
        if hooks:
            g = grads[0]
            for h in list(hooks.values()):
                r = h(g)
                if r is not None:
                    g = _check_hook_grad(r, g, fn)
            grads = [g]
        return grads
    extra = fn._extra
    if extra is None:
        return grads
    tensor_pre = extra.get("tensor_pre")
    if tensor_pre:
        for nr, hooks in tensor_pre.items():
            if nr < len(grads) and grads[nr] is not None:
                g = grads[nr]
                for h in list(hooks.values()):
                    r = h(g)
                    if r is not None:
                        g = _check_hook_grad(r, g, fn)
                grads[nr] = g
    retains = extra.get("retains")
    if retains:
        for nr, ref in retains.items():
            t = ref()
            if t is not None and nr < len(grads) and grads[nr] is not None:
                g = grads[nr]
                if t._grad is None:
                    t._grad = Tensor._make(g._data.copy()) if not STATE.grad else g.clone()
                else:
                    t._grad = t._grad + g
    pre = extra.get("pre")
    if pre:
        for h in list(pre.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    return grads


def _check_hook_grad(new, old: Tensor, fn) -> Tensor:
    if not isinstance(new, Tensor) or new._data.shape != old._data.shape:
        shape = list(new._data.shape) if isinstance(new, Tensor) else type(new).__name__
        raise_autograd(
            "LG109",
            f"hook 'hook' has changed the size of value: a hook on a tensor that feeds {fn.name()} returned "
            f"{shape}, but the gradient has shape {list(old._data.shape)}. A hook may return None (keep the "
            "gradient) or a tensor of exactly the gradient's shape.", node=fn)
    return new


def _call_post_hooks(post, outputs, grads, raw: bool = False):
    outputs = _wrap(outputs) if raw else list(outputs)
    grads = _wrap(grads) if raw else grads
    for h in list(post.values()):
        r = h(tuple(outputs), tuple(grads))
        if r is not None:
            outputs = list(r)
    return _unwrap(outputs) if raw else outputs


def accumulate_array(var: Tensor, g) -> None:
    """``accumulate_into_leaf`` for a gradient on a raw array (a plain backward, no hook on ``var``)."""
    with _ACCUMULATE:
        old = var._grad
        if old is None:
            if var._data.flags.c_contiguous:  # (the usual leaf: the buffer can be adopted)
                own = _adoptable(g)
                var._grad = _make(own if own is not None else g.copy())
            else:  # (a transposed or channels-last leaf: .grad laid out as torch lays it out)
                var._grad = _make(grad_for_leaf(g, var._data))
        else:
            od = old._data
            if od.shape == g.shape and od.dtype == g.dtype and od.flags.writeable:
                od += g
                vc_of(old).v += 1
            else:
                var._grad = _make(od + g)
    m = var._meta
    if m is not None and m.post_acc_hooks:
        for h in list(m.post_acc_hooks.values()):
            h(var)


def _adoptable(arr):
    """The buffer ``.grad`` may adopt for gradient ``arr``, or None when it must be copied.

    That is ``arr`` when nothing but the engine holds it: expected references are the engine's
    buffer list, ``accumulate_array``'s argument, this function's argument and getrefcount's own
    (4); a user's tensor, a view or a saved copy adds one. A view is adopted through the buffer
    it views when it views all of it, laid out the same way, and nothing else holds that buffer:
    the transpose of a transpose that TBackward0 hands ``nn.Linear``'s weight.
    """
    if _getrefcount(arr) > 4:
        return None
    base = arr.base
    if base is not None:
        if (base.__class__ is not arr.__class__ or base.base is not None or _getrefcount(base) > 3
                or base.shape != arr.shape or base.strides != arr.strides or base.dtype != arr.dtype):
            return None
        arr = base
    flags = arr.flags  # (each read of .flags makes a new flags object)
    return arr if flags.writeable and flags.c_contiguous else None


def accumulate_into_leaf(var: Tensor, g: Tensor) -> None:
    """Write or add ``g`` into ``var.grad`` exactly when torch would, stealing fresh buffers."""
    with _ACCUMULATE:
        _accumulate_tensor(var, g)
    m = var._meta
    if m is not None and m.post_acc_hooks:
        for h in list(m.post_acc_hooks.values()):
            h(var)


def _accumulate_tensor(var: Tensor, g: Tensor) -> None:
    old = var._grad
    if old is None:
        if STATE.grad:  # (create_graph: a copy of its own, recorded as torch's CopyBackwards when it has history)
            var._grad = _recorded_copy(g)
        elif not var._data.flags.c_contiguous:  # (torch's layout contract: see grad_for_leaf)
            var._grad = Tensor._make(grad_for_leaf(g._data, var._data))
        elif g._grad_fn is None and g._base is None and _exclusive(g):
            var._grad = g
        else:
            var._grad = Tensor._make(g._data.copy())
    elif not STATE.grad:
        od = old._data
        if od.shape == g._data.shape and od.dtype == g._data.dtype and od.flags.writeable:
            od += g._data
            vc_of(old).v += 1
        else:
            var._grad = Tensor._make(od + g._data)
    else:
        var._grad = old + g


def _recorded_copy(g: Tensor) -> Tensor:
    """A fresh contiguous copy of ``g`` (never a view of it), as torch's accumulation makes one
    under create_graph: ``empty_like(g).copy_(g)``, whose node is CopyBackwards."""
    out = _make(g._data.copy())
    if g._requires_grad:
        out.copy_(g)  # (the same values again, now with history)
    return out


def _exclusive(g: Tensor) -> bool:
    """True when nothing but the engine holds ``g`` and its array, so ``.grad`` may adopt it.

    Expected references to ``g``: the engine's buffer list, accumulate_into_leaf's argument,
    _accumulate_tensor's, this function's argument and getrefcount's own (5); to its array: ``g``, the local
    ``arr`` and getrefcount's (3). Any view, alias or user reference adds one, and then
    the gradient is copied, as torch does when a gradient is still referenced elsewhere.
    """
    arr = g._data
    if _getrefcount(g) > 5 or arr.base is not None or _getrefcount(arr) > 3:
        return False
    flags = arr.flags  # (each read of .flags makes a new flags object)
    return flags.writeable and flags.c_contiguous


_LATE["accumulate"] = accumulate_into_leaf
