"""Text tree, Graphviz DOT and leafgrad's own SVG for a GraphModel. No recursion anywhere."""
from __future__ import annotations

import itertools
from xml.sax.saxutils import escape as _xml_escape

from ._model import GraphModel

__all__ = ["to_text", "to_dot", "to_svg", "STYLE", "legend_entries"]

# kind -> (fill, border)
STYLE = {
    "leaf": ("#cfe2ff", "#3d6fb6"),
    "const": ("#eeeeee", "#8a8a8a"),
    "tensor": ("#d3f3d3", "#3c8c3c"),
    "fn": ("#fff3c4", "#b08a00"),
    "acc": ("#e6dcff", "#6b4fbb"),
    "saved": ("#ffffff", "#8a8a8a"),
}
_STALE = ("#ffd9d9", "#c00000")
_PARAM = ("#c8eee8", "#1f7a70")
_FREED = ("#dcdcdc", "#7a2a2a")


def _colours(node) -> tuple:
    """(fill, border) of a box: a mark (stale, freed, parameter) overrides its kind's colours."""
    marks = node.marks
    if marks:
        if "stale" in marks:
            return _STALE
        if "freed" in marks:
            return _FREED
        if "param" in marks:
            return _PARAM
    return STYLE[node.kind]


# The legend: (key, colours, dashed, words). A key is a kind or ``kind+mark``; only keys
# present in the drawn graph are listed, in this order.
_LEGEND = (
    ("+param", _PARAM, False, "parameter (nn.Parameter, named by its module path, e.g. fc1.weight)"),
    ("leaf", STYLE["leaf"], False, "leaf that requires grad: backward() writes its .grad"),
    ("const", STYLE["const"], False, "leaf that does not require grad: autograd ignores it"),
    ("tensor", STYLE["tensor"], False, "non-leaf tensor: a drawn root, or one named, retain_grad()-ed or hooked"),
    ("fn", STYLE["fn"], False, "backward node (grad_fn), torch's name, with the line that made it"),
    ("fn+freed", _FREED, False, "backward node whose saved buffers a backward() freed (use retain_graph=True)"),
    ("acc", STYLE["acc"], False, "AccumulateGrad: adds the incoming gradient into a leaf's .grad"),
    ("saved", STYLE["saved"], True, "saved tensor: kept for backward, with the version it was saved at"),
    ("saved+stale", _STALE, True, "stale saved tensor: changed in place after saving; backward() will fail"),
    ("saved+freed", _FREED, True, "freed buffer: released by backward() without retain_graph"),
    ("+root", None, False, "thick border: a tensor you asked to draw"),
)


def legend_entries(g: GraphModel) -> list:
    """The legend rows for the box kinds and marks ``g`` contains: ``[(key, (fill, border), dashed, words)]``."""
    present = set()
    for node in g.nodes:
        present.add(node.kind)
        for m in node.marks:
            present.add(f"{node.kind}+{m}")
            present.add(f"+{m}")
    for kind in ("leaf", "const"):  # a kind whose every box is a parameter is listed only as "parameter"
        if kind in present and all("param" in n.marks for n in g.nodes if n.kind == kind):
            present.discard(kind)
    return [row for row in _LEGEND if row[0] in present]
_KIND_WORD = {"leaf": "leaf", "const": "leaf", "tensor": "tensor", "saved": "", "fn": "", "acc": ""}


# ----------------------------------------------------------------------------- text
def _summary(node, show_sites: bool) -> str:
    parts = [node.title]
    word = _KIND_WORD.get(node.kind)
    if word and node.kind != "saved":
        parts[0] = f"{node.title}: {word}" if node.title not in ("leaf", "tensor", "parameter") else node.title
    parts.extend(node.lines)
    if show_sites and node.site is not None:
        from ._model import _short_site
        parts.append(("changed @ " if node.kind == "saved" else "@ ") + _short_site(node.site))
    return "  ".join(p for p in parts if p)


def _text_legend(g: GraphModel) -> list:
    rows = legend_entries(g)
    if not rows:
        return []
    words = {"+param": "Parameter", "leaf": "leaf requires_grad=True", "const": "leaf requires_grad=False",
             "tensor": "tensor", "fn": "XxxBackward0", "fn+freed": "saved buffers freed",
             "acc": "AccumulateGrad", "saved": "saved ...", "saved+stale": "STALE", "saved+freed": "freed by backward()"}
    out = ["legend:"]
    for key, _colours_, _dashed, text in rows:
        if key == "+root":  # (a border: nothing to see in text, where roots are the top lines)
            continue
        out.append(f"  {words[key]:<26} {text}")
    return out


