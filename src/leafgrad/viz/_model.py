"""The drawable model of a backward graph: boxes (VNode) and arrows, built without recursion.

Arrows follow the forward data flow (an input points at the op that used it), the way
a learner reads ``y = x * w``; gradients flow against them. Box kinds:

``leaf``    a leaf that requires grad (it gets ``.grad``)
``const``   a leaf that does not require grad (an input autograd ignores)
``tensor``  a non-leaf tensor: a root you asked to draw, or one you named / retained / hooked
``fn``      a grad_fn node, by torch's name (``MulBackward0``)
``acc``     ``AccumulateGrad``, the node that writes a leaf's ``.grad``
``saved``   a tensor an op saved for backward, with the version it was saved at

Marks refine a kind: ``param`` (a leaf that is an ``nn.Parameter``, named after its
module path such as ``fc1.weight``), ``freed`` (a saved buffer released by a backward
without ``retain_graph``, and the node that owned it), ``stale``, ``retain_grad``,
``hook`` and ``root``.
"""
from __future__ import annotations

import gc
import os

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import AccumulateGrad, SavedTensor, short_name
from .._ops.registry import _NUMBER_OPERAND

__all__ = ["VNode", "GraphModel", "build"]


class VNode:
    __slots__ = ("id", "kind", "title", "lines", "marks", "site")

    def __init__(self, vid: int, kind: str, title: str, lines: list, marks: tuple = (), site=None) -> None:
        self.id = vid
        self.kind = kind
        self.title = title
        self.lines = lines
        self.marks = marks
        self.site = site

    def label_lines(self, show_sites: bool = True) -> list:
        out = [self.title] + self.lines
        if show_sites and self.site is not None:
            out.append(("changed @ " if self.kind == "saved" else "@ ") + _short_site(self.site))
        return out

    def __repr__(self) -> str:
        return f"VNode({self.id}, {self.kind!r}, {self.title!r})"


class GraphModel:
    """Boxes and arrows; arrows are ``(src, dst, style)`` with style ``data``, ``saved`` or ``var``."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.edges: list = []
        self.roots: list = []

    def add(self, kind: str, title: str, lines: list, marks: tuple = (), site=None) -> int:
        vid = len(self.nodes)
        self.nodes.append(VNode(vid, kind, title, lines, marks, site))
        return vid

    def edge(self, src: int, dst: int, style: str = "data") -> None:
        self.edges.append((src, dst, style))

    def inputs(self) -> list:
        """For every box, the arrows into it, in insertion order: ``[(src, style), ...]``."""
        ins = [[] for _ in self.nodes]
        for s, d, st in self.edges:
            ins[d].append((s, st))
        return ins

    def counts(self) -> dict:
        c: dict = {}
        for n in self.nodes:
            c[n.kind] = c.get(n.kind, 0) + 1
        return c


_SITE_CACHE: dict = {}


def _short_site(site) -> str:
    fn, line = site
    base = _SITE_CACHE.get(fn)
    if base is None:
        base = _SITE_CACHE[fn] = os.path.basename(fn) if not fn.startswith("<") else fn
    return f"{base}:{line}"


_SHAPE_CACHE: dict = {}
_DTYPE_CACHE: dict = {}


def _shape_text(shape, dtype) -> str:
    key = (shape, dtype)
    try:
        return _SHAPE_CACHE[key]
    except (KeyError, TypeError):
        pass
    dims = "[" + ", ".join(str(s) for s in shape) + "]"
    if dtype is not None:
        name = dtype if isinstance(dtype, str) else (getattr(dtype, "name", None) or str(dtype))
        dims = f"{dims} {name}"
    if len(_SHAPE_CACHE) < 4096:
        try:
            _SHAPE_CACHE[key] = dims
        except TypeError:
            pass
    return dims


def _np_dtype_name(dt) -> str | None:
    if dt is None:
        return None
    name = _DTYPE_CACHE.get(dt)
    if name is None:
        try:
            name = np.dtype(dt).name
        except TypeError:
            name = str(dt)
        _DTYPE_CACHE[dt] = name
    return name


def _value_text(t, limit: int = 6) -> str:
    """A short one-line view of a (small) tensor's values."""
    if t is None:
        return "None"
    arr = getattr(t, "_data", None)
    if arr is None:
        return "?"
    try:
        arr = np.asarray(arr)
    except Exception:
        return "?"
    if arr.size > limit:
        return _shape_text(arr.shape, arr.dtype)
    return "tensor(" + _nested(arr) + ")"


