"""trace, diag, diag_embed, cumprod, logcumsumexp, diff, rot90, fliplr, flipud, repeat_interleave,
take_along_dim, tensordot, kron, meshgrid, tril_indices and triu_indices against torch: values, dtypes,
the whole recorded graph (torch composes most of these from other ops), saved names, and first- and
second-order gradients."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
P = RNG.standard_normal((2, 3, 4))
Q = RNG.standard_normal((4, 3, 5))
C = RNG.standard_normal((3, 4))
Z = A.copy()
Z[1, 1] = Z[0, 2] = Z[2, 3] = 0.0  # (cumprod's gradient through zeros)
Z2 = A.copy()
Z2[0, 1] = Z2[0, 2] = 0.0  # (two zeros in one row)

# name -> (function of (lib, *tensors), inputs)
CASES = {
    "trace": (lambda L, x: L.trace(x), (A,)),
    "Tensor.trace": (lambda L, x: x.trace(), (A.T.copy(),)),
    "diag of a vector": (lambda L, x: L.diag(x), (V,)),
    "diag of a vector, offset 1": (lambda L, x: L.diag(x, 1), (V,)),
    "diag of a vector, offset -2": (lambda L, x: x.diag(-2), (V,)),
    "diag of a matrix": (lambda L, x: L.diag(x), (A,)),
    "diag of a matrix, offset -1": (lambda L, x: L.diag(x, -1), (A,)),
    "diag of a matrix, offset 2": (lambda L, x: x.diag(2), (A,)),
    "diag_embed": (lambda L, x: L.diag_embed(x), (A,)),
    "diag_embed offset 1, dims 0 2": (lambda L, x: L.diag_embed(x, 1, 0, 2), (A,)),
    "diag_embed negative dims": (lambda L, x: x.diag_embed(-1, -1, 0), (P,)),
    "cumprod": (lambda L, x: L.cumprod(x, 1), (A,)),
    "cumprod negative dim": (lambda L, x: x.cumprod(-2), (P,)),
    "cumprod with zeros": (lambda L, x: L.cumprod(x, -1), (Z,)),
    "cumprod with zeros, dim 0": (lambda L, x: L.cumprod(x, 0), (Z,)),
    "cumprod with two zeros in a row": (lambda L, x: L.cumprod(x, 1), (Z2,)),
    "cumprod of a 0-dim tensor": (lambda L, x: L.cumprod(x, 0), (np.array(1.5),)),
    "cumprod of one element": (lambda L, x: L.cumprod(x, 0), (V[:1],)),
    "logcumsumexp": (lambda L, x: L.logcumsumexp(x, 1), (A,)),
    "logcumsumexp of large values": (lambda L, x: x.logcumsumexp(-2), (A * 40,)),
    "diff": (lambda L, x: L.diff(x), (A,)),
    "diff n=2 dim 0": (lambda L, x: L.diff(x, 2, 0), (A,)),
    "diff n larger than the dim": (lambda L, x: x.diff(9), (A,)),
    "diff with prepend and append": (lambda L, x, p, q: L.diff(x, 1, -1, p, q), (A, A[:, :2], A[:, :1])),
    "diff with append only": (lambda L, x, q: L.diff(x, dim=0, append=q), (A, A[:1])),
    "rot90": (lambda L, x: L.rot90(x), (P,)),
    "rot90 k=5 negative dims": (lambda L, x: L.rot90(x, 5, [-1, 0]), (P,)),
    "rot90 k=-2": (lambda L, x: x.rot90(-2, [2, 1]), (P,)),
    "rot90 k=3": (lambda L, x: L.rot90(x, 3), (A,)),
    "rot90 k=0": (lambda L, x: L.rot90(x, 0), (A,)),
    "fliplr": (lambda L, x: L.fliplr(x), (P,)),
    "flipud": (lambda L, x: x.flipud(), (V,)),
    "repeat_interleave int": (lambda L, x: L.repeat_interleave(x, 2), (A,)),
    "repeat_interleave int, dim -1": (lambda L, x: x.repeat_interleave(3, -1), (A,)),
    "repeat_interleave int of a vector": (lambda L, x: L.repeat_interleave(x, 2, 0), (V,)),
    "repeat_interleave int of a 0-dim tensor": (lambda L, x: L.repeat_interleave(x, 2), (np.array(1.5),)),
    "repeat_interleave zero times": (lambda L, x: L.repeat_interleave(x, 0, 1), (A,)),
    "repeat_interleave tensor": (lambda L, x: L.repeat_interleave(x, L.tensor([1, 0, 2]), 0), (A,)),
    "repeat_interleave 0-dim tensor, no dim": (lambda L, x: x.repeat_interleave(L.tensor(2)), (A,)),
    "repeat_interleave one-element tensor": (lambda L, x: L.repeat_interleave(x, L.tensor([2]), dim=-1), (A,)),
    "take_along_dim": (lambda L, x: L.take_along_dim(x, L.tensor([[0], [1], [2]]), dim=1), (A,)),
    "take_along_dim broadcasting indices": (lambda L, x: x.take_along_dim(L.tensor([[0, 1]]), dim=-1), (A,)),
    "take_along_dim broadcasting input": (lambda L, x: L.take_along_dim(x, L.tensor([[0], [0], [0]]), dim=0),
                                          (V[None, :2],)),
    "take_along_dim without dim": (lambda L, x: L.take_along_dim(x, L.tensor([0, 5, 5])), (A,)),
    "tensordot dims=0": (lambda L, x, y: L.tensordot(x, y, 0), (P[:, :2, :2], Q[:2])),
    "tensordot dims=1": (lambda L, x, y: L.tensordot(x, y, 1), (P, Q)),
    "tensordot lists": (lambda L, x, y: L.tensordot(x, y, ([1, 2], [1, 0])), (P, Q)),
    "tensordot lists reordered": (lambda L, x, y: L.tensordot(x, y, ([2, 1], [0, 1])), (P, Q)),
    "tensordot to a vector": (lambda L, x, y: L.tensordot(x, y, ([0, 1], [1, 0])), (C, Q)),
    "tensordot strided viewable side": (lambda L, x, y: L.tensordot(x, y, ([0, 1], [1, 0])), (Q, C)),
    "tensordot size-1 contracted dim": (lambda L, x, y: L.tensordot(x, y, ([1], [0])),
                                        (RNG.standard_normal((2, 1)), RNG.standard_normal((3, 2)))),
    "tensordot negative dims": (lambda L, x, y: L.tensordot(x, y, ([-1], [-3])), (P, Q)),
    "tensordot to a number": (lambda L, x, y: L.tensordot(x, y, 2), (C, C)),
    "tensordot of a 0-dim tensor": (lambda L, x, y: L.tensordot(x, y, 0), (np.array(2.0), Q)),
    "kron": (lambda L, x, y: L.kron(x, y), (A, V)),
    "Tensor.kron of different ranks": (lambda L, x, y: x.kron(y), (V[:2], P)),
    "kron with a 0-dim tensor": (lambda L, x, y: L.kron(x, y), (np.array(2.0), V)),
    "meshgrid ij": (lambda L, x, y: L.stack(L.meshgrid(x, y, indexing="ij")), (V, V[:3])),
    "meshgrid xy of three": (lambda L, x, y, z: L.stack(L.meshgrid(x, y, z, indexing="xy")), (V, V[:3], V[:2])),
    "meshgrid of a list, with a 0-dim tensor": (lambda L, x, y: L.stack(L.meshgrid([x, y], indexing="xy")),
                                                (np.array(2.0), V[:3])),
    "meshgrid xy second output": (lambda L, x, y: L.meshgrid(x, y, indexing="xy")[1], (V, V[:3])),
}

# saved values leafgrad's existing mm and gather do not expose (not recorded by these functions themselves)
_NOT_EXPOSED = {"MmBackward0": {"_saved_self_sym_sizes", "_saved_self_sym_strides", "_saved_mat2_sym_sizes",
                                "_saved_mat2_sym_strides"},
                "GatherBackward0": {"_saved_sparse_grad"}}


def _graph(fn) -> list:
    """Every node reachable from ``fn``, breadth first, as (name, saved names)."""
    out, seen, queue = [], set(), [fn]
    while queue:
        f = queue.pop(0)
        if f is None or id(f) in seen or "AccumulateGrad" in f.name():
            continue
        seen.add(id(f))
        skip = _NOT_EXPOSED.get(f.name(), set())
        out.append((f.name(), sorted(a for a in dir(f) if a.startswith("_saved_") and a != "_saved_names"
                                     and a not in skip)))
        queue.extend(n for n, _ in f.next_functions)
    return out


def _run(lib, name, dtype):
    fn, datas = CASES[name]
    ts = [lib.tensor(d.astype(dtype), requires_grad=True) for d in datas]
    out = fn(lib, *ts)
    w = lib.tensor((np.arange(out.numel(), dtype=dtype).reshape(tuple(out.shape)) + 1) * 0.3)
    grads = lib.autograd.grad((out * out * w).sum(), ts, create_graph=True, allow_unused=True)
    used = [g for g in grads if g is not None]
    total = sum((g * g).sum() for g in used)
    second = lib.autograd.grad(total, ts, allow_unused=True) if total.requires_grad else (None,) * len(ts)
    return out, grads, second


def _close(a, b, dtype):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    (t_out, t_g, t_g2), (l_out, l_g, l_g2) = (_run(lib, name, dtype) for lib in (torch, lg))
    assert str(l_out.dtype) == str(t_out.dtype) and tuple(l_out.shape) == tuple(t_out.shape)
    assert _graph(l_out.grad_fn) == _graph(t_out.grad_fn)
    _close(l_out.detach().numpy(), t_out.detach().numpy(), dtype)
    for a, b in zip(l_g, t_g):
        assert (a is None) == (b is None)
        if b is not None:
            _close(a.detach().numpy(), b.detach().numpy(), dtype)
    for a, b in zip(l_g2, t_g2):  # (None and all-zero are the same answer: a gradient linear in the input)
        a = np.zeros(1) if a is None else a.numpy()
        b = np.zeros(1) if b is None else b.numpy()
        _close(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)), b, dtype)


INT_CASES = {
    "trace": lambda L, x: L.trace(x),
    "diag": lambda L, x: L.diag(x, 1),
    "diag_embed": lambda L, x: L.diag_embed(x),
    "cumprod": lambda L, x: L.cumprod(x, 1),
    "cumprod to float": lambda L, x: L.cumprod(x, 0, dtype=L.float64),
    "diff": lambda L, x: L.diff(x, 2),
    "diff of bool": lambda L, x: L.diff(x > 4),
    "rot90": lambda L, x: L.rot90(x),
    "fliplr": lambda L, x: L.fliplr(x),
    "repeat_interleave": lambda L, x: L.repeat_interleave(x, L.tensor([2, 0, 1]), 0),
    "take_along_dim": lambda L, x: L.take_along_dim(x, L.tensor([[3], [0], [1]]), 1),
    "tensordot": lambda L, x: L.tensordot(x, x, ([0], [0])),
    "kron": lambda L, x: L.kron(x, x[:2, :2]),
    "kron of int and float": lambda L, x: L.kron(x, L.ones(2)),
    "meshgrid": lambda L, x: L.meshgrid(x[0], x[1], indexing="ij")[0],
    "trace of int32": lambda L, x: L.trace(x.to(L.int32)),
    "cumprod of int32": lambda L, x: L.cumprod(x.to(L.int32), 0),
}


@pytest.mark.parametrize("name", sorted(INT_CASES))
def test_integers_match_torch(name):
    data = np.arange(12, dtype=np.int64).reshape(3, 4) - 3
    t, l = (INT_CASES[name](lib, lib.tensor(data)) for lib in (torch, lg))
    assert str(l.dtype) == str(t.dtype) and l.tolist() == t.tolist()


EMPTY_CASES = {
    "trace of 0x0": lambda L: L.trace(L.ones(0, 0)),
    "trace of 0x3": lambda L: L.trace(L.ones(0, 3)),
    "diag of an empty vector": lambda L: L.diag(L.ones(0), 1),
    "diag of an empty matrix": lambda L: L.diag(L.ones(0, 3)),
    "diag offset past the matrix": lambda L: L.diag(L.ones(2, 3), 5),
    "cumprod of empty": lambda L: L.cumprod(L.ones(0, 3), 0),
    "logcumsumexp of a 0-dim tensor": lambda L: L.logcumsumexp(L.tensor(2.0), 0),
    "logcumsumexp of empty": lambda L: L.logcumsumexp(L.ones(2, 0), 1),
    "diff of empty": lambda L: L.diff(L.ones(0)),
    "diff n=0": lambda L: L.diff(L.ones(3, 2), n=0),
    "rot90 of empty": lambda L: L.rot90(L.ones(0, 3)),
    "repeat_interleave of empty": lambda L: L.repeat_interleave(L.ones(0, 2), 3, 0),
    "repeat_interleave of repeats alone": lambda L: L.repeat_interleave(L.tensor([1, 2, 0, 3])),
    "kron of empty": lambda L: L.kron(L.ones(0, 2), L.ones(2, 2)),
    "meshgrid of empty": lambda L: L.meshgrid(L.ones(0), L.ones(2), indexing="ij")[1],
}


@pytest.mark.parametrize("name", sorted(EMPTY_CASES))
def test_edge_inputs_match_torch(name):
    t, l = (EMPTY_CASES[name](lib) for lib in (torch, lg))
    assert str(l.dtype) == str(t.dtype) and tuple(l.shape) == tuple(t.shape) and l.tolist() == t.tolist()


ERRORS = {
    "trace of a vector": (RuntimeError, lambda L: L.trace(L.ones(3))),
    "diag of 3-d": (RuntimeError, lambda L: L.diag(L.ones(2, 2, 2))),
    "diag_embed same dims": (RuntimeError, lambda L: L.diag_embed(L.ones(2, 2), 0, 1, -2)),
    "cumprod dim out of range": (IndexError, lambda L: L.cumprod(L.ones(2, 2), 2)),
    "logcumsumexp of integers": (NotImplementedError, lambda L: L.logcumsumexp(L.ones(3, dtype=L.int64), 0)),
    "diff of a 0-dim tensor": (RuntimeError, lambda L: L.diff(L.tensor(1.0))),
    "diff negative n": (RuntimeError, lambda L: L.diff(L.ones(3), n=-1)),
    "diff prepend of another rank": (RuntimeError, lambda L: L.diff(L.ones(3, 4), prepend=L.ones(3))),
    "diff prepend of another shape": (RuntimeError, lambda L: L.diff(L.ones(3, 4), dim=1, prepend=L.ones(1, 4))),
    "diff dim out of range": (IndexError, lambda L: L.diff(L.ones(3, 4), dim=2)),
    "rot90 one dim": (RuntimeError, lambda L: L.rot90(L.ones(3, 4), 1, [0])),
    "rot90 of a vector": (RuntimeError, lambda L: L.rot90(L.ones(3))),
    "rot90 same dims": (RuntimeError, lambda L: L.rot90(L.ones(3, 4), 1, [0, -2])),
    "rot90 dim out of range": (IndexError, lambda L: L.rot90(L.ones(3, 4), 1, [0, 3])),
    "fliplr of a vector": (RuntimeError, lambda L: L.fliplr(L.ones(3))),
    "flipud of a 0-dim tensor": (RuntimeError, lambda L: L.flipud(L.tensor(1.0))),
    "repeat_interleave negative": (RuntimeError, lambda L: L.repeat_interleave(L.ones(3), -1)),
    "repeat_interleave negative tensor": (RuntimeError,
                                          lambda L: L.repeat_interleave(L.ones(3, 2), L.tensor([1, -1, 1]), 0)),
    "repeat_interleave 2-d repeats": (RuntimeError, lambda L: L.repeat_interleave(L.ones(3), L.tensor([[1]]), 0)),
    "repeat_interleave wrong length": (RuntimeError, lambda L: L.repeat_interleave(L.ones(3), L.tensor([1, 2]), 0)),
    "repeat_interleave float repeats": (NotImplementedError,
                                        lambda L: L.repeat_interleave(L.ones(3), L.tensor([1.0, 2.0, 1.0]), 0)),
    "repeat_interleave wrong output_size": (RuntimeError, lambda L: L.repeat_interleave(
        L.ones(2), L.tensor([1, 2]), 0, output_size=5)),
    "repeat_interleave int, wrong output_size": (RuntimeError, lambda L: L.repeat_interleave(
        L.ones(2), 2, 0, output_size=5)),
    "take_along_dim other rank": (RuntimeError, lambda L: L.take_along_dim(L.ones(3, 4), L.tensor([0]), 0)),
    "take_along_dim int32 indices": (RuntimeError, lambda L: L.take_along_dim(
        L.ones(3, 4), L.tensor([[0]], dtype=L.int32), 0)),
    "take_along_dim shapes that do not broadcast": (RuntimeError, lambda L: L.take_along_dim(
        L.ones(3, 4), L.tensor([[1], [1]]), 1)),
    "take_along_dim of a 0-dim tensor": (IndexError, lambda L: L.take_along_dim(L.tensor(2.0), L.tensor(0), 0)),
    "tensordot sizes differ": (RuntimeError, lambda L: L.tensordot(L.ones(2, 3), L.ones(5, 2), ([1], [0]))),
    "tensordot sizes differ, int dims": (RuntimeError, lambda L: L.tensordot(L.ones(2, 3), L.ones(2, 3), 1)),
    "tensordot lists of different lengths": (RuntimeError, lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2),
                                                                                 ([1], [0, 1]))),
    "tensordot different dtypes": (RuntimeError, lambda L: L.tensordot(L.ones(2), L.ones(2, dtype=L.float64), 1)),
    "tensordot negative dims": (RuntimeError, lambda L: L.tensordot(L.ones(2), L.ones(2), -1)),
    "tensordot too many dims": (RuntimeError, lambda L: L.tensordot(L.ones(2), L.ones(2), 2)),
    "meshgrid of nothing": (RuntimeError, lambda L: L.meshgrid(indexing="ij")),
    "meshgrid of a matrix": (RuntimeError, lambda L: L.meshgrid(L.ones(2), L.ones(2, 2), indexing="ij")),
    "meshgrid bad indexing": (RuntimeError, lambda L: L.meshgrid(L.ones(2), indexing="foo")),
    "meshgrid different dtypes": (RuntimeError, lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64),
                                                                     indexing="ij")),
    "tril_indices negative row": (RuntimeError, lambda L: L.tril_indices(-1, 2)),
    "triu_indices negative col": (RuntimeError, lambda L: L.triu_indices(2, -1)),
    "triu_indices float": (NotImplementedError, lambda L: L.triu_indices(3, 3, dtype=L.float32)),
    "tril_indices int8": (NotImplementedError, lambda L: L.tril_indices(3, 3, dtype=L.int8)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    kind, fn = ERRORS[name]
    with pytest.raises(kind) as t_info:
        fn(torch)
    with pytest.raises(kind) as l_info:
        fn(lg)
    opening = str(t_info.value).split(":")[0] if "meshgrid: Expected" in str(t_info.value) else \
        str(t_info.value).split("\n")[0]
    assert str(l_info.value).startswith(opening.split(". ")[0].rstrip("."))


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("args", [(3, 4, 0), (4, 3, -1), (3, 3, 2), (0, 3, 0), (3, 0, 0), (5, 2, -7), (2, 5, 9)])
@pytest.mark.parametrize("dtype", [None, "int32"])
def test_triangle_indices_match_torch(fn, args, dtype):
    t, l = (getattr(lib, fn)(*args, **({} if dtype is None else {"dtype": getattr(lib, dtype)}))
            for lib in (torch, lg))
    assert str(l.dtype) == str(t.dtype) and tuple(l.shape) == tuple(t.shape) and l.tolist() == t.tolist()


def test_meshgrid_without_indexing_warns_as_torch():
    caught = {}
    for lib in (torch, lg):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = lib.meshgrid(lib.ones(2), lib.ones(3))
        caught[lib] = [str(x.message) for x in w if issubclass(x.category, UserWarning)]
        assert tuple(out[0].shape) == (2, 3)
    assert len(caught[lg]) == 1 and caught[torch][0].startswith(caught[lg][0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lg.meshgrid(lg.ones(2), lg.ones(3), indexing="xy")


@pytest.mark.parametrize("k, dims", [(1, [0, 1]), (5, [-1, 0]), (-2, (2, 1)), (3, (-3, -1))])
def test_rot90_saved_values_match_torch(k, dims):
    t, l = (lib.rot90(lib.ones(2, 3, 4, requires_grad=True), k, dims).grad_fn for lib in (torch, lg))
    assert tuple(l._saved_dims) == tuple(t._saved_dims) and l._saved_k == t._saved_k


@pytest.mark.parametrize("make", [lambda L: L.diag(L.ones(3, 4, requires_grad=True), -1),
                                  lambda L: L.diag_embed(L.ones(3, 4, requires_grad=True), 1, 0, -1),
                                  lambda L: L.diag_embed(L.ones(3, 4, requires_grad=True), -2, -3, 1),
                                  lambda L: L.diag(L.ones(3, requires_grad=True), 2),
                                  lambda L: L.cumprod(L.ones(3, 4, requires_grad=True), -1),
                                  lambda L: L.logcumsumexp(L.ones(3, 4, requires_grad=True), -2)],
                         ids=["diag", "diag_embed", "diag_embed negative", "diag of a vector", "cumprod",
                              "logcumsumexp"])
def test_saved_numbers_match_torch(make):
    t, l = (make(lib).grad_fn for lib in (torch, lg))
    for attr in dir(t):
        if attr.startswith("_saved_") and not isinstance(getattr(t, attr), torch.Tensor):
            assert tuple(np.atleast_1d(getattr(l, attr))) == tuple(np.atleast_1d(getattr(t, attr))), attr


def test_cumprod_backward_needs_no_graph_for_first_order():
    """A zero in the input: the plain backward (no create_graph) gives torch's exact values too."""
    res = []
    for lib in (torch, lg):
        x = lib.tensor(Z2, requires_grad=True)
        (lib.cumprod(x, 1) * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        res.append(x.grad.numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-12)
