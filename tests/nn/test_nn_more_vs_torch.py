"""The nnloss names against torch: the losses (ctc, gaussian/poisson nll, multi(label) margin,
multilabel soft margin, triplet), the activations and norms (prelu, rrelu, rms_norm, channel
shuffle, pdist, conv_tbc, alpha dropouts, gumbel_softmax, CrossMapLRN2d), EmbeddingBag,
AdaptiveLogSoftmaxWithLoss, the lazy modules and their placeholders, Container, DataParallel,
SyncBatchNorm and the __torch_function__ helper names of nn.functional.

Values, the grad_fn graph, first and (where torch has them) second gradients, exception classes
and message openings, module reprs and state.
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
from differential import raises_exactly  # noqa: E402
from nn_testutil import chain, same_error  # noqa: E402

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 5))
Y = RNG.standard_normal((3, 5))
POS = RNG.random((3, 5)) + 0.1
W5 = RNG.random(5) + 0.5
T3 = np.array([0, 4, 2])
ML_T = np.array([[3, 0, -1, 1, 1], [0, 1, 2, 3, 4], [2, 2, -1, 0, 1]])
LP = np.log(RNG.dirichlet(np.ones(4), (6, 3)))  # (T, N, C) log-probabilities
REDUCTIONS = ["mean", "sum", "none"]


def _mod(lib):
    return F if lib is lg else TF


def _run(lib, fn, diff, consts):
    d = [lib.tensor(a, requires_grad=True) for a in diff]
    c = [lib.tensor(a) for a in consts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return d, fn(_mod(lib), *d, *c)


def check(fn, diff, consts=(), second: bool = True, tol: float = 1e-9):
    """Values and graph, gradients of a random cotangent and, with ``second``, the gradients of
    <first-order gradients, v> against torch."""
    dl, yl = _run(lg, fn, diff, consts)
    dt, yt = _run(torch, fn, diff, consts)
    assert tuple(yl.shape) == tuple(yt.shape)
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    assert chain(yl, 99) == chain(yt, 99)
    v = RNG.standard_normal(tuple(yt.shape))
    gl = lg.autograd.grad(yl, dl, lg.tensor(v), create_graph=second, allow_unused=True)
    gt = torch.autograd.grad(yt, dt, torch.tensor(v), create_graph=second, allow_unused=True)
    for a, b in zip(gl, gt):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    if not second:
        return
    used = [(a, b) for a, b in zip(gl, gt) if b is not None and b.grad_fn is not None]
    if not used:
        return
    ws = [RNG.standard_normal(tuple(b.shape)) for _, b in used]
    sl = sum((a * lg.tensor(w)).sum() for (a, _), w in zip(used, ws))
    st = sum((b * torch.tensor(w)).sum() for (_, b), w in zip(used, ws))
    hl = lg.autograd.grad(sl, dl, allow_unused=True)
    ht = torch.autograd.grad(st, dt, allow_unused=True)
    for a, b in zip(hl, ht):
        if b is None:
            assert a is None or not np.any(a.numpy())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(force=True), rtol=1e-7, atol=1e-9)


# =============================================================================== losses
LOSSES = {
    "gaussian_full": (lambda M, a, b, v, r: M.gaussian_nll_loss(a, b, v, full=True, reduction=r), [X, Y, POS], []),
    "gaussian_homo": (lambda M, a, b, v, r: M.gaussian_nll_loss(a, b, v, eps=0.5, reduction=r), [X, Y, POS[:, 0]],
                      []),
    "gaussian_bcast": (lambda M, a, b, v, r: M.gaussian_nll_loss(a, b, v, reduction=r), [X, Y, POS[:, :1]], []),
    "poisson": (lambda M, a, b, r: M.poisson_nll_loss(a, b, reduction=r), [X, POS * 3], []),
    "poisson_full": (lambda M, a, t, r: M.poisson_nll_loss(a, t, log_input=False, full=True, reduction=r),
                     [POS], [POS * 3]),
    "mlsm": (lambda M, a, t, w, r: M.multilabel_soft_margin_loss(a, t, weight=w, reduction=r), [X],
             [(Y > 0) * 1.0, W5]),
    "multi_margin": (lambda M, a, t, r: M.multi_margin_loss(a, t, reduction=r), [X], [T3]),
    "multi_margin_p2": (lambda M, a, t, w, r: M.multi_margin_loss(a, t, p=2, margin=0.7, weight=w, reduction=r),
                        [X], [T3, W5]),
    "multi_margin_1d": (lambda M, a, t, r: M.multi_margin_loss(a, t, reduction=r), [X[0]], [np.array(3)]),
    "multilabel_margin": (lambda M, a, t, r: M.multilabel_margin_loss(a, t, reduction=r), [X], [ML_T]),
    "multilabel_margin_1d": (lambda M, a, t, r: M.multilabel_margin_loss(a, t, reduction=r), [X[0]], [ML_T[0]]),
    "triplet": (lambda M, a, p, n, r: M.triplet_margin_loss(a, p, n, reduction=r), [X, Y, POS], []),
    "triplet_swap_p1": (lambda M, a, p, n, r: M.triplet_margin_loss(a, p, n, margin=2.0, p=1.5, swap=True,
                                                                    reduction=r), [X, Y, POS], []),
    "triplet_distance": (lambda M, a, p, n, r: M.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, w: (u - w).abs().sum(-1), swap=True, reduction=r), [X, Y, POS], []),
    "triplet_default_distance": (lambda M, a, p, n, r: M.triplet_margin_with_distance_loss(a, p, n, reduction=r),
                                 [X, Y, POS], []),
}
SINGLE_KERNEL = {"multi_margin", "multi_margin_p2", "multi_margin_1d", "multilabel_margin", "multilabel_margin_1d"}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_against_torch(name, reduction):
    fn, diff, consts = LOSSES[name]
    check(lambda M, *args: fn(M, *args, reduction), diff, consts, second=name not in SINGLE_KERNEL)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("layout", ["padded", "concatenated", "unbatched", "impossible"])
def test_ctc_loss_against_torch(layout, zero_infinity, reduction):
    if layout == "padded":
        lp, consts = LP, [np.array([[1, 2, 2], [3, 1, 0], [1, 1, 1]]), np.array([6, 5, 3]), np.array([3, 2, 3])]
    elif layout == "concatenated":
        lp, consts = LP, [np.array([1, 2, 2, 0, 1, 0]), np.array([6, 5, 4]), np.array([3, 2, 1])]
    elif layout == "unbatched":
        lp, consts = LP[:, 0], [np.array([1, 2]), np.array(6), np.array(2)]
    else:  # a target too long for its input: infinite loss (zero with zero_infinity)
        lp, consts = LP, [np.array([[1, 2, 1, 2], [3, 1, 0, 0], [1, 2, 3, 1]]), np.array([6, 2, 6]),
                          np.array([4, 2, 4])]
    blank = 3 if layout == "concatenated" else 0

    def fn(M, a, t, il, tl):
        return M.ctc_loss(a, t, il, tl, blank=blank, reduction=reduction, zero_infinity=zero_infinity)

    if layout == "impossible" and not zero_infinity:
        dl, yl = _run(lg, fn, [lp], consts)
        dt, yt = _run(torch, fn, [lp], consts)
        np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy())
        return
    check(fn, [lp], consts, second=False)


def test_ctc_loss_lengths_as_lists_and_module():
    lp_l, lp_t = lg.tensor(LP, requires_grad=True), torch.tensor(LP, requires_grad=True)
    tg = np.array([[1, 2], [3, 3], [2, 1]])
    yl = nn.CTCLoss(blank=0)(lp_l, lg.tensor(tg), [6, 6, 5], [2, 2, 1])
    yt = torch.nn.CTCLoss(blank=0)(lp_t, torch.tensor(tg), [6, 6, 5], [2, 2, 1])
    np.testing.assert_allclose(yl.item(), yt.item(), rtol=1e-12)
    assert repr(nn.CTCLoss(blank=2, zero_infinity=True)) == repr(torch.nn.CTCLoss(blank=2, zero_infinity=True))


@pytest.mark.parametrize("call", [
    lambda M, lib, x: M.multi_margin_loss(x, lib.tensor(T3)),
    lambda M, lib, x: M.multilabel_margin_loss(x, lib.tensor(ML_T)),
    lambda M, lib, x: M.ctc_loss(x.t().reshape(5, 1, 3).log_softmax(2), lib.tensor([[1, 2]]), [5], [2]),
    lambda M, lib, x: M.pdist(x),
    lambda M, lib, x: M.embedding_bag(lib.tensor([[0, 2], [1, 1]]), x),
], ids=["multi_margin", "multilabel_margin", "ctc", "pdist", "embedding_bag"])
def test_no_double_backward_as_torch(call):
    """torch has no derivative for these backward kernels: the second backward raises RuntimeError."""
    def second(lib):
        x = lib.tensor(X, requires_grad=True)
        y = call(_mod(lib), lib, x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        lib.autograd.grad(g.sum(), x)
    same_error(lambda: second(lg), lambda: second(torch))


LOSS_ERRORS = {
    "mm_target_range": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor([0, 5, 1])),
    "mm_target_size": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor([0, 1])),
    "mm_p3": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor(T3), p=3),
    "mm_float_target": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor(T3 * 1.0)),
    "mm_weight_size": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor(T3), weight=lib.ones(3)),
    "mm_weight_2d": lambda M, lib: M.multi_margin_loss(lib.tensor(X), lib.tensor(T3), weight=lib.ones(1, 5)),
    "mlm_size": lambda M, lib: M.multilabel_margin_loss(lib.tensor(X), lib.tensor(ML_T[:2])),
    "mlm_range": lambda M, lib: M.multilabel_margin_loss(lib.tensor(X), lib.tensor(ML_T + 5)),
    "gauss_size": lambda M, lib: M.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), lib.ones(2)),
    "gauss_negative": lambda M, lib: M.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), -lib.ones(3, 5)),
    "gauss_negative_float": lambda M, lib: M.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), -1.0),
    "gauss_reduction": lambda M, lib: M.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), 1.0, reduction="avg"),
    "poisson_reduction": lambda M, lib: M.poisson_nll_loss(lib.tensor(X), lib.tensor(Y), reduction="avg"),
    "mlsm_reduction": lambda M, lib: M.multilabel_soft_margin_loss(lib.tensor(X), lib.tensor(Y), reduction="x"),
    "triplet_dims": lambda M, lib: M.triplet_margin_loss(lib.tensor(X), lib.tensor(Y), lib.tensor(Y[0])),
    "triplet_distance_margin": lambda M, lib: M.triplet_margin_with_distance_loss(
        lib.tensor(X), lib.tensor(Y), lib.tensor(Y), margin=0),
    "triplet_distance_reduction": lambda M, lib: M.triplet_margin_with_distance_loss(
        lib.tensor(X), lib.tensor(Y), lib.tensor(Y), reduction="avg"),
    "triplet_distance_dims": lambda M, lib: M.triplet_margin_with_distance_loss(
        lib.tensor(X), lib.tensor(Y), lib.tensor(Y[0])),
    "ctc_input_length": lambda M, lib: M.ctc_loss(lib.tensor(LP), lib.tensor([[1], [1], [1]]), [7, 6, 6],
                                                  [1, 1, 1]),
    "ctc_target_length": lambda M, lib: M.ctc_loss(lib.tensor(LP), lib.tensor([[1], [1], [1]]), [6, 6, 6],
                                                   [2, 1, 1]),
    "ctc_blank": lambda M, lib: M.ctc_loss(lib.tensor(LP), lib.tensor([[1], [1], [1]]), [6, 6, 6], [1, 1, 1],
                                           blank=4),
    "mm_module_p": lambda M, lib: lib.nn.MultiMarginLoss(p=3),
    "triplet_module_margin": lambda M, lib: lib.nn.TripletMarginLoss(margin=0),
}


@pytest.mark.parametrize("name", sorted(LOSS_ERRORS))
def test_loss_errors_as_torch(name):
    call = LOSS_ERRORS[name]
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


LOSS_MODULES = [
    ("GaussianNLLLoss", dict(full=True, eps=1e-3), 3), ("PoissonNLLLoss", dict(log_input=False, full=True), 2),
    ("MultiLabelSoftMarginLoss", dict(reduction="sum"), 2), ("MultiMarginLoss", dict(p=2, margin=0.5), 2),
    ("MultiLabelMarginLoss", dict(reduction="none"), 2), ("TripletMarginLoss", dict(margin=0.5, swap=True), 3),
    ("TripletMarginWithDistanceLoss", dict(margin=0.5), 3), ("NLLLoss2d", dict(ignore_index=1), 2),
]


@pytest.mark.parametrize("name,kwargs,n_args", LOSS_MODULES, ids=[m[0] for m in LOSS_MODULES])
def test_loss_modules_against_torch(name, kwargs, n_args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ml, mt = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(ml) == repr(mt)
    inputs = {"MultiLabelSoftMarginLoss": [X, (Y > 0) * 1.0], "MultiMarginLoss": [X, T3],
              "MultiLabelMarginLoss": [X, ML_T], "PoissonNLLLoss": [POS, POS * 2],
              "NLLLoss2d": [np.log(RNG.dirichlet(np.ones(3), (2, 4, 4))).transpose(0, 3, 1, 2),
                            RNG.integers(0, 3, (2, 4, 4))]}.get(name, [X, Y, POS][:n_args])
    yl, yt = ml(*[lg.tensor(a) for a in inputs]), mt(*[torch.tensor(a) for a in inputs])
    np.testing.assert_allclose(yl.numpy(), yt.numpy(), rtol=1e-10)


def test_nll_loss2d_is_deprecated_as_torch():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = nn.NLLLoss2d()
    assert isinstance(m, nn.NLLLoss)


# =============================================================================== activations, norms, distances
X4 = RNG.standard_normal((2, 4, 3, 3))
ACTS = {
    "prelu_channels": (lambda M, x, w: M.prelu(x, w), [X4, RNG.random(4)], [], True),
    "prelu_single": (lambda M, x, w: M.prelu(x, w), [X4, RNG.random(1)], [], True),
    "prelu_vector": (lambda M, x, w: M.prelu(x, w), [X[0], RNG.random(1)], [], True),
    "torch_prelu": (lambda M, x, w: (lg if M is F else torch).prelu(x, w), [X4, RNG.random(4)], [], True),
    "tensor_prelu": (lambda M, x, w: x.prelu(w), [X4, RNG.random(4)], [], True),
    "rrelu_eval": (lambda M, x: M.rrelu(x, 0.1, 0.4), [X4], [], True),
    "rrelu_eval_inplace": (lambda M, x: M.rrelu_(x * 1, 0.1, 0.4), [X4], [], True),
    "hardtanh_": (lambda M, x: M.hardtanh_(x * 1, -0.5, 0.8), [X4], [], False),
    "leaky_relu_": (lambda M, x: M.leaky_relu_(x * 1, 0.2), [X4], [], False),
    "leaky_relu_inplace": (lambda M, x: M.leaky_relu(x * 1, 0.3, inplace=True), [X4], [], False),
    "rms_norm_weight": (lambda M, x, w: M.rms_norm(x, [3], w), [X4, RNG.random(3)], [], True),
    "rms_norm_eps": (lambda M, x: M.rms_norm(x, (3, 3), eps=0.1), [X4], [], True),
    "rms_norm_default_eps": (lambda M, x: M.rms_norm(x, [4, 3, 3]), [X4], [], True),
    "channel_shuffle": (lambda M, x: M.channel_shuffle(x, 2), [X4], [], False),
    "pdist_2": (lambda M, x: M.pdist(x), [X], [], False),
    "pdist_1": (lambda M, x: M.pdist(x, 1), [X], [], False),
    "pdist_0": (lambda M, x: M.pdist(x, 0), [X], [], False),
    "pdist_inf": (lambda M, x: M.pdist(x, float("inf")), [X], [], False),
    "pdist_1_5": (lambda M, x: M.pdist(x, 1.5), [X], [], False),
    "torch_pdist": (lambda M, x: (lg if M is F else torch).pdist(x, 3), [X], [], False),
    "conv_tbc_pad1": (lambda M, x, w, b: (lg if M is F else torch).conv_tbc(x, w, b, 1),
                      [RNG.standard_normal((5, 2, 3)), RNG.standard_normal((3, 3, 4)), RNG.standard_normal(4)], [],
                      False),
    "alpha_dropout_eval": (lambda M, x: M.alpha_dropout(x, 0.4) * 1, [X4], [], False),
    "alpha_dropout_p1": (lambda M, x: M.alpha_dropout(x, 1.0, True), [X4], [], False),
    "feature_alpha_dropout_p1": (lambda M, x: M.feature_alpha_dropout(x, 1.0, True), [X4], [], False),
}


@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_against_torch(name):
    fn, diff, consts, second = ACTS[name]
    check(fn, diff, consts, second=second)


ACT_ERRORS = {
    "prelu_channels": lambda M, lib: M.prelu(lib.tensor(X4), lib.ones(3, dtype=lib.float64)),
    "prelu_2d_weight": lambda M, lib: M.prelu(lib.tensor(X4), lib.ones(2, 2, dtype=lib.float64)),
    "prelu_dtype": lambda M, lib: M.prelu(lib.tensor(X4), lib.ones(4)),
    "rrelu_bounds": lambda M, lib: M.rrelu(lib.tensor(X4), 0.5, 0.1),
    "rms_norm_shape": lambda M, lib: M.rms_norm(lib.tensor(X4), [4]),
    "rms_norm_weight": lambda M, lib: M.rms_norm(lib.tensor(X4), [3], lib.ones(2, dtype=lib.float64)),
    "shuffle_groups": lambda M, lib: M.channel_shuffle(lib.tensor(X4), 3),
    "shuffle_zero_groups": lambda M, lib: M.channel_shuffle(lib.tensor(X4), 0),
    "shuffle_dims": lambda M, lib: M.channel_shuffle(lib.tensor(X), 1),
    "pdist_dims": lambda M, lib: M.pdist(lib.tensor(X4)),
    "pdist_negative_p": lambda M, lib: M.pdist(lib.tensor(X), -1),
    "alpha_dropout_p": lambda M, lib: M.alpha_dropout(lib.tensor(X), 1.5),
    "softmax2d_dims": lambda M, lib: lib.nn.Softmax2d()(lib.tensor(X)),
    "cross_map_dims": lambda M, lib: lib.nn.CrossMapLRN2d(3)(lib.tensor(X)),
    "leaky_inplace_negative_slope": lambda M, lib: M.leaky_relu_(lib.tensor(X, requires_grad=True) * 1,
                                                                 -0.2).sum().backward(),
    "native_shuffle_backward": lambda M, lib: M.native_channel_shuffle(lib.tensor(X4, requires_grad=True),
                                                                       2).sum().backward(),
    "conv_tbc_channels": lambda M, lib: lib.conv_tbc(lib.zeros(5, 2, 3), lib.zeros(3, 2, 4), lib.zeros(4)),
}


@pytest.mark.parametrize("name", sorted(ACT_ERRORS))
def test_activation_errors_as_torch(name):
    call = ACT_ERRORS[name]
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


def test_native_channel_shuffle_values_and_node():
    xl, xt = lg.tensor(X4, requires_grad=True), torch.tensor(X4, requires_grad=True)
    yl, yt = F.native_channel_shuffle(xl, 2), TF.native_channel_shuffle(xt, 2)
    np.testing.assert_array_equal(yl.detach().numpy(), yt.detach().numpy())
    assert yl.grad_fn.name() == yt.grad_fn.name() == "torch::autograd::NotImplemented"


def test_rrelu_training_draws_slopes_in_range():
    x = lg.tensor(X4, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach().numpy()[X4 < 0]
    assert np.all((slopes >= 0.1) & (slopes <= 0.3)) and len(np.unique(slopes)) > 1
    np.testing.assert_array_equal(y.detach().numpy()[X4 > 0], X4[X4 > 0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[X4 < 0], slopes)  # the gradient is the drawn slope
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    z = x.detach().clone()
    assert F.rrelu_(z, 0.1, 0.3, training=True) is z and np.all(z.numpy()[X4 < 0] > X4[X4 < 0])


def test_alpha_dropout_training_keeps_mean_and_variance():
    lg.manual_seed(0)
    x = lg.randn(200000, dtype=lg.float64)
    y = F.alpha_dropout(x, 0.3, training=True)
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
    assert y.grad_fn is None and F.alpha_dropout(x, 0.3, training=False) is x
    chans = F.feature_alpha_dropout(lg.ones(4, 50, 3, 3, dtype=lg.float64), 0.5, training=True).numpy()
    assert np.all(chans == chans[:, :, :1, :1])  # one draw per (sample, channel)
    with raises_exactly(RuntimeError):
        F.feature_alpha_dropout(lg.ones(5), 0.5, training=True)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax(hard):
    logits = lg.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5, hard=hard)
    np.testing.assert_allclose(y.detach().numpy().sum(-1), 1.0)
    if hard:
        assert set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
        assert chain(y, 1).startswith("AddBackward0")
    y.backward(lg.tensor(RNG.standard_normal((4, 6))))
    assert logits.grad is not None and np.all(np.isfinite(logits.grad.numpy()))
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-3)


# =============================================================================== activation and norm modules
MODULES = [("PReLU", (4, 0.1)), ("RReLU", (0.1, 0.3)), ("RMSNorm", ([3, 3],)), ("RMSNorm", (3, 1e-3, False)),
           ("Softmax2d", ()), ("ChannelShuffle", (2,)), ("CrossMapLRN2d", (3,)), ("CrossMapLRN2d", (4, 1e-2, 0.5, 2)),
           ("AlphaDropout", (0.2,)), ("FeatureAlphaDropout", (0.2, True))]


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{m[0]}{i}" for i, m in enumerate(MODULES)])
def test_modules_against_torch(name, args):
    ml, mt = getattr(nn, name)(*args).double().eval(), getattr(torch.nn, name)(*args).double().eval()
    assert repr(ml) == repr(mt)
    assert [(n, tuple(p.shape)) for n, p in ml.named_parameters()] == \
           [(n, tuple(p.shape)) for n, p in mt.named_parameters()]
    ml.load_state_dict({k: lg.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    xl, xt = lg.tensor(X4, requires_grad=True), torch.tensor(X4, requires_grad=True)
    yl, yt = ml(xl), mt(xt)
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    v = RNG.standard_normal(X4.shape)
    yl.backward(lg.tensor(v))
    yt.backward(torch.tensor(v))
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for pl, pt in zip(ml.parameters(), mt.parameters()):
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-12)


# =============================================================================== EmbeddingBag
W_BAG = RNG.standard_normal((6, 3))
BAG_CASES = {
    "2d_mean": (np.array([[0, 2, 1], [5, 5, 0]]), None, {}),
    "2d_max": (np.array([[0, 2, 1], [5, 5, 0]]), None, {"mode": "max"}),
    "2d_sum_padding": (np.array([[0, 2, 1], [5, 5, 0]]), None, {"mode": "sum", "padding_idx": 5}),
    "1d_mean_empty_bag": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5]), {}),
    "1d_max": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5]), {"mode": "max"}),
    "1d_weights": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5]), {"mode": "sum", "psw": True}),
    "2d_weights": (np.array([[0, 2, 1], [5, 5, 0]]), None, {"mode": "sum", "psw": True}),
    "1d_mean_padding": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5]), {"padding_idx": 0}),
    "include_last_offset": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5]),
                            {"mode": "sum", "include_last_offset": True}),
    "include_last_offset_max": (np.array([0, 2, 1, 5, 5, 0, 3]), np.array([0, 2, 2, 5, 7]),
                                {"mode": "max", "include_last_offset": True, "padding_idx": 2}),
}


def _bag(lib, inp, off, kw, psw_values):
    kw = dict(kw)
    w = lib.tensor(W_BAG, requires_grad=True)
    psw = lib.tensor(psw_values, requires_grad=True) if kw.pop("psw", False) else None
    y = _mod(lib).embedding_bag(lib.tensor(inp), w, None if off is None else lib.tensor(off),
                                per_sample_weights=psw, **kw)
    (y * lib.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) * 0.1 + 1)).sum().backward()
    return y, w.grad, None if psw is None else psw.grad


@pytest.mark.parametrize("name", sorted(BAG_CASES))
def test_embedding_bag_against_torch(name):
    inp, off, kw = BAG_CASES[name]
    psw_values = RNG.random(inp.shape)
    out_l, gw_l, gp_l = _bag(lg, inp, off, kw, psw_values)
    out_t, gw_t, gp_t = _bag(torch, inp, off, kw, psw_values)
    np.testing.assert_allclose(out_l.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)
    assert out_l.grad_fn.name() == out_t.grad_fn.name() == "EmbeddingBagBackward0"
    np.testing.assert_allclose(gw_l.numpy(), gw_t.numpy(), rtol=1e-12)
    if gp_t is not None:
        np.testing.assert_allclose(gp_l.numpy(), gp_t.numpy(), rtol=1e-12)


BAG_ERRORS = {
    "2d_offsets": lambda M, lib: M.embedding_bag(lib.tensor([[0, 1]]), lib.tensor(W_BAG), lib.tensor([0])),
    "1d_no_offsets": lambda M, lib: M.embedding_bag(lib.tensor([0, 1]), lib.tensor(W_BAG)),
    "offsets_2d": lambda M, lib: M.embedding_bag(lib.tensor([0, 1]), lib.tensor(W_BAG), lib.tensor([[0]])),
    "input_3d": lambda M, lib: M.embedding_bag(lib.tensor([[[0]]]), lib.tensor(W_BAG)),
    "mode": lambda M, lib: M.embedding_bag(lib.tensor([[0]]), lib.tensor(W_BAG), mode="median"),
    "weights_mode": lambda M, lib: M.embedding_bag(lib.tensor([[0]]), lib.tensor(W_BAG),
                                                   per_sample_weights=lib.ones(1, 1, dtype=lib.float64)),
    "weights_shape": lambda M, lib: M.embedding_bag(lib.tensor([[0]]), lib.tensor(W_BAG), mode="sum",
                                                    per_sample_weights=lib.ones(2, dtype=lib.float64)),
    "weight_1d": lambda M, lib: M.embedding_bag(lib.tensor([[0]]), lib.tensor(W_BAG[0])),
    "max_scale": lambda M, lib: M.embedding_bag(lib.tensor([[0]]), lib.tensor(W_BAG), mode="max",
                                                scale_grad_by_freq=True),
    "module_padding": lambda M, lib: lib.nn.EmbeddingBag(4, 2, padding_idx=4),
}


@pytest.mark.parametrize("name", sorted(BAG_ERRORS))
def test_embedding_bag_errors_as_torch(name):
    call = BAG_ERRORS[name]
    if name == "2d_offsets":  # (the message names the offsets' class, which differs)
        with raises_exactly(ValueError, match="if input is 2D, then offsets has to be None"):
            call(F, lg)
        return
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


def test_embedding_bag_module():
    for kwargs in ({}, {"mode": "max", "padding_idx": 1, "max_norm": 1.0}, {"mode": "sum", "norm_type": 3.0}):
        assert repr(nn.EmbeddingBag(5, 3, **kwargs)) == repr(torch.nn.EmbeddingBag(5, 3, **kwargs))
    bag = nn.EmbeddingBag(6, 3, mode="sum", padding_idx=2)
    assert np.all(bag.weight.detach().numpy()[2] == 0)
    pre = nn.EmbeddingBag.from_pretrained(lg.tensor(W_BAG), mode="max")
    assert not pre.weight.requires_grad
    out = pre(lg.tensor([[0, 1], [2, 3]]))
    np.testing.assert_allclose(out.numpy(), np.maximum(W_BAG[[0, 2]], W_BAG[[1, 3]]))


# =============================================================================== AdaptiveLogSoftmaxWithLoss
def _asm_pair():
    mt = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True).double()
    ml = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True).double()
    ml.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    return ml, mt


def test_adaptive_log_softmax_against_torch():
    ml, mt = _asm_pair()
    assert repr(ml) == repr(mt)
    x = RNG.standard_normal((5, 8))
    t = np.array([0, 4, 9, 2, 7])
    xl, xt = lg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ol, ot = ml(xl, lg.tensor(t)), mt(xt, torch.tensor(t))
    np.testing.assert_allclose(ol.output.detach().numpy(), ot.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ol.loss.item(), ot.loss.item(), rtol=1e-12)
    ol.loss.backward()
    ot.loss.backward()
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    for pl, pt in zip(ml.parameters(), mt.parameters()):
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ml.log_prob(xl).detach().numpy(), mt.log_prob(xt).detach().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(ml.predict(xl).numpy(), mt.predict(xt).numpy())
    one_l, one_t = ml(xl[0], lg.tensor(t[0])), mt(xt[0], torch.tensor(t[0]))
    assert tuple(one_l.output.shape) == tuple(one_t.output.shape) == ()
    np.testing.assert_allclose(one_l.output.item(), one_t.output.item(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib, m: m(lib.zeros(5, 8, dtype=lib.float64), lib.tensor([0, 1, 2, 3, 10])),
    lambda lib, m: m(lib.zeros(4, 8, dtype=lib.float64), lib.tensor([0, 1, 2, 3, 4])),
    lambda lib, m: m(lib.zeros(8, dtype=lib.float64), lib.tensor([0])),
    lambda lib, m: m(lib.zeros(5, 8, dtype=lib.float64), lib.tensor(0)),
    lambda lib, m: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
    lambda lib, m: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
], ids=["target_range", "batch", "0d_target", "1d_input", "cutoffs_order", "cutoffs_empty"])
def test_adaptive_log_softmax_errors(call):
    ml, mt = _asm_pair()
    same_error(lambda: call(lg, ml), lambda: call(torch, mt))


# =============================================================================== lazy modules
def test_uninitialized_parameter_rules():
    m = nn.LazyLinear(3)
    w = m.weight
    assert repr(w) == "<UninitializedParameter>" and isinstance(w, nn.Parameter)
    assert nn.parameter.is_lazy(w) and m.has_uninitialized_params()
    assert w.requires_grad and w.dtype is lg.float32 and w.is_leaf and w.grad is None
    with raises_exactly(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        w.shape
    with raises_exactly(ValueError, match="Attempted to use an uninitialized parameter"):
        w.sum()
    with raises_exactly(ValueError, match="Attempted to use an uninitialized parameter"):
        w + 1
    assert repr(m) == repr(torch.nn.LazyLinear(3))
    assert {k: type(v).__name__ for k, v in m.state_dict().items()} == {"weight": "UninitializedParameter",
                                                                        "bias": "UninitializedParameter"}


def test_lazy_linear_materialises_on_first_forward():
    m = nn.LazyLinear(3)
    weight = m.weight
    opt = lg.optim.SGD(m.parameters(), lr=0.1)  # built before the first batch, as torch allows
    y = m(lg.randn(2, 4))
    assert type(m) is nn.Linear and repr(m) == "Linear(in_features=4, out_features=3, bias=True)"
    assert m.weight is weight and type(weight) is nn.Parameter and tuple(weight.shape) == (3, 4)
    assert len(m._forward_pre_hooks) == 0 and y.grad_fn.name() == "AddmmBackward0"
    bound = 1 / np.sqrt(4)
    assert np.all(np.abs(weight.detach().numpy()) <= bound)
    before = weight.detach().clone()
    y.sum().backward()
    opt.step()
    assert not np.allclose(before.numpy(), weight.detach().numpy())


def test_lazy_state_dict_rules():
    m = nn.LazyLinear(3)
    m.load_state_dict(nn.Linear(5, 3).state_dict())  # real values: the placeholders take their shapes
    assert type(m) is nn.LazyLinear and not m.has_uninitialized_params() and m.in_features == 0
    m(lg.randn(1, 5))
    assert type(m) is nn.Linear and m.in_features == 5
    lazy = nn.LazyLinear(3)
    lazy.load_state_dict(nn.LazyLinear(3).state_dict())  # placeholders into placeholders: nothing happens
    assert lazy.has_uninitialized_params()
    lazy.double()
    assert lazy.weight.dtype is lg.float64 and nn.parameter.is_lazy(lazy.weight)
    lazy(lg.randn(2, 4, dtype=lg.float64))
    assert lazy.weight.dtype is lg.float64


LAZY = [
    ("LazyConv1d", (4, 3), {}, (5, 6)), ("LazyConv2d", (4, 3), {"stride": 2}, (2, 5, 6, 6)),
    ("LazyConvTranspose1d", (4, 3), {}, (2, 6, 5)), ("LazyConvTranspose2d", (4, 3), {"groups": 2}, (1, 6, 6, 6)),
    ("LazyBatchNorm1d", (), {}, (4, 3)), ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 4)), ("LazyInstanceNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 2, 2)), ("LazyLinear", (5,), {}, (2, 7)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAZY, ids=[c[0] for c in LAZY])
def test_lazy_modules_against_torch(name, args, kwargs, shape):
    ml, mt = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ml) == repr(mt)
    assert {k: type(v).__name__ for k, v in ml.state_dict().items()} == \
           {k: type(v).__name__ for k, v in mt.state_dict().items()}
    x = RNG.standard_normal(shape).astype(np.float32)
    ml(lg.tensor(x))
    mt(torch.tensor(x))
    assert type(ml).__name__ == type(mt).__name__ and repr(ml) == repr(mt)
    assert {k: tuple(v.shape) for k, v in ml.state_dict().items()} == \
           {k: tuple(v.shape) for k, v in mt.state_dict().items()}
    ml.load_state_dict({k: lg.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    x2 = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(ml.eval()(lg.tensor(x2)).detach().numpy(), mt.eval()(torch.tensor(x2)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_lazy_conv_rejects_bad_input_as_torch():
    same_error(lambda: nn.LazyConv2d(4, 3)(lg.zeros(5, 6)), lambda: torch.nn.LazyConv2d(4, 3)(torch.zeros(5, 6)))
    same_error(lambda: nn.LazyConv2d(4, 3, groups=2)(lg.zeros(1, 3, 5, 5)),
               lambda: torch.nn.LazyConv2d(4, 3, groups=2)(torch.zeros(1, 3, 5, 5)))


# =============================================================================== Container, DataParallel, SyncBatchNorm
def test_container_is_deprecated_as_torch():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(a=nn.Linear(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(c) == repr(torch.nn.Container(a=torch.nn.Linear(2, 3)))


def test_data_parallel_without_gpus_wraps_the_module():
    inner = nn.Linear(2, 3)
    dp = nn.DataParallel(inner)
    assert dp.module is inner and dp.device_ids == [] and nn.parallel.DataParallel is nn.DataParallel
    assert list(dp.state_dict()) == list(torch.nn.DataParallel(torch.nn.Linear(2, 3)).state_dict())
    assert repr(dp) == repr(torch.nn.DataParallel(torch.nn.Linear(2, 3)))
    x = lg.randn(4, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), inner(x).detach().numpy())


def test_sync_batch_norm_on_cpu_is_batch_norm():
    sl, st = nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    assert repr(sl) == repr(st)
    x = RNG.standard_normal((4, 3, 2))
    np.testing.assert_allclose(sl(lg.tensor(x)).detach().numpy(), st(torch.tensor(x)).detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(sl.running_var.numpy(), st.running_var.numpy(), rtol=1e-10)
    assert int(sl.num_batches_tracked) == 1
    same_error(lambda: nn.SyncBatchNorm(3)(lg.zeros(3)), lambda: torch.nn.SyncBatchNorm(3)(torch.zeros(3)))
    model_l = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.InstanceNorm2d(4))
    model_t = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.BatchNorm2d(4), torch.nn.InstanceNorm2d(4))
    bn_weight = model_l[1].weight
    conv_l = nn.SyncBatchNorm.convert_sync_batchnorm(model_l)
    conv_t = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model_t)
    assert [type(m).__name__ for m in conv_l] == [type(m).__name__ for m in conv_t]
    assert conv_l[1].weight is bn_weight


# =============================================================================== __torch_function__ helpers
def test_torch_function_helpers():
    x = lg.ones(2)
    assert not F.has_torch_function((x, 1.0)) and not F.has_torch_function_unary(x)
    assert not F.has_torch_function_variadic(x, nn.Parameter(lg.ones(1)))

    class Override:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__)

    assert F.has_torch_function_variadic(x, Override())
    assert F.handle_torch_function(F.relu, (Override(),), Override()) == ("handled", "relu")
    pick = F.boolean_dispatch("flag", 1, False, lambda a, flag=False: ("true", a), lambda a, flag=False: ("false", a),
                              "m", "picked")
    assert pick(1) == ("false", 1) and pick(1, True) == ("true", 1) and pick(1, flag=True) == ("true", 1)
    assert pick.__name__ == "picked"
    F.assert_int_or_pair(3, "k", "{} must be int or pair")
    F.assert_int_or_pair((1, 2), "k", "{} must be int or pair")
    with raises_exactly(AssertionError, match="k must be int or pair"):
        F.assert_int_or_pair((1, 2, 3), "k", "{} must be int or pair")
    assert F.Optional is TF.Optional


# =============================================================================== linear_cross_entropy
LCE = {
    "plain": (lambda M, x, w, t: M.linear_cross_entropy(x, w, t), [X, RNG.standard_normal((4, 5))], [np.array([0, 3, 1])]),
    "bias_sum": (lambda M, x, w, b, t: M.linear_cross_entropy(x, w, t, linear_bias=b, reduction="sum"),
                 [X, RNG.standard_normal((4, 5)), RNG.standard_normal(4)], [np.array([0, 3, 1])]),
    "k_dim": (lambda M, x, w, b, t: M.linear_cross_entropy(x, w, t, linear_bias=b, reduction="none"),
              [X, RNG.standard_normal((4, 2, 5)), RNG.standard_normal((4, 2))], [np.array([[0, 1], [3, 3], [1, 2]])]),
    "smoothing_ignore": (lambda M, x, w, t: M.linear_cross_entropy(x, w, t, label_smoothing=0.1, ignore_index=1),
                         [X, RNG.standard_normal((4, 5))], [np.array([0, 1, 2])]),
    "probabilities": (lambda M, x, w, t: M.linear_cross_entropy(x, w, t), [X, RNG.standard_normal((4, 5))],
                      [RNG.dirichlet(np.ones(4), 3)]),
    "unbatched": (lambda M, x, w, t: M.linear_cross_entropy(x, w, t), [X[0], RNG.standard_normal((4, 5))],
                  [np.array(2)]),
}


@pytest.mark.parametrize("name", sorted(LCE))
def test_linear_cross_entropy_against_torch(name):
    fn, diff, consts = LCE[name]
    check(fn, diff, consts)


@pytest.mark.parametrize("call", [
    lambda M, lib: M.linear_cross_entropy(lib.zeros(2, 2, 3), lib.zeros(4, 3), lib.tensor([0, 1])),
    lambda M, lib: M.linear_cross_entropy(lib.zeros(2, 3), lib.zeros(4, 2), lib.tensor([0, 1])),
    lambda M, lib: M.linear_cross_entropy(lib.zeros(2, 3), lib.zeros(3), lib.tensor([0, 1])),
    lambda M, lib: M.linear_cross_entropy(lib.zeros(2, 3), lib.zeros(4, 3), lib.tensor([0, 1]),
                                          linear_bias=lib.zeros(3)),
    lambda M, lib: M.linear_cross_entropy(lib.zeros(3), lib.zeros(4, 2, 3), lib.tensor(0)),
    lambda M, lib: M.linear_cross_entropy(lib.zeros(2, 3), lib.zeros(4, 3), lib.zeros(2, 4), ignore_index=0),
    lambda M, lib: lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(3)),
    lambda M, lib: lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5),
], ids=["input_3d", "in_features", "weight_1d", "bias_shape", "k_dim_unbatched", "probabilities_ignore",
        "module_weight", "module_smoothing"])
def test_linear_cross_entropy_errors_as_torch(call):
    same_error(lambda: call(F, lg), lambda: call(TF, torch))


@pytest.mark.parametrize("kwargs", [{}, {"out_features": (2,), "bias": True, "reduction": "sum"}])
def test_linear_cross_entropy_module_against_torch(kwargs):
    ml, mt = nn.LinearCrossEntropyLoss(5, 4, **kwargs).double(), torch.nn.LinearCrossEntropyLoss(5, 4, **kwargs).double()
    assert repr(ml) == repr(mt)
    ml.load_state_dict({k: lg.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    t = np.array([[0, 1], [3, 3], [1, 2]]) if kwargs else np.array([0, 3, 1])
    np.testing.assert_allclose(ml(lg.tensor(X), lg.tensor(t)).item(), mt(torch.tensor(X), torch.tensor(t)).item(),
                               rtol=1e-12)


@pytest.mark.parametrize("target_lengths,input_lengths", [([2, 0, 2], [6, 6, 6]), ([2, 0, 2], [6, 0, 6]),
                                                          ([3, 3, 3], [6, 6, 6])])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_empty_targets_and_inputs(target_lengths, input_lengths, reduction):
    targets = np.array([[1, 2, 1], [1, 1, 2], [3, 1, 3]])
    check(lambda M, a, t, il, tl: M.ctc_loss(a, t, il, tl, reduction=reduction), [LP],
          [targets, np.array(input_lengths), np.array(target_lengths)], second=False)


LAZY_3D = [("LazyConv3d", (4, 3), (2, 5, 4, 4, 4)), ("LazyConvTranspose3d", (4, 3), (2, 6, 3, 3, 3)),
           ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2))]


@pytest.mark.parametrize("name,args,shape", LAZY_3D, ids=[c[0] for c in LAZY_3D])
def test_lazy_3d_modules_where_the_3d_layers_exist(name, args, shape):
    if not hasattr(nn.modules, name.replace("Lazy", "")):
        assert not hasattr(nn.modules, name)  # bound only with their non-lazy layer
        pytest.skip(f"nn.{name.replace('Lazy', '')} is not in this build")
    ml, mt = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ml) == repr(mt)
    x = RNG.standard_normal(shape).astype(np.float32)
    ml(lg.tensor(x))
    mt(torch.tensor(x))
    assert type(ml).__name__ == type(mt).__name__ and repr(ml) == repr(mt)
    assert {k: tuple(v.shape) for k, v in ml.state_dict().items()} == \
           {k: tuple(v.shape) for k, v in mt.state_dict().items()}
