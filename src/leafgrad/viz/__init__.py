"""leafgrad.viz: draw the graph behind tensors, as a text tree, Graphviz DOT or a self-contained SVG.

    import leafgrad as torch
    from leafgrad import viz
    a = torch.tensor([1., 2.], requires_grad=True)
    loss = (a * a).sum()
    print(viz.to_text(loss))          # a tree, in the terminal
    viz.draw(loss)                    # in Jupyter: shows inline (SVG made by leafgrad)
    viz.draw(loss).save("g.svg")      # .svg, .dot/.gv or .txt; .png/.pdf need Graphviz
    viz.draw(loss, engine="graphviz") # rendered by Graphviz's `dot` where it is installed

What is drawn: leaves that require grad (blue, with ``.grad``), leaves that do not
(grey), non-leaf tensors you drew, named, retained or hooked (green), grad_fn nodes by
torch's names with the line that created them (yellow), ``AccumulateGrad`` (purple),
and saved tensors with the version they were saved at against their version now
(dashed; red when stale, with the line that changed them). Parameters of modules are
teal and named by their module path: ``params=dict(model.named_parameters())`` as in
torchviz, else the caller's variables (``model.fc.weight``), else the live module that
holds them (``fc.weight``). After a backward without ``retain_graph``, the nodes whose
saved buffers it freed, and those buffers, are grey with "freed by backward()". Every
output (text, DOT, SVG, HTML) ends with a legend of the box kinds it contains
(``legend=False`` leaves it out). Names are the caller's variable names (locals, then globals).
"""
from __future__ import annotations

import contextlib
import gc
import html
import os
import shutil
import subprocess

from ..provenance import Namer, caller_frame
from ._model import GraphModel, build
from ._render import to_dot as _dot, to_svg as _svg, to_text as _text

__all__ = ["Graph", "graph", "draw", "to_text", "to_dot", "to_svg", "tensor_html"]


@contextlib.contextmanager
def _no_gc():
    """Building a big model allocates many small objects: the cyclic GC would rescan them all."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Graph:
    """A drawn graph: ``text()``, ``dot()``, ``svg()``, ``save(path)``; shows itself in Jupyter."""

    def __init__(self, model: GraphModel, engine: str = "leafgrad", show_sites: bool = True,
                 legend: bool = True) -> None:
        if engine not in ("leafgrad", "graphviz"):
            raise ValueError(f"engine must be 'leafgrad' or 'graphviz', not {engine!r}")
        self.model = model
        self.engine = engine
        self.show_sites = show_sites
        self.legend = legend

    # the three outputs
    def text(self) -> str:
        """The graph as a tree from each root to the leaves, then the legend."""
        return _text(self.model, self.show_sites, legend=self.legend)

    def dot(self) -> str:
        """Graphviz DOT source; the legend is a ``cluster_legend`` subgraph."""
        with _no_gc():
            return _dot(self.model, self.show_sites, legend=self.legend)

    def svg(self) -> str:
        """A self-contained SVG (leafgrad's layout, or Graphviz's with ``engine="graphviz"``)."""
        if self.engine == "graphviz":
            return render_graphviz(self.dot(), "svg").decode("utf-8")
        with _no_gc():
            return _svg(self.model, self.show_sites, legend=self.legend)

    def save(self, path: str) -> str:
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext in ("dot", "gv"):
            data = self.dot().encode()
        elif ext == "txt":
            data = self.text().encode()
        elif ext == "svg":
            data = self.svg().encode()
        elif ext in ("png", "pdf", "jpg", "jpeg"):
            data = render_graphviz(self.dot(), ext)
        else:
            raise ValueError(f"can't tell the format from {path!r}: use .svg, .dot, .gv, .txt (or .png/.pdf with "
                             "Graphviz)")
        with open(path, "wb") as f:
            f.write(data)
        return path

    # counts, for tests and summaries
    def __len__(self) -> int:
        return len(self.model.nodes)

    def counts(self) -> dict:
        return self.model.counts()

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        c = self.counts()
        inner = ", ".join(f"{k}={v}" for k, v in sorted(c.items()))
        return f"<leafgrad.viz.Graph: {len(self)} boxes ({inner})>"

    # Jupyter
    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_html_(self) -> str:
        return ('<div class="leafgrad-viz" style="overflow:auto;max-width:100%;max-height:640px">'
                f"{self.svg()}</div>")


def _namer(names, params, frame) -> Namer:
    if frame is None:
        frame = caller_frame()
    frames = [frame] if frame is not None else []
    extra = {}
    for label, given in (("names", names), ("params", params)):
        if given is None:
            continue
        if not isinstance(given, dict):
            raise TypeError(f"viz: {label}= takes a dict of name -> tensor (e.g. dict(model.named_parameters())), "
                            f"not {type(given).__name__}")
        extra.update(given)
    return Namer(frames, extra=extra or None)


def graph(*tensors, names: dict | None = None, params: dict | None = None, show_saved: bool = True,
          engine: str = "leafgrad", show_sites: bool = True, legend: bool = True, frame=None,
          max_nodes: int | None = None) -> Graph:
    """The graph behind ``tensors``.

    Names come from ``names``/``params`` ({"name": tensor}; ``params=dict(model.named_parameters())``
    as in torchviz), then the caller's variables, then, for a parameter still unnamed, the
    live module holding it (``fc1.weight``). ``legend=False`` drops the legend.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise TypeError("graph() needs at least one tensor")
    namer = _namer(names, params, frame)
    with _no_gc():
        model = build(tensors, namer, show_saved=show_saved, max_nodes=max_nodes)
    return Graph(model, engine=engine, show_sites=show_sites, legend=legend)


