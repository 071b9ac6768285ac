"""leafgrad.nn.functional against torch.nn.functional: every loss for every reduction and option,
activations, padding, attention helpers; values, input gradients, grad_fn names and error texts."""
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
from nn_testutil import chain, close, grad_fn_name, pair  # noqa: E402

REDUCTIONS = ["mean", "sum", "none"]
DTYPES = ["float64", "float32"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((4, 5))
P = RNG.uniform(0.05, 0.95, (4, 5))
Q = RNG.uniform(0, 1, (4, 5))
W5 = RNG.uniform(0.5, 2, (5,))
T_IDX = np.array([0, 3, 4, 1])
PROBS = RNG.dirichlet(np.ones(5), 4)


def _const(mod, arr, dtype):
    return None if arr is None else mod.tensor(np.asarray(arr).astype(dtype) if np.asarray(arr).dtype.kind == "f"
                                              else np.asarray(arr))


def check(fn, diff, consts=(), dtype="float64", kwargs=None, rtol=None, atol=None, names=True):
    """fn(F_module, *diff_tensors, *const_tensors, **kwargs) for both libraries: values, grads, grad_fn."""
    kwargs = kwargs or {}
    lg_in, t_in = zip(*[pair(torch, np.asarray(a).astype(dtype)) for a in diff])
    lg_c = [_const(lg, c, dtype) for c in consts]
    t_c = [_const(torch, c, dtype) for c in consts]
    kl = {k: (_const(lg, v, dtype) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    kt = {k: (_const(torch, v, dtype) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    out_l = fn(F, *lg_in, *lg_c, **kl)
    out_t = fn(TF, *t_in, *t_c, **kt)
    close(out_l, out_t, dtype, rtol, atol)
    if names:
        assert grad_fn_name(out_l) == grad_fn_name(out_t)
    w = np.random.default_rng(1).standard_normal(tuple(out_t.shape)).astype(dtype)
    (out_l * lg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for a, b in zip(lg_in, t_in):
        if b.grad is None:
            assert a.grad is None
        else:
            close(a.grad, b.grad, dtype, rtol, atol)
    return out_l


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction, dtype):
    check(lambda F, a, b: F.mse_loss(a, b, reduction=reduction), [X, Y], dtype=dtype)
    check(lambda F, a, b: F.l1_loss(a, b, reduction=reduction), [X, Y], dtype=dtype)
    for beta in (1.0, 0.3, 0.0):
        check(lambda F, a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta), [X, Y], dtype=dtype)
    check(lambda F, a, b: F.huber_loss(a, b, reduction=reduction, delta=0.6), [X, Y], dtype=dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_broadcast_target_warns(reduction):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        check(lambda F, a, b: F.mse_loss(a, b, reduction=reduction), [X, Y[0]])
    texts = [str(w.message) for w in rec]
    assert texts.count("Using a target size (torch.Size([5])) that is different to the input size (torch.Size([4, "
                       "5])). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                       "the same size.") == 2


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction, dtype):
    check(lambda F, p, q: F.binary_cross_entropy(p, q, reduction=reduction), [P, Q], dtype=dtype)
    check(lambda F, p, q, w: F.binary_cross_entropy(p, q, weight=w, reduction=reduction), [P, Q], [W5], dtype=dtype)
    check(lambda F, x, q: F.binary_cross_entropy_with_logits(x, q, reduction=reduction), [X * 4, Q], dtype=dtype)
    check(lambda F, x, q, w, pw: F.binary_cross_entropy_with_logits(x, q, weight=w, pos_weight=pw, reduction=reduction),
          [X * 4, Q], [W5[::-1].copy(), W5], dtype=dtype)


def test_binary_cross_entropy_clamps_log_like_torch():
    p = np.array([0.0, 1.0, 1e-30, 0.5])
    q = np.array([1.0, 0.0, 1.0, 0.5])
    close(F.binary_cross_entropy(lg.tensor(p), lg.tensor(q), reduction="none"),
          TF.binary_cross_entropy(torch.tensor(p), torch.tensor(q), reduction="none"))
    big = np.array([-200.0, 200.0, 0.0])
    close(F.binary_cross_entropy_with_logits(lg.tensor(big), lg.tensor([1.0, 0.0, 1.0]), reduction="none"),
          TF.binary_cross_entropy_with_logits(torch.tensor(big), torch.tensor([1.0, 0.0, 1.0]).double(),
                                              reduction="none"))


CE_OPTIONS = [
    {},
    {"weight": W5},
    {"ignore_index": 3},
    {"ignore_index": 3, "weight": W5},
    {"label_smoothing": 0.2},
    {"label_smoothing": 0.2, "weight": W5},
    {"label_smoothing": 0.2, "weight": W5, "ignore_index": 1},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", CE_OPTIONS, ids=lambda o: "-".join(o) or "plain")
def test_cross_entropy_class_indices(opts, reduction, dtype):
    check(lambda F, x, t, **kw: F.cross_entropy(x, t, reduction=reduction, **kw), [X], [T_IDX], dtype=dtype,
          kwargs=opts)
    if "label_smoothing" not in opts:
        check(lambda F, x, t, **kw: F.nll_loss(F.log_softmax(x, 1), t, reduction=reduction, **kw), [X], [T_IDX],
              dtype=dtype, kwargs=opts)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [{}, {"label_smoothing": 0.1}, {"weight": W5}], ids=lambda o: "-".join(o) or "plain")
def test_cross_entropy_probabilities(opts, reduction, dtype):
    check(lambda F, x, p, **kw: F.cross_entropy(x, p, reduction=reduction, **kw), [X, PROBS], dtype=dtype,
          kwargs=opts)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 5, 3, 4), (2, 5, 2, 2, 2), (5,)])
def test_cross_entropy_and_nll_spatial_and_unbatched(shape, reduction):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    t = rng.integers(0, 5, shape[:1] + shape[2:]) if len(shape) > 1 else np.array(2)
    if len(shape) > 1:
        t.reshape(-1)[0] = -100
    check(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), [x], [t])
    check(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.3), [x], [t])
    check(lambda F, x, t: F.nll_loss(x, t, reduction=reduction), [x], [t])


