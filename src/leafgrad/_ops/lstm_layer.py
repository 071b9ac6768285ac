"""A whole LSTM layer (one direction, every time step) as one op: torch's ``MkldnnRnnLayerBackward0``.

torch's CPU ``nn.LSTM`` runs each (layer, direction) of a float32 LSTM as one oneDNN kernel and
records one ``MkldnnRnnLayerBackward0`` node for it, with seven inputs (input, W_ih, W_hh, b_ih,
b_hh, hx, cx; zero biases without ``bias``) and four outputs (output, h_n, c_n, workspace). This
op is that node. One node per layer instead of one per step (``rnn_cells.py``) matters beyond the
engine's per-node cost: the backward can do for all time steps at once what a per-step node must
do step by step, and only the truly sequential part stays in the Python loop.

Forward, on arrays: the input projection of every step is one matmul. The gates are kept in the
order [o, i, f, g] (torch's rows are [i, f, g, o]) with the three sigmoid gates' rows of the
weights and biases halved (exact: a power of two), so that one ``tanh`` over a step's whole gate
row gives ``tanh`` of the cell candidate and ``tanh(z / 2)`` of the others, and
``sigmoid(z) = (1 + tanh(z / 2)) / 2`` is two in-place operations on one contiguous block. Each
step is then ~10 NumPy calls on preallocated buffers: ``h @ W_hh^T`` into the gate buffer, the
input part added, the activations, the cell and hidden states written into the output buffers.

Backward, on arrays: the derivative factors that need no gradient (``o (1 - tanh(c)^2)``,
``tanh(c) o (1 - o)``, ``g i (1 - i)``, ``c_prev f (1 - f)``, ``i (1 - g^2)``) are computed for every
step in a few passes over (T, N, H) arrays; the loop back through time then only carries ``dh``
(one ``(N, 4H) @ (4H, H)`` matmul a step) and ``dc``, and writes the gate gradients of each step
into one (T, N, 4H) buffer. The weight and input gradients are each one large matmul over all
steps, computed only by the formulas of the inputs that need them (the loop is shared: see
``rnn_cells._shared``).

Under ``create_graph`` (formulas on Tensors) the layer is recomputed step by step with
differentiable ops and differentiated by the same recurrences written with them, so second-order
gradients are exact (torch's ``mkldnn_rnn_layer_backward`` is differentiable the same way, through
its decomposition).
"""
from __future__ import annotations

from .registry import apply, defop
from .rnn_cells import _shared, _sig, _sigmoid_inplace
from .saved_display import show_saved

__all__ = ["lstm_layer"]


def _to_ofig(xp, w, hs: int):
    """Rows (or entries) in torch's gate order [i, f, g, o] -> [o, i, f, g] (a new array)."""
    return xp.concatenate((w[3 * hs:], w[:3 * hs]), axis=0)


def _from_ofig(xp, w, hs: int):
    """The inverse of :func:`_to_ofig`."""
    return xp.concatenate((w[hs:], w[:hs]), axis=0)


def _steps(seq_len: int, reverse: bool) -> range:
    return range(seq_len - 1, -1, -1) if reverse else range(seq_len)


def _workspace_views(ws, seq_len: int, batch: int, hs: int) -> tuple:
    """(activated gates (T, N, 4H) in [o, i, f, g] order, cell states (T, N, H), tanh of them (T, N, H))."""
    n = seq_len * batch * hs
    return (ws[:4 * n].reshape((seq_len, batch, 4 * hs)), ws[4 * n:5 * n].reshape((seq_len, batch, hs)),
            ws[5 * n:].reshape((seq_len, batch, hs)))


# ----------------------------------------------------------------------------------- forward
def _layer_forward(xp, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, batch_sizes, mode, hidden_size, num_layers,
                   has_biases, bidirectional, batch_first, train):
    seq_len, batch, features = x.shape
    hs = w_hh.shape[1]
    w_in = _to_ofig(xp, w_ih, hs)
    w_in[:3 * hs] *= 0.5  # (the sigmoid gates' pre-activations, halved: see the module docstring)
    bias = None
    if has_biases:  # (without, torch passes zeros shaped as the weights)
        bias = _to_ofig(xp, b_ih + b_hh, hs)
        bias[:3 * hs] *= 0.5
    w_rec = _to_ofig(xp, w_hh, hs)
    w_rec[:3 * hs] *= 0.5
    w_rec_t = xp.ascontiguousarray(w_rec.T)  # (H, 4H): a few rows times a contiguous matrix is fastest
    gi = xp.matmul(x.reshape((seq_len * batch, features)), w_in.T)
    if bias is not None:
        gi += bias
    gi = gi.reshape((seq_len, batch, 4 * hs))
    ws = xp.empty(seq_len * batch * hs * 6, dtype=x.dtype)
    acts, cells, tanh_cells = _workspace_views(ws, seq_len, batch, hs)
    out = xp.empty((seq_len, batch, hs), dtype=x.dtype)
    h, c = hx, cx
    for t in _steps(seq_len, reverse):
        a = acts[t]
        xp.matmul(h, w_rec_t, out=a)
        a += gi[t]
        xp.tanh(a, out=a)
        sig = a[:, :3 * hs]
        sig += 1.0
        sig *= 0.5
        c_new = cells[t]
        xp.multiply(a[:, 2 * hs:3 * hs], c, out=c_new)  # f * c
        c_new += a[:, hs:2 * hs] * a[:, 3 * hs:]  # + i * g
        tc = tanh_cells[t]
        xp.tanh(c_new, out=tc)
        h = out[t]
        xp.multiply(a[:, :hs], tc, out=h)
        c = c_new
    return out, h.copy(), c.copy(), ws