def draw(*tensors, path: str | None = None, engine: str = "leafgrad", names: dict | None = None,
         params: dict | None = None, show_saved: bool = True, show_sites: bool = True, legend: bool = True,
         frame=None) -> Graph:
    """Draw the graph behind ``tensors``; with ``path``, also write it (format from the extension)."""
    if frame is None:
        frame = caller_frame()
    g = graph(*tensors, names=names, params=params, show_saved=show_saved, engine=engine, show_sites=show_sites,
              legend=legend, frame=frame)
    if path is not None:
        g.save(path)
    return g


def to_text(*tensors, names: dict | None = None, params: dict | None = None, show_saved: bool = True,
            show_sites: bool = True, legend: bool = True) -> str:
    """The graph behind ``tensors`` as a text tree with its legend (see :func:`graph`)."""
    return graph(*tensors, names=names, params=params, show_saved=show_saved, show_sites=show_sites,
                 legend=legend, frame=caller_frame()).text()


def to_dot(*tensors, names: dict | None = None, params: dict | None = None, show_saved: bool = True,
           show_sites: bool = True, legend: bool = True) -> str:
    """The graph behind ``tensors`` as Graphviz DOT with its legend (see :func:`graph`)."""
    return graph(*tensors, names=names, params=params, show_saved=show_saved, show_sites=show_sites,
                 legend=legend, frame=caller_frame()).dot()


def to_svg(*tensors, names: dict | None = None, params: dict | None = None, show_saved: bool = True,
           show_sites: bool = True, legend: bool = True) -> str:
    """The graph behind ``tensors`` as a self-contained SVG with its legend (see :func:`graph`)."""
    return graph(*tensors, names=names, params=params, show_saved=show_saved, show_sites=show_sites,
                 legend=legend, frame=caller_frame()).svg()


# ----------------------------------------------------------------------------- Graphviz
def graphviz_available() -> bool:
    return shutil.which("dot") is not None


def render_graphviz(dot_text: str, fmt: str = "svg") -> bytes:
    """Render DOT through the ``graphviz`` package if installed, else the ``dot`` program."""
    try:
        import graphviz  # type: ignore
    except ImportError:
        graphviz = None
    if graphviz is not None:
        try:
            return graphviz.Source(dot_text).pipe(format=fmt)
        except Exception as exc:  # the package is there but the program is not
            if not graphviz_available():
                raise RuntimeError(_NO_GRAPHVIZ) from exc
            raise
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(_NO_GRAPHVIZ)
    res = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"dot failed: {res.stderr.decode(errors='replace')}")
    return res.stdout


_NO_GRAPHVIZ = ("engine='graphviz' needs Graphviz's `dot` program (apt install graphviz / brew install graphviz; "
                "optionally pip install graphviz). leafgrad's own SVG (the default engine) needs nothing.")


# ----------------------------------------------------------------------------- Jupyter display of a Tensor
_INLINE_LIMIT = 400


def tensor_html(t) -> str:
    """HTML for a tensor with history: its repr, then its graph (small graphs only)."""
    import sys
    main = sys.modules.get("__main__")
    namer = Namer([])
    if main is not None:
        namer._scan(vars(main), skip_private=True)
    model = build([t], namer, max_nodes=_INLINE_LIMIT)
    body = f"<pre>{html.escape(repr(t))}</pre>"
    if len(model.nodes) > _INLINE_LIMIT:
        return body + (f"<div><i>graph of more than {_INLINE_LIMIT} boxes: use leafgrad.viz.draw(t).save('g.svg')"
                       "</i></div>")
    return body + Graph(model)._repr_html_()
