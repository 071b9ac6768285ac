"""RNNCell / LSTMCell / GRUCell against torch (same weights): values, first and second gradients,
parameters, state_dict keys, repr, init bounds, unbatched inputs and errors; and the one-node-per-step
cell ops that nn.RNN/LSTM/GRU use."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # nn_testutil, under any --import-mode

import leafgrad as lg  # noqa: E402
import leafgrad.nn as nn  # noqa: E402
from nn_testutil import close, copy_weights, run_both  # noqa: E402

CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("RNNCell", {"bias": False}), ("LSTMCell", {}),
         ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False})]


def _pair(name, kwargs, dtype="float64"):
    t = getattr(torch.nn, name)(3, 4, **kwargs)
    m = getattr(nn, name)(3, 4, **kwargs)
    if dtype == "float64":
        t, m = t.double(), m.double()
    copy_weights(m, t)
    return m, t


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("name,kwargs", CELLS, ids=str)
def test_cell_parameters_state_dict_repr_and_init(name, kwargs):
    t = getattr(torch.nn, name)(3, 4, **kwargs)
    m = getattr(nn, name)(3, 4, **kwargs)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [(k, tuple(p.shape)) for k, p in m.named_parameters()] == \
        [(k, tuple(p.shape)) for k, p in t.named_parameters()]
    assert (m.bias_ih is None) == (t.bias_ih is None)
    bound = 1 / math.sqrt(4)
    for p in m.parameters():
        values = p.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound and values.std() > 0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CELLS, ids=str)
def test_cell_values_and_gradients(name, kwargs, dtype):
    m, t = _pair(name, kwargs, dtype)
    run_both(torch, m, t, _arrays([(2, 3)], dtype), dtype)  # zero initial state
    run_both(torch, m, t, _arrays([(3,)], dtype, 1), dtype)  # unbatched
    if name == "LSTMCell":
        run_both(torch, m, t, _arrays([(2, 3), (2, 4), (2, 4)], dtype, 2), dtype,
                 call=lambda mod, x, h, c: mod(x, (h, c)))
        out = run_both(torch, m, t, _arrays([(3,), (4,), (4,)], dtype, 3), dtype,
                       call=lambda mod, x, h, c: mod(x, (h, c)))[0]
        assert [tuple(o.shape) for o in out] == [(4,), (4,)]
    else:
        run_both(torch, m, t, _arrays([(2, 3), (2, 4)], dtype, 2), dtype)
        out = run_both(torch, m, t, _arrays([(3,), (4,)], dtype, 3), dtype)[0]
        assert tuple(out.shape) == (4,)


def _objective(out):
    """A scalar that reads every output nonlinearly (so second derivatives are not trivial)."""
    if isinstance(out, tuple):
        return (out[0] * out[0]).sum() + (out[1] * out[1] * out[1]).sum()
    return (out * out * out).sum()


@pytest.mark.parametrize("name,kwargs", CELLS, ids=str)
def test_cell_second_order_gradients_through_create_graph(name, kwargs):
    m, t = _pair(name, kwargs)
    shapes = [(2, 3), (2, 4), (2, 4)] if name == "LSTMCell" else [(2, 3), (2, 4)]
    arrays = _arrays(shapes, "float64", 4)
    both = []
    for lib, mod in ((lg, m), (torch, t)):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        wrt = xs + list(mod.parameters())

        def forward():
            return mod(xs[0], tuple(xs[1:])) if name == "LSTMCell" else mod(xs[0], xs[1])
        grads = lib.autograd.grad(_objective(forward()), wrt, create_graph=True)
        plain = lib.autograd.grad(_objective(forward()), wrt)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), wrt)
        both.append((grads, plain, second))
    (g_l, plain_l, s_l), (g_t, _, s_t) = both
    for a, b, c in zip(g_l, g_t, plain_l):
        close(a, b)
        close(c, b)  # the formulas on raw arrays agree with the formulas on Tensors
    for a, b in zip(s_l, s_t):
        close(a, b)


@pytest.mark.parametrize("name,kwargs,node", [("RNNCell", {}, "RnnTanhCellBackward0"),
                                              ("RNNCell", {"nonlinearity": "relu"}, "RnnReluCellBackward0"),
                                              ("LSTMCell", {}, "LstmCellBackward0"),
                                              ("GRUCell", {"bias": False}, "GruCellBackward0")], ids=str)
def test_one_node_per_step(name, kwargs, node):
    m = getattr(nn, name)(3, 4, **kwargs)
    out = m(lg.randn(2, 3))
    h = out[0] if isinstance(out, tuple) else out
    assert h.grad_fn.name() == node
    assert h.grad_fn.next_functions[0][0].name() == ("AddmmBackward0" if m.bias else "MmBackward0")  # x @ W_ih.T
    # (float64: a float32 nn.LSTM records one node per layer, torch's MkldnnRnnLayerBackward0; see test_lstm_layer_op.py)
    seq, _ = {"RNNCell": nn.RNN, "LSTMCell": nn.LSTM, "GRUCell": nn.GRU}[name](3, 4, **kwargs).double()(
        lg.randn(5, 2, 3, dtype=lg.float64))
    names = []
    fn = seq.grad_fn.next_functions[-1][0]  # the last step of the stacked outputs
    while fn is not None and fn.name() == node:
        names.append(fn.name())
        fn = fn.next_functions[1][0]  # the previous hidden state
    assert len(names) == 5


def test_lstm_cell_gradient_of_c_alone_and_of_h_alone():
    m, t = _pair("LSTMCell", {})
    run_both(torch, m, t, _arrays([(2, 3), (2, 4), (2, 4)], "float64", 5), call=lambda mod, x, h, c: mod(x, (h, c))[1])
    run_both(torch, m, t, _arrays([(2, 3), (2, 4), (2, 4)], "float64", 6), call=lambda mod, x, h, c: mod(x, (h, c))[0])


def test_cell_errors_as_torch():
    lstm, gru, rnn = nn.LSTMCell(3, 4), nn.GRUCell(3, 4), nn.RNNCell(3, 4)
    with raises_exactly(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        lstm(lg.zeros(2, 5))
    with raises_exactly(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D instead"):
        lstm(lg.zeros(2, 2, 3))
    with raises_exactly(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D, got 3D instead"):
        lstm(lg.zeros(2, 3), (lg.zeros(2, 4), lg.zeros(1, 2, 4)))
    with raises_exactly(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        lstm(lg.zeros(2, 3), (lg.zeros(3, 4), lg.zeros(2, 4)))
    with raises_exactly(RuntimeError, match="hidden1 has inconsistent hidden_size: got 5, expected 4"):
        lstm(lg.zeros(2, 3), (lg.zeros(2, 4), lg.zeros(2, 5)))
    with raises_exactly(RuntimeError, match="hidden0 has inconsistent hidden_size: got 5, expected 4"):
        gru(lg.zeros(2, 3), lg.zeros(2, 5))
    with raises_exactly(ValueError, match="GRUCell: Expected hidden to be 1D or 2D, got 3D instead"):
        gru(lg.zeros(2, 3), lg.zeros(2, 2, 4))
    with raises_exactly(ValueError, match="RNNCell: Expected input to be 1D or 2D, got 0D instead"):
        rnn(lg.zeros(()))
    with raises_exactly(RuntimeError, match="Unknown nonlinearity: gelu"):
        nn.RNNCell(3, 4, nonlinearity="gelu")(lg.zeros(2, 3))
    with raises_exactly(RuntimeError, match="mat1 and mat2 must have the same dtype"):
        rnn(lg.zeros(2, 3, dtype=lg.float64))


def test_cell_errors_match_torch_classes():
    cases = [lambda lib: lib.nn.LSTMCell(3, 4)(lib.zeros(3), (lib.zeros(1, 4), lib.zeros(1, 4))),
             lambda lib: lib.nn.GRUCell(3, 4)(lib.zeros(2, 3), lib.zeros(3, 4)),
             lambda lib: lib.nn.RNNCell(3, 4)(lib.zeros(2, 4))]
    for case in cases:
        with pytest.raises(Exception) as te:
            case(torch)
        with raises_exactly(type(te.value), match=str(te.value).split(":")[0]):
            case(lg)


class PackedSequence(tuple):
    """torch's four fields, as a stand-in for leafgrad's nn.utils.rnn.PackedSequence (built elsewhere):
    the recurrent layers read only these fields and rebuild the result with the input's own class."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, (data, batch_sizes, sorted_indices, unsorted_indices))

    data = property(lambda self: self[0])
    batch_sizes = property(lambda self: self[1])
    sorted_indices = property(lambda self: self[2])
    unsorted_indices = property(lambda self: self[3])


