"""RNN, LSTM and GRU: multi-layer, optionally bidirectional, batch_first, with torch's parameter names.

Each layer and direction projects the whole input sequence with one matmul, then steps
through time with one ``addmm`` for the hidden state per step; everything is leafgrad
ops, so backpropagation through time (and double backward) come from the engine.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ..._creation import empty, zeros
from ..._ops.pointwise import relu, sigmoid, tanh
from ..._ops.shape import cat, stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import factory
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                params = [Parameter(empty((gate_size, layer_input), **factory(device, dtype))),
                          Parameter(empty((gate_size, real_hidden), **factory(device, dtype)))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(empty(gate_size, **factory(device, dtype))),
                               Parameter(empty(gate_size, **factory(device, dtype)))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(empty((proj_size, hidden_size), **factory(device, dtype))))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, p in zip(names, params):
                    setattr(self, name, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    def flatten_parameters(self) -> None:
        """No-op (cuDNN weight packing has no meaning here)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ the forward pass
    def _check_input(self, input) -> None:
        w = getattr(self, self._flat_weights_names[0])
        if input.dtype is not w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def _expected_hidden(self, batch: int, size: int) -> tuple:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_hidden(self, hx, expected, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _prepare(self, input):
        """(L, N, In) input, whether it was batched, the batch size."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._get_name()}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        self._check_input(input)
        return input, batched, input.size(1)

    def _finish(self, output, batched: bool):
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    def _run(self, x, hiddens: list, cell) -> tuple:
        """All layers and directions; ``hiddens[k]`` is the initial state (tuple) of layer/direction k."""
        num_directions = 2 if self.bidirectional else 1
        finals = []
        seq_len = x.size(0)
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                params = [getattr(self, n) for n in self._all_weights[k]]
                w_ih, w_hh = params[0], params[1]
                b_ih, b_hh = (params[2], params[3]) if self.bias else (None, None)
                w_hr = params[-1] if self.proj_size > 0 else None
                n_batch = x.size(1)
                xi = F.linear(x.reshape(seq_len * n_batch, x.size(2)), w_ih, b_ih)  # every time step at once
                steps = xi.view(seq_len, n_batch, -1).unbind(0)
                state = hiddens[k]
                seq = [None] * seq_len
                order = range(seq_len - 1, -1, -1) if direction == 1 else range(seq_len)
                for t in order:
                    state = cell(steps[t], state, w_hh, b_hh, w_hr)
                    seq[t] = state[0]
                outs.append(stack(seq, 0) if seq_len else zeros((0, n_batch, state[0].size(1)), dtype=x.dtype))
                finals.append(state)
            x = outs[0] if num_directions == 1 else cat(outs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals


def _rnn_cell(activation):
    def cell(xi, state, w_hh, b_hh, w_hr):
        return (activation(xi + F.linear(state[0], w_hh, b_hh)),)
    return cell


def _lstm_cell(xi, state, w_hh, b_hh, w_hr):
    h, c = state
    gates = xi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_cell(xi, state, w_hh, b_hh, w_hr):
    h = state[0]
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = xi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = sigmoid(i_r + h_r)
    z = sigmoid(i_z + h_z)
    n = tanh(i_n + r * h_n)
    return (n + z * (h - n),)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.__dict__["nonlinearity"] = args[3]
            args = args[:3] + args[4:]
        else:
            self.__dict__["nonlinearity"] = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        x, batched, n = self._prepare(input)
        if hx is None:
            hx = zeros(self._expected_hidden(n, self.hidden_size), dtype=x.dtype)
        else:
            if batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        self._check_hidden(hx, self._expected_hidden(n, self.hidden_size))
        cell = _rnn_cell(tanh if self.mode == "RNN_TANH" else relu)
        out, finals = self._run(x, [(h,) for h in hx.unbind(0)], cell)
        h_n = stack([s[0] for s in finals], 0)
        return self._finish(out, batched), (h_n if batched else h_n.squeeze(1))


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        x, batched, n = self._prepare(input)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = zeros(self._expected_hidden(n, real_hidden), dtype=x.dtype)
            c0 = zeros(self._expected_hidden(n, self.hidden_size), dtype=x.dtype)
        else:
            h0, c0 = hx
            if batched and (h0.dim() != 3 or c0.dim() != 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got ({h0.dim()}-D, "
                                   f"{c0.dim()}-D) tensors")
            if not batched:
                if h0.dim() != 2 or c0.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({h0.dim()}-D, {c0.dim()}-D) tensors")
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
        self._check_hidden(h0, self._expected_hidden(n, real_hidden), "Expected hidden[0] size {}, got {}")
        self._check_hidden(c0, self._expected_hidden(n, self.hidden_size), "Expected hidden[1] size {}, got {}")
        out, finals = self._run(x, list(zip(h0.unbind(0), c0.unbind(0))), _lstm_cell)
        h_n = stack([s[0] for s in finals], 0)
        c_n = stack([s[1] for s in finals], 0)
        if not batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(out, batched), (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (torch's gate order r, z, n)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        x, batched, n = self._prepare(input)
        if hx is None:
            hx = zeros(self._expected_hidden(n, self.hidden_size), dtype=x.dtype)
        else:
            if batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        self._check_hidden(hx, self._expected_hidden(n, self.hidden_size))
        out, finals = self._run(x, [(h,) for h in hx.unbind(0)], _gru_cell)
        h_n = stack([s[0] for s in finals], 0)
        return self._finish(out, batched), (h_n if batched else h_n.squeeze(1))