# ---------------------------------------------------------------------------- backward (arrays)
def _previous(xp, states, initial, reverse):
    """The state each step read (T, N, H): ``initial``, then ``states`` of the steps before, in time order."""
    prev = xp.empty_like(states)
    if reverse:
        prev[:-1] = states[1:]
        prev[-1] = initial
    else:
        prev[1:] = states[:-1]
        prev[0] = initial
    return prev


def _through_time(xp, g, x, w_hh, hx, cx, ws, reverse) -> tuple:
    """(gate gradients (T, N, 4H) in [o, i, f, g] order, dc after the earliest step, that step)."""
    seq_len, batch, _ = x.shape
    hs = w_hh.shape[1]
    acts, cells, tanh_cells = _workspace_views(ws, seq_len, batch, hs)
    g_out = g[0]
    g_hy = g[1] if len(g) > 1 else None
    g_cy = g[2] if len(g) > 2 else None
    o, i, f, gg = acts[..., :hs], acts[..., hs:2 * hs], acts[..., 2 * hs:3 * hs], acts[..., 3 * hs:]
    # the factors that need no gradient, for every step at once
    to_c = 1.0 - tanh_cells * tanh_cells
    to_c *= o  # dh -> dc
    to_o = o - o * o
    to_o *= tanh_cells  # dh -> d(o's pre-activation)
    c_prev = _previous(xp, cells, cx, reverse)
    to_ifg = xp.empty((seq_len, batch, 3, hs), dtype=x.dtype)  # dc -> d(i, f, g pre-activations)
    xp.multiply(i - i * i, gg, out=to_ifg[:, :, 0])
    xp.multiply(f - f * f, c_prev, out=to_ifg[:, :, 1])
    xp.multiply(1.0 - gg * gg, i, out=to_ifg[:, :, 2])
    w_rec = _to_ofig(xp, w_hh, hs)
    dz = xp.empty((seq_len, batch, 4 * hs), dtype=x.dtype)
    dz4 = dz.reshape((seq_len, batch, 4, hs))
    dh = xp.zeros((batch, hs), dtype=x.dtype) if g_hy is None else g_hy.copy()
    dc = xp.zeros((batch, hs), dtype=x.dtype) if g_cy is None else g_cy.copy()
    later = None
    for t in _steps(seq_len, not reverse):
        if later is not None:
            xp.matmul(dz[later], w_rec, out=dh)
            dc *= f[later]
        if g_out is not None:
            dh += g_out[t]
        dc += dh * to_c[t]
        xp.multiply(dh, to_o[t], out=dz4[t, :, 0])
        xp.multiply(dc[:, None, :], to_ifg[t], out=dz4[t, :, 1:])
        later = t
    return dz, dc, later


def _array_grad(k: int, xp, g, x, w_ih, w_hh, hx, cx, out, ws, reverse):
    dz, dc, first = _shared(xp, g, ws, lambda: _through_time(xp, g, x, w_hh, hx, cx, ws, reverse))
    seq_len, batch, features = x.shape
    hs = w_hh.shape[1]
    if k == 0:
        return xp.matmul(dz.reshape((seq_len * batch, 4 * hs)), _to_ofig(xp, w_ih, hs)).reshape(x.shape)
    if k == 5:
        return xp.matmul(dz[first], _to_ofig(xp, w_hh, hs))
    if k == 6:
        return dc * ws[:4 * seq_len * batch * hs].reshape((seq_len, batch, 4 * hs))[first, :, 2 * hs:3 * hs]
    flat = dz.reshape((seq_len * batch, 4 * hs))
    if k in (3, 4):
        return _from_ofig(xp, xp.sum(flat, axis=0), hs)
    source = x if k == 1 else _previous(xp, out, hx, reverse)
    return _from_ofig(xp, xp.matmul(flat.T, source.reshape((seq_len * batch, source.shape[2]))), hs)


