"""cosine_similarity, pairwise_distance, kl_div, margin_ranking_loss, hinge_embedding_loss,
soft_margin_loss and cosine_embedding_loss against torch, for every reduction and option:
values (zeros, overflow, inf and nan among the inputs), dtypes, the whole recorded grad_fn
graph with each node's saved names (torch composes most of these in C++, with in-place
steps), first- and second-order gradients, the modules (outputs, reprs) and bad arguments.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import torch.nn.functional as TF  # noqa: E402

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
import leafgrad.nn.functional as F  # noqa: E402
from nn_testutil import SECOND_ORDER_TOL, same_error, same_graph, same_values, saved_names  # noqa: E402

DTYPES = ["float64", "float32"]
REDUCTIONS = ["mean", "sum", "none"]
INF, NAN = float("inf"), float("nan")
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6))
Y = RNG.standard_normal((4, 6))
P = RNG.dirichlet(np.ones(6), 4)  # probabilities
SIGNS = np.sign(RNG.standard_normal((4, 6)))
T4 = np.array([1.0, -1.0, 1.0, -1.0])


def _lib(mod):
    return lg if mod is F else torch


def check(fn, diff, consts=(), dtype="float64", second_order=True, saved_numbers=False, tol=None):
    """``fn(F, *diff, *consts)`` for both libraries (``diff`` require grad): values and dtype, the
    graph, first-order gradients of a random cotangent and, with create_graph, the gradients of
    <first-order gradients, random v> with respect to the inputs."""
    lg_in = [lg.tensor(np.asarray(a).astype(dtype), requires_grad=True) for a in diff]
    t_in = [torch.tensor(np.asarray(a).astype(dtype), requires_grad=True) for a in diff]
    lg_c = [lg.tensor(np.asarray(c).astype(dtype) if np.asarray(c).dtype.kind == "f" else np.asarray(c))
            for c in consts]
    t_c = [torch.tensor(np.asarray(c).astype(dtype) if np.asarray(c).dtype.kind == "f" else np.asarray(c))
           for c in consts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_l, out_t = fn(F, *lg_in, *lg_c), fn(TF, *t_in, *t_c)
    same_values(out_l, out_t, dtype, signs=True)
    if out_t.grad_fn is None:
        assert out_l.grad_fn is None
        return out_l
    same_graph(out_l, out_t)
    if saved_numbers:
        _same_saved_numbers(out_l.grad_fn, out_t.grad_fn)
    w = RNG.standard_normal(tuple(out_t.shape)).astype(dtype)
    broadcast = len({np.shape(a) for a in diff}) > 1  # (a broadcast input's gradient ends with a reduction)
    gl = lg.autograd.grad(out_l, lg_in, lg.tensor(w), create_graph=True, allow_unused=True)
    gt = torch.autograd.grad(out_t, t_in, torch.tensor(w), create_graph=True, allow_unused=True)
    for a, b in zip(gl, gt):
        assert (a is None) == (b is None)
        if b is not None:
            same_values(a, b, dtype, tol)
            if saved_numbers and b.grad_fn is not None and not broadcast:  # (a native op's backward node, as torch's)
                assert saved_names(a.grad_fn)[0] == saved_names(b.grad_fn)[0]
    if not second_order:
        return out_l
    pairs = [(a, b) for a, b in zip(gl, gt) if b is not None and b.requires_grad]
    if not pairs:
        return out_l
    vs = [RNG.standard_normal(tuple(b.shape)).astype(dtype) for _, b in pairs]
    ggl = lg.autograd.grad(sum((a * lg.tensor(v)).sum() for (a, _), v in zip(pairs, vs)), lg_in, allow_unused=True)
    ggt = torch.autograd.grad(sum((b * torch.tensor(v)).sum() for (_, b), v in zip(pairs, vs)), t_in,
                              allow_unused=True)
    for a, b in zip(ggl, ggt):
        if b is None:
            assert a is None or not np.asarray(a.numpy()).any()
        else:
            same_values(a, b + 0, dtype, SECOND_ORDER_TOL)  # (+ 0: torch may answer a ZeroTensor)
    return out_l


def _same_saved_numbers(fn_l, fn_t) -> None:
    """The non-tensor values a node saves (p, dim, keepdim, reduction, ...), as torch shows them."""
    for name in dir(fn_t):
        if name.startswith("_saved_"):
            vt = getattr(fn_t, name)
            if not isinstance(vt, torch.Tensor) and vt is not None:
                vl = getattr(fn_l, name)
                assert vl == vt and type(vl) is type(vt), (name, vl, vt)


# ----------------------------------------------------------------------------- cosine similarity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes, kwargs", [
    (((4, 6), (4, 6)), {}), (((4, 6), (4, 6)), {"dim": 0}), (((4, 6), (4, 6)), {"dim": -1}),
    (((4, 6), (6,)), {}), (((2, 1, 6), (3, 6)), {"dim": -1}), (((5,), (5,)), {"dim": 0}), (((), ()), {"dim": 0}),
    (((), ()), {"dim": -1}), (((4, 6), (4, 6)), {"eps": 5.0}), (((3, 0), (3, 0)), {}),
])
def test_cosine_similarity(shapes, kwargs, dtype):
    a, b = (RNG.standard_normal(s) for s in shapes)
    check(lambda F, x, y: F.cosine_similarity(x, y, **kwargs), [a, b], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cosine_similarity_zero_and_tiny_vectors_use_the_eps_clamp(dtype):
    a, b = X.copy(), Y.copy()
    a[0] = 0.0
    b[1] = 1e-10
    a[2, 0] = INF
    check(lambda F, x, y: F.cosine_similarity(x, y), [a, b], dtype=dtype)


def test_cosine_similarity_mixed_dtypes_and_integers():
    x32, x64 = X.astype(np.float32), Y.astype(np.float64)
    out_l = F.cosine_similarity(lg.tensor(x32), lg.tensor(x64))
    out_t = TF.cosine_similarity(torch.tensor(x32), torch.tensor(x64))
    same_values(out_l, out_t, "float32")  # (a float64 result computed partly in float32)
    ints = np.arange(12).reshape(3, 4)
    same_values(F.cosine_similarity(lg.tensor(ints), lg.tensor(X[:3, :4])),
                TF.cosine_similarity(torch.tensor(ints), torch.tensor(X[:3, :4])), "float64")


# ----------------------------------------------------------------------------- pairwise distance
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, INF, -INF, 0.0, -1.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_norms(p, keepdim, dtype):
    check(lambda F, x, y: F.pairwise_distance(x, y, p, keepdim=keepdim), [X, Y], dtype=dtype, saved_numbers=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((4, 6), (6,)), ((2, 3, 4), (3, 4)), ((5,), (5,)), ((), ()), ((), (3,)),
                                    ((0, 3), (0, 3)), ((3, 0), (3, 0))])
def test_pairwise_distance_shapes(shapes, dtype):
    a, b = (RNG.standard_normal(s) for s in shapes)
    check(lambda F, x, y: F.pairwise_distance(x, y), [a, b], dtype=dtype, saved_numbers=True)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, INF])
def test_pairwise_distance_of_equal_rows_without_eps(p):
    b = X.copy()
    b[0] = X[0]  # a zero difference: the gradient's 0 / 0 is masked
    b[1, :3] = X[1, :3]
    check(lambda F, x, y: F.pairwise_distance(x, y, p, eps=0.0), [X, b], saved_numbers=True)


def test_pairwise_distance_integers():
    a, b = np.arange(12).reshape(3, 4), np.ones((3, 4), dtype=np.int64)
    out_l, out_t = F.pairwise_distance(lg.tensor(a), lg.tensor(b)), TF.pairwise_distance(torch.tensor(a),
                                                                                        torch.tensor(b))
    same_values(out_l, out_t, "float32")


# ----------------------------------------------------------------------------- kl_div
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target, dtype):
    target = np.log(P) if log_target else P
    check(lambda F, x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target), [np.log(P[::-1]), target],
          dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_edge_targets(log_target, dtype):
    t = P.copy()
    t[0, :2] = 0.0  # xlogy(0, 0) is 0
    t[1, 0] = INF
    t[2, 0] = NAN
    x = np.log(P[::-1]).copy()
    x[3, 0] = -INF
    check(lambda F, x, t: F.kl_div(x, t, reduction="none", log_target=log_target), [x, t], dtype=dtype)


def test_kl_div_broadcasting_mixed_dtypes_and_scalars():
    check(lambda F, x, t: F.kl_div(x, t, reduction="sum"), [np.log(P), P[0]])
    check(lambda F, x, t: F.kl_div(x, t, reduction="batchmean"), [np.log(P[0]), P])
    check(lambda F, x, t: F.kl_div(x, t, reduction="batchmean"), [np.asarray(-0.5), np.asarray(0.3)])
    check(lambda F, x, t: F.kl_div(x, t, reduction="batchmean"), [np.zeros((0, 3)), np.zeros((0, 3))])
    out_l = F.kl_div(lg.tensor(X.astype(np.float32)), lg.tensor(P), reduction="none")
    out_t = TF.kl_div(torch.tensor(X.astype(np.float32)), torch.tensor(P), reduction="none")
    same_values(out_l, out_t, "float64")


def test_kl_div_warnings_and_legacy_flags():
    x, t = lg.tensor(np.log(P)), lg.tensor(P)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(x, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.kl_div(x, t, reduction="batchmean")  # (no warning)
    for kwargs in [{"size_average": False}, {"reduce": False}, {"reduce": True, "reduction": "batchmean"}]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out_l = F.kl_div(x, t, **kwargs)
            out_t = TF.kl_div(torch.tensor(np.log(P)), torch.tensor(P), **kwargs)
        same_values(out_l, out_t, "float64")


# ----------------------------------------------------------------------------- margin ranking
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0, 0.5, -1.0])
def test_margin_ranking_loss(reduction, margin, dtype):
    x1, x2 = X[:, 0].copy(), Y[:, 0].copy()
    x2[0] = x1[0]  # a tie: clamp_min's boundary
    check(lambda F, a, b, t: F.margin_ranking_loss(a, b, t, margin, reduction=reduction), [x1, x2, T4], dtype=dtype)


def test_margin_ranking_loss_constant_and_integer_targets():
    for target in (np.array([1.0, -1.0, 0.0, 1.0]), np.array([1, -1, 1, -1])):
        check(lambda F, a, b, t: F.margin_ranking_loss(a, b, t, 0.2), [X[:, 0], Y[:, 0]], [target])
    check(lambda F, a, b, t: F.margin_ranking_loss(a, b, t), [X, Y], [SIGNS])
    check(lambda F, a, b, t: F.margin_ranking_loss(a, b, t), [np.asarray(0.5), np.asarray(1.5)], [np.asarray(1.0)])


# ----------------------------------------------------------------------------- hinge embedding
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 0.0, 2.5])
def test_hinge_embedding_loss(reduction, margin, dtype):
    x = X.copy()
    x[0, 0] = margin  # at the margin exactly
    target = SIGNS.copy()
    target[1, :2] = [0.0, 2.0]  # neither 1 nor -1: both terms count
    check(lambda F, a, t: F.hinge_embedding_loss(a, t, margin, reduction=reduction), [x], [target], dtype=dtype)


def test_hinge_embedding_loss_broadcasting_and_integers():
    check(lambda F, a, t: F.hinge_embedding_loss(a, t), [X], [SIGNS[0]])
    check(lambda F, a, t: F.hinge_embedding_loss(a, t), [X[0]], [SIGNS])
    check(lambda F, a, t: F.hinge_embedding_loss(a, t, reduction="none"), [X, SIGNS])  # (a target needing grad)
    ints, signs = np.arange(-3, 3), np.array([1, -1, 1, -1, 1, -1])
    out_l = F.hinge_embedding_loss(lg.tensor(ints), lg.tensor(signs), reduction="sum")
    out_t = TF.hinge_embedding_loss(torch.tensor(ints), torch.tensor(signs), reduction="sum")
    assert out_l.item() == out_t.item() and out_l.dtype.name == "int64"


# ----------------------------------------------------------------------------- soft margin
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction, dtype):
    x = X * 3
    x[0, :3] = [100.0, -100.0, 0.0]  # exp(100) overflows float32: inf loss, nan gradient, as torch
    check(lambda F, a, t: F.soft_margin_loss(a, t, reduction=reduction), [x], [SIGNS], dtype=dtype,
          saved_numbers=True)


def test_soft_margin_loss_targets_and_dtypes():
    check(lambda F, a, t: F.soft_margin_loss(a, t), [X], [SIGNS[0]])  # a broadcast target
    check(lambda F, a, t: F.soft_margin_loss(a, t), [np.asarray(0.7)], [np.asarray(-1.0)])
    check(lambda F, a, t: F.soft_margin_loss(a, t), [np.zeros(0)], [np.zeros(0)])
    for target in (SIGNS.astype(np.int64), SIGNS):  # (an int64 target; a float64 one for a float32 input)
        out_l = F.soft_margin_loss(lg.tensor(X.astype(np.float32)), lg.tensor(target))
        out_t = TF.soft_margin_loss(torch.tensor(X.astype(np.float32)), torch.tensor(target))
        same_values(out_l, out_t, "float32")


# ----------------------------------------------------------------------------- cosine embedding
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0, 0.3, -0.5])
def test_cosine_embedding_loss(reduction, margin, dtype):
    b = Y.copy()
    b[2] = X[2] * 2.0  # cos = 1 exactly
    target = np.array([1.0, -1.0, -1.0, 0.0])  # (a 0 counts neither way)
    check(lambda F, x, y, t: F.cosine_embedding_loss(x, y, t, margin, reduction=reduction), [X, b], [target],
          dtype=dtype)


def test_cosine_embedding_loss_vectors_zeros_and_integers():
    check(lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [X[0], Y[0]], [np.asarray(-1.0)])
    a = X.copy()
    a[1] = 0.0  # a zero vector: EPSILON keeps the cosine finite (its gradient ~1e6: a looser rtol)
    check(lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [a, Y], [T4], tol={"float64": dict(rtol=1e-7)})
    check(lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [X, Y, T4], second_order=False)
    ints = np.arange(24).reshape(4, 6)
    out_l = F.cosine_embedding_loss(lg.tensor(ints), lg.tensor(ints[::-1].copy()), lg.tensor(T4))
    out_t = TF.cosine_embedding_loss(torch.tensor(ints), torch.tensor(ints[::-1].copy()), torch.tensor(T4))
    same_values(out_l, out_t, "float32")


# ----------------------------------------------------------------------------- modules
LOSS_MODULES = [  # (class name, kwargs, arrays the module is called with, which of them need grad)
    ("KLDivLoss", {}, [np.log(P), P], 2),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [np.log(P), np.log(P[::-1])], 2),
    ("KLDivLoss", {"size_average": False}, [np.log(P), P], 2),
    ("MarginRankingLoss", {}, [X[:, 0], Y[:, 0], T4], 2),
    ("MarginRankingLoss", {"margin": 0.5, "reduction": "sum"}, [X[:, 0], Y[:, 0], T4], 2),
    ("HingeEmbeddingLoss", {}, [X, SIGNS], 1),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "none"}, [X, SIGNS], 1),
    ("SoftMarginLoss", {}, [X, SIGNS], 1),
    ("SoftMarginLoss", {"reduction": "sum"}, [X, SIGNS], 1),
    ("CosineEmbeddingLoss", {}, [X, Y, T4], 2),
    ("CosineEmbeddingLoss", {"margin": 0.25, "reduce": False}, [X, Y, T4], 2),
    ("CosineSimilarity", {}, [X, Y], 2),
    ("CosineSimilarity", {"dim": 0, "eps": 1e-3}, [X, Y], 2),
    ("PairwiseDistance", {}, [X, Y], 2),
    ("PairwiseDistance", {"p": 1.0, "eps": 0.0, "keepdim": True}, [X, Y], 2),
]


@pytest.mark.parametrize("case", LOSS_MODULES, ids=lambda c: f"{c[0]}{c[1]}")
def test_loss_modules_match_torch(case):
    name, kwargs, arrays, n_diff = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, tm = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict()) == []
    for attr in ("reduction", "margin", "log_target", "dim", "eps", "norm", "keepdim"):
        assert getattr(m, attr, None) == getattr(tm, attr, None), attr
    check(lambda F, *xs: (m if F is globals()["F"] else tm)(*xs), arrays[:n_diff], arrays[n_diff:])


# ----------------------------------------------------------------------------- bad arguments
BAD_CALLS = [
    lambda F, T: F.cosine_similarity(T.zeros(3, 4), T.zeros(3, 5)),
    lambda F, T: F.cosine_similarity(T.zeros(3, 4), T.zeros(3, 4), dim=2),
    lambda F, T: F.cosine_similarity(T.ones(4), T.ones(4)),
    lambda F, T: F.cosine_similarity(T.tensor(1.0), T.tensor(2.0), dim=1),
    lambda F, T: F.cosine_similarity(T.ones(3, 4, dtype=T.int64), T.ones(3, 4, dtype=T.int64)),
    lambda F, T: F.pairwise_distance(T.zeros(3, 4), T.zeros(3, 5)),
    lambda F, T: F.kl_div(T.zeros(3), T.zeros(3), reduction="avg"),
    lambda F, T: F.kl_div(T.zeros(3, dtype=T.int64), T.zeros(3)),
    lambda F, T: F.kl_div(T.zeros(3), T.zeros(3, dtype=T.int64)),
    lambda F, T: F.kl_div(T.zeros(3), T.zeros(3, dtype=T.bool)),
    lambda F, T: F.kl_div(T.zeros(3, 4), T.zeros(3, 5)),
    lambda F, T: F.kl_div(T.zeros(3, 4), T.zeros(3, 5), log_target=True),
    lambda F, T: F.margin_ranking_loss(T.zeros(3), T.zeros(3, 1), T.zeros(3)),
    lambda F, T: F.margin_ranking_loss(T.zeros(3), T.zeros(4), T.zeros(3)),
    lambda F, T: F.margin_ranking_loss(T.zeros(3), T.zeros(3), T.zeros(3), reduction="x"),
    lambda F, T: F.margin_ranking_loss(T.zeros(3), T.zeros(3), T.zeros(3, dtype=T.bool)),
    lambda F, T: F.hinge_embedding_loss(T.zeros(3), T.zeros(4)),
    lambda F, T: F.hinge_embedding_loss(T.zeros(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    lambda F, T: F.hinge_embedding_loss(T.zeros(3), T.zeros(3), reduction="avg"),
    lambda F, T: F.soft_margin_loss(T.zeros(3), T.zeros(4)),
    lambda F, T: F.soft_margin_loss(T.zeros(4), T.zeros(3, 4)),
    lambda F, T: F.soft_margin_loss(T.zeros(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    lambda F, T: F.soft_margin_loss(T.zeros(3), T.zeros(3, requires_grad=True)),
    lambda F, T: F.soft_margin_loss(T.zeros(3), T.zeros(3), reduction="elementwise"),
    lambda F, T: F.cosine_embedding_loss(T.zeros(3, 4), T.zeros(3, 4), T.zeros(3, 1)),
    lambda F, T: F.cosine_embedding_loss(T.zeros(4), T.zeros(4), T.zeros(3)),
    lambda F, T: F.cosine_embedding_loss(T.zeros(3, 4), T.zeros(3, 4), T.tensor(1.0)),
    lambda F, T: F.cosine_embedding_loss(T.ones(3, 4), T.ones(3, 5), T.ones(3)),
    lambda F, T: F.cosine_embedding_loss(T.ones(3, 4), T.ones(3, 4), T.ones(2)),
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_arguments_raise_like_torch(call):
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


def test_soft_margin_target_may_require_grad_without_grad_mode():
    t = lg.zeros(3, requires_grad=True)
    with lg.no_grad():
        F.soft_margin_loss(lg.zeros(3), t)
    with torch.no_grad():
        TF.soft_margin_loss(torch.zeros(3), torch.zeros(3, requires_grad=True))