def _nested(arr) -> str:
    if arr.ndim == 0:
        x = arr.item()
        if isinstance(x, float):
            return f"{x:.0f}." if x.is_integer() and abs(x) < 1e6 else f"{x:.4g}"
        return str(x)
    return "[" + ", ".join(_nested(a) for a in arr) + "]"


def saved_of(fn) -> list:
    """(slot name, SavedTensor) pairs of a node, whatever kind of node it is."""
    names = getattr(type(fn), "_saved_names", None)
    if names is not None:  # an op node: the fast path (drawing 100,000 nodes must stay quick)
        saved = getattr(fn, "_saved", None)
        if not names or saved is None:
            return []
        return [(n, s) for n, s in zip(names, saved)
                if s.__class__ is SavedTensor and getattr(s, "_output_nr", 0) != _NUMBER_OPERAND]  # (numbers: none)
    info = getattr(fn, "saved_tensors_info", None)
    if info is not None:
        try:
            return info()
        except Exception:
            return []
    inner = getattr(fn, "fn", None)  # CopySlices wraps the op that wrote through the view
    if inner is not None and hasattr(inner, "saved_tensors_info"):
        return inner.saved_tensors_info()
    d = getattr(fn, "__dict__", None)
    if d is not None:
        vars_ = d.get("_saved_vars")
        if vars_:
            return [(f"saved_tensors[{i}]", s) for i, s in enumerate(vars_) if isinstance(s, SavedTensor)]
    return []


def _hooks_count(d) -> int:
    if not d:
        return 0
    if isinstance(d, dict) and d and all(isinstance(v, dict) for v in d.values()):
        return sum(len(v) for v in d.values())
    return len(d)


def _input_from_saved(fn, i: int):
    """The tensor behind input ``i`` of an op node, when the op saved it (for naming constants)."""
    names = getattr(type(fn), "_saved_names", ())
    saved = getattr(fn, "_saved", None)
    if not names or saved is None:
        return None
    want = {0: ("self", "input0"), 1: ("other", "input1")}.get(i, (f"input{i}",))
    for n, s in zip(names, saved):
        if n in want and isinstance(s, SavedTensor) and not s._is_output:
            return s.peek()
    return None


def _parameter_class():
    """``nn.Parameter``, imported late: viz may use nn, but importing nn must not import viz."""
    from ..nn.parameter import Parameter
    return Parameter


def live_module_names() -> dict:
    """``id(parameter) -> (qualified name, owning top module's class name)`` for every live nn.Module.

    Used when a parameter is drawn that no variable of the caller names (the model lives
    inside a function, or only its loss was passed on): the modules are found among the
    live objects, and only top-level ones (modules no other live module contains) give
    names, so a parameter reads ``fc1.weight`` as in ``model.named_parameters()``.
    """
    from ..nn.modules.module import Module
    # (type(), not isinstance: isinstance reads __class__, which some lazy objects compute with a warning)
    mods = [o for o in gc.get_objects() if issubclass(type(o), Module)]
    inner = set()
    for m in mods:
        for child in m._modules.values():
            if child is not None:
                inner.add(id(child))
    out: dict = {}
    for m in mods:
        if id(m) in inner:
            continue
        try:
            named = list(m.named_parameters())
        except Exception:
            continue
        for pname, p in named:
            out.setdefault(id(p), (pname, type(m).__name__))
    return out


def _freed_text(site) -> str:
    return "freed by backward()" + (f" @ {_short_site(site)}" if isinstance(site, tuple) else "")