def _as_lg(t, requires_grad=False):
    return None if t is None else lg.tensor(t.detach().numpy().copy(), requires_grad=requires_grad)


@pytest.mark.parametrize("name,opts", [("LSTM", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
                                       ("RNN", {"bidirectional": True}), ("LSTM", {"proj_size": 2,
                                                                                   "bidirectional": True})], ids=str)
@pytest.mark.parametrize("with_state", [False, True])
def test_packed_sequence_input(name, opts, with_state):
    t = getattr(torch.nn, name)(3, 4, **opts).double()
    m = getattr(nn, name)(3, 4, **opts).double()
    copy_weights(m, t)
    padded = torch.tensor(_arrays([(5, 4, 3)], "float64", 7)[0])
    packed_t = torch.nn.utils.rnn.pack_padded_sequence(padded, [3, 5, 1, 4], enforce_sorted=False)
    data_t = packed_t.data.detach().requires_grad_(True)
    packed_t = torch.nn.utils.rnn.PackedSequence(data_t, packed_t.batch_sizes, packed_t.sorted_indices,
                                                 packed_t.unsorted_indices)
    data_l = _as_lg(data_t, True)
    packed_l = PackedSequence(data_l, _as_lg(packed_t.batch_sizes), _as_lg(packed_t.sorted_indices),
                              _as_lg(packed_t.unsorted_indices))
    hx_t = hx_l = None
    if with_state:
        d = (2 if opts.get("bidirectional") else 1) * opts.get("num_layers", 1)
        shapes = [(d, 4, opts.get("proj_size") or 4)] + ([(d, 4, 4)] if name == "LSTM" else [])
        hx_t = tuple(torch.tensor(a) for a in _arrays(shapes, "float64", 8))
        hx_l = tuple(_as_lg(h) for h in hx_t)
        hx_t, hx_l = (hx_t, hx_l) if name == "LSTM" else (hx_t[0], hx_l[0])
    out_t, state_t = t(packed_t, hx_t)
    out_l, state_l = m(packed_l, hx_l)
    assert type(out_l) is PackedSequence
    close(out_l.data, out_t.data)
    np.testing.assert_array_equal(out_l.batch_sizes.numpy(), out_t.batch_sizes.numpy())
    states_t = state_t if isinstance(state_t, tuple) else (state_t,)
    states_l = state_l if isinstance(state_l, tuple) else (state_l,)
    for a, b in zip(states_l, states_t):
        close(a, b)
    w = _arrays([tuple(out_t.data.shape)], "float64", 9)[0]
    ((out_l.data * lg.tensor(w)).sum() + sum((s * s).sum() for s in states_l)).backward()
    ((out_t.data * torch.tensor(w)).sum() + sum((s * s).sum() for s in states_t)).backward()
    close(data_l.grad, data_t.grad)
    for (k, p), (_, tp) in zip(m.named_parameters(), t.named_parameters()):
        close(p.grad, tp.grad)


def test_packed_sequence_errors():
    # (as torch's GRU; torch 2.13's CPU LSTM skips these checks for packed input and computes on
    # regardless: leafgrad's LSTM raises the same errors as its GRU)
    for m in (nn.GRU(3, 4), nn.LSTM(3, 4)):
        with raises_exactly(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
            m(PackedSequence(lg.zeros(6, 5), lg.tensor([2, 2, 2]), None, None))
    with raises_exactly(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        nn.GRU(3, 4)(PackedSequence(lg.zeros(6, 3), lg.tensor([2, 2, 2]), None, None), lg.zeros(1, 3, 4))
