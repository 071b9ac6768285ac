"""explain(error) and explain_grad(t, loss): facts from the error, words from the data files."""
from __future__ import annotations

import linecache
import os
import re
import textwrap
import sys

from .._notebook import cell_label
from ..autograd.graph import short_name
from ..errors import CODES
from ..provenance import Namer, cut_of, freeing_backward, last_escape, user_frames
from . import _texts

__all__ = ["Explanation", "explain", "explain_grad", "match_message", "facts_of"]

_CODE_RE = re.compile(r"\[leafgrad (LG\d{3})\]")
_BARE_CODE = re.compile(r"^\s*(LG\d{3})\s*$", re.I)


class Explanation(str):
    """The rendered explanation (a str, so it prints, compares and searches like one).

    Attributes: ``code`` (``"LG103"``, a reason key for explain_grad, or None), ``lang``,
    ``title``, ``facts`` (what was found out about this error), ``sections``
    ([(heading, text)]) and ``markdown`` (for Jupyter).
    """

    code: str | None
    lang: str
    title: str
    facts: dict
    sections: list
    markdown: str

    def __new__(cls, text: str, *, code, lang, title, facts, sections, markdown):
        obj = super().__new__(cls, text)
        obj.code = code
        obj.lang = lang
        obj.title = title
        obj.facts = facts
        obj.sections = sections
        obj.markdown = markdown
        return obj

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return self.markdown


# ----------------------------------------------------------------------------- UI strings
_UI_CACHE: dict = {}


def ui(key: str, lang: str, **kw) -> str:
    table = _UI_CACHE.get(lang)
    if table is None:
        table = {}
        t = _texts.load("_ui", lang)
        if t is not None:
            for _, lines in t.sections:
                for line in lines:
                    if ":" in line and not line.startswith(" "):
                        k, v = line.split(":", 1)
                        table[k.strip()] = v.strip()
        _UI_CACHE[lang] = table
    s = table.get(key)
    if s is None and lang != "en":
        return ui(key, "en", **kw)
    s = s or key
    try:
        return s.format(**kw)
    except (KeyError, IndexError):
        return s


# ----------------------------------------------------------------------------- formatting facts
def _rel(path: str) -> str:
    if path.startswith("<"):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def fmt_site(site) -> str | None:
    if not site or not isinstance(site, tuple):
        return None
    fn, line = site
    code = linecache.getline(fn, line).strip() if not fn.startswith("<") else ""
    if not code and fn.startswith("<"):
        code = _virtual_line(fn, line)
    cell = cell_label(fn)  # (a notebook cell's temporary file: "In [3], line 2")
    where = f"{cell}, line {line}" if cell else f"{_rel(fn)}:{line}"
    return f"{where} `{code}`" if code else where


_VIRTUAL: dict = {}


def register_source(filename: str, source: str) -> None:
    """Lets exec'd code (the tour) be quoted by line like a file."""
    _VIRTUAL[filename] = source.splitlines()


def _virtual_line(fn: str, line: int) -> str:
    lines = _VIRTUAL.get(fn)
    if lines and 0 < line <= len(lines):
        return lines[line - 1].strip()
    return ""


def _shape(t) -> str | None:
    arr = getattr(t, "_data", None)
    if arr is None:
        return None
    return "[" + ", ".join(str(s) for s in arr.shape) + "]"


def _dtype(t) -> str | None:
    try:
        return repr(t.dtype)
    except Exception:
        return None


def _code(name: str | None) -> str | None:
    return f"`{name}`" if name else None


def _node_name(node) -> str | None:
    return None if node is None else short_name(node)


# ----------------------------------------------------------------------------- facts from an error
def _message(err) -> str:
    if isinstance(err, BaseException):
        return str(err.args[0]) if err.args and isinstance(err.args[0], str) else str(err)
    return str(err)


def _unwrap(err):
    """A WarningMessage (from warnings.catch_warnings) carries the warning in .message."""
    msg = getattr(err, "message", None)
    if isinstance(msg, Warning):
        return msg
    return err


