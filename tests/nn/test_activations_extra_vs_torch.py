"""selu, celu, elu, mish, softsign, hardsigmoid, hardswish, tanhshrink, softshrink, hardshrink,
threshold, glu and softmin against torch: values at the edges (0, the thresholds exactly, +-inf,
nan), dtypes, the whole recorded grad_fn graph with each node's saved names, first- and
second-order gradients, the in-place variants, the modules (outputs and reprs) and bad arguments.

Edge values sit in tensors of 64 elements: torch's CPU kernels run those wholly in their
vectorised loop, which for a NaN input gives another gradient than their scalar tail.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import torch.nn.functional as TF  # noqa: E402

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
import leafgrad.nn.functional as F  # noqa: E402
from nn_testutil import SECOND_ORDER_TOL, np_of, same_error, same_graph, same_values, saved_names  # noqa: E402

DTYPES = ["float64", "float32"]
INF, NAN = float("inf"), float("nan")
RNG = np.random.default_rng(0)


def _edges(*special) -> np.ndarray:
    """64 values: the given edge values, then random ones around them (a 64-element tensor
    is processed wholly by torch's vectorised loop)."""
    base = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, *special]
    rest = RNG.standard_normal(64 - len(base)) * 4
    return np.concatenate([base, rest])


# (id, function of the F module and the input, the input values)
ACTIVATIONS = [
    ("elu", lambda F, x: F.elu(x), _edges()),
    ("elu_alpha", lambda F, x: F.elu(x, 0.4), _edges(-30.0, 30.0)),
    ("selu", lambda F, x: F.selu(x), _edges(-30.0, 30.0)),
    ("celu", lambda F, x: F.celu(x), _edges()),
    ("celu_alpha", lambda F, x: F.celu(x, 0.7), _edges(-30.0, 30.0)),
    ("mish", lambda F, x: F.mish(x), _edges(-30.0, 30.0, 100.0, -100.0)),
    ("softsign", lambda F, x: F.softsign(x), _edges(1e20, -1e20)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x), _edges(3.0, -3.0, 2.999, -2.999)),
    ("hardswish", lambda F, x: F.hardswish(x), _edges(3.0, -3.0, 2.999, -2.999, 3.001)),
    ("tanhshrink", lambda F, x: F.tanhshrink(x), _edges(20.0, -20.0, 1e-4)),
    ("softshrink", lambda F, x: F.softshrink(x), _edges(0.5, -0.5, 0.25, -0.25)),
    ("softshrink_lambd", lambda F, x: F.softshrink(x, 1.5), _edges(1.5, -1.5)),
    ("softshrink_zero", lambda F, x: F.softshrink(x, 0.0), _edges()),
    ("hardshrink", lambda F, x: F.hardshrink(x), _edges(0.5, -0.5, 0.25, -0.25)),
    ("hardshrink_negative_lambd", lambda F, x: F.hardshrink(x, -0.5), _edges(0.5, -0.5)),
    ("threshold", lambda F, x: F.threshold(x, 0.5, -3.0), _edges(0.5, 0.4999)),
    ("threshold_to_inf", lambda F, x: F.threshold(x, -1.0, INF), _edges()),
    ("softmin", lambda F, x: F.softmin(x, 0), np.concatenate([[0.0, 1.0, -1.0, 30.0], RNG.standard_normal(12)])),
]


def _pair(arr: np.ndarray, dtype: str):
    a = lg.tensor(arr.astype(dtype), requires_grad=True)
    t = torch.tensor(arr.astype(dtype), requires_grad=True)
    return a, t