def test_cross_entropy_grad_fn_chain_matches_torch():
    x = X.copy()
    for kw in [{}, {"label_smoothing": 0.1}]:
        out_l = F.cross_entropy(lg.tensor(x, requires_grad=True), lg.tensor(T_IDX), **kw)
        out_t = TF.cross_entropy(torch.tensor(x, requires_grad=True), torch.tensor(T_IDX), **kw)
        assert chain(out_l, 3) == chain(out_t, 3)
    out = F.cross_entropy(lg.tensor(x, requires_grad=True), lg.tensor(T_IDX))
    assert chain(out, 2) == "NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad))"


def test_all_targets_ignored_gives_nan_like_torch():
    t = np.array([-100, -100])
    x = RNG.standard_normal((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy division warnings leak out
        a = F.cross_entropy(lg.tensor(x), lg.tensor(t))
    b = TF.cross_entropy(torch.tensor(x), torch.tensor(t))
    assert np.isnan(a.item()) and np.isnan(b.item())
    assert np.isnan(F.mse_loss(lg.zeros(0), lg.zeros(0)).item())


@pytest.mark.parametrize("dtype", DTYPES)
def test_activations(dtype):
    x = np.concatenate([RNG.standard_normal(20) * 4, [0.0, -30.0, 30.0, 25.0]])
    for fn in [lambda F, a: F.relu(a), lambda F, a: F.gelu(a), lambda F, a: F.gelu(a, approximate="tanh"),
               lambda F, a: F.silu(a), lambda F, a: F.leaky_relu(a, 0.2), lambda F, a: F.elu(a, 1.3),
               lambda F, a: F.softplus(a), lambda F, a: F.softplus(a, beta=2, threshold=5),
               lambda F, a: F.hardtanh(a, -2, 3), lambda F, a: F.relu6(a), lambda F, a: F.logsigmoid(a),
               lambda F, a: F.tanh(a), lambda F, a: F.sigmoid(a), lambda F, a: F.softmax(a, 0),
               lambda F, a: F.log_softmax(a, dim=0)]:
        check(fn, [x], dtype=dtype)


def test_inplace_activations_match_torch():
    for name, args in [("relu", ()), ("leaky_relu", (0.3,)), ("elu", (0.7,)), ("hardtanh", (-1.0, 1.0)),
                       ("silu", ())]:
        a = lg.tensor(X * 3)
        b = torch.tensor(X * 3)
        out_a = getattr(F, name)(a, *args, inplace=True)
        out_b = getattr(TF, name)(b, *args, inplace=True)
        assert out_a is a and out_b is b
        close(a, b)


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = F.softmax(lg.tensor(X))
    close(out, TF.softmax(torch.tensor(X), 1))


def test_pad_modes():
    x = RNG.standard_normal((2, 3, 4, 5))
    for mode, pads in [("constant", (1, 2)), ("constant", (1, 0, 2, 1)), ("reflect", (2, 1, 1, 3)),
                       ("replicate", (2, 1, 3, 0)), ("circular", (1, 2, 2, 1))]:
        kw = {"value": 0.5} if mode == "constant" else {}
        check(lambda F, a: F.pad(a, pads, mode=mode, **kw), [x], names=mode == "constant")


@pytest.mark.parametrize("pads", [(-1, 2), (-1, -1, 2, -1), (2, -3), (-2, -2), (-4, 0), (0, 0, -1, 0)])
def test_pad_negative_widths_crop_as_torch(pads):
    x = RNG.standard_normal((2, 3, 4))
    check(lambda F, a: F.pad(a, pads, value=0.25), [x])
    # second order: the gradient is the pad with the widths negated, recorded as ConstantPadNdBackward0
    (a,), (b,) = [lg.tensor(x, requires_grad=True)], [torch.tensor(x, requires_grad=True)]
    ya, yb = F.pad(a, pads), TF.pad(b, pads)
    ga, = lg.autograd.grad((ya * ya).sum(), a, create_graph=True)
    gb, = torch.autograd.grad((yb * yb).sum(), b, create_graph=True)
    close(ga, gb)
    assert grad_fn_name(ga) == grad_fn_name(gb) == "ConstantPadNdBackward0"


@pytest.mark.parametrize("pads", [(-3, -2), (-5, 1), (1, -5), (0, 0, -4, 0)])
def test_pad_cropping_past_the_input_raises_as_torch(pads):
    from nn_testutil import same_error
    x = RNG.standard_normal((2, 3, 4))
    same_error(lambda: F.pad(lg.tensor(x), pads), lambda: TF.pad(torch.tensor(x), pads))


def test_one_hot_normalize_linear_bilinear_functional():
    close(F.one_hot(lg.tensor([0, 2, 1]), 4), TF.one_hot(torch.tensor([0, 2, 1]), 4))
    check(lambda F, a: F.normalize(a, dim=1), [X], names=False)
    w, b = RNG.standard_normal((3, 5)), RNG.standard_normal(3)
    check(lambda F, a, w, b: F.linear(a, w, b), [X, w, b])
    w3 = RNG.standard_normal((2, 5, 4))
    check(lambda F, a, c, w: F.bilinear(a, c, w), [X, RNG.standard_normal((4, 4)), w3], names=False)


@pytest.mark.parametrize("is_causal", [False, True])
def test_scaled_dot_product_attention(is_causal):
    q, k, v = (RNG.standard_normal((2, 3, 4, 8)) for _ in range(3))
    check(lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=is_causal), [q, k, v], names=False)
    mask = RNG.random((4, 4)) > 0.3
    np.fill_diagonal(mask, True)
    check(lambda F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), [q, k, v], [mask],
          names=False)


