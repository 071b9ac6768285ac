"""A node keeps its edges as one flat tuple (``Node._next``) and shows them as torch's
``next_functions``, pairs of (node, input_nr). What users read must be torch's; what the graph keeps
alive must stay small, since each container is one more object for every cyclic-GC collection."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import leafgrad


def _edges(fn, depth: int = 2):
    """(name, input_nr, edges below) for each edge, ``depth`` levels down: comparable across libraries."""
    if fn is None or depth == 0:
        return None
    return [(None if n is None else type(n).__name__, nr, _edges(n, depth - 1)) for n, nr in fn.next_functions]


class _Double:  # an autograd.Function, defined once per library
    @staticmethod
    def forward(ctx, x, y):
        return x * 2 + y

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


GRAPHS = {
    "unary": lambda m, x, w: x.tanh(),
    "tensor by number": lambda m, x, w: x * 3.0,
    "number by tensor": lambda m, x, w: 2.0 - x,
    "two tensors": lambda m, x, w: x * w,
    "three inputs": lambda m, x, w: m.addcmul(x, x.exp(), w),
    "cat of four": lambda m, x, w: m.cat([x, w, x.sin(), w * 2]),
    "in-place on a view": lambda m, x, w: _write_view(x),
    "multi-output": lambda m, x, w: m.split(x * 1.0, 2)[1],
    "custom function": lambda m, x, w: type("Double", (m.autograd.Function,), dict(vars(_Double))).apply(x, w),
}


def _write_view(x):
    y = x * 1.0
    y[1:3].mul_(x[:2])
    return y


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_next_functions_are_torchs_pairs(torch, name):
    seen = []
    for m in (torch, leafgrad):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        w = m.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
        out = GRAPHS[name](m, x, w)
        fn = out.grad_fn
        pairs = fn.next_functions
        assert isinstance(pairs, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in pairs)
        seen.append((type(fn).__name__, _edges(fn)))
    assert seen[1] == seen[0]


def test_a_leafs_accumulator_has_no_edges_and_backward_follows_the_pairs(torch):
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.next_functions == ()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_assigned_next_functions_read_back_as_pairs():
    x = leafgrad.tensor([1.0], requires_grad=True)
    node = (x * 2.0).grad_fn
    acc = node.next_functions[0][0]
    node.next_functions = ((acc, 0), (None, 0))
    assert node.next_functions == ((acc, 0), (None, 0))
    node.next_functions = ((acc, 0),)
    assert node.next_functions == ((acc, 0),)


@pytest.mark.parametrize("name,op,at_most", [
    ("tensor by number", lambda h, x: h * 1.5, 2),  # the node and its one edge tuple
    ("tensor plus leaf", lambda h, x: h + x, 2),
    ("tanh", lambda h, x: h.tanh(), 5),  # + the saved result, its version counter, the saved tuple
])
def test_recorded_op_keeps_few_gc_tracked_objects(name, op, at_most):
    x = leafgrad.tensor(np.ones(4, np.float32), requires_grad=True)

    def chain(n):
        h = x
        for _ in range(n):
            h = op(h, x)
        return h

    del_me = chain(10)  # (warm the caches: shared metadata, constants)
    del del_me
    gc.collect()
    before = len(gc.get_objects())
    h = chain(1000)
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / 1000
    assert per_op <= at_most + 0.01, per_op
    del h
