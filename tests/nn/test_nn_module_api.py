"""nn.Module, Parameter and the containers: registration, iteration, state_dict / load_state_dict
(with torch's error texts), train/eval, zero_grad, to()/dtype casts, hooks, apply, repr."""
from __future__ import annotations

import copy
import pickle
import sys
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
import leafgrad.nn as nn
from leafgrad import nn as nn_from

sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode


def test_import_paths():
    import leafgrad.nn.functional as F
    assert nn_from is nn
    assert lg.nn is nn
    assert nn.functional is F
    assert nn.init.kaiming_uniform_ is not None
    assert nn.utils.clip_grad_norm_ is not None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.shared = self.fc
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.scale = nn.Parameter(lg.ones(4))
        self.register_buffer("stat", lg.zeros(4))
        self.register_buffer("scratch", lg.zeros(1), persistent=False)
        self.plain = lg.zeros(2)  # a plain tensor attribute: neither parameter nor buffer

    def forward(self, x):
        return self.block(self.fc(x)) * self.scale + self.stat


def test_registration_and_iteration():
    n = Net()
    assert [k for k, _ in n.named_parameters()] == ["scale", "fc.weight", "fc.bias", "block.0.weight",
                                                     "block.0.bias"]
    assert [k for k, _ in n.named_parameters(remove_duplicate=False)] == [
        "scale", "fc.weight", "fc.bias", "shared.weight", "shared.bias", "block.0.weight", "block.0.bias"]
    assert [k for k, _ in n.named_parameters(recurse=False)] == ["scale"]
    assert [k for k, _ in n.named_parameters(prefix="m")][1] == "m.fc.weight"
    assert [k for k, _ in n.named_buffers()] == ["stat", "scratch"]
    assert list(n.state_dict()) == ["scale", "stat", "fc.weight", "fc.bias", "shared.weight", "shared.bias",
                                    "block.0.weight", "block.0.bias"]
    assert [k for k, _ in n.named_modules()] == ["", "fc", "block", "block.0", "block.1"]
    assert [k for k, _ in n.named_modules(remove_duplicate=False)] == ["", "fc", "shared", "block", "block.0",
                                                                       "block.1"]
    assert [k for k, _ in n.named_children()] == ["fc", "block"]
    assert len(list(n.parameters())) == 5 and len(list(n.buffers())) == 2 and len(list(n.children())) == 2
    assert "plain" not in n._buffers and isinstance(n.plain, lg.Tensor)
    assert n.get_submodule("block.0") is n.block[0]
    assert n.get_parameter("block.0.bias") is n.block[0].bias
    assert n.get_buffer("stat") is n.stat
    with pytest.raises(AttributeError, match="Sequential has no attribute `7`"):
        n.get_submodule("block.7")
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        n.get_submodule("fc.weight")
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        n.nope


