"""leafgrad.viz: golden text trees and DOT for small graphs, SVG well-formedness, Graphviz, big graphs."""
from __future__ import annotations

import os
import shutil
import xml.etree.ElementTree as ET

import pytest
from differential import raises_exactly

import leafgrad as torch
from leafgrad import viz

HEAD = ('digraph leafgrad {\n'
        '  graph [rankdir=TB, fontname="Helvetica", nodesep=0.25, ranksep=0.35];\n'
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];\n'
        '  edge [arrowsize=0.7];\n')
SVG_NS = "{http://www.w3.org/2000/svg}"


def boxes(svg: str):
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(f"{SVG_NS}g") if (g.get("class") or "").split()[:1] == ["node"]]
    return root, groups


# ----------------------------------------------------------------------------- goldens
def test_golden_leaf():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    g = viz.graph(a, show_sites=False, legend=False)
    assert g.text() == "a: leaf  [2] float32  requires_grad=True  grad=None\n"
    assert g.dot() == HEAD + (
        '  n0 [label="a\\n[2] float32\\nrequires_grad=True\\ngrad=None", fillcolor="#cfe2ff", color="#3d6fb6", '
        'penwidth=2];\n}\n')


def test_golden_retained_non_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    loss = y.sum()
    loss.backward()
    g = viz.graph(loss, show_sites=False, legend=False)
    assert g.text() == (
        "loss: tensor  [] float32\n"
        "└── SumBackward0\n"
        "    └── y: tensor  [2] float32  retain_grad()  grad=tensor([1., 1.])\n"
        "        └── MulBackward0\n"
        "            └── AccumulateGrad\n"
        "                └── x: leaf  [2] float32  requires_grad=True  grad=tensor([2., 2.])\n")
    assert g.dot() == HEAD + (
        '  n0 [label="loss\\n[] float32", fillcolor="#d3f3d3", color="#3c8c3c", penwidth=2];\n'
        '  n1 [label="SumBackward0", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n2 [label="MulBackward0", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n3 [label="y\\n[2] float32\\nretain_grad()\\ngrad=tensor([1., 1.])", fillcolor="#d3f3d3", '
        'color="#3c8c3c"];\n'
        '  n4 [label="AccumulateGrad", fillcolor="#e6dcff", color="#6b4fbb"];\n'
        '  n5 [label="x\\n[2] float32\\nrequires_grad=True\\ngrad=tensor([2., 2.])", fillcolor="#cfe2ff", '
        'color="#3d6fb6"];\n'
        '  n1 -> n0;\n'
        '  n2 -> n3;\n'
        '  n3 -> n1;\n'
        '  n5 -> n4 [style=dotted];\n'
        '  n4 -> n2;\n'
        '}\n')


def test_golden_stale_saved_tensor():
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    q = p.exp()
    q.add_(1)
    g = viz.graph(q, show_sites=False, legend=False)
    assert g.text() == (
        "q: tensor  [2] float32\n"
        "└── AddBackward0\n"
        "    └── ExpBackward0\n"
        "        ├── AccumulateGrad\n"
        "        │   └── p: leaf  [2] float32  requires_grad=True  grad=None\n"
        "        └── saved result  = q  [2] float32  saved at v0, now v1: STALE\n")
    assert g.dot() == HEAD + (
        '  n0 [label="q\\n[2] float32", fillcolor="#d3f3d3", color="#3c8c3c", penwidth=2];\n'
        '  n1 [label="AddBackward0", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n2 [label="ExpBackward0", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n3 [label="AccumulateGrad", fillcolor="#e6dcff", color="#6b4fbb"];\n'
        '  n4 [label="p\\n[2] float32\\nrequires_grad=True\\ngrad=None", fillcolor="#cfe2ff", color="#3d6fb6"];\n'
        '  n5 [label="saved result\\n= q\\n[2] float32\\nsaved at v0, now v1: STALE", fillcolor="#ffd9d9", '
        'color="#c00000", style="rounded,filled,dashed", penwidth=2];\n'
        '  n1 -> n0;\n'
        '  n2 -> n1;\n'
        '  n4 -> n3 [style=dotted];\n'
        '  n3 -> n2;\n'
        '  n5 -> n2 [style=dashed, arrowhead=none];\n'
        '}\n')


def test_golden_copyslices_rebase():
    u = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([9.0])
    v = u * 2
    v[0:1] = w
    g = viz.graph(v, show_sites=False, legend=False)
    assert g.text() == (
        "v: tensor  [2] float32\n"
        "└── CopySlices  wraps CopyBackwards\n"
        "    ├── MulBackward0\n"
        "    │   └── AccumulateGrad\n"
        "    │       └── u: leaf  [2] float32  requires_grad=True  grad=None\n"
        "    └── leaf  [1] float32  requires_grad=False\n")
    assert g.dot() == HEAD + (
        '  n0 [label="v\\n[2] float32", fillcolor="#d3f3d3", color="#3c8c3c", penwidth=2];\n'
        '  n1 [label="CopySlices\\nwraps CopyBackwards", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n2 [label="MulBackward0", fillcolor="#fff3c4", color="#b08a00"];\n'
        '  n3 [label="leaf\\n[1] float32\\nrequires_grad=False", fillcolor="#eeeeee", color="#8a8a8a"];\n'
        '  n4 [label="AccumulateGrad", fillcolor="#e6dcff", color="#6b4fbb"];\n'
        '  n5 [label="u\\n[2] float32\\nrequires_grad=True\\ngrad=None", fillcolor="#cfe2ff", color="#3d6fb6"];\n'
        '  n1 -> n0;\n'
        '  n2 -> n1;\n'
        '  n3 -> n1;\n'
        '  n5 -> n4 [style=dotted];\n'
        '  n4 -> n2;\n'
        '}\n')