def to_text(g: GraphModel, show_sites: bool = True, max_depth: int = 60, legend: bool = True) -> str:
    """A tree from each root towards the leaves; a box seen before is shown once and referred to."""
    ins = g.inputs()
    shown = set()
    out = []
    for root in g.roots:
        stack = [(root, "", "", 0)]
        while stack:
            vid, lead, child_lead, depth = stack.pop()
            node = g.nodes[vid]
            if vid in shown:
                out.append(f"{lead}{node.title}  (shown above)")
                continue
            shown.add(vid)
            out.append(lead + _summary(node, show_sites))
            kids = ins[vid]
            if depth >= max_depth and kids:
                out.append(child_lead + "└── ... (deeper levels not shown)")
                continue
            n = len(kids)
            for k in range(n - 1, -1, -1):
                src, _style = kids[k]
                last = k == n - 1
                stack.append((src, child_lead + ("└── " if last else "├── "),
                              child_lead + ("    " if last else "│   "), depth + 1))
    if legend:
        out.extend(_text_legend(g))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- DOT
def _dot_escape(s: str) -> str:
    if '"' in s or "\\" in s:
        return s.replace("\\", "\\\\").replace('"', '\\"')
    return s


def _dot_legend(g: GraphModel) -> list:
    """A ``cluster_legend`` subgraph: one sample box per kind present, stacked by invisible edges."""
    rows = legend_entries(g)
    if not rows:
        return []
    out = ['  subgraph cluster_legend {\n', '    label="legend"; fontsize=10; color="#bbbbbb";\n']
    for i, (key, colours, dashed, text) in enumerate(rows):
        fill, border = colours if colours is not None else ("#ffffff", "#333333")
        style = ', style="rounded,filled,dashed"' if dashed else ""
        pen = ", penwidth=2" if key == "+root" else ""
        out.append(f'    legend{i} [label="{_dot_escape(text)}", fillcolor="{fill}", color="{border}"{style}{pen}];\n')
    for i in range(len(rows) - 1):
        out.append(f"    legend{i} -> legend{i + 1} [style=invis];\n")
    out.append("  }\n")
    return out


def to_dot(g: GraphModel, show_sites: bool = True, name: str = "leafgrad", legend: bool = True) -> str:
    parts = [f"digraph {name} {{\n",
             '  graph [rankdir=TB, fontname="Helvetica", nodesep=0.25, ranksep=0.35];\n',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];\n',
             '  edge [arrowsize=0.7];\n']
    append = parts.append
    style = STYLE
    for node in g.nodes:
        label = "\\n".join(_dot_escape(x) for x in node.label_lines(show_sites))
        marks = node.marks
        fill, border = _colours(node) if marks else style[node.kind]
        extra = ""
        if node.kind == "saved":
            extra = ', style="rounded,filled,dashed"'
        if "stale" in marks:
            extra += ", penwidth=2"
        elif "root" in marks:
            extra += ", penwidth=2"
        append(f'  n{node.id} [label="{label}", fillcolor="{fill}", color="{border}"{extra}];\n')
    for s, d, st in g.edges:
        if st == "data":
            append(f"  n{s} -> n{d};\n")
        elif st == "saved":
            append(f"  n{s} -> n{d} [style=dashed, arrowhead=none];\n")
        else:
            append(f"  n{s} -> n{d} [style=dotted];\n")
    if legend:
        parts.extend(_dot_legend(g))
    append("}\n")
    return "".join(parts)


# ----------------------------------------------------------------------------- SVG: a layered layout
_CHAR_W = 6.6
_LINE_H = 14
_PAD_X = 8
_PAD_Y = 6
_GAP_X = 18
_GAP_Y = 34
_MARGIN = 12
_svg_ids = itertools.count()


_MAX_DUMMIES = 20000
_MAX_SPAN = 40