def test_dropout_functional():
    x = lg.ones(10, 10)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    lg.manual_seed(1)
    a = F.dropout(x, 0.5).numpy()
    lg.manual_seed(1)
    b = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)  # reproducible under manual_seed
    y = lg.ones(10)
    assert F.dropout(y, 0.5, inplace=True) is y


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda F, T: F.nll_loss(T.tensor([[0.1, 0.2], [0.3, 0.4]]), T.tensor([0, 7])),
    lambda F, T: F.nll_loss(T.tensor([[0.1, 0.2], [0.3, 0.4]]), T.tensor([0, 1, 1])),
    lambda F, T: F.nll_loss(T.tensor([[0.1, 0.2], [0.3, 0.4]]), T.tensor([0.0, 1.0])),
    lambda F, T: F.cross_entropy(T.zeros(2, 5), T.tensor([0, 1]), reduction="foo"),
    lambda F, T: F.mse_loss(T.zeros(2), T.zeros(2), reduction="avg"),
    lambda F, T: F.cross_entropy(T.zeros(2, 5), T.zeros(2, 4)),
    lambda F, T: F.cross_entropy(T.zeros(2, 5), T.tensor([0, 1]), label_smoothing=1.5),
    lambda F, T: F.binary_cross_entropy(T.ones(2, 5) * 0.5, T.ones(2, 4)),
    lambda F, T: F.binary_cross_entropy(T.ones(2) * 2, T.ones(2)),
    lambda F, T: F.binary_cross_entropy_with_logits(T.ones(2, 5), T.ones(2, 4)),
    lambda F, T: F.dropout(T.ones(2), 1.5),
    lambda F, T: F.gelu(T.ones(2), approximate="fast"),
    lambda F, T: F.embedding(T.tensor([5]), T.zeros(4, 3)),
    lambda F, T: F.batch_norm(T.zeros(1, 5), None, None, training=True),
    lambda F, T: F.layer_norm(T.zeros(2, 5), (4,)),
    lambda F, T: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 3, 3, 3)),
    lambda F, T: F.conv2d(T.zeros(1, 2, 5, 5), T.zeros(3, 2, 3, 3), stride=2, padding="same"),
    lambda F, T: F.max_pool2d(T.zeros(1, 2, 5, 5), 2, padding=2),
    lambda F, T: F.linear(T.zeros(2, 5), T.zeros(3, 4)),
    lambda F, T: F.linear(T.zeros(2, 5, dtype=T.float64), T.zeros(3, 5)),
    lambda F, T: F.linear(T.zeros(2, 5, dtype=T.float64), T.zeros(3, 5), T.zeros(3)),
    lambda F, T: F.linear(T.zeros(4, 2, 5, dtype=T.float64), T.zeros(3, 5), T.zeros(3)),
    lambda F, T: F.cross_entropy(T.zeros(2, 3, dtype=T.float64), T.tensor([0, 1]), weight=T.ones(3)),
    lambda F, T: F.pad(T.zeros(2, 3), (1,)),
])
def test_error_messages_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _err(lambda: call(F, lg)) == _err(lambda: call(TF, torch))


