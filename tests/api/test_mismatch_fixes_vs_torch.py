"""Small torch mismatches of issue 14, each checked against torch: huber_loss's delta check,
normalize(out=) under autograd, var_mean/std_mean's saved correction, and the saved-value
attributes torch shows on NativeLayerNormBackward0, EmbeddingBackward0 and ConvolutionBackward0.

Known difference left out: the input a 'same'-padded convolution with an even kernel saves (torch keeps its
padded copy). (``var_mean(x, None)``'s saved correction: tests/api/test_late_mismatches_vs_torch.py.)"""
import numpy as np
import pytest
from differential import raises_exactly, same

torch = pytest.importorskip("torch")
import leafgrad  # noqa: E402

_X = np.random.default_rng(14).standard_normal((3, 4))
_Y = np.random.default_rng(15).standard_normal((3, 4))


def _t(m, a, grad=False):
    return m.tensor(a, dtype=m.float64, requires_grad=grad)


@pytest.mark.parametrize("delta", [0.0, -1.0, float("nan"), 0.5])
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_huber_loss_refuses_non_positive_delta_like_torch(delta, grad, weighted):
    def run(m):
        w = _t(m, np.ones((3, 4))) if weighted else None
        out = m.nn.functional.huber_loss(_t(m, _X, grad), _t(m, _Y), delta=delta, weight=w)
        return out
    same(torch, run)


def test_huber_loss_module_refuses_zero_delta():
    with raises_exactly(RuntimeError, match="^huber_loss does not support non-positive values for delta"):
        leafgrad.nn.HuberLoss(delta=0.0)(_t(leafgrad, _X), _t(leafgrad, _Y))


@pytest.mark.parametrize("case", ["input_grad", "out_grad", "no_grad_mode", "plain"])
def test_normalize_out_follows_div_out_rules_like_torch(case):
    def run(m):
        x = _t(m, _X, case in ("input_grad", "no_grad_mode"))
        out = m.zeros(3, 4, dtype=m.float64, requires_grad=case == "out_grad")
        if case == "no_grad_mode":
            with m.no_grad():
                r = m.nn.functional.normalize(x, out=out)
        else:
            try:
                r = m.nn.functional.normalize(x, out=out)
            except RuntimeError:
                # nothing written into out by the refused call
                assert not out.detach().numpy().any()
                raise
        return r is out, out, out._version
    same(torch, run)


_MOMENT_CALLS = [((), {}), ((), {"correction": 0}), ((), {"correction": 1}), ((), {"unbiased": False}),
                 ((), {"unbiased": True}), ((), {"keepdim": True}), ((0,), {}), (([0, 1],), {}),
                 ((0,), {"keepdim": True}), ((0, False), {}), ((False,), {}), ((1,), {"correction": 2})]


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("args,kwargs", _MOMENT_CALLS)
def test_moments_saved_correction_matches_torch(fn, args, kwargs):
    def run(m):
        x = _t(m, _X, True)
        v, mean = getattr(m, fn)(x, *args, **kwargs)
        (v.sum() + mean.sum()).backward()
        g = v.grad_fn
        return g.name(), g._saved_correction, g._saved_dim, g._saved_keepdim, v, mean, x.grad
    same(torch, run)


def _saved_attrs(node):
    """The node's ``_saved_<name>`` attributes, as torch lists them (leafgrad's own ``_saved``/``_saved_names`` aside)."""
    return sorted(a for a in dir(node) if a.startswith("_saved_") and a != "_saved_names")