def _layout(g: GraphModel, show_sites: bool):
    """A layered (Sugiyama-style) layout, iterative and roughly linear in the graph's size.

    1. layer = longest path to a sink (roots at the bottom, an input right above its op);
    2. an edge spanning several layers gets invisible waypoints, one per layer crossed;
    3. order within layers by barycentre sweeps, down then up;
    4. x: each box moves towards the mean of its neighbours, then overlaps are pushed apart.
    Returns labels, box geometry, the edge routes and the picture size.
    """
    n = len(g.nodes)
    succ = [[] for _ in range(n)]
    pred = [[] for _ in range(n)]
    for s_, d, _ in g.edges:
        succ[s_].append(d)
        pred[d].append(s_)
    outdeg = [len(x) for x in succ]
    height = [0] * n
    ready = [v for v in range(n) if outdeg[v] == 0]
    while ready:
        v = ready.pop()
        hv = height[v] + 1
        for u in pred[v]:
            if height[u] < hv:
                height[u] = hv
            outdeg[u] -= 1
            if outdeg[u] == 0:
                ready.append(u)
    top = max(height) if n else 0
    layer = [top - h for h in height]

    labels = [nd.label_lines(show_sites) for nd in g.nodes]
    widths = [max(len(x) for x in lab) * _CHAR_W + 2 * _PAD_X for lab in labels]
    heights = [len(lab) * _LINE_H + 2 * _PAD_Y for lab in labels]

    # waypoints for long edges: extra vertices (width 0) in the layers crossed
    routes = []  # per edge: the list of vertices it passes through, source first
    up = [list(p) for p in pred]      # neighbours used for ordering, including waypoints
    down = [list(s_) for s_ in succ]
    dummies = 0
    for s_, d, _ in g.edges:
        span = layer[d] - layer[s_]
        if span <= 1 or span > _MAX_SPAN or dummies + span > _MAX_DUMMIES:
            routes.append([s_, d])
            continue
        path = [s_]
        prev = s_
        down[s_].remove(d)
        up[d].remove(s_)
        for k in range(1, span):
            w = len(layer)
            layer.append(layer[s_] + k)
            widths.append(0.0)
            heights.append(0.0)
            up.append([prev])
            down.append([])
            down[prev].append(w)
            path.append(w)
            prev = w
            dummies += 1
        down[prev].append(d)
        up[d].append(prev)
        path.append(d)
        routes.append(path)
    total = len(layer)
    layers = [[] for _ in range(top + 1)]
    for v in range(total):
        layers[layer[v]].append(v)
    pos = [0.0] * total
    for lay in layers:
        for i, v in enumerate(lay):
            pos[v] = float(i)
    for _ in range(2):
        for lay in layers[1:]:
            _sort_by(lay, up, pos)
        for lay in reversed(layers[:-1]):
            _sort_by(lay, down, pos)

    # x: start packed and centred, then pull towards neighbours and push apart
    cx = [0.0] * total
    for lay in layers:
        x = 0.0
        for v in lay:
            cx[v] = x + widths[v] / 2
            x += widths[v] + _GAP_X
        shift = -x / 2
        for v in lay:
            cx[v] += shift
    for _ in range(3):
        for lay in layers[1:]:
            _place(lay, up, cx, widths)
        for lay in reversed(layers[:-1]):
            _place(lay, down, cx, widths)
    left = min((cx[v] - widths[v] / 2 for v in range(total)), default=0.0)
    right = max((cx[v] + widths[v] / 2 for v in range(total)), default=0.0)
    off = _MARGIN - left
    xs = [c - w / 2 + off for c, w in zip(cx, widths)]
    ys = [0.0] * total
    y = _MARGIN
    for lay in layers:
        lh = max((heights[v] for v in lay), default=0.0)
        for v in lay:
            ys[v] = y + (lh - heights[v]) / 2
        y += lh + _GAP_Y
    return labels, xs, ys, widths, heights, routes, right - left + 2 * _MARGIN, y - _GAP_Y + _MARGIN


def _sort_by(lay: list, nbrs: list, pos: list) -> None:
    keyed = []
    for i, v in enumerate(lay):
        ns = nbrs[v]
        keyed.append((sum(pos[u] for u in ns) / len(ns) if ns else pos[v], i, v))
    keyed.sort()
    for i, (_, _, v) in enumerate(keyed):
        lay[i] = v
        pos[v] = float(i)


def _place(lay: list, nbrs: list, cx: list, widths: list) -> None:
    """Move each box of a layer towards the mean x of its neighbours, keeping order and gaps."""
    if not lay:
        return
    want = []
    for v in lay:
        ns = nbrs[v]
        want.append(sum(cx[u] for u in ns) / len(ns) if ns else cx[v])
    # left to right: no overlap
    placed = []
    edge = None
    for v, w in zip(lay, want):
        half = widths[v] / 2
        c = w if edge is None else max(w, edge + _GAP_X + half)
        placed.append(c)
        edge = c + half
    # shift the whole layer so that, on average, boxes sit where they want to be
    shift = sum(w - p for w, p in zip(want, placed)) / len(lay)
    for v, c in zip(lay, placed):
        cx[v] = c + shift


_LEGEND_SWATCH = 22


