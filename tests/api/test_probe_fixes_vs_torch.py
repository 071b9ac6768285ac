"""The small API gaps that public PyTorch programs hit (see docs/programs.md), checked against torch.

Each case names the program that needed it: dropout2d's legacy shape rules (examples/mnist_rnn),
randint(high, size=...) (mnist_forward_forward), pickling a whole model through the weights-only
loader (word_language_model), torch.nn.modules.activation.MultiheadAttention (its safe_globals list)
and Tensor.is_xpu / is_mps / ... (dcgan).
"""
import io
import pickle
import warnings

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
import leafgrad  # noqa: E402


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category, str(w.message).split(":")[0]) for w in caught]


@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 2)])
def test_dropout2d_shape_rules_and_warnings_match_torch(shape):
    for lib in (torch, leafgrad):
        x = lib.ones(*shape, dtype=lib.float64, requires_grad=True)
        out, caught = _warnings(lambda: lib.nn.functional.dropout2d(x, 0.5, training=True))
        arr = out.detach().numpy()
        lead = arr.reshape(shape[0], shape[1], -1)
        # one keep/drop decision per (dim 0, dim 1) slice, whatever the rank
        assert (lead == lead[:, :, :1]).all()
        assert set(np.unique(arr)) <= {0.0, 2.0}
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), arr)
        assert out.grad_fn.name() == "MulBackward0"
        if lib is torch:
            expected = caught
        else:
            assert [c for c, _ in caught] == [c for c, _ in expected]
            assert [m for _, m in caught] == [m for _, m in expected]


def test_dropout2d_module_on_2d_input_warns_and_eval_is_identity():
    for lib in (torch, leafgrad):
        m = lib.nn.Dropout2d(0.5)
        x = lib.ones(4, 3)
        _, caught = _warnings(lambda: m(x))
        assert [c for c, _ in caught] == [UserWarning]
        m.eval()
        out, caught = _warnings(lambda: m(x))   # torch checks the rank (and warns) in eval mode too
        assert [c for c, _ in caught] == [UserWarning]
        np.testing.assert_array_equal(out.numpy(), np.ones((4, 3), dtype=np.float32))


def test_dropout2d_rejects_1d_and_bad_p_like_torch():
    for lib in (torch, leafgrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with raises_exactly(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
                lib.nn.functional.dropout2d(lib.ones(3), 0.5)
        with raises_exactly(ValueError, match="dropout probability has to be between 0 and 1"):
            lib.nn.functional.dropout2d(lib.ones(2, 3, 4), 1.5)


def test_randint_high_with_size_keyword_matches_torch():
    for lib in (torch, leafgrad):
        lib.manual_seed(0)
        a = lib.randint(3, size=(200,))
        assert a.dtype == lib.int64 and tuple(a.shape) == (200,)
        assert set(a.tolist()) == {0, 1, 2}
        b = lib.randint(4, 6, size=(50,))
        assert set(b.tolist()) <= {4, 5}
        c = lib.randint(5, (2, 2), dtype=lib.int32)
        assert c.dtype == lib.int32 and tuple(c.shape) == (2, 2)
        with raises_exactly(TypeError):
            lib.randint(5)
        with raises_exactly(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
            lib.randint(0, size=(2,))


def test_whole_model_round_trips_through_weights_only_load_with_safe_globals():
    for lib in (torch, leafgrad):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
        handle = model.register_forward_hook(lambda m, i, o: None)
        handle.remove()
        buf = io.BytesIO()
        lib.save(model, buf)
        buf.seek(0)
        allowed = [lib.nn.Sequential, lib.nn.modules.linear.Linear, lib.nn.modules.activation.ReLU]
        with lib.serialization.safe_globals(allowed):
            loaded = lib.load(buf)
        x = lib.ones(1, 3)
        np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
        calls = []
        loaded.register_forward_hook(lambda m, i, o: calls.append(1))   # hook tables still work after loading
        loaded(x)
        assert calls == [1]
        buf.seek(0)
        with raises_exactly(pickle.UnpicklingError, match="Weights only load failed"):
            lib.load(buf)


def test_multihead_attention_is_reachable_where_torch_keeps_it():
    assert leafgrad.nn.modules.activation.MultiheadAttention is leafgrad.nn.MultiheadAttention
    assert torch.nn.modules.activation.MultiheadAttention is torch.nn.MultiheadAttention


@pytest.mark.parametrize("flag", ["is_cpu", "is_cuda", "is_xpu", "is_mps", "is_meta", "is_ipu", "is_maia",
                                  "is_mtia", "is_vulkan", "is_xla", "is_hpu", "is_quantized", "is_mkldnn",
                                  "is_nested", "is_sparse_csr", "is_sparse"])
def test_device_and_layout_flags_match_torch_on_cpu(flag):
    if not hasattr(torch.ones(1), flag):
        pytest.skip(f"torch has no Tensor.{flag}")
    for make in (lambda lib: lib.ones(2), lambda lib: lib.zeros(2, 3, dtype=lib.int64)):
        assert getattr(make(leafgrad), flag) is getattr(make(torch), flag)


@pytest.mark.parametrize("env, explicit, outcome", [
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, None, "loads"),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "true"}, True, "refuses"),      # an explicit argument wins
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "yes"}, False, "refuses"),         # forcing safety beats it
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, None, "both"),
])
def test_weights_only_environment_switches_match_torch(monkeypatch, env, explicit, outcome):
    """time_sequence_prediction torch.save()s a NumPy array; these switches decide whether it loads."""
    for name in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    kw = {} if explicit is None else {"weights_only": explicit}
    for lib in (torch, leafgrad):
        buf = io.BytesIO()
        lib.save(np.arange(3.0), buf)
        buf.seek(0)
        if outcome == "loads":
            with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
                np.testing.assert_array_equal(lib.load(buf, **kw), np.arange(3.0))
        elif outcome == "refuses":
            with raises_exactly(pickle.UnpicklingError, match="Weights only load failed"):
                lib.load(buf, **kw)
        else:
            with raises_exactly(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
                lib.load(buf, **kw)
