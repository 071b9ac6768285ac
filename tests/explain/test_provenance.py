"""Provenance records (node, saved-tensor, version-bump and cut sites) and explain_grad."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as torch
from leafgrad import provenance

HERE = os.path.abspath(__file__)
with open(HERE, encoding="utf-8") as _f:
    _SOURCE = _f.read().splitlines()


def line_of(tag: str) -> int:
    hits = [i + 1 for i, line in enumerate(_SOURCE) if line.rstrip().endswith(f"# <{tag}>")]
    assert len(hits) == 1, (tag, hits)
    return hits[0]


def at(tag: str) -> tuple:
    return (HERE, line_of(tag))


def test_node_and_saved_sites():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # <exp>
    z = y * x  # <mul>
    assert y.grad_fn._site == at("exp")
    assert z.grad_fn._site == at("mul")
    (name, saved), = y.grad_fn.saved_tensors_info()
    assert name == "result" and saved._site == at("exp")
    assert all(s._site == at("mul") for _, s in z.grad_fn.saved_tensors_info())


def test_version_bump_site_and_copyslices_site():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    b[0] = 5.0  # <setitem>
    assert b._vc.last_site == at("setitem")
    assert b.grad_fn.name().endswith("CopySlices")
    assert b.grad_fn._site == at("setitem")


def test_function_site():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.ones(2, requires_grad=True)
    y = Double.apply(x)  # <fn>
    assert y.grad_fn._site == at("fn")
    assert y.grad_fn._saved_vars[0]._site == at("fn")


def test_accumulate_grad_has_site_slot():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc._site is None


def test_cut_no_grad_and_propagation():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = x * 2  # <nograd>
        y2 = y + 1
    z = y2 * 3
    for t in (y, y2, z):
        cut = provenance.cut_of(t)
        assert cut is not None and cut.kind == "no_grad" and cut.site == at("nograd")
    with torch.inference_mode():
        w = x * 2  # <inference>
    assert provenance.cut_of(w).kind == "inference_mode"
    assert w._meta.inference


def test_cut_under_no_grad_names_the_users_line_on_every_entry_path():
    """The walk for a cut starts past the registry's own frames (apply, apply_simple, a view's
    path): the recorded line is the user's whatever path the op took, also from inside a module."""
    w = torch.ones(3, 3, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    x = torch.ones(2, 3)
    lin = torch.nn.Linear(3, 3)
    with torch.no_grad():
        v = w.t()  # <view>
        s = w * 2  # <simple>
        g = torch.addmm(b, x, w)  # <general>
        f = torch.nn.functional.linear(x, w, b)  # <functional>
        m = lin(x)  # <module>
    for t, tag in ((v, "view"), (s, "simple"), (g, "general"), (f, "functional"), (m, "module")):
        cut = provenance.cut_of(t)
        assert cut is not None and cut.kind == "no_grad" and cut.site == at(tag), (tag, cut)


def test_cut_detach_data_tensor_numpy():
    x = torch.ones(2, requires_grad=True)
    d = x.detach()  # <detach>
    assert provenance.cut_of(d).kind == "detach" and provenance.cut_of(d).site == at("detach")
    dd = x.data  # <data>
    assert provenance.cut_of(dd).kind == "data" and provenance.cut_of(dd).site == at("data")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(x)  # <tensor>
    assert provenance.cut_of(t).kind == "tensor" and provenance.cut_of(t).site == at("tensor")
    arr = x.detach().numpy()  # <numpy>
    back = torch.from_numpy(arr)  # <from_numpy>
    c = provenance.cut_of(back)
    assert c.kind == "numpy" and c.site == at("from_numpy")
    assert c.prev.kind == "numpy_out" and c.prev.site == at("numpy")
    assert c.prev.prev.kind == "detach"
    copied = torch.tensor(arr)
    assert provenance.cut_of(copied).kind == "numpy"
    fresh = torch.from_numpy(np.ones(2, dtype=np.float32))
    assert provenance.cut_of(fresh) is None


def test_no_cut_without_grad():
    a = torch.ones(2)
    b = a * 2
    assert provenance.cut_of(b) is None
    assert provenance.cut_of(a.detach()) is None


def test_provenance_can_be_switched_off():
    prev = provenance.set_enabled(False)
    try:
        x = torch.ones(2, requires_grad=True)
        assert (x * 2).grad_fn._site is None
        with torch.no_grad():
            y = x * 2
        assert provenance.cut_of(y) is None
    finally:
        provenance.set_enabled(prev)
    assert (x * 2).grad_fn._site is not None


def test_lg105_names_cut_by_data():
    x = torch.ones(2, requires_grad=True)
    y = x.data * 2  # <datacut>
    with raises_exactly(RuntimeError) as info:
        y.sum().backward()
    text = torch.explain(info.value)
    assert f"test_provenance.py:{line_of('datacut')}" in text and "`.data`" in text


def test_lg104_names_earlier_backward_on_simple_double_backward():
    x = torch.tensor(2.0, requires_grad=True)
    z = (x ** 2) ** 2
    z.backward()  # <first>
    with raises_exactly(RuntimeError) as info:
        z.backward()
    text = torch.explain(info.value, lang="zh")
    assert f"test_provenance.py:{line_of('first')}" in text and "`z`" in text


def test_lg104_rnn_names_the_shared_hidden_state():
    W = torch.ones(2, 2, requires_grad=True)
    h0 = torch.zeros(2)
    h1 = torch.tanh(W @ h0)  # <h1>
    h1.sum().backward()  # <bw1>
    h2 = torch.tanh(W @ h1)  # <h2>
    with raises_exactly(RuntimeError) as info:
        h2.sum().backward()
    facts = torch.explain(info.value).facts
    assert facts["shared"] == "`h1`"
    assert f"test_provenance.py:{line_of('h1')}" in facts["shared_at"]
    assert f"test_provenance.py:{line_of('h2')}" in facts["shared_used_at"]
    assert f"test_provenance.py:{line_of('bw1')}" in facts["freed_at"]


# ----------------------------------------------------------------------------- explain_grad
def test_explain_grad_reasons():
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    unused = torch.ones(2, requires_grad=True)
    const = torch.ones(2)
    h = w * 3  # <h>
    loss = h.relu().sum()
    assert torch.explain_grad(w, loss).code == "grad-no-backward"
    loss.backward()
    assert torch.explain_grad(w, loss).code == "grad-ok"
    e = torch.explain_grad(h, loss)
    assert e.code == "grad-non-leaf" and "`h`" in e and f"test_provenance.py:{line_of('h')}" in e
    assert torch.explain_grad(unused, loss).code == "grad-not-reached"
    assert torch.explain_grad(const, loss).code == "grad-no-requires-grad"
    dead = torch.tensor([-1.0, -2.0], requires_grad=True)
    out = dead.relu().sum()
    out.backward()
    z = torch.explain_grad(dead, out, lang="zh")
    assert z.code == "grad-zero" and "ReluBackward0" in z and "全是零" in z
    cut = x_detached = w.detach()  # <gcut>
    g = torch.explain_grad(x_detached)
    assert g.code == "grad-no-requires-grad" and f"test_provenance.py:{line_of('gcut')}" in g
    assert cut is x_detached


def test_explain_grad_rejects_non_tensors():
    with raises_exactly(TypeError):
        torch.explain_grad(3.0)