# --------------------------------------------------------------------------- backward (Tensors)
def _tensor_grads(xp, g, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, has_biases) -> tuple:
    """All seven gradients with differentiable ops: the layer recomputed step by step, then BPTT."""
    seq_len, batch, features = x.shape
    xs = [a.reshape((batch, features)) for a in xp.split(x, seq_len, axis=0)]
    w_ih_t, w_hh_t = xp.swapaxes(w_ih, 0, 1), xp.swapaxes(w_hh, 0, 1)
    h, c, saved = hx, cx, {}
    for t in _steps(seq_len, reverse):
        z = xp.matmul(xs[t], w_ih_t) + xp.matmul(h, w_hh_t)
        zi, zf, zg, zo = xp.split(z + b_ih + b_hh if has_biases else z, 4, axis=1)
        i, f, gg, o = _sig(xp, zi), _sig(xp, zf), xp.tanh(zg), _sig(xp, zo)
        c_new = f * c + i * gg
        tc = xp.tanh(c_new)
        saved[t] = (h, c, i, f, gg, o, tc)
        h, c = o * tc, c_new
    g = list(g) + [None] * (3 - len(g))
    g_out = [a.reshape((batch, a.shape[2])) for a in xp.split(g[0], seq_len, axis=0)] if g[0] is not None else None
    dh, dc = g[1], g[2]
    dx, dw_ih, dw_hh, db = [None] * seq_len, None, None, None
    for t in _steps(seq_len, not reverse):
        h_prev, c_prev, i, f, gg, o, tc = saved[t]
        if g_out is not None:
            dh = g_out[t] if dh is None else dh + g_out[t]
        if dh is None:
            dh = xp.zeros_like(h_prev)
        dct = dh * o * (1.0 - tc * tc)
        dct = dct if dc is None else dct + dc
        dz = xp.concatenate((dct * gg * (i * (1.0 - i)), dct * c_prev * (f * (1.0 - f)), dct * i * (1.0 - gg * gg),
                             dh * tc * (o * (1.0 - o))), axis=1)
        dx[t] = xp.matmul(dz, w_ih)
        dz_t = xp.swapaxes(dz, 0, 1)
        parts = (xp.matmul(dz_t, xs[t]), xp.matmul(dz_t, h_prev), xp.sum(dz, axis=0))
        dw_ih, dw_hh, db = parts if db is None else (dw_ih + parts[0], dw_hh + parts[1], db + parts[2])
        dh, dc = xp.matmul(dz, w_hh), dct * f
    return xp.stack(dx, axis=0), dw_ih, dw_hh, db, db, dh, dc


def _formula(k: int):
    def formula(xp, g, input, weight0, weight1, weight2, weight3, hx_, cx_, result0, result3, reverse, batch_sizes,
                mode, hidden_size, num_layers, has_biases, *_):
        if xp.tensors:
            return _tensor_grads(xp, g, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, has_biases)[k]
        return _array_grad(k, xp, g, input, weight0, weight1, hx_, cx_, result0, result3, reverse)
    return formula


_TORCH_PARAMS = ("reverse", "batch_sizes", "mode", "hidden_size", "num_layers", "has_biases", "bidirectional",
                 "batch_first", "train")
LSTM_LAYER = defop("MkldnnRnnLayerBackward0", _layer_forward, [_formula(k) for k in range(7)],
                   saved=("input0", "input1", "input2", "input3", "input4", "input5", "input6", "result0", "result3")
                   + _TORCH_PARAMS, n_in=7, n_out=4, diff_outputs=(True, True, True, False))


def _last_step(v, part):
    """The output at the last step run (h_n, ``result1``) or the cell state there (c_n, ``result2``)."""
    out = v("result0")
    last = 0 if v("reverse") else out.shape[0] - 1
    if part == 0:
        return out[last].detach()
    n = out.shape[0] * out.shape[1] * out.shape[2]
    return v("result3")[4 * n:5 * n].reshape(out.shape)[last].detach()


# torch's names for the saved values (its backward also reads h_n and c_n, shown from the others here)
show_saved(LSTM_LAYER, ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_", "result0", "result3")
           + _TORCH_PARAMS, shown={"result1": lambda v: _last_step(v, 0), "result2": lambda v: _last_step(v, 1)})


def lstm_layer(x, w_ih, w_hh, b_ih, b_hh, hx, cx, *, reverse: bool, has_biases: bool, num_layers: int,
               bidirectional: bool, batch_first: bool, train: bool) -> tuple:
    """One LSTM layer in one direction over the (T, N, F) input ``x`` (T > 0): ``(output (T, N, H), h_n, c_n)``.
    Without biases ``b_ih`` / ``b_hh`` are zeros shaped as ``w_ih`` / ``w_hh`` (torch's); ``hx`` / ``cx`` are (N, H). The
    other arguments are what torch's node shows (``_saved_num_layers``, ...); they change no value."""
    out = apply(LSTM_LAYER, (x, w_ih, w_hh, b_ih, b_hh, hx, cx),
                (reverse, (), 2, w_hh.shape[1], num_layers, has_biases, bidirectional, batch_first, train))
    return out[0], out[1], out[2]
