"""addbmm/baddbmm/addmv/addr, the index_* family, scatter_reduce, masked_scatter, put, as_strided, unfold, the
*_scatter ops, fill_diagonal_, argwhere, nonzero_static and isin against torch 2.13: values, grad_fn names,
saved values, first and second gradients, in-place forms and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg

torch = pytest.importorskip("torch")

R = np.random.default_rng(0)


def arr(*shape):
    return R.standard_normal(shape)


def _grads(m, f, arrays):
    """(value, grad_fn name, first grads, second grads) of ``f`` on float64 leaves made from ``arrays``."""
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = f(m, *xs)
    name = out.grad_fn.name() if out.grad_fn is not None else None
    w = m.tensor(np.linspace(-1.0, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=m.float64)
    # (a plain backward runs the formulas on raw arrays, create_graph=True on Tensors: both must agree)
    plain = m.autograd.grad(out, xs, w, retain_graph=True, allow_unused=True)
    g1 = m.autograd.grad(out, xs, w, create_graph=True, allow_unused=True)
    for a, b in zip(plain, g1):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    g1 = [m.zeros_like(x) if g is None else g for g, x in zip(g1, xs)]
    total = sum((g * m.tensor(np.cos(np.arange(g.numel())).reshape(tuple(g.shape)), dtype=m.float64)).sum()
                for g in g1)
    g2 = [None] * len(xs)
    if total.requires_grad:
        g2 = m.autograd.grad(total, xs, allow_unused=True)
    g2 = [np.zeros(x.shape) if g is None else g.detach().numpy() for g, x in zip(g2, xs)]
    return out.detach().numpy(), name, [g.detach().numpy() for g in g1], g2


def check(f, *arrays):
    t = _grads(torch, f, arrays)
    m = _grads(lg, f, arrays)
    np.testing.assert_allclose(m[0], t[0], rtol=1e-10, atol=1e-12)
    assert m[1] == t[1]
    for a, b in zip(m[2], t[2]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(m[3], t[3]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def idx(m, *v):
    return m.tensor(list(v), dtype=m.int64)


# ----------------------------------------------------------------------------- the table
CASES = {
    "addbmm": (lambda m, a, b, c: m.addbmm(a, b, c, beta=0.5, alpha=2.0), (arr(3, 4), arr(2, 3, 5), arr(2, 5, 4))),
    "addbmm_bcast": (lambda m, a, b, c: a.addbmm(b, c), (arr(4), arr(2, 3, 5), arr(2, 5, 4))),
    "baddbmm": (lambda m, a, b, c: m.baddbmm(a, b, c, alpha=-1.5), (arr(2, 3, 4), arr(2, 3, 5), arr(2, 5, 4))),
    "baddbmm_beta0": (lambda m, a, b, c: m.baddbmm(a, b, c, beta=0), (arr(1, 3, 1), arr(2, 3, 5), arr(2, 5, 4))),
    "addmv": (lambda m, a, b, c: m.addmv(a, b, c, beta=2, alpha=3), (arr(3), arr(3, 4), arr(4))),
    "addmv_bcast": (lambda m, a, b, c: a.addmv(b, c), (arr(1), arr(3, 4), arr(4))),
    "addr": (lambda m, a, b, c: m.addr(a, b, c, beta=0.25, alpha=-2), (arr(3, 4), arr(3), arr(4))),
    "index_add": (lambda m, a, s: a.index_add(1, idx(m, 0, 2, 0), s, alpha=2.0), (arr(3, 4), arr(3, 3))),
    "index_add_fn": (lambda m, a, s: m.index_add(a, 0, idx(m, 1), s), (arr(3, 4), arr(1, 4))),
    "index_copy": (lambda m, a, s: a.index_copy(0, idx(m, 2, 0), s), (arr(3, 4), arr(2, 4))),
    "index_fill": (lambda m, a: a.index_fill(1, idx(m, 3, 1), -2.0), (arr(3, 4),)),
    "index_fill_t": (lambda m, a, v: a.index_fill(0, idx(m, 1), v.sum()), (arr(3, 4), arr(2))),
    "index_reduce_prod": (lambda m, a, s: a.index_reduce(0, idx(m, 0, 2, 0), s, "prod"), (arr(3, 4), arr(3, 4))),
    "index_reduce_mean": (lambda m, a, s: a.index_reduce(0, idx(m, 0, 2, 0), s, "mean", include_self=False),
                          (arr(3, 4), arr(3, 4))),
    "index_reduce_amax": (lambda m, a, s: a.index_reduce(1, idx(m, 1, 1), s, "amax"), (arr(3, 4), arr(3, 2))),
    "index_reduce_amin": (lambda m, a, s: a.index_reduce(1, idx(m, 1, 3), s, "amin", include_self=False),
                          (arr(3, 4), arr(3, 2))),
    "masked_scatter": (lambda m, a, s: a.masked_scatter(m.tensor([[True, False, True, False]]), s),
                       (arr(3, 4), arr(8))),
    "masked_scatter_fn": (lambda m, a, s: m.masked_scatter(a, m.tensor([True, False, True]), s), (arr(3), arr(2, 2))),
    "put": (lambda m, a, s: a.put(idx(m, 0, 5, -1), s), (arr(3, 4), arr(3))),
    "put_acc": (lambda m, a, s: m.put(a, idx(m, 1, 1, 7), s, accumulate=True), (arr(3, 4), arr(3))),
    "diagonal_scatter": (lambda m, a, s: m.diagonal_scatter(a, s, 1), (arr(3, 4), arr(3))),
    "diagonal_scatter_dims": (lambda m, a, s: a.diagonal_scatter(s, -1, 2, 0), (arr(3, 2, 4), arr(2, 3))),
    "select_scatter": (lambda m, a, s: m.select_scatter(a, s, 1, -1), (arr(3, 4), arr(3))),
    "slice_scatter": (lambda m, a, s: a.slice_scatter(s, 1, 0, None, 2), (arr(3, 4), arr(3, 2))),
    "slice_scatter_neg": (lambda m, a, s: m.slice_scatter(a, s, start=-2), (arr(3, 4), arr(2, 4))),
    "as_strided": (lambda m, a: a.as_strided((2, 2), (1, 2), 1), (arr(3, 4),)),
    "as_strided_overlap": (lambda m, a: m.as_strided(a, (3, 3), (1, 1)), (arr(6),)),
    "as_strided_of_view": (lambda m, a: a[1:].as_strided((2,), (3,)), (arr(12),)),
    "as_strided_t": (lambda m, a: (a * 1).t().as_strided((2, 3), (1, 2)), (arr(3, 4),)),
    "as_strided_scatter": (lambda m, a, s: m.as_strided_scatter(a, s, (2, 2), (1, 2), 1), (arr(3, 4), arr(2, 2))),
    "unfold": (lambda m, a: a.unfold(1, 2, 1), (arr(3, 4),)),
    "unfold_step": (lambda m, a: a.unfold(0, 2, 3), (arr(7, 2),)),
}

SCATTER_REDUCE = [(r, inc) for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients(name):
    f, arrays = CASES[name]
    check(f, *arrays)


@pytest.mark.parametrize("reduce,include_self", SCATTER_REDUCE)
def test_scatter_reduce(reduce, include_self):
    def f(m, a, s):
        index = m.tensor([[0, 1, 0, 2], [2, 2, 0, 0]])
        return a.scatter_reduce(0, index, s, reduce, include_self=include_self)
    check(f, arr(3, 4), arr(2, 4))
    check(lambda m, a, s: m.scatter_reduce(a, 1, m.tensor([[0, 0], [1, 1]]), s, reduce, include_self=include_self),
          arr(2, 3), arr(2, 2))


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_scatter_reduce_zeros_and_ties(reduce):
    """prod with zeros in self and src (one and two per position); amax/amin ties share the gradient."""
    a = np.array([[0.0, 2.0, 1.0], [3.0, 0.0, 2.0]])
    s = np.array([[0.0, 2.0, 5.0], [4.0, 0.0, 2.0], [1.0, 0.0, 2.0]])
    check(lambda m, x, y: x.scatter_reduce(0, m.tensor([[0, 1, 1], [1, 0, 1], [1, 1, 0]]), y, reduce), a, s)


def _shape(v):
    return None if v is None else tuple(v.shape)


def _list(v):
    return None if v is None else v.tolist()


def test_saved_values_match_torch():
    def saved(m):
        x = m.tensor(arr(3, 4), requires_grad=True)
        b1, b2 = m.tensor(arr(2, 3, 5), requires_grad=True), m.tensor(arr(2, 5, 4))
        i = m.tensor([0, 2])
        out = {}
        y = m.addbmm(x, b1, b2, beta=0.5)
        out["addbmm"] = (y.grad_fn._saved_beta, y.grad_fn._saved_alpha, _shape(y.grad_fn._saved_batch1))
        y = m.addmv(x[:, 0], x, m.tensor(arr(4)), alpha=2)
        out["addmv"] = (y.grad_fn._saved_alpha, _shape(y.grad_fn._saved_mat), _shape(y.grad_fn._saved_vec))
        y = m.addr(x, m.tensor(arr(3)), m.tensor(arr(4)))
        out["addr"] = (_shape(y.grad_fn._saved_vec1), _shape(y.grad_fn._saved_vec2))
        y = x.index_add(0, i, m.tensor(arr(2, 4)), alpha=3)
        out["index_add"] = (y.grad_fn._saved_dim, y.grad_fn._saved_alpha, y.grad_fn._saved_source_dim)
        y = x.index_fill(1, i, 2.0)
        out["index_fill"] = (y.grad_fn._saved_dim, _list(y.grad_fn._saved_index))
        y = x.scatter_reduce(0, m.tensor([[0, 1]]), m.tensor(arr(1, 2)), "amax", include_self=False)
        out["scatter_reduce"] = (y.grad_fn._saved_dim, y.grad_fn._saved_reduce, y.grad_fn._saved_include_self)
        y = x.masked_scatter(x > 0, m.tensor(arr(12)))
        out["masked_scatter"] = (tuple(y.grad_fn._saved_source_sym_sizes), y.grad_fn._saved_mask.shape)
        y = x.put(m.tensor([1, 5]), m.tensor(arr(2)), True)
        out["put"] = (y.grad_fn._saved_accumulate, _list(y.grad_fn._saved_index), _shape(y.grad_fn._saved_source))
        y = x.put(m.tensor([1, 5]), m.tensor(arr(2), requires_grad=True))
        out["put_source"] = _shape(y.grad_fn._saved_source)
        y = x.index_add(0, i, m.tensor(arr(2, 4), requires_grad=True))
        out["index_add_src"] = _list(y.grad_fn._saved_index)
        y = m.diagonal_scatter(x, m.tensor(arr(2)), 2)
        out["diagonal_scatter"] = (y.grad_fn._saved_offset, y.grad_fn._saved_dim1, y.grad_fn._saved_dim2)
        y = m.select_scatter(x, m.tensor(arr(4)), 0, -1)
        out["select_scatter"] = (y.grad_fn._saved_dim, y.grad_fn._saved_index)
        y = m.slice_scatter(x, m.tensor(arr(3, 2)), 1, 1, 3)
        out["slice_scatter"] = (y.grad_fn._saved_dim, y.grad_fn._saved_start, y.grad_fn._saved_end,
                                y.grad_fn._saved_step)
        y = x.as_strided((2, 2), (1, 2), 1)
        out["as_strided"] = (tuple(y.grad_fn._saved_size), tuple(y.grad_fn._saved_stride),
                             y.grad_fn._saved_storage_offset)
        y = x.unfold(1, 2, 2)
        out["unfold"] = (y.grad_fn._saved_dimension, y.grad_fn._saved_size, y.grad_fn._saved_step,
                         tuple(y.grad_fn._saved_self_sym_sizes))
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert saved(lg) == saved(torch)


# ----------------------------------------------------------------------------- in place
INPLACE = {
    "addbmm_": lambda m, a, b, c: a.addbmm_(b, c, alpha=2),
    "baddbmm_": lambda m, a, b, c: a.unsqueeze(0).baddbmm_(b[:1], c[:1], beta=0.5),
    "addmv_": lambda m, a, b, c: a[:, 0].addmv_(a * 2, c[0, :4, 0]),
    "addr_": lambda m, a, b, c: a.addr_(b[0, :, 0], c[0, 0], beta=2),
    "index_add_": lambda m, a, b, c: a.index_add_(0, idx(m, 2, 2), c[:, 0]),
    "index_copy_": lambda m, a, b, c: a.index_copy_(1, idx(m, 3), b[0, :, :1]),
    "index_fill_": lambda m, a, b, c: a.index_fill_(1, idx(m, 0, 1), 5.0),
    "index_reduce_": lambda m, a, b, c: a.index_reduce_(0, idx(m, 1, 0), c[:, 0], "prod"),
    "scatter_reduce_": lambda m, a, b, c: a.scatter_reduce_(1, m.tensor([[0, 0], [1, 3], [2, 2]]), b[0, :, :2],
                                                            "mean"),
    "masked_scatter_": lambda m, a, b, c: a.masked_scatter_(a > 0, b.reshape(-1)),
    "put_": lambda m, a, b, c: a.put_(idx(m, 0, 11), c[0, 0, :2], accumulate=True),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forms(name):
    def f(m, a, b, c):
        base = a * 1.0
        before = base._version
        out = INPLACE[name](m, base, b, c)
        assert base._version > before
        return out
    check(f, arr(3, 4), arr(2, 3, 5), arr(2, 5, 4))


@pytest.mark.parametrize("name", ["index_add_", "index_fill_", "put_", "masked_scatter_"])
def test_inplace_on_leaf_is_refused(name):
    def f(m):
        a = m.tensor(arr(3, 4), requires_grad=True)
        return INPLACE[name](m, a, m.tensor(arr(2, 3, 5)), m.tensor(arr(2, 5, 4)))
    same(torch, f)


def test_as_strided_view_and_write_through():
    for m in (torch, lg):
        x = m.arange(12.0)
        v = x.as_strided((3, 2), (4, 1), 1)
        v[0, 0] = 100.0
        assert x[1].item() == 100.0 and v._is_view()
    for m in (torch, lg):  # the default offset is the view's own
        x = m.arange(12.0)
        assert x[2:].as_strided((2,), (5,)).tolist() == [2.0, 7.0]
    assert lg.arange(6.0).unfold(0, 2, 2)._is_view()


def test_unfold_values_match():
    same(torch, lambda m: m.arange(24).reshape(2, 3, 4).unfold(-1, 3, 1))
    same(torch, lambda m: m.arange(24).reshape(2, 3, 4).unfold(1, 2, 2).shape)
    same(torch, lambda m: m.tensor(5.0).unfold(0, 1, 1))


def test_fill_diagonal_():
    for wrap in (False, True):
        same(torch, lambda m, wrap=wrap: m.zeros(7, 3).fill_diagonal_(2.0, wrap=wrap))
        same(torch, lambda m, wrap=wrap: m.zeros(3, 5).fill_diagonal_(1.0, wrap=wrap))
    same(torch, lambda m: m.zeros(3, 3, 3).fill_diagonal_(4))

    def graph(m):
        x = m.tensor(arr(3, 3), requires_grad=True)
        y = x * 2
        y.fill_diagonal_(1.0)
        (g,) = m.autograd.grad(y.sum(), x)
        return y.grad_fn.name(), g
    same(torch, graph)


def test_queries():
    x = np.array([[0, 1, 0], [2, 0, 3]])
    same(torch, lambda m: m.argwhere(m.tensor(x)))
    same(torch, lambda m: m.tensor(x).argwhere())
    for size, fill in ((2, -1), (5, 9), (0, -1)):
        same(torch, lambda m, size=size, fill=fill: m.nonzero_static(m.tensor(x), size=size, fill_value=fill))
    same(torch, lambda m: m.tensor(x).nonzero_static(size=4))
    same(torch, lambda m: m.isin(m.tensor(x), m.tensor([1, 3])))
    same(torch, lambda m: m.isin(m.tensor([1.0, 2.5]), m.tensor([2.5]), invert=True))
    same(torch, lambda m: m.isin(m.tensor(x), 2))
    same(torch, lambda m: m.isin(2, m.tensor(x)))


def test_beta_zero_ignores_nan_and_integer_rules():
    n = np.full((3, 4), np.nan)
    b1, b2, v3, v4, m34 = arr(2, 3, 5), arr(2, 5, 4), arr(3), arr(4), arr(3, 4)
    same(torch, lambda m: m.addbmm(m.tensor(n), m.tensor(b1), m.tensor(b2), beta=0))
    same(torch, lambda m: m.addr(m.tensor(n), m.tensor(v3), m.tensor(v4), beta=0))
    same(torch, lambda m: m.addmv(m.tensor(n[:, 0]), m.tensor(m34), m.tensor(v4), beta=0.0))
    same(torch, lambda m: m.addr(_i(m, 3, 4), _i(m, 3), _i(m, 4), beta=2, alpha=3))
    same(torch, lambda m: m.addr(_i(m, 3, 4), _i(m, 3), _i(m, 4), beta=0.5))
    same(torch, lambda m: m.addr(m.ones(3, 4), m.ones(3), m.ones(4, dtype=m.float64)).dtype)


ERRORS = [
    lambda m: m.addbmm(m.ones(3, 4), m.ones(2, 3, 5), m.ones(2, 4, 4)),
    lambda m: m.addbmm(m.ones(3, 4, dtype=m.float64), m.ones(2, 3, 5), m.ones(2, 5, 4)),
    lambda m: m.baddbmm(m.ones(2, 3, 4, dtype=m.float64), m.ones(2, 3, 5), m.ones(2, 5, 4)),
    lambda m: m.addmv(m.ones(3), m.ones(3, 4), m.ones(5)),
    lambda m: m.addmv(m.ones(3, dtype=m.float64), m.ones(3, 4), m.ones(4)),
    lambda m: m.addr(m.ones(3, 4), m.ones(3, 1), m.ones(4)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([0.0]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([[0]]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([5]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([0, 1]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([0]), m.ones(1, 3)),
    lambda m: m.ones(3, 4).index_add(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)),
    lambda m: m.ones(3).index_add(0, m.tensor(1), m.tensor(5.0)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([0.0]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([[0]]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([0, 1]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([0]), m.ones(1, 3)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([0]), m.ones(1, 4, 1)),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([-1]), m.ones(1, 4)),
    lambda m: m.ones(3, 4).index_fill(0, m.tensor([0], dtype=m.int32), 1.0),
    lambda m: m.ones(3, 4).index_fill(0, m.tensor([[0]]), 1.0),
    lambda m: m.ones(3, 4).index_fill(0, m.tensor([-4]), 1.0),
    lambda m: m.ones(3, 4).index_reduce(0, m.tensor([7]), m.ones(1, 4), "prod"),
    lambda m: m.ones(3, 4).index_reduce(0, m.tensor([0.0]), m.ones(1, 4), "prod"),
    lambda m: m.ones(3, 4).index_reduce(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64), "amax"),
    lambda m: m.ones(3, 4).scatter_reduce(0, m.tensor([[0]]), m.ones(1, 1), "foo"),
    lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4) > 0, m.ones(12, dtype=m.float64)),
    lambda m: m.ones(3, 4).put(m.tensor([0.0]), m.ones(1)),
    lambda m: m.nonzero_static(m.ones(3), size=-1),
    lambda m: m.isin(1, 2),
    lambda m: m.ones(3, 4).index_copy(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)),
    lambda m: m.ones(3, 4).index_fill(0, m.tensor([0]), m.ones(2)),
    lambda m: m.ones(3, 4).index_reduce(0, m.tensor([0]), m.ones(1, 4), "sum"),
    lambda m: m.ones(3, 4).scatter_reduce(0, m.tensor([[0]]), m.full((1, 1), 5.0), "max"),
    lambda m: m.ones(3, 4).scatter_reduce(0, m.tensor([[0]]), m.full((1, 1), -5.0), "min"),
    lambda m: m.ones(3, 4).scatter_reduce(0, m.tensor([[5]]), m.ones(1, 1), "sum"),
    lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4), m.ones(12)),
    lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4) > 0, m.ones(5)),
    lambda m: m.ones(3, 4).put(m.tensor([0, 1]), m.ones(3)),
    lambda m: m.ones(3, 4).put(m.tensor([12]), m.ones(1)),
    lambda m: m.ones(3, 4).put(m.tensor([1]), m.ones(1, dtype=m.float64)),
    lambda m: m.ones(3, 4).as_strided((3, 3), (4, 1), 2),
    lambda m: m.ones(3, 4).as_strided((2,), (-1,)),
    lambda m: m.ones(3, 4).unfold(1, 5, 1),
    lambda m: m.ones(3, 4).unfold(1, 2, 0),
    lambda m: m.diagonal_scatter(m.ones(3, 4), m.ones(2)),
    lambda m: m.select_scatter(m.ones(3, 4), m.ones(4), 0, 3),
    lambda m: m.slice_scatter(m.ones(3, 4), m.ones(3, 3), 1, 0, 2),
    lambda m: m.ones(3).fill_diagonal_(1.0),
    lambda m: m.ones(3, 4, 3).fill_diagonal_(1.0),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, ERRORS[k])


def test_index_reduce_warns_beta_once():
    import importlib
    mod = importlib.import_module("leafgrad._ops.index_extra")
    mod._WARNED.clear()
    with pytest.warns(UserWarning, match="index_reduce"):
        lg.ones(3).index_reduce(0, lg.tensor([0]), lg.ones(1), "prod")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lg.ones(3).index_reduce(0, lg.tensor([0]), lg.ones(1), "amax")


def test_inplace_errors_leave_state():
    x = lg.ones(3, 4)
    with raises_exactly(IndexError):
        x.put_(lg.tensor([0, 1]), lg.ones(3))
    with raises_exactly(IndexError):
        x.index_fill_(0, lg.tensor([7]), 2.0)
    assert x._version == 0 and x.sum().item() == 12.0


def _i(m, *shape):
    return m.ones(*shape, dtype=m.int64)


def _b(m, *shape):
    return m.ones(*shape, dtype=m.bool)


def _after(t, write):
    """What ``write(t)`` returns, then ``t`` itself as it is afterwards: node, shape, strides, version."""
    out = write(t)
    return out, t, None if t.grad_fn is None else t.grad_fn.name(), t.shape, t.stride(), t._version


# ----------------------------------------------------------------------------- behaviour at the edges
# (each runs on torch and on leafgrad and must give the same values, flags, node names or error classes)
EDGES = {
    "as_strided_leaf": lambda m: m.ones(3, 4, requires_grad=True).as_strided_((2,), (1,)),
    "as_strided_nonleaf": lambda m: _after(m.arange(12.0, requires_grad=True) * 1,
                                           lambda y: y.as_strided_((2, 2), (1, 2), 1)),
    "as_strided_nograd": lambda m: _after(m.arange(12.0), lambda y: y.as_strided_((2, 2), (1, 2), 1)),
    "fill_diag_leaf": lambda m: m.ones(3, 3, requires_grad=True).fill_diagonal_(0.0),
    "fill_diag_int": lambda m: m.ones(3, 3, dtype=m.int64).fill_diagonal_(7),
    "fill_diag_version": lambda m: _after(m.ones(3, 3), lambda y: y.fill_diagonal_(2.0)),
    "unfold_write": lambda m: _after(m.arange(5.0), lambda x: x.unfold(0, 2, 2).add_(1)),
    "ms_inplace_bad": lambda m: m.ones(3, 4).masked_scatter_(m.ones(2, 4, dtype=m.bool), m.ones(8)),
    "ms_bad": lambda m: m.ones(3, 4).masked_scatter(m.ones(2, 4, dtype=m.bool), m.ones(8)),
    "addbmm_bool": lambda m: m.addbmm(_b(m, 2, 2), _b(m, 1, 2, 2), _b(m, 1, 2, 2)),
    "addmv_bool": lambda m: m.addmv(m.ones(2, dtype=m.bool), m.ones(2, 2, dtype=m.bool), m.ones(2, dtype=m.bool)),
    "addr_bool": lambda m: m.addr(_b(m, 2, 2), _b(m, 2), m.zeros(2, dtype=m.bool), beta=2),
    "addr_bool_beta_int": lambda m: m.addr(_i(m, 2, 2), _i(m, 2), _i(m, 2), beta=True),
    "addmv_int_float_alpha": lambda m: m.addmv(_i(m, 2), _i(m, 2, 2), _i(m, 2), alpha=2.7),
    "baddbmm_int_beta": lambda m: m.baddbmm(_i(m, 1, 2, 2), _i(m, 1, 2, 2), _i(m, 1, 2, 2), beta=0.5),
    "index_add_0d": lambda m: m.tensor(1.0).index_add(0, m.tensor([0]), m.tensor(2.0)),
    "index_add_int": lambda m: m.arange(6).reshape(2, 3).index_add(1, m.tensor([0, 0]), _i(m, 2, 2), alpha=2),
    "index_fill_0d": lambda m: m.tensor(1.0).index_fill(0, m.tensor(0), 5.0),
    "index_fill_int_float": lambda m: m.ones(3, dtype=m.int64).index_fill(0, m.tensor([1]), 2.7),
    "index_copy_0d": lambda m: m.tensor(1.0).index_copy(0, m.tensor([0]), m.tensor(3.0)),
    "sr_mean_int": lambda m: m.tensor([[-3, 5], [4, 1]]).scatter_reduce(0, m.zeros(2, 2, dtype=m.int64),
                                                                        m.tensor([[-4, 2], [0, 0]]), "mean"),
    "sr_mean_int_noself": lambda m: m.tensor([[-3, 5], [4, 1]]).scatter_reduce(
        0, m.zeros(2, 2, dtype=m.int64), m.tensor([[-4, 2], [-1, 0]]), "mean", include_self=False),
    "sr_amax_int_noself": lambda m: m.zeros(3, dtype=m.int64).scatter_reduce(0, m.tensor([0, 0]), m.tensor([-4, -2]),
                                                                             "amax", include_self=False),
    "sr_src_larger": lambda m: m.zeros(3, 3).scatter_reduce(0, m.tensor([[0, 1]]), m.arange(9.0).reshape(3, 3), "sum"),
    "sr_dtype": lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]), m.ones(1, dtype=m.float64), "sum"),
    "sr_bool": lambda m: m.zeros(3, dtype=m.bool).scatter_reduce(0, m.tensor([0, 1]), m.tensor([True, False]), "amax"),
    "ir_mean_int": lambda m: m.tensor([5, 7]).index_reduce(0, m.tensor([0, 0]), m.tensor([-4, 2]), "mean"),
    "ms_bigger_mask": lambda m: m.arange(4.0).masked_scatter(m.tensor([[True, False, True, False]] * 3),
                                                             m.arange(10.0, 20.0)),
    "ms_inplace_bcast": lambda m: m.arange(4.0).masked_scatter_(m.tensor([[True, False, True, False]] * 3),
                                                                m.arange(10.0, 20.0)),
    "put_acc_dup": lambda m: m.zeros(2, 2).put_(m.tensor([0, 0, 3]), m.tensor([1.0, 2.0, 3.0]), accumulate=True),
    "put_neg": lambda m: m.zeros(2, 2).put(m.tensor([[-1]]), m.tensor([[5.0]])),
    "isin_mixed": lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2.0, 3.5])),
    "isin_elem_scalar": lambda m: m.isin(m.tensor([1.5, 2.0]), 2),
    "nzs_0d": lambda m: m.nonzero_static(m.tensor(3.0), size=2),
    "argwhere_0d": lambda m: m.argwhere(m.tensor(0.0)),
    "addbmm_int": lambda m: m.addbmm(_i(m, 2, 2), _i(m, 3, 2, 4), _i(m, 3, 4, 2), beta=2, alpha=3),
    "baddbmm_bool_beta": lambda m: m.baddbmm(_b(m, 1, 2, 2), _b(m, 1, 2, 2), _b(m, 1, 2, 2), beta=2),
    "addmv_inplace_dtype": lambda m: m.ones(3, dtype=m.int64).addmv_(m.ones(3, 4), m.ones(4)),
    "addr_inplace_cast": lambda m: m.ones(3, 4, dtype=m.int64).addr_(m.ones(3), m.ones(4)),
    "addr_inplace_promote_ok": lambda m: m.ones(3, 4, dtype=m.float64).addr_(m.ones(3), m.ones(4)),
    "addr_grad_dtype": lambda m: m.addr(m.ones(3, 4), m.ones(3, requires_grad=True),
                                        m.ones(4, dtype=m.float64)).grad_fn.name(),
    "addmm_like_inplace_leaf": lambda m: m.ones(3, requires_grad=True).addmv_(m.ones(3, 4), m.ones(4)),
    "diag_scatter_grad_fn": lambda m: m.diagonal_scatter(m.zeros(3, 3), m.ones(3, requires_grad=True)).grad_fn.name(),
    "slice_scatter_step": lambda m: m.slice_scatter(m.zeros(5), m.ones(2), 0, 1, None, 3),
    "slice_scatter_bad_step": lambda m: m.slice_scatter(m.zeros(5), m.ones(2), 0, 1, None, 0),
    "select_scatter_0d": lambda m: m.select_scatter(m.zeros(()), m.ones(()), 0, 0),
    "as_strided_scatter_default": lambda m: m.as_strided_scatter(m.zeros(2, 3), m.ones(2), (2,), (3,)),
    "as_strided_scatter_t": lambda m: m.as_strided_scatter(m.arange(12.0).reshape(3, 4).t(), -m.ones(3), (3,), (2,), 1),
    "as_strided_scatter_view": lambda m: m.as_strided_scatter(m.arange(12.0)[2:], -m.ones(2), (2,), (1,)),
    "as_strided_scatter_bad": lambda m: m.as_strided_scatter(m.zeros(2, 3), m.ones(3, 3), (3, 3), (3, 1)),
    "unfold_neg_dim": lambda m: m.arange(10.0).reshape(2, 5).unfold(-1, 3, 2),
    "unfold_size0": lambda m: m.arange(4.0).unfold(0, 0, 1).shape,
    "unfold_stride": lambda m: m.arange(10.0).reshape(2, 5).unfold(1, 2, 2).stride(),
    "as_strided_stride": lambda m: m.arange(10.0).as_strided((2, 2), (3, 1), 2).stride(),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_edges_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, EDGES[name])


# ----------------------------------------------------------------------------- writes through views
X45 = np.random.default_rng(1).standard_normal((4, 5))


def _through_view(op):
    """``op`` writes into a view of a non-leaf: the base's CopySlices, the view's node, and the gradient."""
    def f(m):
        x = m.tensor(X45, requires_grad=True)
        a = x * 1
        v = a[1:]
        op(m, v)
        (g,) = m.autograd.grad((a * a).sum(), x)
        return a.grad_fn.name(), v.grad_fn.name(), g
    return f


def _f64(m, *shape):
    return m.ones(*shape, dtype=m.float64)


VIEWS = {
    "index_fill_": _through_view(lambda m, v: v.index_fill_(1, m.tensor([0, 2]), 3.0)),
    "index_add_": _through_view(lambda m, v: v.index_add_(0, m.tensor([0, 0]), _f64(m, 2, 5))),
    "put_": _through_view(lambda m, v: v.put_(m.tensor([1, 7]), _f64(m, 2))),
    "scatter_reduce_": _through_view(lambda m, v: v.scatter_reduce_(0, m.tensor([[0, 1, 2, 0, 1]]), _f64(m, 1, 5) * 2,
                                                                    "prod")),
    "masked_scatter_": _through_view(lambda m, v: v.masked_scatter_(v > 0, m.arange(15.0, dtype=m.float64))),
    "addmv_": _through_view(lambda m, v: v[:, 0].addmv_(_f64(m, 3, 2), _f64(m, 2))),
    "as_strided_write": _through_view(lambda m, v: v.as_strided((2, 2), (5, 1), 6).mul_(3.0)),
    "unfold_write": _through_view(lambda m, v: v.unfold(1, 2, 2).mul_(2.0)),
    "fill_diagonal_": _through_view(lambda m, v: v.fill_diagonal_(0.5)),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_writes_through_views_match_torch(name):
    same(torch, VIEWS[name])


def test_strided_view_gradients():
    def of_view(m):
        x = m.tensor(X45, requires_grad=True)
        return m.autograd.grad((x[1:, 1:].as_strided((3,), (6,)) ** 2).sum(), x)
    same(torch, of_view)

    def unfold_twice(m):
        x = m.tensor(X45, requires_grad=True)
        (g,) = m.autograd.grad((x.unfold(1, 3, 1) ** 3).sum(), x, create_graph=True)
        return m.autograd.grad(g.sum(), x)
    same(torch, unfold_twice)


def test_scatter_reduce_prod_double_backward_with_two_zeros_is_refused():
    def f(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        s = m.tensor([0.0, 0.0, 3.0], dtype=m.float64, requires_grad=True)
        y = x.scatter_reduce(0, m.tensor([0, 0, 1]), s, "prod")
        gx, gs = m.autograd.grad(y.sum(), [x, s], create_graph=True)
        out = [gx, gs, gs.grad_fn.name(), m.autograd.grad(gx.sum(), s, retain_graph=True)]
        try:
            m.autograd.grad(gs.sum(), s)
        except RuntimeError as e:
            out.append(str(e).split(":")[0])
        return out
    same(torch, f)


@pytest.mark.parametrize("reduce", ["sum", "amax", "prod"])
def test_scatter_reduce_src_larger_than_index(reduce):
    def f(m):
        x = m.zeros(3, 3, requires_grad=True)
        s = m.arange(1.0, 10.0).reshape(3, 3).requires_grad_()
        y = x.scatter_reduce(0, m.tensor([[0, 1]]), s, reduce)
        return y, m.autograd.grad(y.sum(), [x, s])
    same(torch, f)