def _svg_legend(g: GraphModel, x0: float) -> tuple:
    """SVG for the legend, a column starting at ``x0``: (parts, width, height)."""
    rows = legend_entries(g)
    if not rows:
        return [], 0.0, 0.0
    parts = ['<g class="legend">', f'<text class="title" x="{x0:.1f}" y="{_MARGIN + 10:.1f}">legend</text>']
    y = _MARGIN + 18
    widest = 0.0
    for key, colours, dashed, text in rows:
        fill, border = colours if colours is not None else ("#ffffff", "#333333")
        sw = 2 if key == "+root" else 1
        dash = ' stroke-dasharray="4 2"' if dashed else ""
        parts.append(f'<g class="legend-row" data-key="{key}"><rect x="{x0:.1f}" y="{y:.1f}" width="{_LEGEND_SWATCH}" '
                     f'height="12" rx="3" fill="{fill}" stroke="{border}" stroke-width="{sw}"{dash}/>'
                     f'<text x="{x0 + _LEGEND_SWATCH + 6:.1f}" y="{y + 10:.1f}">{_xml_escape(text)}</text></g>')
        widest = max(widest, len(text) * _CHAR_W)
        y += 18
    parts.append("</g>\n")
    return parts, _LEGEND_SWATCH + 6 + widest + _MARGIN, y + _MARGIN


def to_svg(g: GraphModel, show_sites: bool = True, legend: bool = True) -> str:
    labels, xs, ys, ws, hs, routes, width, height = _layout(g, show_sites)
    legend_parts: list = []
    if legend:
        legend_parts, lw, lh = _svg_legend(g, width + _GAP_X)
        if legend_parts:
            width += _GAP_X + lw
            height = max(height, lh)
    uid = f"lg{next(_svg_ids)}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="leafgrad-graph" width="{width:.0f}" '
           f'height="{max(height, 1):.0f}" viewBox="0 0 {width:.0f} {max(height, 1):.0f}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">\n',
           f'<defs><marker id="{uid}-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker>'
           '</defs>\n',
           '<style>.leafgrad-graph .edge{fill:none;stroke:#555;stroke-width:1.1}'
           '.leafgrad-graph .edge.saved{stroke-dasharray:4 3;stroke:#999}'
           '.leafgrad-graph .edge.var{stroke-dasharray:1 3}'
           '.leafgrad-graph text{fill:#111}.leafgrad-graph .title{font-weight:bold}</style>\n']
    append = out.append
    append('<g class="edges">\n')
    for (s, d, st), route in zip(g.edges, routes):
        marker = "" if st == "saved" else f' marker-end="url(#{uid}-arrow)"'
        parts = []
        for a, b in zip(route, route[1:]):
            x1 = xs[a] + ws[a] / 2
            y1 = ys[a] + hs[a]
            x2 = xs[b] + ws[b] / 2
            y2 = ys[b]
            dy = max((y2 - y1) / 2, 8)
            if not parts:
                parts.append(f"M{x1:.1f},{y1:.1f}")
            elif hs[a] == 0:
                pass
            parts.append(f"C{x1:.1f},{y1 + dy:.1f} {x2:.1f},{y2 - dy:.1f} {x2:.1f},{y2:.1f}")
        append(f'<path class="edge {st}" d="{" ".join(parts)}"{marker}/>\n')
    append('</g>\n<g class="nodes">\n')
    for node in g.nodes:
        v = node.id
        marks = node.marks
        fill, border = _colours(node)
        sw = 2 if ("stale" in marks or "root" in marks) else 1
        dash = ' stroke-dasharray="4 2"' if node.kind == "saved" else ""
        cls = " ".join(("node", node.kind) + tuple(marks))
        lab = labels[v]
        x, y = xs[v], ys[v]
        append(f'<g class="{cls}" id="{uid}-n{v}"><title>{_xml_escape(" | ".join(lab))}</title>'
               f'<rect class="box" x="{x:.1f}" y="{y:.1f}" width="{ws[v]:.1f}" height="{hs[v]:.1f}" rx="5" '
               f'fill="{fill}" stroke="{border}" stroke-width="{sw}"{dash}/>')
        cx = x + ws[v] / 2
        ty = y + _PAD_Y + _LINE_H - 3
        spans = []
        for i, line in enumerate(lab):
            c = ' class="title"' if i == 0 else ""
            spans.append(f'<tspan x="{cx:.1f}" y="{ty + i * _LINE_H:.1f}"{c}>{_xml_escape(line)}</tspan>')
        append(f'<text text-anchor="middle">{"".join(spans)}</text></g>\n')
    append("</g>\n")
    out.extend(legend_parts)
    append("</svg>\n")
    return "".join(out)
