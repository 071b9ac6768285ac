"""`leafgrad tour`: the topics of the seed articles, each run live and explained.

The code of each step is here (the same in every language); the words are in
``texts/<lang>/tour.md``, one ``## key`` section per step whose first ``### `` line is
its title. Steps that raise show the error and leafgrad's explanation of it.
"""
from __future__ import annotations

import contextlib
import io
import sys
import textwrap
import warnings

from . import _texts
from ._core import explain, register_source, ui

__all__ = ["STEPS", "run_tour"]

STEPS = [
    ("leaf", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b.sum()
print(a.is_leaf, b.is_leaf, c.is_leaf)
print(a.requires_grad, b.requires_grad, c.requires_grad)
"""),
    ("requires-grad", """
x = torch.randn(3, 3)
print(x.is_leaf, x.requires_grad)
x.requires_grad = True
print(x.is_leaf, x.requires_grad)
y = x + 2
print(y.is_leaf, y.requires_grad)
y.requires_grad = False
"""),
    ("grad-fn", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b.sum()
print(a.grad_fn)
print(type(b.grad_fn).__name__, type(c.grad_fn).__name__)
print([type(fn).__name__ for fn, _ in c.grad_fn.next_functions])
"""),
    ("inplace-leaf", """
w = torch.tensor([1.0, 2.0], requires_grad=True)
w.add_(1)
"""),
    ("saved-modified", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
b_det = b.detach()
b_det[0] = 99.0
print(b)
b.sum().backward()
"""),
    ("intermediate-grad", """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
z = y ** 2
z.backward()
print(x.grad)
print(y.grad)
"""),
    ("retain-grad", """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
y.retain_grad()
z = y ** 2
z.backward()
print(y.grad, x.grad)
"""),
    ("hooks", """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
seen = []
handle = y.register_hook(lambda g: seen.append(g))
(y ** 2).backward()
handle.remove()
print(seen[0])
"""),
    ("retain-graph", """
x = torch.tensor(2.0, requires_grad=True)
z = (x ** 2) ** 2
z.backward(retain_graph=True)
print(x.grad)
z.backward()
print(x.grad)
z.backward()
"""),
    ("detach", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b.detach()
print(c.is_leaf, c.requires_grad)
c[0] = 99.0
print(b)
"""),
    ("data", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.data.add_(5.0)
print(x)
"""),
    ("no-grad", """
x = torch.tensor([5.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)
z = y * 3
z.backward()
"""),
    ("clone", """
x = torch.tensor([5.0], requires_grad=True)
y = x.clone() * 2
z = y * 3
z.backward()
print(x.grad)
"""),
    ("zero-grad", """
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    loss = (w * 3).sum()
    loss.backward()
    print(step, w.grad)
w.grad = None
loss = (w * 3).sum()
loss.backward()
print(w.grad)
"""),
]


def _sections(lang: str) -> dict:
    text = _texts.load("tour", lang) or _texts.load("tour", "en")
    out = {}
    if text is None:
        return out
    for key, lines in text.sections:
        title = key
        body = []
        for line in lines:
            if line.startswith("### ") and title == key:
                title = line[4:].strip()
            else:
                body.append(line)
        out[key] = (title, "\n".join(body).strip())
    return out


def run_step(key: str, code: str, lang: str = "en", out=None) -> dict:
    """Run one step's code; returns its printed output, warnings and error (for tests too)."""
    import leafgrad
    code = textwrap.dedent(code).strip() + "\n"
    filename = f"<tour:{key}>"
    register_source(filename, code)
    ns = {"torch": leafgrad, "__name__": "__tour__"}
    buf = io.StringIO()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(buf):
            try:
                exec(compile(code, filename, "exec"), ns)
            except Exception as exc:  # the lesson is the error
                error = exc
    return {"code": code, "output": buf.getvalue(), "warnings": list(caught), "error": error}


def run_tour(lang: str = "en", pause: bool = False, only: list | None = None, out=None) -> int:
    out = out or sys.stdout
    texts = _sections(lang)
    steps = [(k, c) for k, c in STEPS if not only or k in only]
    w = out.write
    w(ui("tour.title", lang) + "\n" + "=" * 60 + "\n")
    for n, (key, code) in enumerate(steps, 1):
        title, body = texts.get(key, (key, ""))
        res = run_step(key, code, lang)
        w(f"\n{ui('tour.step', lang, n=n, total=len(steps))} · {title}\n" + "-" * 60 + "\n")
        w(textwrap.indent(res["code"], ">>> ", lambda line: True))
        if res["output"] or res["warnings"]:
            w(f"\n{ui('tour.output', lang)}:\n")
            w(textwrap.indent(res["output"], "    "))
            for wm in res["warnings"]:
                msg = str(wm.message).split("\n")[0]
                w(f"    {type(wm.message).__name__}: {msg}\n")
        err = res["error"]
        if err is not None:
            from ..cli import error_line
            first = error_line(err).splitlines()[0]
            w(f"\n{ui('tour.error', lang)}: {first if len(first) < 240 else first[:237] + '...'}\n\n")
            w(textwrap.indent(str(explain(err, lang=lang)), "    "))
        else:
            for wm in res["warnings"]:
                if getattr(wm.message, "code", None):
                    w("\n" + textwrap.indent(str(explain(wm, lang=lang)), "    "))
        if body:
            w(f"\n{ui('tour.why', lang)}:\n")
            w(textwrap.indent(textwrap.fill(body, 96) if "\n" not in body else body, "    ") + "\n")
        if pause and n < len(steps):
            try:
                answer = input(ui("tour.press", lang) + " ")
            except EOFError:
                answer = ""
            if answer.strip().lower() in ("q", "quit", "exit"):
                break
    w("\n" + ui("tour.done", lang) + "\n")
    return 0