# ----------------------------------------------------------------------------- content
def test_sites_names_constants_hooks_and_freed():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    h = w * c  # <mul-line>
    h.register_hook(lambda g: g)
    w.register_hook(lambda g: g)
    out = h.sum()
    text = viz.to_text(out)
    line = next(i + 1 for i, s in enumerate(open(__file__, encoding="utf-8")) if s.rstrip().endswith("# <mul-line>"))
    assert f"MulBackward0  @ test_viz.py:{line}" in text
    assert "c: leaf  [2] float32  requires_grad=False" in text   # a leaf that does not require grad
    assert "saved other  = c" in text and "saved self" not in text  # w*c keeps only c: w's grad needs it
    assert "h: tensor  [2] float32  hooks: 1" in text
    assert "w: leaf  [2] float32  requires_grad=True  grad=None  hooks: 1" in text
    out.backward()
    after = viz.to_text(out)
    assert "freed by backward()" in after and "grad=tensor([3., 4.])" in after


def test_names_argument_and_multiple_roots():
    a = torch.ones(2, requires_grad=True)
    g = viz.graph(a * 2, a * 3)
    assert len(g.model.roots) == 2
    assert g.counts()["leaf"] == 1 and g.counts()["acc"] == 1  # the leaf is shared
    named = viz.graph(a * 2, names={"thing": a})
    assert "thing: leaf" in named.text()


def test_function_and_multi_output_nodes():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.ones(4, requires_grad=True)
    y = Square.apply(x)
    first, second = y.split(2)
    text = viz.to_text(second.sum() + first.sum())
    assert "SquareBackward" in text and "saved saved_tensors[0]  = x" in text
    assert "first: tensor" in text and "output 1" in text


def test_root_without_grad_is_a_single_box():
    t = torch.ones(3)
    g = viz.graph(t)
    assert len(g) == 1 and "requires_grad=False" in g.text()
    with raises_exactly(TypeError):
        viz.graph(3.0)


# ----------------------------------------------------------------------------- SVG and display
def test_svg_well_formed_one_box_per_node():
    x = torch.randn(3, requires_grad=True)
    y = (x.exp() * x).sum()
    z = x.exp()
    z.add_(1)
    g = viz.graph(y, z)
    root, groups = boxes(g.svg())
    assert root.tag == f"{SVG_NS}svg"
    assert len(groups) == len(g)
    for grp in groups:
        rects = grp.findall(f"{SVG_NS}rect")
        assert len(rects) == 1 and rects[0].get("class") == "box"
    assert any("stale" in (grp.get("class") or "") for grp in groups)
    paths = [p for p in root.iter(f"{SVG_NS}path") if "edge" in (p.get("class") or "")]
    assert len(paths) == len(g.model.edges)


def test_jupyter_reprs(tmp_path):
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    g = viz.draw(y)
    assert g._repr_svg_().startswith("<svg") and "<svg" in g._repr_html_()
    ET.fromstring(g._repr_svg_())
    html = y._repr_html_()
    assert "<pre>" in html and "<svg" in html and "SumBackward0" in html
    assert x._repr_html_() is None  # a leaf shows as plain text
    assert "boxes" in repr(g)


def test_save_formats(tmp_path):
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    for ext in ("svg", "dot", "gv", "txt"):
        path = viz.draw(y, path=str(tmp_path / f"g.{ext}")) and str(tmp_path / f"g.{ext}")
        assert os.path.getsize(path) > 0
    ET.parse(str(tmp_path / "g.svg"))
    with raises_exactly(ValueError):
        viz.draw(y).save(str(tmp_path / "g.xyz"))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_engine_renders():
    x = torch.ones(2, requires_grad=True)
    y = (x.exp() * 2).sum()
    g = viz.draw(y, engine="graphviz")
    svg = g.svg()
    root = ET.fromstring(svg[svg.index("<svg"):])
    titles = [t.text for t in root.iter(f"{SVG_NS}title")]
    assert sum(1 for t in titles if t and t.startswith("n") and "->" not in t) == len(g)


def test_graphviz_engine_missing_is_explained(monkeypatch):
    import leafgrad.viz as v
    monkeypatch.setattr(v.shutil, "which", lambda name: None)
    import builtins
    real_import = builtins.__import__

    def no_graphviz(name, *a, **k):
        if name == "graphviz":
            raise ImportError("no graphviz")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_graphviz)
    x = torch.ones(2, requires_grad=True)
    with raises_exactly(RuntimeError, match="Graphviz"):
        viz.draw(x * 2, engine="graphviz").svg()


# ----------------------------------------------------------------------------- size: iterative and quick
def test_hundred_thousand_nodes():
    x = torch.ones(2, requires_grad=True)
    y = x
    for i in range(100_000):
        y = y * 1.0001 if i % 2 else y + 0.5
    g = viz.graph(y)  # (its speed is measured by benchmarks/viz_scale.py, not asserted here)
    dot = g.dot()
    assert g.counts()["fn"] == 100_000
    assert dot.count("->") - dot.count("[style=invis]") == len(g.model.edges)  # (the legend stacks by invisible edges)
    svg = g.svg()  # no recursion anywhere: must not fail
    assert svg.count('<rect class="box"') == len(g)
    assert g.text().count("\n") > 60  # the text tree stops indenting, but does not fail