def facts_of(err, code: str | None, lang: str) -> dict:
    """Everything we can find out about this error, as display strings for the texts."""
    details = getattr(err, "details", None) or {}
    tb = getattr(err, "__traceback__", None)
    frames = user_frames(tb) if tb is not None else []
    namer = Namer([f for f, _ in reversed(frames)], extra=details.get("names"))
    facts: dict = {"code": code}

    # pattern facts: shapes, versions, node names the message itself states
    text = _texts.load(code, "en") if code else None
    msg = _message(err)
    if text is not None:
        for rx in text.match:
            m = rx.search(msg)
            if m:
                facts.update({k: v for k, v in m.groupdict().items() if v})
                break

    raised = details.get("raised_at")
    if raised is None and frames:
        f, line = frames[-1]
        raised = (f.f_code.co_filename, line)
    facts["raised_at"] = fmt_site(raised)
    if raised:
        facts["line"] = str(raised[1])

    t = details.get("tensor")
    if t is not None:
        _tensor_facts(facts, t, namer, lang)
    base = details.get("base")
    if base is not None:
        bn = namer.name(base)
        facts["base"] = _code(bn)
        facts["base_shape"] = _shape(base)
        if bn and not facts.get("var"):
            facts["var"] = bn
    node = details.get("node")
    if node is not None:
        facts["node"] = _node_name(node)
        facts["forward_at"] = fmt_site(getattr(node, "_site", None))
        facts["node_output"] = _code(namer.output_name(node, 0))
    if details.get("forward_site"):
        facts["forward_at"] = fmt_site(details["forward_site"])
    if details.get("op"):
        facts["op"] = details["op"]
    if details.get("site") and code not in ("LG103",):
        facts["at"] = fmt_site(details["site"])
    for k in ("index", "expected", "got", "version_now", "version_saved"):
        if details.get(k) is not None:
            facts[k] = str(details[k])
    grad = details.get("grad")
    if grad is not None:
        facts["grad_shape"] = _shape(grad)
        facts["grad_dtype"] = _dtype(grad)

    special = _SPECIAL.get(code)
    if special is not None:
        special(facts, details, namer, lang)
    roots = details.get("roots")
    if roots:
        names = [namer.name(r) for r in roots]
        facts["roots"] = ", ".join(f"`{n}`" for n in names if n) or None
    return facts


def _tensor_facts(facts: dict, t, namer, lang: str) -> None:
    name = namer.name(t)
    if name is None and getattr(t, "_base", None) is not None:
        bn = namer.name(t._base)
        if bn:
            name = None
            facts["base"] = _code(bn)
            facts["var"] = bn
    facts["tensor"] = _code(name)
    if name:
        facts["var"] = name
    facts["shape"] = _shape(t)
    facts["dtype"] = _dtype(t)
    fn = getattr(t, "_grad_fn", None)
    if fn is not None:
        facts.setdefault("made_by", _node_name(fn))
        facts.setdefault("made_at", fmt_site(getattr(fn, "_site", None)))


def _saved_facts(facts, details, namer, lang):
    saved = details.get("saved")
    node = details.get("node")
    if saved is None:
        return
    facts["version_saved"] = str(saved._version)
    facts["version_now"] = str(saved._vc.v)
    facts["modified_at"] = fmt_site(saved._vc.last_site)
    facts["saved_at"] = fmt_site(saved._site or getattr(node, "_site", None))
    from ..viz._model import saved_of
    if node is not None:
        for slot, s in saved_of(node):
            if s is saved:
                facts["slot"] = slot
                break
    names = namer.names_sharing(saved._vc)
    own = None
    if saved._is_output and node is not None:
        own = namer.output_name(node, saved._output_nr)
    elif saved._tensor is not None:
        own = namer.name(saved._tensor)
    if own and own in names:
        names.remove(own)
        names.insert(0, own)
    elif own:
        names.insert(0, own)
    if names:
        facts["tensor"] = _code(names[0])
        facts["var"] = names[0]
        if len(names) > 1:
            facts["aliases"] = ", ".join(f"`{n}`" for n in names[1:])
    shape, _dt = saved.shape_dtype()
    if shape is not None:
        facts["shape"] = "[" + ", ".join(str(s) for s in shape) + "]"


