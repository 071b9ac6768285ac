"""gradcheck (float64, tiny sizes) for the nn ops, and gradgradcheck (double backward) for the
convolution, linear layers, pooling, norms, losses and activations. No torch needed."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
import leafgrad.nn.functional as F
from leafgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def T(*shape, low=None, high=None):
    a = RNG.standard_normal(shape) if low is None else RNG.uniform(low, high, shape)
    return lg.tensor(a, requires_grad=True)


RM, RV = lg.tensor(RNG.standard_normal(2)), lg.tensor(RNG.uniform(0.5, 2, 2))

CASES = {
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), lambda: [T(1, 2, 5, 5), T(3, 2, 3, 3), T(3)]),
    "conv2d_groups_dilation": (lambda x, w: F.conv2d(x, w, padding=(1, 0), dilation=(1, 2), groups=2),
                               lambda: [T(2, 4, 4, 5), T(2, 2, 2, 2)]),
    "conv2d_same_even_kernel": (lambda x, w: F.conv2d(x, w, padding="same"), lambda: [T(1, 2, 4, 4), T(2, 2, 2, 3)]),
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), lambda: [T(2, 2, 6), T(3, 2, 3), T(3)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda: [T(3, 4), T(2, 4), T(2)]),
    "linear_batched": (lambda x, w, b: F.linear(x, w, b), lambda: [T(2, 3, 4), T(2, 4), T(2)]),
    "bilinear": (lambda x, y, w, b: F.bilinear(x, y, w, b), lambda: [T(2, 3), T(2, 2), T(2, 3, 2), T(2)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1), lambda: [T(1, 2, 5, 5)]),
    "max_pool2d_fast_path": (lambda x: F.max_pool2d(x, 2), lambda: [T(1, 2, 4, 4)]),
    "max_pool2d_ceil_dilated": (lambda x: F.max_pool2d(x, 2, 2, 0, 2, ceil_mode=True), lambda: [T(1, 1, 6, 5)]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                   lambda: [T(1, 2, 5, 6)]),
    "avg_pool2d_fast_path": (lambda x: F.avg_pool2d(x, 2), lambda: [T(1, 2, 4, 4)]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)), lambda: [T(1, 2, 5, 5)]),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, True), lambda: [T(3, 2, 2, 2), T(2), T(2)]),
    "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, RM, RV, w, b, False), lambda: [T(3, 2, 2), T(2), T(2)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3,), w, b), lambda: [T(2, 3), T(3), T(3)]),
    "layer_norm_2d": (lambda x: F.layer_norm(x, (2, 3)), lambda: [T(2, 2, 3)]),
    "embedding": (lambda w: F.embedding(lg.tensor([[0, 2, 2], [1, 3, 0]]), w), lambda: [T(4, 3)]),
    "gelu": (lambda x: F.gelu(x), lambda: [T(6)]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda: [T(6)]),
    "silu": (lambda x: F.silu(x), lambda: [T(6)]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda: [T(6)]),
    "elu": (lambda x: F.elu(x, 0.7), lambda: [T(6)]),
    "softplus": (lambda x: F.softplus(x, 2.0, 1.0), lambda: [T(6)]),
    "logsigmoid": (lambda x: F.logsigmoid(x), lambda: [T(6)]),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.5), lambda: [T(6)]),
    "mse_loss": (lambda x, y: F.mse_loss(x, y), lambda: [T(2, 3), T(2, 3)]),
    "mse_loss_none": (lambda x, y: F.mse_loss(x, y, reduction="none"), lambda: [T(2, 3), T(2, 3)]),
    "l1_loss": (lambda x, y: F.l1_loss(x, y), lambda: [T(2, 3), T(2, 3)]),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"), lambda: [T(2, 3), T(2, 3)]),
    "huber_loss": (lambda x, y: F.huber_loss(x, y, delta=0.5), lambda: [T(2, 3), T(2, 3)]),
    "binary_cross_entropy": (lambda x, y: F.binary_cross_entropy(x, y, weight=lg.tensor([1.0, 2.0, 0.5], dtype=lg.float64)),
                             lambda: [T(2, 3, low=0.1, high=0.9), T(2, 3, low=0.1, high=0.9)]),
    "bce_with_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=lg.tensor([1.0, 2.0, 0.5], dtype=lg.float64)),
                        lambda: [T(2, 3), T(2, 3, low=0.1, high=0.9)]),
    "cross_entropy": (lambda x: F.cross_entropy(x, lg.tensor([0, 2, -100]), weight=lg.tensor([1.0, 2.0, 0.5], dtype=lg.float64)),
                      lambda: [T(3, 3)]),
    "cross_entropy_smoothing": (lambda x: F.cross_entropy(x, lg.tensor([0, 2, 1]), label_smoothing=0.2),
                                lambda: [T(3, 3)]),
    "cross_entropy_probs": (lambda x, p: F.cross_entropy(x, p), lambda: [T(2, 3), T(2, 3, low=0.1, high=0.9)]),
    "nll_loss_none": (lambda x: F.nll_loss(x, lg.tensor([0, 2]), reduction="none"), lambda: [T(2, 3)]),
    "nll_loss_2d": (lambda x: F.nll_loss(x, lg.tensor([[[0, 2]]])), lambda: [T(1, 3, 1, 2)]),
    "pad": (lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), lambda: [T(2, 2)]),
}

# gradgradcheck where it is meaningful (piecewise-linear ops have zero second derivatives,
# but their backward must still be differentiable in the incoming gradient)
DOUBLE = set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


def test_embedding_backward_options_are_differentiable():
    w = T(4, 3)
    assert gradgradcheck(lambda w: F.embedding(lg.tensor([[0, 2, 2], [1, 3, 0]]), w, padding_idx=1,
                                               scale_grad_by_freq=True), [w])


def test_conv_double_backward_records_convolution_nodes():
    x, w = T(1, 2, 4, 4), T(3, 2, 3, 3)
    out = F.conv2d(x, w, padding=1)
    gx, gw = lg.autograd.grad(out.sum(), (x, w), create_graph=True)
    assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
    assert gw.grad_fn.name() == "ConvolutionBackwardBackward0"
    (gx.pow(2).sum() + gw.pow(2).sum()).backward()
    assert x.grad is not None and w.grad is not None
