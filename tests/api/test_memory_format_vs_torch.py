"""torch's memory formats: ``channels_last`` & co. lay tensors out as torch does (``stride()``,
``is_contiguous(memory_format=...)``), ``clone``/``*_like`` preserve a layout by default, ``to``/
``contiguous`` return ``self`` exactly when torch does, and the NN kernels keep a channels-last
input's layout through a training step (see ``_ops/layout.py``)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import leafgrad as lg
from differential import raises_exactly

torch = pytest.importorskip("torch")

_A = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
_A5 = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)


def _observe(lib, expr):
    x = lib.tensor(_A)
    x5 = lib.tensor(_A5)
    y = x.permute(3, 2, 1, 0)[::2]  # (neither dense nor channels-last)
    env = dict(t=lib, x=x, x5=x5, y=y, cl=x.contiguous(memory_format=lib.channels_last))
    try:
        out = eval(expr, env)
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e), str(e).split(":")[0]
    if hasattr(out, "stride"):
        return tuple(out.shape), tuple(out.stride()), out.detach().numpy().tolist() if out.dtype.is_floating_point else 0
    if hasattr(out, "name"):
        return out.name()
    return out


_EXPRS = [
    "x.is_contiguous(memory_format=t.channels_last)", "cl.is_contiguous(memory_format=t.channels_last)",
    "cl.is_contiguous()", "x.is_contiguous(memory_format=t.contiguous_format)",
    "x.is_contiguous(memory_format=t.preserve_format)", "t.ones(3, 4).is_contiguous(memory_format=t.channels_last)",
    "t.ones(2, 1, 4, 5).is_contiguous(memory_format=t.channels_last)",
    "x5.to(memory_format=t.channels_last_3d).is_contiguous(memory_format=t.channels_last_3d)",
    "cl.is_contiguous(memory_format=t.channels_last_3d)",
    "cl", "x.clone(memory_format=t.channels_last)", "x.to(memory_format=t.channels_last)", "cl.clone()",
    "cl.contiguous()", "cl.clone(memory_format=t.contiguous_format)", "x.permute(0, 2, 1, 3).clone()", "y.clone()",
    "x[:, :, ::2].clone()", "x.to(t.float64, memory_format=t.channels_last)", "cl.double()", "cl.to(t.float16)",
    "x.permute(0, 2, 1, 3).to(memory_format=t.contiguous_format)",
    "x.permute(0, 2, 1, 3).to(t.float64, memory_format=t.contiguous_format)",
    "x5.to(memory_format=t.channels_last_3d)", "x.float(memory_format=t.channels_last)",
    "t.zeros_like(cl)", "t.ones_like(y)", "t.empty_like(x.permute(0, 2, 1, 3)).stride()", "t.full_like(cl, 2.0)",
    "t.zeros_like(x, memory_format=t.channels_last)", "t.zeros_like(cl, memory_format=t.contiguous_format)",
    "t.rand_like(cl).stride()", "t.randn_like(y).stride()", "t.randint_like(cl, 5).stride()",
    "t.empty(2, 3, 4, 5, memory_format=t.channels_last).stride()",
    "x.to(memory_format=t.channels_last) is x", "cl.to(memory_format=t.channels_last) is cl",
    "x.to(memory_format=t.contiguous_format) is x", "x.to(memory_format=t.preserve_format) is x",
    "x.contiguous(memory_format=t.contiguous_format) is x", "cl.contiguous(memory_format=t.channels_last) is cl",
    "x.contiguous(memory_format=t.preserve_format) is x",
    "x.requires_grad_().to(memory_format=t.channels_last).grad_fn",
    "x.requires_grad_().contiguous(memory_format=t.channels_last).grad_fn",
    "x.requires_grad_().clone(memory_format=t.channels_last).grad_fn",
    # refused as torch refuses
    "t.ones(3, 4).contiguous(memory_format=t.channels_last)", "t.ones(3, 4).to(memory_format=t.channels_last)",
    "t.ones(3, 4).clone(memory_format=t.channels_last)", "x5.to(memory_format=t.channels_last)",
    "t.empty(3, 4, memory_format=t.channels_last)", "x.to(memory_format=t.channels_last_3d)",
    "t.zeros_like(t.ones(3), memory_format=t.channels_last)",
    # what the names are
    "repr(t.channels_last)", "str(t.preserve_format)", "repr(t.contiguous_format)", "repr(t.channels_last_3d)",
    "type(t.channels_last).__name__", "t.channels_last == t.channels_last", "t.channels_last == t.contiguous_format",
]


@pytest.mark.parametrize("expr", _EXPRS)
def test_memory_format_as_torch(expr):
    ours, theirs = _observe(lg, expr), _observe(torch, expr)
    if isinstance(theirs, tuple) and theirs and isinstance(theirs[0], type):  # raised
        assert ours[0] is theirs[0] and ours[1] == theirs[1], (ours, theirs)
    else:
        assert ours == theirs


def test_memory_formats_pickle_to_themselves():
    for f in (lg.channels_last, lg.contiguous_format, lg.preserve_format, lg.channels_last_3d):
        assert pickle.loads(pickle.dumps(f)) is f
    assert isinstance(lg.channels_last, lg.memory_format)


def _nn_layouts(lib):
    F = lib.nn.functional
    rng = np.random.default_rng(2)
    w = lib.tensor(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    ops = {
        "conv2d": lambda x: F.conv2d(x, w, padding=1), "conv2d_bias": lambda x: F.conv2d(x, w, lib.ones(4)),
        "conv_transpose2d": lambda x: F.conv_transpose2d(x, lib.ones(3, 2, 3, 3)),
        "max_pool2d": lambda x: F.max_pool2d(x, 2), "max_pool2d_indices": lambda x: F.max_pool2d(x, 2, return_indices=True)[1],
        "avg_pool2d": lambda x: F.avg_pool2d(x, 2), "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, 3),
        "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, 3),
        "batch_norm": lambda x: F.batch_norm(x, None, None, training=True),
        "batch_norm_eval": lambda x: F.batch_norm(x, lib.zeros(3), lib.ones(3)), "group_norm": lambda x: F.group_norm(x, 3),
        "instance_norm": lambda x: F.instance_norm(x), "layer_norm": lambda x: F.layer_norm(x, (8,)),
        "nearest": lambda x: F.interpolate(x, scale_factor=2), "bilinear": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        "pad": lambda x: F.pad(x, (1, 1, 1, 1)), "reflect": lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"),
        "replicate": lambda x: F.pad(x, (1, 2, 0, 1), mode="replicate"),
        "pixel_shuffle": lambda x: F.pixel_shuffle(lib.cat([x, x, x, x], 1), 2),
        "pixel_unshuffle": lambda x: F.pixel_unshuffle(x, 2), "relu": lambda x: F.relu(x), "add": lambda x: x + 1,
        "mul": lambda x: x * x, "softmax": lambda x: x.softmax(1), "sum": lambda x: x.sum(1, keepdim=True),
        "mean": lambda x: x.mean((2, 3), keepdim=True), "clone": lambda x: x.clone(), "cat": lambda x: lib.cat([x, x], 1),
        "cat_mixed": lambda x: lib.cat([x, x.contiguous()], 1), "zeros_like": lambda x: lib.zeros_like(x),
        "cl_weight": lambda x: F.conv2d(x.contiguous(), w.contiguous(memory_format=lib.channels_last)),
    }
    a = np.random.default_rng(3).standard_normal((2, 3, 8, 8)).astype(np.float32)
    out = {}
    for name, f in ops.items():
        for layout in ("contiguous", "channels_last"):
            x = lib.tensor(a)
            if layout == "channels_last":
                x = x.contiguous(memory_format=lib.channels_last)
            y = f(x)
            out[name, layout] = (tuple(y.shape), tuple(y.stride()))
    return out


def test_nn_kernels_keep_a_channels_last_layout_as_torch():
    ours, theirs = _nn_layouts(lg), _nn_layouts(torch)
    assert {k: v for k, v in ours.items() if theirs[k] != v} == {}


def test_a_channels_last_training_step_matches_torch():
    """A small CNN converted with ``model.to(memory_format=torch.channels_last)``: the weights' and the
    activations' layouts, the loss and the gradients (laid out as the weights are) are torch's."""
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    ys = rng.integers(0, 5, 4)
    got = []
    for lib in (lg, torch):
        lib.manual_seed(0)
        nn = lib.nn
        model = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(6, 4, 3), nn.Flatten(), nn.Linear(16, 5))
        got.append(model)
    # the same weights in both
    with torch.no_grad():
        for p in got[1].parameters():
            p.copy_(torch.randn(p.shape))
    lg_params = dict(got[0].named_parameters())
    for name, p in got[1].named_parameters():
        lg_params[name].data = lg.tensor(p.detach().numpy())
    seen = []
    for lib, model in zip((lg, torch), got):
        model.to(memory_format=lib.channels_last)
        x = lib.tensor(xs).to(memory_format=lib.channels_last)
        h = model[0](x)
        loss = lib.nn.functional.cross_entropy(model(x), lib.tensor(ys))
        loss.backward()
        seen.append(dict(
            weight_stride=tuple(model[0].weight.stride()), act_stride=tuple(h.stride()),
            act_cl=h.is_contiguous(memory_format=lib.channels_last), loss=float(loss),
            grads={n: (tuple(p.grad.shape), p.grad.numpy()) for n, p in model.named_parameters()}))
    ours, theirs = seen
    assert ours["weight_stride"] == theirs["weight_stride"] and ours["act_stride"] == theirs["act_stride"]
    assert ours["act_cl"] and theirs["act_cl"]
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-5)
    for n, (shape, g) in theirs["grads"].items():
        assert ours["grads"][n][0] == shape
        np.testing.assert_allclose(ours["grads"][n][1], g, rtol=1e-4, atol=1e-5)


def test_channels_last_refusal_is_exactly_runtime_error():
    with raises_exactly(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        lg.ones(3, 4).contiguous(memory_format=lg.channels_last)


def test_grad_of_a_non_contiguous_leaf_is_laid_out_as_torch():
    """torch's layout contract for ``.grad``: laid out as the leaf when the leaf is dense (transposed,
    permuted, channels-last), row-major when it is not (a strided slice); with and without a hook,
    and when a second backward accumulates into it."""
    def run(lib):
        rng = np.random.default_rng(5)
        out = []
        leaves = [lib.tensor(rng.standard_normal((3, 4)).astype(np.float32)).t(),
                  lib.tensor(rng.standard_normal((2, 3, 4)).astype(np.float32)).permute(2, 0, 1),
                  lib.tensor(rng.standard_normal((6, 4)).astype(np.float32))[::2],
                  lib.tensor(rng.standard_normal((2, 3, 4, 5)).astype(np.float32)).contiguous(
                      memory_format=lib.channels_last)]
        for k, leaf in enumerate(leaves):
            leaf.requires_grad_()
            if k == 1:
                leaf.register_hook(lambda g: g * 1)
            (leaf.exp() * 2).sum().backward()
            (leaf * 3).sum().backward()
            out.append((tuple(leaf.grad.stride()), leaf.grad.numpy().tolist()))
        return out
    ours, theirs = run(lg), run(torch)
    for (s1, v1), (s2, v2) in zip(ours, theirs):
        assert s1 == s2
        np.testing.assert_allclose(v1, v2, rtol=1e-6)