def _second_order(fn, arr: np.ndarray, dtype: str):
    """Forward, first-order grad with a random cotangent (create_graph), then the gradient of
    <grad, v> with respect to the input and to the cotangent, for both libraries."""
    a, t = _pair(arr, dtype)
    out_l, out_t = fn(F, a), fn(TF, t)
    w = RNG.standard_normal(tuple(out_t.shape)).astype(dtype)
    wl = lg.tensor(w, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    (gl,) = lg.autograd.grad(out_l, a, wl, create_graph=True)
    (gt,) = torch.autograd.grad(out_t, t, wt, create_graph=True)
    return out_l, out_t, (a, wl, gl), (t, wt, gt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ACTIVATIONS, ids=lambda c: c[0])
def test_values_graph_and_gradients_match_torch(case, dtype):
    _, fn, arr = case
    out_l, out_t, (a, wl, gl), (t, wt, gt) = _second_order(fn, arr, dtype)
    same_values(out_l, out_t, dtype, signs=True)
    same_graph(out_l, out_t)
    same_values(gl, gt, dtype)
    v = RNG.standard_normal(arr.shape).astype(dtype)
    if gt.grad_fn is not None and gt.grad_fn.name() == "torch::autograd::NotImplemented":
        assert gl.grad_fn.name() == "torch::autograd::NotImplemented"  # (hardsigmoid: torch has no 2nd derivative)
        same_error(lambda: lg.autograd.grad((gl * lg.tensor(v)).sum(), (a, wl)),
                          lambda: torch.autograd.grad((gt * torch.tensor(v)).sum(), (t, wt)))
        return
    ggl = lg.autograd.grad((gl * lg.tensor(v)).sum(), (a, wl), allow_unused=True)
    ggt = torch.autograd.grad((gt * torch.tensor(v)).sum(), (t, wt), allow_unused=True)
    for x, y in zip(ggl, ggt):
        if y is None:
            assert x is None
        else:
            same_values(x, y + 0, dtype, SECOND_ORDER_TOL)  # (+ 0: torch may answer a ZeroTensor)


NATIVE_SAVED = [  # ops torch records as one node: the numbers it saves, as it shows them, and its backward node
    ("elu", lambda F, x: F.elu(x, 0.5)),
    ("selu", lambda F, x: F.selu(x)),
    ("celu", lambda F, x: F.celu(x, 2)),
    ("softshrink", lambda F, x: F.softshrink(x, 1)),
    ("hardshrink", lambda F, x: F.hardshrink(x, 0.25)),
    ("threshold", lambda F, x: F.threshold(x, 1, 2.5)),
    ("glu_last", lambda F, x: F.glu(x)),
    ("glu_neg", lambda F, x: F.glu(x, -2)),
    ("glu_pos", lambda F, x: F.glu(x, 0)),
    ("hardswish", lambda F, x: F.hardswish(x)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x)),
    ("selu_inplace", lambda F, x: F.selu(x * 1, inplace=True)),
]


@pytest.mark.parametrize("case", NATIVE_SAVED, ids=lambda c: c[0])
def test_saved_numbers_and_backward_node_match_torch(case):
    _, fn = case
    arr = RNG.standard_normal((4, 6))
    out_l, out_t, (_, _, gl), (_, _, gt) = _second_order(fn, arr, "float64")
    for name in dir(out_t.grad_fn):
        if name.startswith("_saved_"):
            vt = getattr(out_t.grad_fn, name)
            if not isinstance(vt, torch.Tensor):
                vl = getattr(out_l.grad_fn, name)
                assert vl == vt and type(vl) is type(vt), (name, vl, vt)
    # the backward is itself an op, recorded under torch's name (EluBackwardBackward0, ...), saving what torch's does
    assert saved_names(gl.grad_fn)[0] == saved_names(gt.grad_fn)[0]


def test_saved_tensors_are_the_input():
    x = lg.tensor(RNG.standard_normal(5), requires_grad=True)
    for fn in (F.mish, F.hardswish, F.hardsigmoid, F.selu):
        assert fn(x).grad_fn._saved_self is x