def build(roots, namer, show_saved: bool = True, max_nodes: int | None = None,
          find_modules: bool = True) -> GraphModel:
    """The model of the graph behind ``roots`` (tensors). Iterative: any depth works.

    ``find_modules``: name parameters no variable names after the live module holding them.
    """

    g = GraphModel()
    parameter_cls = _parameter_class()
    module_names: list = []  # filled on the first unnamed parameter: one scan of the live objects
    fn_box: dict = {}       # node -> box (nodes hash by identity)
    tensor_box: dict = {}   # (id(node), output_nr) -> box of a named/retained non-leaf tensor
    tensor_box_keys: set = set()
    leaf_box: dict = {}     # id(leaf tensor) -> box
    keep: list = []         # keeps ids unique while building
    stack: list = []

    def leaf(t) -> int:
        b = leaf_box.get(id(t))
        if b is not None:
            return b
        keep.append(t)
        name = namer.name(t)
        arr = t._data
        lines = [_shape_text(arr.shape, arr.dtype.name)]
        marks = []
        if isinstance(t, parameter_cls):
            marks.append("param")
            owner = None
            if name is None and find_modules:
                if not module_names:
                    module_names.append(live_module_names())
                hit = module_names[0].get(id(t))
                if hit is not None:
                    name, owner = hit
            lines.append(f"Parameter of {owner}" if owner else "Parameter")
        if t._requires_grad:
            lines.append("requires_grad=True")
            lines.append("grad=" + _value_text(t._grad))
            m = t._meta
            if m is not None:
                if m.hooks:
                    lines.append(f"hooks: {len(m.hooks)}")
                    marks.append("hook")
                if m.post_acc_hooks:
                    lines.append(f"post-accumulate hooks: {len(m.post_acc_hooks)}")
                    marks.append("hook")
            b = g.add("leaf", name or ("parameter" if marks and marks[0] == "param" else "leaf"), lines, tuple(marks))
        else:
            lines.append("requires_grad=False")
            b = g.add("const", name or "leaf", lines)
        leaf_box[id(t)] = b
        return b

    type_info: dict = {}

    def fn_node(fn) -> int:
        b = fn_box.get(fn)
        if b is not None:
            return b
        cls = fn.__class__
        if cls is AccumulateGrad:
            b = g.add("acc", "AccumulateGrad", [])
            fn_box[fn] = b
            var = fn.variable
            if var is not None:
                g.edge(leaf(var), b, "var")
            return b
        info = type_info.get(cls)
        if info is None:
            info = type_info[cls] = (short_name(fn), hasattr(cls, "fn") or "fn" in getattr(cls, "__slots__", ()))
        lines = []
        marks = ()
        if info[1]:
            inner = getattr(fn, "fn", None)
            if inner is not None and hasattr(inner, "next_functions"):
                lines.append(f"wraps {short_name(inner)}")
        extra = fn._extra
        if extra:
            n = _hooks_count(extra.get("pre")) + _hooks_count(extra.get("post"))
            if n:
                lines.append(f"node hooks: {n}")
                marks = ("hook",)
        b = g.add("fn", info[0], lines, marks, getattr(fn, "_site", None))
        fn_box[fn] = b
        stack.append(fn)
        return b

    def out_tensor(fn, nr: int, t=None, root: bool = False) -> int | None:
        """The box of output ``nr`` of ``fn`` if that tensor is worth a box (root, named, retained, hooked)."""
        key = (id(fn), nr)
        b = tensor_box.get(key)
        if b is not None:
            return b
        extra = fn._extra
        retained = None
        hooks = 0
        if extra:
            r = extra.get("retains")
            if r and nr in r:
                retained = r[nr]()
            tp = extra.get("tensor_pre")
            if tp and nr in tp:
                hooks = len(tp[nr])
        name = namer.output_name(fn, nr)
        if t is None:
            t = retained
        if t is None and name is not None:
            t = namer.by_fn[key][1]
        if not (root or name or retained is not None or hooks):
            return None
        if name is None and t is not None:
            name = namer.name(t)
        lines = []
        marks = []
        if t is not None:
            keep.append(t)
            lines.append(_shape_text(t._data.shape, t._data.dtype.name))
        if retained is not None or (t is not None and t._meta is not None and t._meta.retains_grad):
            lines.append("retain_grad()")
            lines.append("grad=" + _value_text(t._grad if t is not None else None))
            marks.append("retain_grad")
        if hooks:
            lines.append(f"hooks: {hooks}")
            marks.append("hook")
        if nr:
            lines.append(f"output {nr}")
        if root:
            marks.append("root")
        b = g.add("tensor", name or "tensor", lines, tuple(marks))
        tensor_box[key] = b
        tensor_box_keys.add((fn, nr))
        g.edge(fn_node(fn), b)
        return b

    # roots
    for t in roots:
        if not isinstance(t, Tensor):
            raise TypeError(f"draw() takes tensors, got {type(t).__name__}")
        fn = t.grad_fn
        if fn is None:
            b = leaf(t)
            g.nodes[b].marks = g.nodes[b].marks + ("root",)
            g.roots.append(b)
            continue
        b = out_tensor(fn, t._output_nr, t, root=True)
        g.roots.append(b)

    edges = g.edges
    by_fn = namer.by_fn
    while stack:
        if max_nodes is not None and len(g.nodes) > max_nodes:
            break
        fn = stack.pop()
        fb = fn_box[fn]
        metas = fn._in_meta or ()
        i = -1
        for nxt, nr in fn.next_functions:
            i += 1
            if nxt is None:
                t = _input_from_saved(fn, i)
                if t is not None:
                    edges.append((leaf(t), fb, "data"))
                    continue
                shape, dt = metas[i] if i < len(metas) else ((), None)
                if dt is None or shape == ():
                    continue  # a Python number or a 0-d constant: not worth a box
                c = g.add("const", "leaf", [_shape_text(shape, _np_dtype_name(dt)), "requires_grad=False"])
                edges.append((c, fb, "data"))
                continue
            nb = fn_box.get(nxt)
            if nb is None:
                nb = fn_node(nxt)
            # a tensor box sits between an op and its user when that output is named, retained or hooked
            if (nxt._extra is not None or (id(nxt), nr) in by_fn or (nxt, nr) in tensor_box_keys) \
                    and nxt.__class__ is not AccumulateGrad:
                tb = out_tensor(nxt, nr)
                if tb is not None:
                    nb = tb
            edges.append((nb, fb, "data"))
        saved = saved_of(fn)
        if saved:
            freed = next((st._freed_site for _, st in saved if st._freed_site is not None), None)
            if freed is not None:  # a backward without retain_graph released this node's buffers
                node = g.nodes[fb]
                node.lines = node.lines + ["saved buffers " + _freed_text(freed)]
                node.marks = node.marks + ("freed",)
            if show_saved:
                for sname, st in saved:
                    edges.append((_saved_box(g, fn, sname, st, namer, keep), fb, "saved"))
    return g


def _saved_box(g: GraphModel, fn, sname: str, st, namer, keep: list) -> int:
    freed = st._freed_site is not None
    lines = []
    name = None
    if not freed:
        obj = st.peek()
        if st._is_output:
            name = namer.output_name(fn, st._output_nr) or namer.same_array(st._vc, st._data)
            if name is None:
                alias = namer.alias_of(st)
                name = f"{alias} (shares memory)" if alias else None
        elif obj is not None:
            keep.append(obj)
            name = namer.name(obj)
            if name is None:
                alias = namer.alias_of(obj)
                name = f"{alias} (shares memory)" if alias else None
    shape, dt = st.shape_dtype()
    if name:
        lines.append(f"= {name}")
    if shape is not None:
        lines.append(_shape_text(shape, _np_dtype_name(dt)))
    v0, v1 = st._version, st._vc.v
    marks = []
    if freed:
        lines.append(_freed_text(st._freed_site))
        marks.append("freed")
    if v0 != v1:
        lines.append(f"saved at v{v0}, now v{v1}: STALE")
        marks.append("stale")
    else:
        lines.append(f"version {v0}")
    last = st._vc.last_site
    return g.add("saved", f"saved {sname}", lines, tuple(marks), last if v0 != v1 else None)
