"""Every key form torch's indexing accepts (ranges, lists of bools, nested lists, masks and index
tensors mixed with slices/None/..., NumPy arrays, 0-d tensors, Python bools), read and written,
and values with extra leading size-1 dims written as torch writes them."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg

torch = pytest.importorskip("torch")

X = np.arange(24.0).reshape(4, 6) / 7.0

KEYS = [
    "range(4), [0, 1, 2, 3]", "range(2)", "slice(None), range(0, 6, 2)", "range(1, 3), slice(2, None)", "range(10)",
    "(range(2),)", "range(0)", "[True, False, True, True]", "[True, False, True, True], slice(None)",
    "[[0, 1], [2, 3]]", "[0, [1, 2]]", "[None, 0]", "[slice(None), 0]", "[m.tensor(1), 2]", "[[True] * 6] * 4",
    "m.tensor([True, False, True, True]), slice(1, 3)", "Ellipsis, m.tensor([0, 2])", "None, m.tensor([1, 2])",
    "m.tensor([[0, 1], [1, 2]]), Ellipsis, None", "[0, 1], Ellipsis", "np.array([0, 2])", "np.array([[0, 1], [2, 3]])",
    "np.array([0, 2]), np.array([1, 1])", "np.array([0, 2]), np.int64(1)", "np.array([True, False, True, True])",
    "np.array([0.5, 2.7])", "m.tensor(1)", "m.tensor(1), m.tensor(2)", "m.tensor([1]), m.tensor(2)",
    "(m.tensor(1),)", "m.tensor(1), [0, 1]", "m.tensor([[True] * 6] * 4)", "m.tensor(True)", "True", "False",
    "None", "True, 0", "False, 0", "0, True", "None, True", "True, [0, 1]", "[]", "m.tensor([], dtype=m.long)", "[0, 1.0]", "[0.5]", "m.tensor([0, 1], dtype=m.int32)",
    "[1, 2], m.tensor([True, False, True, False, True, True])", "m.tensor(1.0)", "[4]", "1.0", "m.tensor([0.5])",
    "'a'",
]


def _warned(m, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, sorted({(w.category.__name__, str(w.message).split(";")[0]) for w in caught})


@pytest.mark.parametrize("key", KEYS)
def test_read_as_torch(key):
    def run(m):
        x = m.tensor(X, requires_grad=True)
        y, caught = _warned(m, lambda: eval(f"x[{key}]"))
        w = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape) + 1
        (g,) = m.autograd.grad((y * y * w).sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        return y, g, gg, caught, y.grad_fn.name() if y.grad_fn else None
    same(torch, run)


WRITES = [
    ("range(4), [0, 1, 2, 3]", "-1.0"), ("range(4), m.tensor([0, 1, 2, 3])", "v4"), ("0", "m.ones(1, 6)"),
    ("0", "m.ones(1, 1, 6)"), ("0", "m.ones(2, 6)"), ("0", "m.ones(6, 1)"), ("slice(0, 2)", "m.ones(1, 1, 6)"),
    ("[0, 2]", "m.ones(1, 2, 6)"), ("[0, 2]", "m.ones(1, 1, 6)"), ("(m.tensor([0, 2]), 1)", "m.ones(1, 2)"),
    ("(m.tensor([0, 2]), 1)", "m.ones(2, 2)"), ("Ellipsis", "m.ones(1, 4, 6)"), ("0", "[[1., 2, 3, 4, 5, 6]]"),
    ("0", "np.ones((1, 6))"), ("0", "[1., 2, 3, 4, 5, 6]"), ("(range(2), slice(1, 3))", "7.0"),
    ("[True, False, True, False]", "m.ones(1, 6)"), ("None", "m.ones(1, 1, 4, 6)"), ("True", "m.ones(1, 1, 4, 6)"),
    ("m.tensor(1)", "m.ones(1, 6)"), ("0", "m.ones(1, 7)"), ("(0, 0)", "m.ones(1, 1)"), ("[[0, 1], [2, 3]]", "5.0"),
    ("np.array([0, 3])", "m.ones(1, 6)"), ("slice(None)", "m.ones(1, 6)"), ("range(2)", "m.ones(1, 1, 6)"),
    ("(slice(None), range(0, 6, 2))", "m.ones(1, 3)"), ("0", "m.ones(1, 2, 6)"), ("False", "m.ones(3, 3)"), ("False", "[1.0]"), ("(True, 0)", "m.ones(6)"),
]


@pytest.mark.parametrize("key,value", WRITES)
def test_write_as_torch(key, value):
    def run(m):
        v4 = m.tensor([1.0, 2, 3, 4], dtype=m.float64)
        x = m.zeros(4, 6, dtype=m.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(f"x[{key}] = {value}", {"m": m, "np": np, "x": x, "v4": v4})
        return x
    same(torch, run)


def test_write_gradients_through_leading_ones():
    def run(m):
        a = m.tensor(np.linspace(0.5, 2.0, 6), requires_grad=True)
        b = m.tensor(X, requires_grad=True)
        x = b.clone()
        x[1] = (a * a).reshape(1, 6)
        x[[0, 2]] = (a * 3).reshape(1, 1, 6)
        x[range(4), [5, 4, 3, 2]] = a[:4].reshape(1, 4)
        loss = (x * x).sum()
        ga, gb = m.autograd.grad(loss, (a, b), create_graph=True)
        gga = m.autograd.grad(ga.sum() + gb.sum(), a)[0]
        return x, ga, gb, gga, x.grad_fn.name()
    same(torch, run)


def test_list_value_refused_and_tensor_unchanged():
    x = lg.zeros(2, 3)
    raises_exactly(TypeError, x.__setitem__, 0, [1.0, 2.0, 3.0], match="can't assign a list")
    assert x.sum().item() == 0.0 and x._version == 0
