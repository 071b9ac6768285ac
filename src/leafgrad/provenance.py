"""Provenance: where each node, saved tensor, in-place write and chain cut came from.

Always on, so it has to be cheap. A record is a ``(filename, line)`` tuple of the first
frame outside leafgrad (no traceback objects, no source text, no frame references that
would keep locals alive); turning it into source text happens only when an error is
explained or a graph is drawn. What is recorded, and where:

- every recorded op: ``node._site`` (``_ops/registry._record``, in-place rebases,
  ``CopySlices``, ``autograd.Function``); each ``SavedTensor._site`` is its node's site;
- every in-place write: ``VersionCounter.last_site`` (``_ops/inplace.inplace``);
- every ``backward()`` that frees its graph: the site, plus the sequence number reached
  at that moment, so a later "backward through the graph a second time" can tell which
  nodes belong to the freed graph and which tensor the two graphs share;
- every place the chain from a leaf that requires grad is cut: an op run with grad mode
  off on such a tensor, ``detach()``, ``.data``, ``.numpy()`` followed by
  ``from_numpy``/``tensor()``, ``tensor(t)`` on such a tensor. The record, a ``Cut``,
  sits on the result's ``_meta.cut`` and is copied forward to what is computed from it,
  so ``explain`` can say where the chain was cut when ``backward()`` finds no graph.

The query side (finding the user's variable names for tensors, the user frames of a
traceback) is here too; it is only ever called when something is explained or drawn.
"""
from __future__ import annotations

import sys
import weakref
from collections import deque

from .autograd.grad_mode import STATE as _STATE
from .autograd.graph import next_sequence_nr
from ._notebook import is_cache_name
from .errors import _PKG_DIR, is_internal

__all__ = ["enabled", "set_enabled", "site", "node_site_at", "user_line", "Cut", "cut_of", "backward_site",
           "freeing_backward", "user_frames", "Namer"]

_getframe = sys._getframe
_ENABLED = [True]
_is_internal = is_internal


def enabled() -> bool:
    return _ENABLED[0]


def set_enabled(on: bool) -> bool:
    """Switch provenance recording on or off (for measuring its cost); returns the previous state."""
    prev = _ENABLED[0]
    _ENABLED[0] = bool(on)
    return prev


# ----------------------------------------------------------------------------- recording
def site(skip: int = 1):
    """(file, line) of the first frame outside leafgrad (and the standard library), starting ``skip``
    frames up: ``errors.user_site``'s answer through the cached walk below (a cut is noted for every op
    on a tensor that requires grad under ``no_grad``, so this runs per op in an evaluation loop)."""
    try:
        f = _getframe(skip)
    except ValueError:
        return None
    return _walk(f)


# What the walk learns, per code object: leafgrad's own (and the standard library's) code in one
# dict, the user's code with its {f_lasti: (filename, line)} table in the other. Both hold the code
# objects themselves, so an id found in either is that code's (no id is reused while cached).
_INTERNAL_CODES: dict = {}  # id(code) -> code
_USER_CODES: dict = {}  # id(code) -> (code, {f_lasti: (filename, line)})


def _lines_of(code):
    """``code``'s line table if it is the user's (then cached in ``_USER_CODES``), else None (cached in
    ``_INTERNAL_CODES``): the walk asks once per code object."""
    if len(_INTERNAL_CODES) + len(_USER_CODES) > 8192:  # exec'd or generated code can make many: start over
        _INTERNAL_CODES.clear()
        _USER_CODES.clear()
    if _is_internal(code.co_filename):
        _INTERNAL_CODES[id(code)] = code
        return None
    lines: dict = {}
    _USER_CODES[id(code)] = (code, lines)
    return lines