def test_legacy_size_average_and_reduce():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sa, rd in [(False, None), (None, False), (True, True)]:
            a = F.mse_loss(lg.tensor(X), lg.tensor(Y), size_average=sa, reduce=rd)
            b = TF.mse_loss(torch.tensor(X), torch.tensor(Y), size_average=sa, reduce=rd)
            close(a, b)
            m, t = nn.L1Loss(size_average=sa, reduce=rd), torch.nn.L1Loss(size_average=sa, reduce=rd)
            assert m.reduction == t.reduction


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_modules(reduction):
    x, y = lg.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    pairs = [
        (nn.MSELoss(reduction=reduction), torch.nn.MSELoss(reduction=reduction), Y),
        (nn.L1Loss(reduction=reduction), torch.nn.L1Loss(reduction=reduction), Y),
        (nn.SmoothL1Loss(reduction=reduction, beta=0.5), torch.nn.SmoothL1Loss(reduction=reduction, beta=0.5), Y),
        (nn.HuberLoss(reduction=reduction, delta=2.0), torch.nn.HuberLoss(reduction=reduction, delta=2.0), Y),
        (nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=lg.tensor(W5)),
         torch.nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=torch.tensor(W5)), Q),
        (nn.CrossEntropyLoss(weight=lg.tensor(W5), reduction=reduction, label_smoothing=0.1, ignore_index=3),
         torch.nn.CrossEntropyLoss(weight=torch.tensor(W5), reduction=reduction, label_smoothing=0.1,
                                   ignore_index=3), T_IDX),
        (nn.NLLLoss(reduction=reduction), torch.nn.NLLLoss(reduction=reduction), T_IDX),
    ]
    for m, t, target in pairs:
        close(m(x, lg.tensor(target)), t(y, torch.tensor(target)))
        assert repr(m) == repr(t)
        assert list(m.state_dict()) == list(t.state_dict())
    bce_l = nn.BCELoss(weight=lg.tensor(W5), reduction=reduction)
    bce_t = torch.nn.BCELoss(weight=torch.tensor(W5), reduction=reduction)
    close(bce_l(lg.tensor(P), lg.tensor(Q)), bce_t(torch.tensor(P), torch.tensor(Q)))