@pytest.mark.parametrize("shape, dim", [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((6,), 0), ((0, 4), 1)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_glu_shapes_and_edges(shape, dim, dtype):
    arr = RNG.standard_normal(shape) * 3
    flat = arr.reshape(-1)
    flat[:4] = [INF, -INF, 0.0, NAN][:flat.size]
    case = lambda F, x: F.glu(x, dim)  # noqa: E731
    test_values_graph_and_gradients_match_torch(("glu", case, arr), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmin_dtype_and_implicit_dim(dtype):
    arr = RNG.standard_normal((3, 4))
    a, t = _pair(arr, dtype)
    out_l, out_t = F.softmin(a, 1, dtype=lg.float64), TF.softmin(t, 1, dtype=torch.float64)
    same_values(out_l, out_t, "float64" if dtype == "float64" else "float32")
    same_graph(out_l, out_t)  # SoftmaxBackward0(ToCopyBackward0(NegBackward0(...)))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        out_l = F.softmin(a)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        out_t = TF.softmin(t)
    same_values(out_l, out_t, dtype)


def test_threshold_on_integer_tensors_matches_torch():
    x = np.arange(-3, 5)
    for args in [(2, 9), (2.5, 9.5), (-1.5, -7.7)]:
        out_l, out_t = F.threshold(lg.tensor(x), *args), TF.threshold(torch.tensor(x), *args)
        assert out_l.dtype.name == "int64"
        np.testing.assert_array_equal(np_of(out_l), np_of(out_t))
    a, t = lg.tensor(x.astype(np.int32)), torch.tensor(x.astype(np.int32))
    assert F.threshold(a, 0, 7, inplace=True) is a and TF.threshold(t, 0, 7, inplace=True) is t
    np.testing.assert_array_equal(np_of(a), np_of(t))


# ----------------------------------------------------------------------------- in place
INPLACE = [  # (name, F call with inplace=True, torch's node for the in-place form)
    ("elu", lambda F, x: F.elu(x, 0.8, inplace=True), "EluBackward1"),
    ("elu_", lambda F, x: F.elu_(x, 0.8), "EluBackward1"),
    ("selu", lambda F, x: F.selu(x, inplace=True), "EluBackward1"),
    ("selu_", lambda F, x: F.selu_(x), "EluBackward1"),
    ("celu", lambda F, x: F.celu(x, 0.7, inplace=True), "CeluBackward1"),
    ("celu_", lambda F, x: F.celu_(x, 0.7), "CeluBackward1"),
    ("mish", lambda F, x: F.mish(x, inplace=True), "MishBackward0"),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x, inplace=True), "HardsigmoidBackward0"),
    ("hardswish", lambda F, x: F.hardswish(x, inplace=True), "HardswishBackward0"),
    ("threshold", lambda F, x: F.threshold(x, 0.1, -2.0, inplace=True), "ThresholdBackward1"),
    ("threshold_", lambda F, x: F.threshold_(x, 0.1, -2.0), "ThresholdBackward1"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", INPLACE, ids=lambda c: c[0])
def test_inplace_variants_match_torch(case, dtype):
    _, fn, node = case
    arr = _edges(3.0, -3.0, 0.1)
    a, t = _pair(arr, dtype)
    yl, yt = a * 1, t * 1
    vl, vt = yl._version, yt._version
    out_l, out_t = fn(F, yl), fn(TF, yt)
    assert out_l is yl and out_t is yt
    assert yl._version == vl + 1 and yt._version == vt + 1
    assert out_l.grad_fn.name() == out_t.grad_fn.name() == node
    same_graph(out_l, out_t)
    same_values(out_l, out_t, dtype, signs=True)
    w = RNG.standard_normal(arr.shape).astype(dtype)
    (gl,) = lg.autograd.grad(out_l, a, lg.tensor(w), create_graph=True)
    (gt,) = torch.autograd.grad(out_t, t, torch.tensor(w), create_graph=True)
    same_values(gl, gt, dtype)
    if node == "HardsigmoidBackward0":
        return  # (no second derivative: see test_values_graph_and_gradients_match_torch)
    v = RNG.standard_normal(arr.shape).astype(dtype)
    (ggl,) = lg.autograd.grad((gl * lg.tensor(v)).sum(), a)
    (ggt,) = torch.autograd.grad((gt * torch.tensor(v)).sum(), t)
    same_values(ggl, ggt, dtype, SECOND_ORDER_TOL)


@pytest.mark.parametrize("case", INPLACE, ids=lambda c: c[0])
def test_inplace_on_a_leaf_is_refused_like_torch(case):
    _, fn, _ = case
    same_error(lambda: fn(F, lg.ones(3, requires_grad=True)), lambda: fn(TF, torch.ones(3, requires_grad=True)))
    with lg.no_grad():  # (allowed without grad mode, as in torch)
        x = lg.zeros(3, requires_grad=True)
        assert fn(F, x) is x


def test_inplace_result_saved_is_checked_for_later_writes():
    a = lg.tensor(RNG.standard_normal(5), requires_grad=True)
    y = F.selu(a * 1, inplace=True)  # EluBackward1 saves its output ...
    y.add_(1)  # ... which is then changed
    with raises_exactly(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ----------------------------------------------------------------------------- modules
MODULES = [  # (class name, constructor args, kwargs)
    ("SELU", (), {}), ("SELU", (), {"inplace": True}), ("CELU", (), {}), ("CELU", (0.5,), {"inplace": True}),
    ("Mish", (), {}), ("Mish", (), {"inplace": True}), ("Softsign", (), {}), ("Hardsigmoid", (), {}),
    ("Hardsigmoid", (), {"inplace": True}), ("Hardswish", (), {}), ("Hardswish", (), {"inplace": True}),
    ("Tanhshrink", (), {}), ("Softshrink", (), {}), ("Softshrink", (1.25,), {}), ("Hardshrink", (), {}),
    ("Hardshrink", (0.1,), {}), ("Threshold", (0.1, 20.0), {}), ("Threshold", (-1, 3), {"inplace": True}),
    ("GLU", (), {}), ("GLU", (0,), {}), ("Softmin", (1,), {}), ("Softmin", (), {"dim": 0}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MODULES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
def test_modules_match_torch(case, dtype):
    name, args, kwargs = case
    m, tm = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(m) == repr(tm)
    assert repr(nn.Sequential(m)) == repr(torch.nn.Sequential(tm))
    assert list(m.state_dict()) == list(tm.state_dict()) == []
    arr = RNG.standard_normal((8, 8)) * 4
    a, t = _pair(arr, dtype)
    out_l, out_t = m(a * 1), tm(t * 1)
    same_values(out_l, out_t, dtype, signs=True)
    same_graph(out_l, out_t)
    w = RNG.standard_normal(tuple(out_t.shape)).astype(dtype)
    (out_l * lg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    same_values(a.grad, t.grad, dtype)


def test_module_attributes_match_torch():
    for name, args, kwargs in MODULES:
        m, tm = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
        for attr in ("inplace", "alpha", "lambd", "threshold", "value", "dim"):
            assert getattr(m, attr, None) == getattr(tm, attr, None), (name, attr)
    assert not isinstance(nn.Hardshrink(), nn.Softshrink) and not isinstance(nn.Hardswish(), nn.Hardsigmoid)


def test_softmin_module_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        out = nn.Softmin()(lg.tensor(RNG.standard_normal((2, 3))))
    assert tuple(out.shape) == (2, 3)


# ----------------------------------------------------------------------------- bad arguments
BAD_CALLS = [
    lambda F, T: F.glu(T.tensor(1.0)),
    lambda F, T: F.glu(T.zeros(3, 5)),
    lambda F, T: F.glu(T.zeros(3, 4), 2),
    lambda F, T: F.glu(T.zeros(3, 4), -3),
    lambda F, T: F.glu(T.zeros(3, 4, dtype=T.int64)),
    lambda F, T: F.glu(T.zeros(3, 5, dtype=T.int64)),
    lambda F, T: F.softshrink(T.zeros(3), -0.5),
    lambda F, T: F.softshrink(T.zeros(3, dtype=T.float64), -1),
    lambda F, T: F.softshrink(T.zeros(3), float("nan")),
    lambda F, T: F.softshrink(T.zeros(3), float("inf")),
    lambda F, T: F.softshrink(T.zeros(3), 1e39),
    lambda F, T: F.softshrink(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.softshrink(T.zeros(3, dtype=T.int64), -0.5),
    lambda F, T: F.hardshrink(T.zeros(3, dtype=T.int64), 0.5),
    lambda F, T: F.hardshrink(T.zeros(3, dtype=T.bool)),
    lambda F, T: F.selu(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.selu(T.zeros(3, dtype=T.bool)),
    lambda F, T: F.elu(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.elu(T.zeros(3, dtype=T.int64), inplace=True),
    lambda F, T: F.celu(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.celu(T.zeros(3), 0.0),
    lambda F, T: F.celu(T.zeros(3, dtype=T.int64), 0.0),
    lambda F, T: F.celu(T.zeros(3), 0, inplace=True),
    lambda F, T: F.mish(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.mish(T.zeros(3, dtype=T.bool)),
    lambda F, T: F.hardsigmoid(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.hardswish(T.zeros(3, dtype=T.int64)),
    lambda F, T: F.hardswish(T.zeros(3, dtype=T.int64), inplace=True),
    lambda F, T: F.threshold(T.zeros(3, dtype=T.bool), 0.5, 1.0),
    lambda F, T: F.threshold(T.zeros(3), 0.1, 1e40),
    lambda F, T: F.threshold(T.zeros(3), 1e40, 1.0),
    lambda F, T: F.threshold(T.zeros(3, dtype=T.int32), 0, 2 ** 40),
    lambda F, T: F.threshold(T.zeros(3, dtype=T.int64), 0, 2 ** 70),
    lambda F, T: F.threshold(T.zeros(3, dtype=T.float16), 0, 1e10),
    lambda F, T: F.softsign(T.zeros(3, dtype=T.bool)),
    lambda F, T: F.tanhshrink(T.zeros(3, dtype=T.bool)),
    lambda F, T: F.softmin(T.arange(5), 0),
    lambda F, T: F.softmin(T.zeros(2, 3), 2),
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_arguments_raise_like_torch(call):
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


def test_inputs_torch_accepts_still_work():
    # hardshrink takes any lambda (no range check); threshold takes an infinite value; glu a 1-d input
    for call in [lambda F, T: F.hardshrink(T.tensor([0.3, -2.0]), -0.5),
                 lambda F, T: F.threshold(T.tensor([0.3, -2.0]), 0.0, float("inf")),
                 lambda F, T: F.glu(T.tensor([1.0, 2.0, 3.0, 4.0])),
                 lambda F, T: F.selu(T.tensor(1.5)),
                 lambda F, T: F.softshrink(T.tensor([2.0], dtype=T.float64), 1e39),
                 lambda F, T: F.softsign(T.arange(3)),
                 lambda F, T: F.tanhshrink(T.arange(3))]:
        out_l, out_t = call(F, lg), call(TF, torch)
        assert out_l.dtype.name == str(out_t.dtype).split(".")[-1]
        np.testing.assert_allclose(np_of(out_l), np_of(out_t), rtol=1e-6)