def _twice_facts(facts, details, namer, lang):
    node = details.get("node")
    freed = details.get("freed_site")
    facts["freed_at"] = fmt_site(freed)
    if freed and freed == details.get("raised_at"):
        facts["freed_same"] = "yes"
    roots = details.get("roots")
    if node is None:
        return
    hit = freeing_backward(node)
    if hit is not None and not facts.get("freed_at"):
        facts["freed_at"] = fmt_site(hit[1])
    if not roots or hit is None:
        return
    boundary = _shared_boundary(roots, hit[0])
    if boundary is None:
        return
    old, nr, new = boundary
    nm = namer.output_name(old, nr)
    facts["shared"] = _code(nm)
    facts["shared_node"] = _node_name(old)
    facts["shared_at"] = fmt_site(getattr(old, "_site", None))
    facts["shared_used_at"] = fmt_site(getattr(new, "_site", None))
    if getattr(new, "_site", None) == getattr(old, "_site", None):
        facts["shared_loop"] = "yes"
        facts["shared_used_at"] = None
    if nm:
        facts["var"] = nm


def _shared_boundary(roots, seq_freed):
    """The first edge from a node made after the freeing backward() to one made before it."""
    from ..autograd.graph import AccumulateGrad
    stack = []
    seen = set()
    for r in roots:
        fn = getattr(r, "_grad_fn", None)
        if fn is not None and fn not in seen:
            seen.add(fn)
            stack.append(fn)
    while stack:
        fn = stack.pop()
        for nxt, nr in fn.next_functions:
            if nxt is None or nxt.__class__ is AccumulateGrad:
                continue
            if fn._seq > seq_freed > nxt._seq:
                return nxt, nr, fn
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return None


def _cut_facts(facts, details, namer, lang):
    t = details.get("tensor")
    cut = cut_of(t) if t is not None else None
    if t is not None:
        facts["records"] = "yes"  # (a pasted message has none: its text must not claim there was no cut)
    if cut is None:
        escape = last_escape() if t is not None else None
        if escape is not None:
            facts["escape"] = ui(f"cut.{escape.kind}", lang)
            facts["escape_at"] = fmt_site(escape.site)
        return
    facts["cut"] = ui(f"cut.{cut.kind}", lang)
    facts["cut_at"] = fmt_site(cut.site)
    if cut.op:
        facts["cut_op"] = cut.op
    prev = cut.prev
    if prev is not None:
        facts["cut_before"] = ui(f"cut.{prev.kind}", lang)
        facts["cut_before_at"] = fmt_site(prev.site)
        deeper = prev.prev
        if deeper is not None:
            facts["cut_first"] = ui(f"cut.{deeper.kind}", lang)
            facts["cut_first_at"] = fmt_site(deeper.site)


def _nan_facts(facts, details, namer, lang):
    trace = details.get("forward_trace")
    if trace:
        facts["trace"] = trace.rstrip()


def _view_facts(facts, details, namer, lang):
    t = details.get("tensor")
    base = getattr(t, "_base", None)
    if base is not None and not facts.get("base"):
        bn = namer.name(base)
        facts["base"] = _code(bn)
        if bn and not facts.get("var"):
            facts["var"] = bn


_SPECIAL = {
    "LG103": _saved_facts,
    "LG104": _twice_facts,
    "LG105": _cut_facts,
    "LG110": _view_facts,
    "LG111": _view_facts,
    "LG117": _nan_facts,
}


# ----------------------------------------------------------------------------- matching and rendering
def _all_codes() -> list:
    return sorted(CODES)


