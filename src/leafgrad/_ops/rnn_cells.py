"""One recurrent step as one op: LSTM, GRU and Elman (tanh / relu) cells.

Written as ~15 small ops, a timestep of an LSTM records ~15 nodes, and a 50-step, 2-layer
LSTM spends most of its time in the recording and the engine rather than in NumPy. Each cell
here is one ``defop``: its forward computes the hidden-to-hidden matmul and every gate on raw
arrays; its backward formulas (in the ``xp`` form, see ``xp.py``) give the gradients of the
projected input ``gi`` (= ``x @ W_ih.T + b_ih``, computed by the caller, for all timesteps at
once in ``nn.LSTM``), the previous state(s), ``W_hh`` and ``b_hh``.

The ops take ``W_hh`` transposed (``w_t``, shape (hidden, gates)): a single step passes the view
``W_hh.t()`` (recorded as torch's ``TBackward0``), a sequence passes ``W_hh.t().contiguous()``
once for all its steps, because OpenBLAS multiplies a few rows by a contiguous (k, n) matrix
about 4x faster than by a transposed view at these sizes (8x128 @ 128x512: ~35 vs ~130 us).

Recorded nodes: ``LstmCellBackward0`` / ``GruCellBackward0`` / ``RnnTanhCellBackward0`` /
``RnnReluCellBackward0``, one per step. torch records other nodes (its ``nn.LSTMCell`` and float64
``nn.LSTM`` the composite ops; a float32 ``nn.LSTM`` is one ``MkldnnRnnLayerBackward0`` per layer,
which leafgrad records too: ``lstm_layer.py``); the values and gradients are the same within float
rounding.

The LSTM and GRU forwards also return a workspace (the activated gates), a non-differentiable
output the array formulas read, as torch's fused CUDA cells do. The formulas of all inputs of a
node need the same gate gradients: they are computed once per node (``_shared``). Under
``create_graph=True`` (formulas on Tensors) the gates are recomputed from the saved inputs with
differentiable ops instead, so second-order gradients are exact (torch's
``_thnn_differentiable_lstm_cell_backward`` does the same).
"""
from __future__ import annotations

from .registry import apply, defop

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _hidden_part(xp, h, w_t, b):
    """``h @ w_t (+ b)``."""
    out = xp.matmul(h, w_t)
    return out if b is None else out + b


def _sig(xp, a):
    """The logistic function on Tensors (the formulas' recomputation under create_graph)."""
    return 1.0 / (1.0 + xp.exp(-a))


def _sigmoid_inplace(xp, a):
    """``a`` (an array of this forward's own) replaced by sigmoid(a) = (1 + tanh(a / 2)) / 2: one
    transcendental pass and no overflow for any input (within float rounding of torch's sigmoid)."""
    a *= 0.5
    xp.tanh(a, out=a)
    a *= 0.5
    a += 0.5
    return a


def _chunks(xp, a, k: int) -> list:
    """``a`` cut into ``k`` equal column blocks: views on arrays, split ops on Tensors."""
    if xp.tensors:
        return xp.split(a, k, axis=1)
    w = a.shape[1] // k
    return [a[:, j * w:(j + 1) * w] for j in range(k)]


# The gate gradients of the node whose formulas are running: (grads list, workspace array, value).
# The formulas of one node run one after another with the same grads list, so identity is the key;
# the references held keep the key objects alive, so an identity cannot be reused by another node.
_MEMO: list = [None, None, None]


def _shared(xp, g, ws, compute):
    key = xp.data(ws)
    if _MEMO[0] is g and _MEMO[1] is key:
        return _MEMO[2]
    value = compute()
    _MEMO[0], _MEMO[1], _MEMO[2] = g, key, value
    return value


# ------------------------------------------------------------------------------------------ LSTM
def _lstm_forward(xp, gi, h, c, w_t, b=None):
    """(h_new, c_new, activated gates [i, f, n, o]) from ``gates = gi + h @ w_t + b``."""
    act = xp.matmul(h, w_t)
    act += gi
    if b is not None:
        act += b
    hs = c.shape[1]
    _sigmoid_inplace(xp, act[:, :2 * hs])  # input and forget gates
    xp.tanh(act[:, 2 * hs:3 * hs], out=act[:, 2 * hs:3 * hs])  # cell candidate
    _sigmoid_inplace(xp, act[:, 3 * hs:])  # output gate
    i, f, n, o = act[:, :hs], act[:, hs:2 * hs], act[:, 2 * hs:3 * hs], act[:, 3 * hs:]
    c_new = f * c
    c_new += i * n
    return o * xp.tanh(c_new), c_new, act


def _lstm_gates(xp, gi, h, c, w_t, b, ws):
    """(input, forget, cell, output gates): from the workspace on arrays, recomputed differentiably on Tensors."""
    if not xp.tensors:
        return _chunks(xp, ws, 4)
    i, f, n, o = xp.split(gi + _hidden_part(xp, h, w_t, b), 4, axis=1)
    return _sig(xp, i), _sig(xp, f), xp.tanh(n), _sig(xp, o)