def node_site_at(skip: int):
    """The user's line that ran an op recorded ``skip`` frames up from here (or None when switched
    off): ``autograd.Function.apply`` passes 2. (``_ops.registry.apply_simple`` and ``_record``,
    which record every other node, call ``walk(_getframe(2))`` themselves: a call fewer per op.)

    The walk (``_walk``) skips leafgrad's own frames; what it learns is cached per code object and
    instruction offset, so the usual cost is one dict lookup per frame and no new object."""
    if not _ENABLED[0]:
        return None
    return _walk(_getframe(skip))


user_line = site  # (the name the in-place writes and parameter updates call it by, every write)


def _walk(f):
    """The first frame from ``f`` up that is the user's, as a cached ``(filename, line)``: each of
    leafgrad's own frames on the way costs one dict lookup (and the frame object CPython makes for it)."""
    internal, user = _INTERNAL_CODES, _USER_CODES
    while f is not None:
        code = f.f_code
        k = id(code)
        if k in internal:
            f = f.f_back
            continue
        e = user.get(k)
        if e is not None:
            lines = e[1]
        else:
            lines = _lines_of(code)
            if lines is None:
                f = f.f_back
                continue
        lasti = f.f_lasti
        where = lines.get(lasti)
        if where is None:
            where = lines[lasti] = (code.co_filename, f.f_lineno)
        return where
    return None


walk = _walk  # (the name ``_ops.registry`` calls it by for every recorded node)


class Cut:
    """Where the chain from a tensor that requires grad was cut."""

    __slots__ = ("kind", "site", "op", "prev")

    # kind: "no_grad", "inference_mode", "detach", "data", "numpy", "tensor"
    def __init__(self, kind: str, site, op: str | None = None, prev: "Cut | None" = None) -> None:
        self.kind = kind
        self.site = site
        self.op = op
        self.prev = prev

    def __repr__(self) -> str:
        return f"Cut({self.kind!r}, {self.site!r}, op={self.op!r})"


def cut_of(t) -> Cut | None:
    m = getattr(t, "_meta", None)
    return getattr(m, "cut", None) if m is not None else None


def _set_cut(outs, cut: Cut) -> None:
    for o in outs:
        if o._requires_grad or o._grad_fn is not None:
            continue
        o._m().cut = cut


def note_nograd_op(op_name: str, outs, inputs, staged=None) -> None:
    """An op ran with grad mode off (no_grad, inference_mode): cut or propagate, mark inference tensors.

    Called by ``_ops.registry`` for every op run while grad mode is off; does nothing
    unless an input requires grad (a new cut), already carries a cut (copied forward),
    or inference mode is on.

    ``staged``: for a composite function (matmul's batched case, linear) that ran its steps as one
    computation on the arrays (``registry.composite_result``), ``staged[i]`` names the view input i
    passes through before the composite's last op (``op_name``), None where it enters that op as it
    is. The cut is then the one the steps would have left: the last op cuts the chain itself when an
    input entering it as it is requires grad; otherwise it carries the first cut among its inputs,
    where a staged input that requires grad carries the new cut of its view. (Every new cut of the
    steps has the same user line: one walk.)
    """
    if _STATE.inference:
        for o in outs:
            o._m().inference = True
    if not _ENABLED[0]:
        return
    kind = "inference_mode" if _STATE.inference else "no_grad"
    cut = None
    for k, t in enumerate(inputs):
        if getattr(t, "_requires_grad", False) and (staged is None or staged[k] is None):
            # (the walk starts at the op's function: the frames of this call, registry._untracked and
            # apply / apply_simple / _apply_view / composite_result are leafgrad's own, and each frame
            # the walk steps through must first be made into a frame object: a cut per op in an
            # evaluation loop)
            cut = Cut(kind, site(4), op_name)
            break
    if cut is None:
        for k, t in enumerate(inputs):
            if staged is not None and getattr(t, "_requires_grad", False):  # (staged: its view cut the chain)
                cut = Cut(kind, site(4), staged[k])
                break
            m = getattr(t, "_meta", None)
            if m is not None and m.cut is not None:
                cut = m.cut
                break
    if cut is not None:
        _set_cut(outs, cut)