def match_message(message: str) -> str | None:
    """The code whose message patterns match a (pasted) leafgrad or PyTorch error message."""
    if not message:
        return None
    m = _CODE_RE.search(message)
    if m:
        return m.group(1)
    m = _BARE_CODE.match(message)
    if m and m.group(1).upper() in CODES:
        return m.group(1).upper()
    short = message.strip().lower()
    for code, name in CODES.items():
        if short == name:
            return code
    for lang in _texts.LANGS:
        for code in _all_codes():
            t = _texts.load(code, lang)
            if t is None:
                continue
            for rx in t.match:
                if rx.search(message):
                    return code
    return None


def _render(text: _texts.Text, facts: dict, lang: str, code_label: str | None) -> Explanation:
    plain = []
    md = []
    head = f"[{code_label}] {text.title}" if code_label else text.title
    plain.append(head)
    md.append(f"### {head}")
    sections = []
    for k, (heading, lines) in enumerate(text.sections):
        filled = []
        in_code = False
        for line in lines:
            if line.lstrip().startswith("```"):
                in_code = not in_code
                filled.append(line)
                continue
            out = _texts.fill(line, facts)
            if out is not None:
                filled.append(out)
        while filled and not filled[-1].strip():
            filled.pop()
        if k == 0 and not any(x.strip() for x in filled) and facts.get("message"):
            filled = ["- " + ui("pasted.what", lang, message=facts["message"])]
        if not any(x.strip() for x in filled):
            continue
        body = "\n".join(filled)
        sections.append((heading, body))
        plain.append("")
        plain.append(heading)
        plain.extend("  " + x if x.strip() else "" for x in _plain_lines(filled))
        md.append(f"\n**{heading}**\n")
        md.append(body)
    return Explanation("\n".join(plain) + "\n", code=code_label, lang=lang, title=text.title, facts=facts,
                       sections=sections, markdown="\n".join(md) + "\n")


#: the plain text's width (its two-space indent included): prose wraps, code lines never do
WIDTH = 88


def _plain_lines(lines, width: int = WIDTH - 2):
    in_code = False
    for line in lines:
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code or len(line) <= width or line.startswith("    "):  # (an indented line is code)
            yield line
            continue
        # a list item's continuation lines hang under its text ("- ", "1. ", or the line's own indent)
        m = re.match(r"^(\s*(?:[-*] |\d+\. )?)", line)
        hang = " " * len(m.group(1))
        yield from textwrap.wrap(line, width, subsequent_indent=hang, break_long_words=False,
                                 break_on_hyphens=False) or [line]


def _no_match(message: str, lang: str) -> Explanation:
    text = _texts.Text("none", lang, ui("nomatch.title", lang),
                       [(ui("nomatch.heading", lang), [ui("nomatch.body", lang)])], [])
    return _render(text, {"message": message[:200]}, lang, None)


def explain(error=None, lang: str = "en") -> Explanation:
    """Explain an autograd error or warning (or a pasted message, or a code such as ``"LG103"``).

    ``error`` may be a leafgrad error or warning, a ``warnings.WarningMessage``, any
    exception (matched by its message, so PyTorch's own errors work), a string, or
    None for the last uncaught exception (``sys.last_value``, as in Jupyter).
    """
    if lang not in _texts.LANGS:
        raise ValueError(f"lang must be one of {_texts.LANGS}, not {lang!r}")
    if error is None:
        error = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
        if error is None:
            error = sys.exc_info()[1]
        if error is None:
            raise ValueError("explain() needs an error, a warning or a message (no error has been raised yet)")
    error = _unwrap(error)
    if isinstance(error, str):
        if error.strip().upper() in CODES:  # explain("LG110"): that code's explanation, no message to quote
            return _render_code(error.strip().upper(), {"code": error.strip().upper()}, lang)
        code = match_message(error)
        if code is None:
            return _no_match(error, lang)
        facts = facts_of(error, code, lang)
        facts.pop("raised_at", None)
        facts["message"] = _first_line(error)
        return _render_code(code, facts, lang)
    code = getattr(error, "code", None) or None
    if code not in CODES:
        code = match_message(_message(error))
    if code is None:
        return _no_match(_message(error), lang)
    return _render_code(code, facts_of(error, code, lang), lang)