def _lstm_deltas(xp, g, gi, h, c, w_t, b, c_new, ws):
    """(d gates, d c_new, forget gate) for the node's output grads ``g = [gh, gc, None]``."""
    def compute():
        i, f, n, o = _lstm_gates(xp, gi, h, c, w_t, b, ws)
        tc = xp.tanh(f * c + i * n) if xp.tensors else xp.tanh(c_new)
        gh, gc = g[0], (g[1] if len(g) > 1 else None)  # (the list can stop at the last output with a grad)
        if gh is None:
            dc, do = gc, xp.zeros_like(o)
        else:
            dc = gh * o * (1.0 - tc * tc)
            dc = dc if gc is None else dc + gc
            do = gh * tc * (o * (1.0 - o))
        dgates = xp.concatenate((dc * n * (i * (1.0 - i)), dc * c * (f * (1.0 - f)), dc * i * (1.0 - n * n), do),
                                axis=1)
        return dgates, dc, f
    return _shared(xp, g, ws, compute)


def _lstm_grad(k: int, xp, g, gi, h, c, w_t, b, c_new, ws):
    dgates, dc, f = _lstm_deltas(xp, g, gi, h, c, w_t, b, c_new, ws)
    if k == 2:
        return dc * f
    return _linear_grad(k if k < 2 else k - 1, xp, dgates, h, w_t)


def _linear_grad(k: int, xp, dgates, h, w_t):
    """Gradient ``k`` of (gi, h, w_t, b) through ``gates = gi + h @ w_t + b``."""
    if k == 0:
        return dgates
    if k == 1:
        return xp.matmul(dgates, xp.swapaxes(w_t, 0, 1))
    if k == 2:
        return xp.matmul(xp.swapaxes(h, 0, 1), dgates)
    return xp.sum(dgates, axis=0)


def _lstm_formulas(bias: bool) -> list:
    if bias:
        def formula(k):
            return lambda xp, g, input0, input1, input2, input3, input4, result1, result2: _lstm_grad(
                k, xp, g, input0, input1, input2, input3, input4, result1, result2)
        return [formula(k) for k in range(5)]

    def formula(k):
        return lambda xp, g, input0, input1, input2, input3, result1, result2: _lstm_grad(
            k, xp, g, input0, input1, input2, input3, None, result1, result2)
    return [formula(k) for k in range(4)]


_LSTM_SAVED = ("input0", "input1", "input2", "input3")
LSTM_CELL = defop("LstmCellBackward0", _lstm_forward, _lstm_formulas(True), saved=_LSTM_SAVED + ("input4", "result1", "result2"),
                  n_in=5, n_out=3, diff_outputs=(True, True, False))
LSTM_CELL_NO_BIAS = defop("LstmCellBackward0", lambda xp, gi, h, c, w: _lstm_forward(xp, gi, h, c, w),
                          _lstm_formulas(False), saved=_LSTM_SAVED + ("result1", "result2"), n_in=4, n_out=3,
                          diff_outputs=(True, True, False))


def lstm_cell(gi, h, c, w_t, b_hh=None) -> tuple:
    """One LSTM step: ``(h_new, c_new)`` from the projected input ``gi`` (N, 4H) and the state (N, H)."""
    if b_hh is None:
        out = apply(LSTM_CELL_NO_BIAS, (gi, h, c, w_t))
    else:
        out = apply(LSTM_CELL, (gi, h, c, w_t, b_hh))
    return out[0], out[1]


# ------------------------------------------------------------------------------------------- GRU
def _gru_forward(xp, gi, h, w_t, b=None):
    """(h_new, workspace [reset, update, new gates, hidden part of the new gate])."""
    hidden = xp.matmul(h, w_t)
    if b is not None:
        hidden += b
    hs = h.shape[1]
    h_n = hidden[:, 2 * hs:]
    rz = _sigmoid_inplace(xp, gi[:, :2 * hs] + hidden[:, :2 * hs])
    r, z = rz[:, :hs], rz[:, hs:]
    n = gi[:, 2 * hs:] + r * h_n  # the reset gate scales the hidden part only, as in torch
    xp.tanh(n, out=n)
    return n + z * (h - n), xp.concatenate((rz, n, h_n), axis=1)


def _gru_gates(xp, gi, h, w_t, b, ws):
    """(reset, update, new gates, hidden part of the new gate)."""
    if not xp.tensors:
        return _chunks(xp, ws, 4)
    x_r, x_z, x_n = xp.split(gi, 3, axis=1)
    h_r, h_z, h_n = xp.split(_hidden_part(xp, h, w_t, b), 3, axis=1)
    r, z = _sig(xp, x_r + h_r), _sig(xp, x_z + h_z)
    return r, z, xp.tanh(x_n + r * h_n), h_n