def propagate_cut(outs, inputs) -> None:
    """Grad mode on, no input requires grad, one carries a cut: the results carry it too."""
    for t in inputs:
        m = getattr(t, "_meta", None)
        if m is not None and m.cut is not None:
            _set_cut(outs, m.cut)
            return


def note_detach(src, out, kind: str) -> None:
    """``detach()`` / ``.data`` of a tensor that requires grad: ``out`` is where the chain was cut."""
    if _ENABLED[0]:
        out._m().cut = Cut(kind, site(2), getattr(src._grad_fn, "name", lambda: None)())


# NumPy round trips: x.detach().numpy() -> torch.from_numpy(arr) / torch.tensor(arr)
_ARRAYS: dict = {}
# the last time values left autograd (.numpy(), .item(), .tolist() of a tensor on a differentiable
# chain): a tensor rebuilt from a changed array or a Python number cannot be traced back to it, so
# an explanation can only point at this as the likely cut
_ESCAPES: deque = deque(maxlen=1)


def note_escape(t, kind: str) -> None:
    """``t.item()`` / ``t.tolist()`` where ``t`` requires grad or carries a cut."""
    if _ENABLED[0]:
        _ESCAPES.append(Cut(kind, site(2), None, cut_of(t)))


def last_escape() -> Cut | None:
    return _ESCAPES[-1] if _ESCAPES else None


def note_numpy(t, arr) -> None:
    """``t.numpy()`` where ``t`` was cut from (or is) a tensor that requires grad."""
    if not _ENABLED[0]:
        return
    prev = cut_of(t)
    key = id(arr)
    try:
        ref = weakref.ref(arr, lambda _r, key=key: _ARRAYS.pop(key, None))
    except TypeError:
        return
    _ARRAYS[key] = (ref, Cut("numpy_out", site(2), None, prev))
    _ESCAPES.append(_ARRAYS[key][1])


def note_from_array(arr, out) -> None:
    """``from_numpy(arr)`` / ``tensor(arr)``: if ``arr`` came out of ``.numpy()``, carry the cut."""
    entry = _ARRAYS.get(id(arr))
    if entry is None or entry[0]() is not arr:
        return
    numpy_cut = entry[1]
    out._m().cut = Cut("numpy", site(2), None, numpy_cut)


def note_tensor_copy(src, out) -> None:
    """``torch.tensor(t)`` of a tensor that requires grad (or was cut): a new leaf, no history."""
    if not _ENABLED[0]:
        return
    if src._requires_grad or src._grad_fn is not None:
        out._m().cut = Cut("tensor", site(2))
    else:
        prev = cut_of(src)
        if prev is not None:
            out._m().cut = Cut("tensor", site(2), None, prev)


# ----------------------------------------------------------------------------- backward calls
_BACKWARDS: deque = deque(maxlen=512)


def backward_site():
    """The user's line of a backward() that frees its graph; remembers the sequence number reached.

    Called only by ``engine.run_backward``, which only ``autograd.backward`` and ``autograd.grad``
    call: the walk starts at their caller (three frames up), since every frame it steps
    through must first be made into a frame object."""
    try:
        f = _getframe(3)
    except ValueError:  # (run_backward called from the top level of a script)
        f = _getframe(1)
    s = _walk(f)
    _BACKWARDS.append((next_sequence_nr(), s))
    return s


def freeing_backward(node):
    """(seq, site) of the first graph-freeing backward() after ``node`` was created, or None."""
    seq = getattr(node, "_seq", None)
    if seq is None:
        return None
    best = None
    for s, where in _BACKWARDS:
        if s > seq and (best is None or s < best[0]):
            best = (s, where)
    return best


# ----------------------------------------------------------------------------- queries: frames and names
def _in_pkg(filename: str) -> bool:
    return filename.startswith(_PKG_DIR)


