"""Errors keep torch's exception type and leading phrase (what users search for) while adding the fix;
plus module details that are easy to break: train() reaching overridden children, hook bookkeeping,
positional RNN arguments, container edits."""
from __future__ import annotations

import pytest
from differential import raises_exactly

import leafgrad as lg
import leafgrad.nn as nn
from leafgrad.utils import data as lgdata

torch = pytest.importorskip("torch")
from torch.utils import data as tdata  # noqa: E402

PREFIX = 40  # how much of torch's message ours must repeat word for word

CASES = {
    "get_submodule": lambda T, D: T.nn.Sequential(T.nn.ReLU()).get_submodule("0.x"),
    "get_submodule_param": lambda T, D: T.nn.Sequential(T.nn.Linear(1, 1)).get_submodule("0.weight"),
    "get_parameter": lambda T, D: T.nn.Linear(1, 1).get_parameter("nope"),
    "get_buffer": lambda T, D: T.nn.Linear(1, 1).get_buffer("weight"),
    "buffer_exists": lambda T, D: T.nn.Linear(1, 1).register_buffer("weight", None),
    "buffer_dot": lambda T, D: T.nn.Linear(1, 1).register_buffer("a.b", None),
    "buffer_type": lambda T, D: T.nn.Linear(1, 1).register_buffer("q", 3),
    "parameter_type": lambda T, D: T.nn.Linear(1, 1).register_parameter("q", T.zeros(1)),
    "add_module_type": lambda T, D: T.nn.Linear(1, 1).add_module("x", 3),
    "set_parameter": lambda T, D: setattr(T.nn.Linear(1, 1), "weight", T.zeros(1)),
    "set_child": lambda T, D: setattr(T.nn.Sequential(T.nn.ReLU()), "0", T.zeros(1)),
    "train_mode": lambda T, D: T.nn.Linear(1, 1).train(1),
    "to_int": lambda T, D: T.nn.Linear(1, 1).to(T.int64),
    "module_args": lambda T, D: T.nn.Module(1),
    "no_forward": lambda T, D: T.nn.Module()(1),
    "state_dict_type": lambda T, D: T.nn.Linear(1, 1).load_state_dict([1]),
    "pre_hook_result": lambda T, D: _call_with_bad_pre_hook(T),
    "parameter_dict_call": lambda T, D: T.nn.ParameterDict()(1),
    "parameter_list_call": lambda T, D: T.nn.ParameterList()(1),
    "parameter_dict_key": lambda T, D: T.nn.ParameterDict()[1],
    "sequential_add": lambda T, D: T.nn.Sequential() + [1],
    "sequential_mul": lambda T, D: T.nn.Sequential(T.nn.ReLU()) * 0,
    "sequential_index": lambda T, D: T.nn.Sequential(T.nn.ReLU())[-2],
    "module_list_index": lambda T, D: T.nn.ModuleList([T.nn.ReLU()])[3],
    "sequential_insert": lambda T, D: T.nn.Sequential(T.nn.ReLU()).insert(5, T.nn.ReLU()),
    "module_list_extend": lambda T, D: T.nn.ModuleList().extend(3),
    "module_dict_update": lambda T, D: T.nn.ModuleDict().update([(1, 2, 3)]),
    "parameter_list_extend": lambda T, D: T.nn.ParameterList().extend(T.zeros(2)),
    "unflatten": lambda T, D: T.nn.Unflatten(1, 3),
    "hardtanh": lambda T, D: T.nn.Hardtanh(1, 1),
    "dropout": lambda T, D: T.nn.Dropout(-0.1),
    "conv_groups": lambda T, D: T.nn.Conv2d(2, 2, 3, groups=0),
    "conv_padding": lambda T, D: T.nn.Conv2d(2, 2, 3, padding="x"),
    "embedding_padding": lambda T, D: T.nn.Embedding(3, 2, padding_idx=3),
    "embedding_weight": lambda T, D: T.nn.Embedding(3, 2, _weight=T.zeros(2, 2)),
    "attention_heads": lambda T, D: T.nn.MultiheadAttention(5, 2),
    "lstm_proj": lambda T, D: T.nn.LSTM(3, 4, proj_size=5),
    "lstm_layers": lambda T, D: T.nn.LSTM(3, 4, num_layers=0),
    "lstm_input_rank": lambda T, D: T.nn.LSTM(3, 4)(T.zeros(2, 3, 4, 3)),
    "lstm_state_rank": lambda T, D: T.nn.LSTM(3, 4)(T.zeros(2, 3, 3), (T.zeros(1, 3, 4), T.zeros(1, 3))),
    "lstm_cell_size": lambda T, D: T.nn.LSTM(3, 4)(T.zeros(2, 3, 3), (T.zeros(1, 3, 4), T.zeros(1, 3, 5))),
    "gru_state_rank": lambda T, D: T.nn.GRU(3, 4)(T.zeros(2, 3), T.zeros(1, 3, 4)),
    "gru_proj": lambda T, D: T.nn.GRU(3, 4, proj_size=2),
    "gain": lambda T, D: T.nn.init.calculate_gain("foo"),
    "eye_rank": lambda T, D: T.nn.init.eye_(T.zeros(2, 2, 2)),
    "dirac_groups": lambda T, D: T.nn.init.dirac_(T.zeros(3, 2, 2), 2),
    "fan": lambda T, D: T.nn.init.xavier_uniform_(T.zeros(3)),
    "fan_mode": lambda T, D: T.nn.init.kaiming_uniform_(T.zeros(3, 3), mode="x"),
    "tensor_dataset": lambda T, D: D.TensorDataset(T.zeros(2), T.zeros(3)),
    "stack_dataset": lambda T, D: D.StackDataset(x=[1], y=[1, 2]),
    "concat_index": lambda T, D: D.ConcatDataset([[1]])[-2],
    "chain_dataset": lambda T, D: list(D.ChainDataset([[1]])),
    "random_sampler": lambda T, D: D.RandomSampler([1], num_samples=0),
    "weighted_sampler": lambda T, D: D.WeightedRandomSampler([[1.0]], 1),
    "batch_sampler": lambda T, D: D.BatchSampler([1], 2, 1),
    "collate_sizes": lambda T, D: D.default_collate([[1, 2], [1]]),
    "loader_frozen": lambda T, D: setattr(D.DataLoader([1]), "sampler", None),
}