@pytest.mark.parametrize("given", ["both", "weight", "bias", "neither"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_layer_norm_saved_values_are_torchs(given, dtype):
    def run(m):
        dt = getattr(m, dtype)
        x = m.tensor(np.arange(24.0).reshape(2, 3, 4) ** 1.5 / 7, dtype=dt, requires_grad=True)
        w = m.tensor(np.linspace(0.5, 2.0, 12).reshape(3, 4), dtype=dt, requires_grad=True)
        b = m.tensor(np.linspace(-1.0, 1.0, 12).reshape(3, 4), dtype=dt, requires_grad=True)
        y = m.nn.functional.layer_norm(x, (3, 4), w if given in ("both", "weight") else None,
                                       b if given in ("both", "bias") else None, eps=1e-3)
        g = y.grad_fn
        seen = (g.name(), _saved_attrs(g), g._saved_input is x, g._saved_normalized_shape, g._saved_result1,
                g._saved_result2, g._saved_weight is (w if given in ("both", "weight") else None),
                g._saved_bias is (b if given in ("both", "bias") else None))
        y.pow(2).sum().backward()
        return seen, x.grad, g._saved_normalized_shape
    same(torch, run)


def test_layer_norm_bias_changed_in_place_fails_backward_like_torch():
    def run(m):
        x, b = _t(m, _X, True), m.zeros(4, dtype=m.float64, requires_grad=True)
        y = m.nn.functional.layer_norm(x, (4,), None, b)
        with m.no_grad():
            b.add_(1.0)
        y.sum().backward()
    same(torch, run)


@pytest.mark.parametrize("kwargs", [{}, {"sparse": True}, {"padding_idx": 2, "scale_grad_by_freq": True},
                                    {"padding_idx": -1}, {"padding_idx": 0}, {"max_norm": 1.0}])
def test_embedding_saved_values_are_torchs(kwargs):
    def run(m):
        w = m.tensor(np.arange(15.0).reshape(5, 3) / 10, dtype=m.float64, requires_grad=True)
        idx = m.tensor([[1, 2, 4], [0, 2, 2]])
        y = m.nn.functional.embedding(idx, w, **kwargs)
        g = y.grad_fn
        seen = (g.name(), _saved_attrs(g), g._saved_padding_idx, g._saved_scale_grad_by_freq, g._saved_sparse,
                g._saved_weight_sym_argsize_0)
        if not kwargs.get("sparse"):  # (leafgrad's gradient is dense even for sparse=True)
            (y * y).sum().backward()
            return seen, w.grad
        return seen
    same(torch, run)


def test_embedding_module_passes_sparse_to_its_node():
    for m in (torch, leafgrad):
        y = m.nn.Embedding(5, 3, padding_idx=1, sparse=True)(m.tensor([1, 3]))
        assert (y.grad_fn._saved_sparse, y.grad_fn._saved_padding_idx) == (True, 1)


_CONV_CASES = {
    "conv2d": ("conv2d", (1, 2, 5, 5), (3, 2, 3, 3), {}),
    "conv2d_bias_stride_pad": ("conv2d", (1, 2, 5, 5), (3, 2, 3, 3), {"bias": 3, "stride": 2, "padding": 1}),
    "conv1d": ("conv1d", (1, 2, 7), (3, 2, 3), {}),
    "conv1d_groups_same": ("conv1d", (2, 2, 9), (4, 1, 3), {"groups": 2, "padding": "same", "dilation": 2, "bias": 4}),
    "conv3d": ("conv3d", (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"stride": (1, 2, 1), "padding": (1, 0, 1)}),
    "conv_t2d": ("conv_transpose2d", (1, 2, 5, 5), (2, 3, 3, 3), {"bias": 3, "stride": 2, "output_padding": 1}),
    "conv_t2d_mixed": ("conv_transpose2d", (1, 2, 5, 5), (2, 3, 3, 3),
                       {"stride": (2, 3), "output_padding": (1, 2), "padding": (1, 0), "dilation": (1, 2)}),
    "conv_t1d": ("conv_transpose1d", (1, 2, 5), (2, 3, 3), {"stride": 3, "output_padding": 2, "padding": 1,
                                                           "dilation": 2}),
    "conv_t3d": ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 3, 2, 2, 2), {"stride": 2, "output_padding": 1, "bias": 3}),
}


@pytest.mark.parametrize("case", sorted(_CONV_CASES))
def test_convolution_saved_values_are_torchs(case):
    fn, xs, ws, kwargs = _CONV_CASES[case]

    def run(m):
        rng = np.random.default_rng(3)
        x = m.tensor(rng.standard_normal(xs), requires_grad=True)
        w = m.tensor(rng.standard_normal(ws), requires_grad=True)
        kw = dict(kwargs)
        if "bias" in kw:
            kw["bias"] = m.tensor(rng.standard_normal(kw["bias"]), requires_grad=True)
        y = getattr(m.nn.functional, fn)(x, w, **kw)
        g = y.grad_fn
        seen = (g.name(), _saved_attrs(g), g._saved_input is x, g._saved_weight is w, g._saved_stride,
                g._saved_padding, g._saved_dilation, g._saved_groups, g._saved_transposed, g._saved_output_padding,
                g._saved_bias_sym_sizes_opt)
        y.pow(2).sum().backward()
        # the plain (non-tensor) saved values stay readable after backward has freed the tensors
        return seen, x.grad, w.grad, g._saved_padding, g._saved_output_padding, g._saved_bias_sym_sizes_opt
    same(torch, run)


def test_convolution_second_order_gradients_unchanged():
    # the double-backward nodes (a ConvolutionBackward0 without bias) still work with the added saved shapes
    def run(m):
        rng = np.random.default_rng(4)
        x = m.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
        w = m.tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
        gx, gw = m.autograd.grad(m.nn.functional.conv2d(x, w, stride=2).pow(2).sum(), (x, w), create_graph=True)
        (gx.sum() + gw.pow(2).sum()).backward()
        return x.grad, w.grad
    same(torch, run)
