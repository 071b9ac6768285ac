"""leafgrad.viz: the legend in every output, module names on parameters, freed buffers after backward()."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from differential import raises_exactly

import leafgrad as torch
from leafgrad import nn, viz

SVG_NS = "{http://www.w3.org/2000/svg}"


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


_HELD: dict = {}


def _loss_of_hidden_model():
    """A loss whose model no variable of the drawing frame names (it lives in a module-level dict)."""
    _HELD["model"] = Net()
    return _HELD["model"](torch.randn(5, 3)).pow(2).sum()


# ----------------------------------------------------------------------------- legend
def test_legend_in_text_dot_svg_html_lists_only_kinds_present():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    loss = (a * c).sum()
    g = viz.graph(loss)
    text = g.text()
    legend = text[text.index("legend:"):]
    assert "leaf that requires grad: backward() writes its .grad" in legend
    assert "leaf that does not require grad" in legend
    assert "backward node (grad_fn)" in legend and "AccumulateGrad" in legend
    assert "saved tensor: kept for backward" in legend
    assert "stale" not in legend and "freed" not in legend and "parameter" not in legend  # not in this graph
    dot = g.dot()
    assert "subgraph cluster_legend {" in dot and 'label="legend"' in dot
    assert 'legend0 [label="leaf that requires grad: backward() writes its .grad", fillcolor="#cfe2ff", ' \
           'color="#3d6fb6"]' in dot
    root = ET.fromstring(g.svg())
    keys = [r.get("data-key") for r in root.iter(f"{SVG_NS}g") if r.get("class") == "legend-row"]
    assert keys == ["leaf", "const", "tensor", "fn", "acc", "saved", "+root"]
    node_groups = [x for x in root.iter(f"{SVG_NS}g") if (x.get("class") or "").split()[:1] == ["node"]]
    assert len(node_groups) == len(g)  # the legend adds no graph boxes
    assert 'class="legend"' in g._repr_html_()


def test_legend_false_leaves_it_out_everywhere():
    a = torch.ones(2, requires_grad=True)
    g = viz.graph(a * 2, legend=False)
    assert "legend:" not in g.text() and "cluster_legend" not in g.dot() and 'class="legend"' not in g.svg()
    assert "legend:" not in viz.to_text(a * 2, legend=False)


def test_stale_saved_tensor_is_in_the_legend():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = b.sin()  # (sin saves its input)
    b.add_(1)
    assert "changed in place after saving; backward() will fail" in viz.to_text(y)


# ----------------------------------------------------------------------------- parameter names
def test_params_argument_names_boxes_like_torchviz():
    model = Net()
    out = model(torch.randn(5, 3)).sum()
    g = viz.graph(out, params=dict(model.named_parameters()))
    text = g.text()
    for name, p in model.named_parameters():
        dims = ", ".join(str(d) for d in p.shape)
        assert f"{name}: leaf  [{dims}] float32  Parameter  requires_grad=True" in text, name
    assert "fc1.weight" in g.dot() and "fc2.bias" in g.svg()
    assert "parameter (nn.Parameter, named by its module path" in text
    assert "leaf that requires grad" not in text  # every requires-grad leaf here is a parameter
    dot = g.dot()
    line = next(s for s in dot.splitlines() if 'label="fc1.weight' in s)
    assert 'fillcolor="#c8eee8", color="#1f7a70"' in line


def test_parameters_named_from_the_callers_module_variable():
    model = Net()
    out = model(torch.randn(2, 3)).sum()
    text = viz.to_text(out, legend=False)
    assert "model.fc1.weight: leaf  [4, 3] float32  Parameter  requires_grad=True" in text
    assert "model.fc2.bias: leaf  [2] float32" in text


def test_parameters_named_from_live_modules_without_any_argument():
    loss = _loss_of_hidden_model()
    text = viz.to_text(loss, legend=False, show_saved=False)
    assert "fc1.weight: leaf  [4, 3] float32  Parameter of Net  requires_grad=True" in text
    assert "fc2.bias: leaf  [2] float32  Parameter of Net" in text
    del _HELD["model"]


def test_a_parameter_whose_module_is_gone_is_still_marked_parameter():
    p = nn.Parameter(torch.ones(3))
    text = viz.to_text((p * 2).sum(), legend=False)
    assert "p: leaf  [3] float32  Parameter  requires_grad=True" in text
    q = [nn.Parameter(torch.ones(2))]
    text = viz.to_text((q[0] * 2).sum() + (nn.Parameter(torch.ones(1)) * 1).sum(), legend=False)
    assert "q[0]: leaf" in text and "parameter  [1] float32  Parameter" in text


def test_params_must_be_a_dict():
    a = torch.ones(2, requires_grad=True)
    with raises_exactly(TypeError, match="params= takes a dict"):
        viz.graph(a * 2, params=[a])


# ----------------------------------------------------------------------------- freed buffers
def test_second_backward_failure_then_drawing_marks_freed_nodes():
    model = Net()
    loss = model(torch.randn(5, 3)).pow(2).sum()
    before = viz.graph(loss)
    assert "freed" not in before.text()
    loss.backward()  # <first-backward>
    with raises_exactly(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
    g = viz.graph(loss)
    text = g.text()
    line = next(i + 1 for i, s in enumerate(open(__file__, encoding="utf-8"))
                if s.rstrip().endswith("# <first-backward>"))
    where = f"freed by backward() @ test_viz_marks.py:{line}"
    assert f"PowBackward0  saved buffers {where}" in text
    assert f"TanhBackward0  saved buffers {where}" in text
    assert "SumBackward0  @" in text and "SumBackward0  saved buffers" not in text  # (sum saves nothing)
    assert f"saved result  {where}" in text  # (a freed buffer has no shape left)
    fn_freed = [n for n in g.model.nodes if n.kind == "fn" and "freed" in n.marks]
    assert sorted(n.title for n in fn_freed) == ["AddmmBackward0", "AddmmBackward0", "PowBackward0",
                                                 "TanhBackward0"]
    legend = text[text.index("legend:"):]
    assert "backward node whose saved buffers a backward() freed (use retain_graph=True)" in legend
    assert "freed buffer: released by backward() without retain_graph" in legend
    dot = g.dot()
    pow_line = next(s for s in dot.splitlines() if 'label="PowBackward0' in s)
    assert 'fillcolor="#dcdcdc", color="#7a2a2a"' in pow_line
    svg = g.svg()
    root = ET.fromstring(svg)
    classes = [x.get("class") for x in root.iter(f"{SVG_NS}g") if (x.get("class") or "").startswith("node fn")]
    assert sum("freed" in c.split() for c in classes) == 4
    # the marks do not need the saved boxes drawn
    assert "PowBackward0  saved buffers freed" in viz.to_text(loss, show_saved=False)


def test_retain_graph_frees_nothing():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (a.exp() * a).sum()
    y.backward(retain_graph=True)
    assert "freed" not in viz.to_text(y)
    y.backward()
    assert "ExpBackward0  saved buffers freed by backward()" in viz.to_text(y)
