"""Long chains of in-place writes through views (``y[i].add_(1.0)`` in a loop, issue 13): values,
gradients, versions and node names as torch's, whichever writes share recorded state, and the number
of objects such a chain keeps alive for the cyclic garbage collector."""
from __future__ import annotations

import gc

import pytest

import leafgrad
from differential import raises_exactly, same


def _mixed_chain(m, anomaly: bool = False):
    """Writes whose inner nodes may or may not be shared: other ops, other alphas (-0.0 and 0.0
    among them), other shapes and dtypes of the operand, an operand that requires grad."""
    x = m.arange(12.0, requires_grad=True)
    w = m.tensor([0.5, -1.5], requires_grad=True)
    with m.autograd.set_detect_anomaly(anomaly):
        y = x.clone()
        for i in range(30):
            y[i % 12].add_(1.0)
            y[(i + 3) % 12].sub_(2.0, alpha=-0.0 if i % 4 == 0 else 0.0)
            y[i % 6:i % 6 + 2].add_(m.tensor([1.0, 2.0]), alpha=3)
            y[i % 6:i % 6 + 2].add_(w, alpha=2)
            y[(i + 5) % 12].mul_(1.5 if i % 3 else -1.0)
            y[(i + 1) % 12].add_(m.tensor(2.0, dtype=m.float64))
        (y * m.arange(1.0, 13.0)).sum().backward()
    return [y, y._version, y.grad_fn, y.grad_fn.next_functions[0][0], x.grad, w.grad]


def _written(m, size: int, writes: int, start=None):
    """(the leaf, its clone after ``writes`` writes ``y[i % size].add_(1.0)``)."""
    x = m.zeros(size, requires_grad=True) if start is None else start
    y = x.clone()
    for i in range(writes):
        y[i % size].add_(1.0)
    return x, y


def test_mixed_chain_matches_torch(torch):
    same(torch, _mixed_chain)


def test_mixed_chain_under_anomaly_mode_matches_torch(torch):
    same(torch, lambda m: _mixed_chain(m, anomaly=True))


def test_zero_alphas_keep_their_sign(torch):
    """sub_(v, alpha=-0.0) and alpha=0.0 give the operand gradients of different signs of zero:
    two writes with equal but different numbers must not share what they recorded."""
    def f(m):
        v = m.tensor(2.0, requires_grad=True)
        u = m.tensor(2.0, requires_grad=True)
        y = m.zeros(3, requires_grad=True).clone()
        y[0].sub_(v, alpha=-0.0)
        y[1].sub_(u, alpha=0.0)
        y[2].sub_(1.0, alpha=-0.0)
        y.sum().backward()
        return [y, m.signbit(v.grad), m.signbit(u.grad), v.grad, u.grad]
    same(torch, f)


def test_written_view_and_sibling_views_follow_the_base(torch):
    def f(m):
        x = m.arange(6.0, requires_grad=True)
        y = x.clone()
        views = [y[i] for i in range(6)]
        for i in range(12):
            y[i % 6].add_(1.0)
        out = [v.grad_fn for v in views] + [views[2] * 3]
        sum(v * (k + 1) for k, v in enumerate(views)).backward()
        return out + [x.grad, y._version, views[0]._version]
    same(torch, f)


def test_chain_backward_twice_refused_as_torch(torch):
    """torch's CopySlices lets go of its op when the graph is freed, though add_'s node saved nothing."""
    def f(m):
        x, y = _written(m, 4, 8)
        y.sum().backward()
        y.sum().backward()
        return [x.grad]
    same(torch, f)


def test_state_after_a_refused_second_backward(torch):
    """The refused backward leaves the leaf's gradient and the chain's versions as they were."""
    def f(m):
        x, y = _written(m, 4, 8)
        y[1].mul_(2.0)
        y.sum().backward()
        before = x.grad.clone()
        try:
            y.sum().backward()
        except Exception as e:  # noqa: BLE001  (the class is compared, exactly, with torch's)
            refused = type(e).__name__
        else:
            refused = None
        return [refused, before, x.grad, y._version, y.grad_fn]
    out = same(torch, f)
    assert out[1][0] == "RuntimeError"  # (both refused it: compared as torch's exact class)


def test_chain_backward_twice_with_retain_graph(torch):
    def f(m):
        x, y = _written(m, 4, 8)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return [x.grad]
    same(torch, f)


def test_chain_with_a_saved_operand_refuses_a_second_backward():
    x, y = _written(leafgrad, 4, 4)
    y[1].mul_(2.0)  # (saves its number: freed by the first backward, as torch's)
    y.sum().backward()
    with raises_exactly(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()


def test_double_backward_through_a_chain(torch):
    def f(m):
        x, y = _written(m, 4, 6, m.arange(4.0, requires_grad=True))
        z = (y ** 3).sum()
        (g,) = m.autograd.grad(z, x, create_graph=True)
        g.sum().backward()
        return [g, x.grad]
    same(torch, f)


def test_chain_keeps_few_objects_alive_for_the_gc():
    """Each write of ``y[i].add_(1.0)`` keeps its CopySlices and the two tuples of its edges: every
    further object per write is one more for each of the collector's full passes over the chain."""
    x, y = _written(leafgrad, 100, 200)
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for i in range(1000):
            y[i % 100].add_(1.0)
        gc.collect()
        per_write = (len(gc.get_objects()) - before) / 1000
    finally:
        if was_on:
            gc.enable()
    assert per_write <= 3.05, per_write
    y.sum().backward()
    assert float(x.grad.sum()) == 100.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_chain_values_and_grad_fn_names(torch, dtype):
    def f(m):
        x = m.zeros(5, dtype=getattr(m, dtype), requires_grad=True)
        y = x.clone()
        for i in range(23):
            y[i % 5].add_(1.0)
            y[i % 5] += 0.5
        v = y[2]
        return [y, y._version, y.grad_fn, v.grad_fn, v._version]
    same(torch, f)