def user_frames(tb) -> list:
    """The frames of a traceback outside leafgrad and the standard library, outermost first."""
    frames = []
    while tb is not None:
        f = tb.tb_frame
        if not is_internal(f.f_code.co_filename):
            frames.append((f, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def caller_frame():
    """The first frame outside leafgrad (and the standard library) above the caller."""
    f = _getframe(1)
    while f is not None and is_internal(f.f_code.co_filename):
        f = f.f_back
    return f


def _is_tensor(v) -> bool:
    from ._tensor import Tensor
    return isinstance(v, Tensor)


class Namer:
    """Finds the user's names for tensors: variables in the given frames, then their globals.

    Matching is by identity; a tensor that shares a version counter with a named one
    (a view, ``detach()``, ``.data``) can be named through it with :meth:`alias_of`.
    Parameters of modules found in those frames are named ``model.layer.weight``.
    """

    def __init__(self, frames=(), extra: dict | None = None) -> None:
        self.by_id: dict = {}
        self.by_vc: dict = {}
        self.by_fn: dict = {}
        if extra:
            for name, t in extra.items():
                self._add(name, t)
        spaces = [(f.f_locals, False) for f in frames]
        spaces += [(f.f_globals, True) for f in frames if f.f_globals is not f.f_locals]
        # plain variables first (locals, then globals), then list/tuple items and module parameters
        for ns, private in spaces:
            self._scan(ns, skip_private=private, deep=False)
        for ns, private in spaces:
            self._scan(ns, skip_private=private, deep=True)

    def _add(self, name: str, v) -> None:
        key = id(v)
        if key in self.by_id:
            return
        self.by_id[key] = (name, v)
        vc = v._vc
        if vc is not None and id(vc) not in self.by_vc:
            self.by_vc[id(vc)] = (name, v)
        fn = v._grad_fn
        if fn is not None:
            self.by_fn.setdefault((id(fn), v._output_nr), (name, v))

    def _scan(self, ns: dict, skip_private: bool = False, deep: bool | None = None) -> None:
        try:
            items = list(ns.items())
        except Exception:
            return
        from ._tensor import Tensor
        for name, v in items:
            if not isinstance(name, str) or (skip_private and name.startswith("_")) or is_cache_name(name):
                continue  # (IPython's output cache, `_`/`_3`/Out, is not the user's name)
            if isinstance(v, Tensor):
                if deep is not True:
                    self._add(name, v)
            elif deep is False:
                continue
            elif isinstance(v, (list, tuple)) and 0 < len(v) <= 64:
                for i, x in enumerate(v):
                    if isinstance(x, Tensor):
                        self._add(f"{name}[{i}]", x)
            elif hasattr(type(v), "named_parameters") and not isinstance(v, type):
                try:
                    for pname, p in v.named_parameters():
                        if isinstance(p, Tensor):
                            self._add(f"{name}.{pname}", p)
                except Exception:
                    pass

    def name(self, t) -> str | None:
        if t is None:
            return None
        hit = self.by_id.get(id(t))
        return hit[0] if hit is not None else None

    def alias_of(self, t):
        """A named tensor sharing ``t``'s memory and version counter (a view, detach(), .data)."""
        vc = getattr(t, "_vc", None)
        if vc is None:
            return None
        hit = self.by_vc.get(id(vc))
        return hit[0] if hit is not None else None

    def same_array(self, vc, arr):
        """The name of a tensor using exactly this array (a tensor changed in place keeps its array)."""
        for name, v in self.by_id.values():
            if v._vc is vc and v._data is arr:
                return name
        return None

    def output_name(self, node, output_nr: int = 0) -> str | None:
        hit = self.by_fn.get((id(node), output_nr))
        return hit[0] if hit is not None else None

    def names_sharing(self, vc) -> list:
        """Every name whose tensor uses this version counter."""
        out = []
        for name, v in self.by_id.values():
            if v._vc is vc:
                out.append(name)
        return out