def _call_with_bad_pre_hook(T):
    m = T.nn.Linear(1, 1)
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    m(T.ones(1))


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _message(exc) -> str:
    # str(KeyError) adds quotes around the message: compare the message itself
    return exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_keeps_torchs_type_and_leading_phrase(name):
    expected = _raised(lambda: CASES[name](torch, tdata))
    got = _raised(lambda: CASES[name](lg, lgdata))
    assert type(got) is type(expected)
    assert _message(got).startswith(_message(expected)[:PREFIX]), (_message(got), _message(expected))


def test_messages_name_the_fix():
    with raises_exactly(TypeError, match=r"nn\.Parameter\(tensor\)"):
        nn.Linear(1, 1).register_parameter("q", lg.zeros(1))
    with raises_exactly(IndexError, match=r"valid: -1 to 0"):
        nn.Sequential(nn.ReLU())[3]
    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(lg.zeros(1))
        Early()


def test_train_reaches_children_that_override_it():
    seen = []

    class Frozen(nn.Module):
        def train(self, mode=True):
            seen.append(mode)
            return super().train(False)  # e.g. a frozen BatchNorm stays in eval mode

    for M in (torch.nn, nn):
        seen.clear()
        net = M.Sequential(M.Linear(1, 1), Frozen() if M is nn else _torch_frozen(seen))
        net.train()
        assert seen == [True] and net[0].training and not net[1].training
        net.eval()
        assert seen == [True, False]


def _torch_frozen(seen):
    class TorchFrozen(torch.nn.Module):
        def train(self, mode=True):
            seen.append(mode)
            return super().train(False)
    return TorchFrozen()


def test_forward_hook_handles_and_flags_are_cleaned_up():
    m = nn.Linear(2, 2)
    handles = [m.register_forward_hook(lambda mod, a, kw, out: None, with_kwargs=True) for _ in range(5)]
    assert all(isinstance(h, lg.utils.hooks.RemovableHandle) for h in handles)
    for h in handles:
        h.remove()
    m.register_forward_pre_hook(lambda mod, a: None)
    assert m._hook_flags == {} and len(m._forward_hooks) == 0
    seen = []
    with m.register_forward_hook(lambda mod, a, kw, out: seen.append(sorted(kw)), with_kwargs=True):
        m(lg.ones(1, 2))
    m(lg.ones(1, 2))
    assert seen == [[]]


def test_rnn_positional_nonlinearity_and_options_like_torch():
    m, t = nn.RNN(3, 4, 2, "relu", False), torch.nn.RNN(3, 4, 2, "relu", False)
    assert (m.nonlinearity, m.num_layers, m.bias) == (t.nonlinearity, t.num_layers, t.bias) == ("relu", 2, False)
    assert repr(m) == repr(t)
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in t.named_parameters()]


def test_container_edits_like_torch():
    def edit(M):
        s = M.Sequential(M.ReLU(), M.Tanh(), M.Sigmoid(), M.ELU())
        del s[1:3]
        s.insert(-1, M.GELU())
        s += M.Sequential(M.SiLU())
        popped = s.pop(0)
        ml = M.ModuleList([M.ReLU(), M.ReLU(), M.Tanh()])
        ml[0] = M.Tanh()
        del ml[1]
        pd = M.ParameterDict({"b": torch.zeros(1) if M is torch.nn else lg.zeros(1)})
        pd.update({"d": pd["b"], "c": pd["b"]})
        return repr(s), type(popped).__name__, repr(ml + ml), list(pd.keys()), repr(s * 2)

    assert edit(nn) == edit(torch.nn)