def test_setattr_routing_and_errors():
    n = Net()
    with raises_exactly(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'scale' \(torch.nn.Parameter "
                                        r"or None expected\)"):
        n.scale = lg.zeros(4)
    with raises_exactly(TypeError, match=r"cannot assign 'torch.FloatTensor' as child module 'fc'"):
        n.fc = lg.zeros(1)
    with pytest.raises(KeyError, match="attribute 'fc' already exists"):
        n.register_buffer("fc", lg.zeros(1))
    with pytest.raises(KeyError, match="parameter name can.+t contain"):
        n.register_parameter("a.b", None)
    with raises_exactly(TypeError, match="cannot assign 'torch.FloatTensor' object to parameter 'w'"):
        n.register_parameter("w", lg.zeros(1))
    n.stat = lg.ones(4)  # replacing a buffer keeps it a buffer
    assert n._buffers["stat"] is n.stat
    n.scale = None
    assert n._parameters["scale"] is None and "scale" not in dict(n.named_parameters())
    n.extra = nn.Linear(1, 1)
    assert "extra" in n._modules
    del n.extra
    assert "extra" not in n._modules
    n.b2 = nn.Buffer(lg.ones(3), persistent=False)
    assert "b2" in n._buffers and "b2" not in n.state_dict()

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(lg.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


def test_parameter_basics():
    t = lg.randn(2, 3)
    p = nn.Parameter(t)
    assert isinstance(p, lg.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    p.data[0, 0] = 5.0  # shares memory with t
    assert t[0, 0].item() == 5.0
    assert nn.Parameter(lg.zeros(2), requires_grad=False).requires_grad is False
    assert nn.Parameter().shape == (0,)
    q = p * 2
    assert type(q) is lg.Tensor and q.grad_fn.name() == "MulBackward0"
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c is not p and np.array_equal(c.detach().numpy(), p.detach().numpy())
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and r.requires_grad


def test_parameter_repr_matches_torch():
    torch = pytest.importorskip("torch")
    data = np.array([[0.5, -1.25, 3.0], [2.0, 0.0, -0.125]])
    for dt in ("float32", "float64"):
        for rg in (True, False):
            a = nn.Parameter(lg.tensor(data.astype(dt)), requires_grad=rg)
            b = torch.nn.Parameter(torch.tensor(data.astype(dt)), requires_grad=rg)
            assert repr(a) == repr(b)
            assert str(a) == str(b)


def test_state_dict_roundtrip_and_errors_match_torch():
    torch = pytest.importorskip("torch")
    for M, T in [(torch.nn, torch), (nn, lg)]:
        m = M.Linear(3, 2)
        sd = m.state_dict()
        assert isinstance(sd, OrderedDict)
        assert not sd["weight"].requires_grad
    lin, tlin = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    res = lin.load_state_dict({k: v.detach().numpy() for k, v in tlin.state_dict().items()})
    assert repr(res) == "<All keys matched successfully>"
    assert res.missing_keys == [] and res.unexpected_keys == []
    np.testing.assert_array_equal(lin.weight.detach().numpy(), tlin.weight.detach().numpy())
    # the same broken state dicts in both libraries give the same messages
    broken = [
        lambda T, m: {"weight": T.zeros(2, 3), "extra": T.zeros(1)},
        lambda T, m: {"weight": T.zeros(3, 3), "bias": T.zeros(2)},
        lambda T, m: {"weight": T.zeros(2, 3), "bias": T.zeros(2), "sub.x": T.zeros(1)},
    ]
    messages = []
    for make in broken:
        errs = []
        for M, T in [(torch.nn, torch), (nn, lg)]:
            m = M.Linear(3, 2)
            with raises_exactly(RuntimeError) as e:
                m.load_state_dict(make(T, m))
            errs.append(str(e.value))
            res = m.load_state_dict({k: v for k, v in make(T, m).items() if tuple(v.shape) != (3, 3)}, strict=False)
            errs.append((res.missing_keys, res.unexpected_keys, repr(res)))
        assert errs[0] == errs[2] and errs[1] == errs[3]
        messages.append(errs[2])
    assert messages[0] == ('Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
                           '\n\tUnexpected key(s) in state_dict: "extra". ')
    assert messages[1] == ("Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param "
                           "with shape torch.Size([3, 3]) from checkpoint, the shape in current model is "
                           "torch.Size([2, 3]).")


def test_nested_load_state_dict_messages_match_torch():
    torch = pytest.importorskip("torch")
    out = []
    for M, T in [(torch.nn, torch), (nn, lg)]:
        s = M.Sequential(M.Linear(2, 2), M.BatchNorm1d(2))
        sd = s.state_dict()
        sd.pop("1.running_mean")
        sd["2.weight"] = T.zeros(1)
        sd["0.foo"] = T.zeros(1)
        sd["0.bias"] = T.zeros(3)
        with raises_exactly(RuntimeError) as e:
            s.load_state_dict(sd)
        out.append(str(e.value))
    assert out[0] == out[1]
    assert out[1].startswith("Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: "
                             "\"1.running_mean\". \n\tUnexpected key(s) in state_dict: ")
    assert "size mismatch for 0.bias: copying a param with shape torch.Size([3]) from checkpoint, the shape in " \
           "current model is torch.Size([2])." in out[1]


def test_load_state_dict_copies_in_place_and_assign():
    m = nn.Linear(2, 2)
    w = m.weight
    sd = {"weight": lg.ones(2, 2), "bias": lg.zeros(2)}
    m.load_state_dict(sd)
    assert m.weight is w and np.all(w.detach().numpy() == 1)
    sd["weight"][0, 0] = 7.0
    assert m.weight[0, 0].item() == 1.0  # copied, not aliased
    m.load_state_dict(sd, assign=True)
    assert m.weight is not w and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad


def test_train_eval_requires_grad_zero_grad():
    n = Net()
    assert n.training and n.block[1].training
    assert n.eval() is n and not n.training and not n.block[1].training
    n.train()
    assert n.block[0].training
    with raises_exactly(ValueError, match="training mode is expected to be boolean"):
        n.train("yes")
    n(lg.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in n.parameters())
    n.zero_grad(set_to_none=False)
    assert all(p.grad is not None and np.all(p.grad.numpy() == 0) for p in n.parameters())
    n.zero_grad()
    assert all(p.grad is None for p in n.parameters())
    n.requires_grad_(False)
    assert not any(p.requires_grad for p in n.parameters())


def test_dtype_casts_and_devices():
    n = Net()
    n(lg.randn(2, 3)).sum().backward()
    w = n.fc.weight
    assert n.double() is n
    assert n.fc.weight is w and w.dtype is lg.float64 and w.grad.dtype is lg.float64
    assert n.stat.dtype is lg.float64
    n.to(lg.float32)
    assert w.dtype is lg.float32
    n.half()
    assert w.dtype is lg.float16
    n.float()
    n.to("cpu")
    n.cpu()
    n.to(lg.zeros(1, dtype=lg.float64))
    assert w.dtype is lg.float64
    bn = nn.BatchNorm1d(3).double()
    assert bn.num_batches_tracked.dtype is lg.int64  # integer buffers keep their dtype
    with raises_exactly(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=torch.int64"):
        n.to(lg.int64)
    with raises_exactly(AssertionError, match="Torch not compiled with CUDA enabled"):
        n.cuda()
    with raises_exactly(AssertionError, match="Torch not compiled with CUDA enabled"):
        n.to("cuda")
    m = nn.Linear(2, 2, dtype=lg.float64)
    assert m.weight.dtype is lg.float64


def test_hooks():
    n = nn.Linear(2, 2)
    calls = []
    h_pre = n.register_forward_pre_hook(lambda m, args: calls.append(("pre", args[0].shape)))
    h_post = n.register_forward_hook(lambda m, args, out: calls.append(("post", out.shape)))
    h_mod = n.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    out = n(lg.ones(3, 2))
    assert calls == [("pre", (3, 2)), ("post", (3, 2))]
    np.testing.assert_allclose(out.detach().numpy(), np.broadcast_to(n.bias.detach().numpy(), (3, 2)))
    h_mod.remove()
    h_out = n.register_forward_hook(lambda m, args, out: out * 0)
    assert np.all(n(lg.ones(1, 2)).detach().numpy() == 0)
    for h in (h_pre, h_post, h_out):
        h.remove()
    assert not n._forward_hooks and not n._forward_pre_hooks
    order = []
    n.register_forward_hook(lambda m, a, o: order.append(1))
    n.register_forward_hook(lambda m, a, o: order.append(0), prepend=True)
    n.register_forward_hook(lambda m, a, kw, o: order.append(kw), with_kwargs=True)
    n(lg.ones(1, 2))
    assert order == [0, 1, {}]
    m = nn.Linear(2, 2)
    seen = []
    m.register_forward_hook(lambda mod, a, o: seen.append("always"), always_call=True)
    with raises_exactly(RuntimeError):
        m(lg.ones(1, 3))
    assert seen == ["always"]
    with m.register_forward_pre_hook(lambda mod, a, kw: ((lg.ones(1, 2),), kw), with_kwargs=True):
        assert m(lg.zeros(5, 2)).shape == (1, 2)
    assert m(lg.zeros(5, 2)).shape == (5, 2)


@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_always_call_hook_that_raises_is_reported_not_swallowed(lib):
    """The forward's error is raised; the failing always_call hook's error becomes torch's UserWarning."""
    m = pytest.importorskip("torch") if lib == "torch" else lg
    lin = m.nn.Linear(2, 2)

    def bad(mod, a, o):
        raise ValueError("hook broke")

    lin.register_forward_hook(bad, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with raises_exactly(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
            lin(m.ones(1, 3))
    got = [(w.category, str(w.message)) for w in caught]
    assert got == [(UserWarning, "module forward hook with ``always_call=True`` raised an exception that was "
                                 "silenced as another error was raised in forward: hook broke")]


def test_apply_and_init_through_apply():
    n = Net()

    def init_fn(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)
            nn.init.zeros_(mod.bias)

    assert n.apply(init_fn) is n
    assert np.all(n.block[0].weight.detach().numpy() == 0.5)
    assert n.fc.weight.grad_fn is None and n.fc.weight.requires_grad


def test_containers():
    s = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1))
    assert len(s) == 3 and isinstance(s[0], nn.Linear) and isinstance(s[-1], nn.Linear)
    assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 2 and list(s[1:]._modules) == ["1", "2"]
    with raises_exactly(IndexError, match="index 5 is out of range"):
        s[5]
    s.append(nn.Tanh())
    assert list(s._modules) == ["0", "1", "2", "3"]
    del s[1]
    assert list(s._modules) == ["0", "1", "2"] and isinstance(s[1], nn.Linear)
    s.insert(0, nn.Identity())
    assert isinstance(s[0], nn.Identity) and len(s) == 4
    s2 = s + nn.Sequential(nn.ReLU())
    assert len(s2) == 5
    assert s(lg.ones(3, 1)).shape == (3, 1)
    od = nn.Sequential(OrderedDict([("a", nn.Linear(1, 1)), ("b", nn.ReLU())]))
    assert list(od._modules) == ["a", "b"] and od.a is od[0]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.ReLU()).extend([nn.Tanh()])
    ml.insert(0, nn.Sigmoid())
    ml += [nn.Identity()]
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "Linear", "ReLU", "Tanh", "Identity"]
    assert len(ml[1:3]) == 2 and ml[-1] is ml[4]
    md = nn.ModuleDict({"x": nn.ReLU()})
    md["y"] = nn.Linear(2, 2)
    md.update([("z", nn.Tanh())])
    assert list(md.keys()) == ["x", "y", "z"] and "y" in md and len(md) == 3
    assert len(list(md.parameters())) == 2
    assert isinstance(md.pop("x"), nn.ReLU) and "x" not in md
    pl = nn.ParameterList([lg.zeros(2), nn.Parameter(lg.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(lg.ones(1))
    assert [k for k, _ in pl.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"b": lg.zeros(1), "a": lg.ones(2)})
    assert list(pd.keys()) == ["a", "b"] and isinstance(pd["a"], nn.Parameter)
    with raises_exactly(RuntimeError, match="ParameterList should not be called."):
        pl(1)


def test_repr_matches_torch_for_custom_module():
    torch = pytest.importorskip("torch")

    def build(M):
        class Block(M.Module):
            def __init__(self):
                super().__init__()
                self.conv = M.Conv2d(3, 8, 3, padding=1, bias=False)
                self.bn = M.BatchNorm2d(8)
                self.act = M.ReLU(inplace=True)
                self.pool = M.MaxPool2d(2)
                self.head = M.Sequential(M.Flatten(), M.Dropout(0.25), M.Linear(8, 2))

            def extra_repr(self):
                return "custom=1"
        return Block()
    assert repr(build(nn)) == repr(build(torch.nn))


def test_deepcopy_module_keeps_sharing():
    n = Net()
    c = copy.deepcopy(n)
    assert c.fc is c.shared and c.fc is not n.fc
    assert type(c.scale) is nn.Parameter
    for (k, a), (_, b) in zip(n.state_dict().items(), c.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_call_fast_path_and_missing_forward():
    class NoForward(nn.Module):
        pass
    with pytest.raises(NotImplementedError, match='Module \\[NoForward\\] is missing the required "forward" function'):
        NoForward()(1)
    lin = nn.Linear(2, 2)
    assert lin(lg.ones(2)).shape == (2,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Module()


def test_buffers_follow_to_and_state_dict_values_are_detached():
    bn = nn.BatchNorm1d(2)
    bn(lg.randn(4, 2))
    sd = bn.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert sd["num_batches_tracked"].item() == 1
    sd_vars = bn.state_dict(keep_vars=True)
    assert sd_vars["weight"] is bn.weight
    assert sd["weight"].grad_fn is None and not sd["weight"].requires_grad


def test_layers_read_whatever_their_weight_name_holds_now():
    """Linear, LayerNorm, Embedding, Conv and LSTM read their parameters from ``_parameters`` directly
    (``parameter_of``): a weight replaced by a plain tensor, a buffer or a parametrization, and a bias of
    None, are used as an ordinary attribute read would find them, as torch's layers do."""
    torch = pytest.importorskip("torch")
    from leafgrad.nn.utils import parametrize

    def outputs(mod):
        x = mod.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
        got = []
        lin = mod.nn.Linear(3, 2)
        with mod.no_grad():
            lin.weight.copy_(mod.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 5))
            lin.bias.fill_(0.5)
        got.append(lin(x))
        del lin.weight
        lin.weight = mod.ones(2, 3)  # a plain attribute now
        got.append(lin(x))
        del lin.weight
        lin.register_buffer("weight", mod.full((2, 3), 2.0))
        got.append(lin(x))
        lin.bias = None
        got.append(lin(x))
        ln = mod.nn.LayerNorm(3, elementwise_affine=False)
        got.append(ln(x))
        emb = mod.nn.Embedding(4, 2)
        with mod.no_grad():
            emb.weight.copy_(mod.tensor(np.arange(8, dtype=np.float32).reshape(4, 2)))
        got.append(emb(mod.tensor([3, 1])))
        return [t.detach().numpy() for t in got]

    for a, b in zip(outputs(lg), outputs(torch), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)

    class Double(nn.Module):
        def forward(self, w):
            return w * 2

    lin = nn.Linear(3, 2)
    parametrize.register_parametrization(lin, "weight", Double())
    assert "weight" not in lin._parameters
    x = lg.ones(1, 3)
    np.testing.assert_allclose(lin(x).detach().numpy(),
                               (x @ (lin.parametrizations.weight.original * 2).T + lin.bias).detach().numpy())