def _first_line(message: str) -> str:
    lines = [x.strip() for x in message.strip().splitlines() if x.strip()]
    for x in reversed(lines):  # a pasted traceback ends with "SomeError: message"
        m = re.match(r"^[\w.]*(?:Error|Warning|Exception): (.*)$", x)
        if m:
            return m.group(1)[:300]
    return (lines[0] if lines else message)[:300]


def _render_code(code: str, facts: dict, lang: str) -> Explanation:
    text = _texts.load(code, lang) or _texts.load(code, "en")
    if text is None:
        return _no_match(code, lang)
    return _render(text, facts, lang, code)


# ----------------------------------------------------------------------------- explain_grad
def explain_grad(t, loss=None, lang: str = "en", *, names: dict | None = None) -> Explanation:
    """Why ``t.grad`` is None (or zero) after ``loss.backward()``: non-leaf, no requires_grad, not reached, unused."""
    from .._tensor import Tensor
    from ..provenance import caller_frame
    if lang not in _texts.LANGS:
        raise ValueError(f"lang must be one of {_texts.LANGS}, not {lang!r}")
    if not isinstance(t, Tensor):
        raise TypeError(f"explain_grad() takes a tensor, got {type(t).__name__}")
    frame = caller_frame()
    namer = Namer([frame] if frame is not None else [], extra=names)
    facts: dict = {}
    name = namer.name(t)
    facts["tensor"] = _code(name)
    facts["var"] = name
    facts["shape"] = _shape(t)
    lname = namer.name(loss) if loss is not None else None
    facts["loss"] = _code(lname) if loss is not None else None
    facts["loss_var"] = lname
    g = t._grad
    fn = t._grad_fn
    if fn is not None:
        facts["made_by"] = _node_name(fn)
        facts["made_at"] = fmt_site(getattr(fn, "_site", None))

    reached, path = (None, None)
    if loss is not None and isinstance(loss, Tensor):
        reached, path = _reaches(loss, t)
        if path:
            facts["path"] = " → ".join(path)
        if not loss.requires_grad:
            c = cut_of(loss)
            if c is not None:
                facts["loss_cut"] = ui(f"cut.{c.kind}", lang)
                facts["loss_cut_at"] = fmt_site(c.site)

    if fn is not None and not t.retains_grad:
        key = "grad-non-leaf"
        if reached is False:
            facts["not_reached"] = "yes"
    elif fn is None and not t.requires_grad:
        key = "grad-no-requires-grad"
        c = cut_of(t)
        if c is not None:
            facts["cut"] = ui(f"cut.{c.kind}", lang)
            facts["cut_at"] = fmt_site(c.site)
    elif reached is False:
        key = "grad-not-reached"
    elif g is None:
        key = "grad-no-backward"
    elif not bool((g._data != 0).any()):
        key = "grad-zero"
    else:
        key = "grad-ok"
        facts["grad"] = _short_values(g)
    if g is not None:
        facts.setdefault("grad", _short_values(g))
    text = _texts.load(key, lang) or _texts.load(key, "en")
    return _render(text, facts, lang, key)


def _short_values(g) -> str:
    from ..viz._model import _value_text
    return _value_text(g, limit=8)


def _reaches(loss, t):
    """(reached?, node names along one path from loss to t) by an iterative search."""
    from ..autograd.graph import AccumulateGrad
    root = loss.grad_fn
    if root is None:
        return (loss is t), ([] if loss is t else None)
    if t._grad_fn is not None:
        target = t._grad_fn
    else:
        ref = t._accumulator
        target = ref() if ref is not None else None
        if target is None:
            return False, None
    parent = {root: None}
    stack = [root]
    while stack:
        fn = stack.pop()
        if fn is target:
            names = []
            cur = fn
            while cur is not None:
                names.append(_node_name(cur))
                cur = parent[cur]
            return True, list(reversed(names))
        if fn.__class__ is AccumulateGrad:
            continue
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in parent:
                parent[nxt] = fn
                stack.append(nxt)
    return False, None
