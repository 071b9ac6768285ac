"""RNN, LSTM and GRU: multi-layer, optionally bidirectional, batch_first, with torch's parameter names.

How a forward pass runs: for each layer and direction, the whole input sequence is
projected by one matmul (``x @ W_ih.T + b_ih``, all time steps at once); then a cell
steps through time, adding ``h @ W_hh.T + b_hh`` and applying its gates. Each step is one
op of ``_ops/rnn_cells.py`` (one node per timestep: ``LstmCellBackward0``,
``GruCellBackward0``, ``RnnTanhCellBackward0`` / ``RnnReluCellBackward0``), so backpropagation
through time and double backward come from the autograd engine. A float32 LSTM without
projection is one node per layer and direction instead, torch's ``MkldnnRnnLayerBackward0``
(``_ops/lstm_layer.py``), as torch's CPU LSTM records it. The three classes differ only in their cell and in the state they
carry: ``h`` for RNN and GRU, ``(h, c)`` for LSTM.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ..._creation import zeros, zeros_like
from ..._dtype import float32
from ..._ops.lstm_layer import lstm_layer
from ..._ops.rnn_cells import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell
from ..._ops.shape import cat, stack
from .. import functional as F
from .. import init
from ..parameter import _uninitialized
from .module import Module, _changed, _settings, parameter_of
from .rnn_packed import forward_packed, is_packed

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]


# ---------------------------------------------------------------------------------------- cells
# A cell maps (projected input of one step, state tuple, W_hh transposed, b_hh, W_hr) to the next state tuple.
# Each step is one op of _ops/rnn_cells.py (one node per timestep; see there for what is recorded).
def _elman_cell(step):
    def cell(xi, state, w_t, b_hh, w_hr):
        return (step(xi, state[0], w_t, b_hh),)
    return cell


def _lstm_cell(xi, state, w_t, b_hh, w_hr):
    h, c = lstm_cell(xi, state[0], state[1], w_t, b_hh)
    return (h if w_hr is None else F.linear(h, w_hr)), c  # proj_size: h is projected down


def _gru_cell(xi, state, w_t, b_hh, w_hr):
    return (gru_cell(xi, state[0], w_t, b_hh),)


# mode -> (gates stacked in W_ih / W_hh, cell)
_MODES = {"RNN_TANH": (1, _elman_cell(rnn_tanh_cell)), "RNN_RELU": (1, _elman_cell(rnn_relu_cell)), "LSTM": (4, _lstm_cell),
          "GRU": (3, _gru_cell)}


def _check_options(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size) -> None:
    if mode not in _MODES:
        raise ValueError(f"Unrecognized RNN mode: {mode} (one of {', '.join(_MODES)})")
    if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         f"being zeroed, got {dropout!r}")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero, got {value}")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError(f"proj_size has to be smaller than hidden_size (got proj_size={proj_size}, "
                         f"hidden_size={hidden_size})")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, the checks and the loop over layers, directions and time."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        _check_options(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _MODES[mode][0] * hidden_size
        out_size = proj_size or hidden_size  # the size of h (after the projection, if any)
        self._all_weights: list[list[str]] = []  # parameter names of each (layer, direction), in that order
        for layer in range(num_layers):
            width_in = input_size if layer == 0 else out_size * self._directions
            for direction in range(self._directions):
                tag = f"l{layer}" + ("_reverse" if direction else "")
                shapes = {f"weight_ih_{tag}": (gates, width_in), f"weight_hh_{tag}": (gates, out_size)}
                if bias:
                    shapes.update({f"bias_ih_{tag}": (gates,), f"bias_hh_{tag}": (gates,)})
                if proj_size:
                    shapes[f"weight_hr_{tag}"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name, _uninitialized(shape, device, dtype))
                self._all_weights.append(list(shapes))
        self._flat_weights_names = [name for names in self._all_weights for name in names]
        self.reset_parameters()

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _flat_weights(self) -> list:
        return [parameter_of(self, name) for name in self._flat_weights_names]  # (see parameter_of)

    @property
    def all_weights(self) -> list:
        """The parameters per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]`` (biases only if ``bias``)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do: it packs weights for cuDNN in torch."""

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in +-1/sqrt(hidden_size), torch's default for recurrent layers."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def extra_repr(self) -> str:
        return _settings(self.input_size, self.hidden_size,
                         **_changed(self, proj_size=0, num_layers=1, bias=True, batch_first=False, dropout=0,
                                    bidirectional=False))

    # ------------------------------------------------------------------ the forward pass
    def _state_sizes(self) -> list[int]:
        """The last dim of each state tensor: [h] (or [h, c] for LSTM)."""
        return [self.hidden_size]

    def _time_major(self, input):
        """(L, N, input_size) view of ``input``, whether it was batched, and N."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._get_name()}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead "
                             "((L, N, features), (N, L, features) with batch_first=True, or unbatched (L, features))")
        batched = input.dim() == 3
        x = input.transpose(0, 1) if batched and self.batch_first else input
        x = x if batched else x.unsqueeze(1)
        self._check_features(x)
        return x, batched, x.size(1)

    def _check_features(self, x) -> None:
        """The input's dtype is the weights' and its last dim is input_size (padded or packed data)."""
        weight = parameter_of(self, self._flat_weights_names[0])
        if x.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({x.dtype})")
        if x.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.size(-1)}")

    def _initial_states(self, hx, batched: bool, batch: int, dtype) -> list:
        """The given (or zero) initial state tensors, each (num_layers * directions, N, size), checked."""
        sizes = self._state_sizes()
        rows = self.num_layers * self._directions
        if hx is None:
            return [zeros((rows, batch, size), dtype=dtype) for size in sizes]
        given = list(hx) if len(sizes) > 1 else [hx]
        rank = 3 if batched else 2
        if any(h.dim() != rank for h in given):
            what = "hx and cx" if len(given) > 1 else "hx"
            ranks = ", ".join(f"{h.dim()}-D" for h in given)
            got = f"({ranks}) tensors" if len(given) > 1 else f"{ranks} tensor"
            raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, {what} should also be "
                               f"{rank}-D but got {got}")
        given = given if batched else [h.unsqueeze(1) for h in given]
        for i, (h, size) in enumerate(zip(given, sizes)):
            if tuple(h.shape) != (rows, batch, size):
                label = f"hidden[{i}]" if len(given) > 1 else "hidden"
                raise RuntimeError(f"Expected {label} size {(rows, batch, size)}, got {list(h.shape)} "
                                   "(num_layers * num_directions, batch, hidden)")
        return given

    def _stream_parameters(self, k: int) -> dict:
        """The parameters of stream ``k`` (= layer * directions + direction) by role: 'weight_ih', 'bias_hh', ..."""
        return {name.rsplit("_l", 1)[0]: parameter_of(self, name) for name in self._all_weights[k]}

    def _run_stream(self, x, state: tuple, k: int, reverse: bool) -> tuple[list, tuple]:
        """One layer in one direction over the whole (L, N, features) input: its outputs in time order (a list
        of steps, or one (L, N, H) tensor), final state."""
        p = self._stream_parameters(k)
        seq_len, batch = x.size(0), x.size(1)
        if self.mode == "LSTM" and not self.proj_size and seq_len and x.dtype is float32:
            return self._lstm_layer(x, state, p, reverse)
        # the input part of every step at once: one (L*N, features) matmul instead of L small ones
        steps = F.linear(x.reshape(seq_len * batch, x.size(2)), p["weight_ih"], p.get("bias_ih"))
        steps = steps.view(seq_len, batch, -1).unbind(0)
        cell = _MODES[self.mode][1]
        w_t = p["weight_hh"].t().contiguous()  # (once for every step: see _ops/rnn_cells.py)
        outputs = [None] * seq_len
        for t in (reversed(range(seq_len)) if reverse else range(seq_len)):
            state = cell(steps[t], state, w_t, p.get("bias_hh"), p.get("weight_hr"))
            outputs[t] = state[0]
        return outputs, state

    def _lstm_layer(self, x, state: tuple, p: dict, reverse: bool) -> tuple:
        """A float32 LSTM layer without projection as one node, torch's ``MkldnnRnnLayerBackward0``
        (``_ops/lstm_layer.py``): torch's CPU LSTM runs such layers as one oneDNN kernel each."""
        b_ih, b_hh = p.get("bias_ih"), p.get("bias_hh")
        if not x.is_contiguous():  # (a batch-first input: torch's CloneBackward0, as its kernel reads it contiguous)
            x = x.contiguous()
        if b_ih is None:  # (torch passes zeros shaped as the weights)
            b_ih, b_hh = zeros_like(p["weight_ih"]), zeros_like(p["weight_hh"])
        out, h, c = lstm_layer(x, p["weight_ih"], p["weight_hh"], b_ih, b_hh, state[0], state[1], reverse=reverse,
                               has_biases=self.bias, num_layers=self.num_layers, bidirectional=self.bidirectional,
                               batch_first=self.batch_first, train=self.training)
        return out, (h, c)

    def forward(self, input, hx=None):
        """Run the recurrence over a sequence: ``input`` is ``(L, N, input_size)`` (``(N, L, input_size)`` with
        ``batch_first``), unbatched ``(L, input_size)``, or a PackedSequence; ``hx`` is the initial state,
        ``(num_layers * num_directions, N, hidden_size)`` (an ``(h_0, c_0)`` pair for LSTM, whose ``h`` is
        ``proj_size`` wide when projecting), zeros when omitted.

        Returns ``(output, h_n)`` for RNN and GRU and ``(output, (h_n, c_n))`` for LSTM: output is
        ``(L, N, num_directions * hidden_size)`` (batch first if asked; a PackedSequence for packed input) and
        the final states keep hx's layout. Every time step's cell is recorded as ordinary ops (the gate
        matmuls and pointwise functions), so gradients reach the input, hx and every weight; the outputs are
        stacked, which makes the roots ``StackBackward0`` (a float32 LSTM's output is its last layer's
        ``MkldnnRnnLayerBackward0``, as torch's; ``TransposeBackward0`` for a batch-first output,
        ``SqueezeBackward1`` for unbatched input). Between layers, ``dropout`` applies only while training.
        """
        if is_packed(input):  # (a PackedSequence in, a PackedSequence out)
            return forward_packed(self, input, hx)
        x, batched, batch = self._time_major(input)
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN: the input has no time steps "
                               f"(shape {list(input.shape)}); give at least one step along its time dimension")
        initial = self._initial_states(hx, batched, batch, x.dtype)
        per_stream = list(zip(*(h.unbind(0) for h in initial)))  # one state tuple per (layer, direction)
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                k = layer * self._directions + direction
                seq, final = self._run_stream(x, per_stream[k], k, reverse=direction == 1)
                finals.append(final)
                width = final[0].size(-1)
                if isinstance(seq, list):
                    seq = stack(seq, 0) if seq else zeros((0, batch, width), dtype=x.dtype)
                outputs.append(seq)
            x = cat(outputs, 2) if len(outputs) > 1 else outputs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)  # between layers, never after the last
        states = [stack([f[i] for f in finals], 0) for i in range(len(initial))]
        if not batched:
            x, states = x.squeeze(1), [s.squeeze(1) for s in states]
        elif self.batch_first:
            x = x.transpose(0, 1)
        return x, (tuple(states) if len(states) > 1 else states[0])


def _reject_proj_size(kwargs: dict) -> None:
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU; use nn.LSTM(..., "
                         "proj_size=...) or add an nn.Linear after the layer")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu); returns ``output, h_n``."""

    def __init__(self, *args, **kwargs) -> None:
        _reject_proj_size(kwargs)
        # torch's 4th positional argument is the nonlinearity; RNNBase does not take it
        args = list(args)
        nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(f"RNN_{nonlinearity.upper()}", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates; returns ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def _state_sizes(self) -> list[int]:
        return [self.proj_size or self.hidden_size, self.hidden_size]


class GRU(RNNBase):
    """Gated recurrent unit (gate order reset, update, new, as torch's weights); returns ``output, h_n``."""

    def __init__(self, *args, **kwargs) -> None:
        _reject_proj_size(kwargs)
        super().__init__("GRU", *args, **kwargs)