def _gru_grad(k: int, xp, g, gi, h, w_t, b, ws):
    """Gradient ``k`` of (gi, h, w_t, b_hh)."""
    def compute():
        r, z, n, h_n = _gru_gates(xp, gi, h, w_t, b, ws)
        gh = g[0]
        dn = gh * (1.0 - z) * (1.0 - n * n)
        dr = dn * h_n * (r * (1.0 - r))
        dz = gh * (h - n) * (z * (1.0 - z))
        return xp.concatenate((dr, dz, dn), axis=1), xp.concatenate((dr, dz, dn * r), axis=1), gh * z
    d_input, d_hidden, dh_direct = _shared(xp, g, ws, compute)
    if k == 0:
        return d_input
    if k == 1:
        return dh_direct + _linear_grad(1, xp, d_hidden, h, w_t)
    return _linear_grad(k, xp, d_hidden, h, w_t)


def _gru_formulas(bias: bool) -> list:
    if bias:
        def formula(k):
            return lambda xp, g, input0, input1, input2, input3, result1: _gru_grad(
                k, xp, g, input0, input1, input2, input3, result1)
        return [formula(k) for k in range(4)]

    def formula(k):
        return lambda xp, g, input0, input1, input2, result1: _gru_grad(k, xp, g, input0, input1, input2, None,
                                                                         result1)
    return [formula(k) for k in range(3)]


GRU_CELL = defop("GruCellBackward0", _gru_forward, _gru_formulas(True),
                 saved=("input0", "input1", "input2", "input3", "result1"), n_in=4, n_out=2,
                 diff_outputs=(True, False))
GRU_CELL_NO_BIAS = defop("GruCellBackward0", lambda xp, gi, h, w: _gru_forward(xp, gi, h, w), _gru_formulas(False),
                         saved=("input0", "input1", "input2", "result1"), n_in=3, n_out=2, diff_outputs=(True, False))


def gru_cell(gi, h, w_t, b_hh=None):
    """One GRU step: ``h_new`` from the projected input ``gi`` (N, 3H) and ``h`` (N, H)."""
    if b_hh is None:
        return apply(GRU_CELL_NO_BIAS, (gi, h, w_t))[0]
    return apply(GRU_CELL, (gi, h, w_t, b_hh))[0]


# ----------------------------------------------------------------------------------- Elman (RNN)
def _elman_forward(activation):
    def forward(xp, gi, h, w_t, b=None):
        pre = xp.matmul(h, w_t)
        pre += gi
        if b is not None:
            pre += b
        return activation(xp, pre)
    return forward


def _tanh_delta(xp, g, result):
    return g * (1.0 - result * result)


def _relu_delta(xp, g, result):
    return xp.where(xp.data(result) > 0, g, 0.0)  # (a constant mask: relu's second derivative is zero)


def _elman_formulas(delta, bias: bool) -> list:
    """The pre-activation grad (cheap: one or two element-wise ops) is recomputed by each formula."""
    def formula(k):
        return lambda xp, g, input1, input2, result: _linear_grad(k, xp, delta(xp, g, result), input1, input2)
    return [formula(k) for k in range(4 if bias else 3)]


def _elman_op(name, activation, delta):
    with_bias = defop(name, _elman_forward(activation), _elman_formulas(delta, True),
                      saved=("input1", "input2", "result"), n_in=4)
    no_bias_forward = _elman_forward(activation)
    without = defop(name, lambda xp, gi, h, w: no_bias_forward(xp, gi, h, w), _elman_formulas(delta, False),
                    saved=("input1", "input2", "result"), n_in=3)
    return with_bias, without


RNN_TANH_CELL, RNN_TANH_CELL_NO_BIAS = _elman_op("RnnTanhCellBackward0", lambda xp, a: xp.tanh(a), _tanh_delta)
RNN_RELU_CELL, RNN_RELU_CELL_NO_BIAS = _elman_op("RnnReluCellBackward0", lambda xp, a: xp.maximum(a, 0), _relu_delta)


def rnn_tanh_cell(gi, h, w_t, b_hh=None):
    """One Elman step with tanh: ``tanh(gi + h @ w_t + b_hh)``."""
    if b_hh is None:
        return apply(RNN_TANH_CELL_NO_BIAS, (gi, h, w_t))
    return apply(RNN_TANH_CELL, (gi, h, w_t, b_hh))


def rnn_relu_cell(gi, h, w_t, b_hh=None):
    """One Elman step with relu: ``relu(gi + h @ w_t + b_hh)``."""
    if b_hh is None:
        return apply(RNN_RELU_CELL_NO_BIAS, (gi, h, w_t))
    return apply(RNN_RELU_CELL, (gi, h, w_t, b_hh))
