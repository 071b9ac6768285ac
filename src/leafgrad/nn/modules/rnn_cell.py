"""RNNCell, LSTMCell and GRUCell: one recurrent step, with torch's parameters, checks and repr.

A step is ``x @ W_ih.T + b_ih`` (one linear) followed by one cell op of ``_ops/rnn_cells.py``
(the hidden-to-hidden matmul and the gates, one node: see there for what is recorded).
Inputs are batched ``(N, input_size)`` or unbatched ``(input_size,)``, as in torch.
"""
from __future__ import annotations

import math

from ..._creation import zeros
from ..._ops.rnn_cells import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell
from .. import functional as F
from .. import init
from ..parameter import _uninitialized
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Module):
    """The parameters (``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``) and checks the cells share."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = _uninitialized((num_chunks * hidden_size, input_size), device, dtype)
        self.weight_hh = _uninitialized((num_chunks * hidden_size, hidden_size), device, dtype)
        if bias:
            self.bias_ih = _uninitialized((num_chunks * hidden_size,), device, dtype)
            self.bias_hh = _uninitialized((num_chunks * hidden_size,), device, dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in +-1/sqrt(hidden_size), as torch's cells."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    # ------------------------------------------------------------------ checks, then one step
    def _batched(self, input, states):
        """(input, states) as 2-D tensors, and whether the input was batched (torch's checks, in its order)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if states is not None:
            for k, h in enumerate(states):
                if h.dim() not in (1, 2):
                    label = f"hx[{k}]" if len(states) > 1 else "hidden"
                    raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        if states is None:
            return input, None, batched
        states = [h if batched else h.unsqueeze(0) for h in states]
        for k, h in enumerate(states):
            if h.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} batch size {h.size(0)}")
            if h.dim() != 2 or h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, expected "
                                   f"{self.hidden_size}")
        return input, states, batched

    def _step_inputs(self, input, hx, n_states: int):
        """(projected input, 2-D states, batched)."""
        input, states, batched = self._batched(input, hx)
        if states is None:
            states = [zeros((input.size(0), self.hidden_size), dtype=input.dtype)] * n_states
        return F.linear(input, self.weight_ih, self.bias_ih), states, batched


class RNNCell(RNNCellBase):
    """Elman cell: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        gi, (h,), batched = self._step_inputs(input, None if hx is None else (hx,), 1)
        step = rnn_tanh_cell if self.nonlinearity == "tanh" else rnn_relu_cell
        out = step(gi, h, self.weight_hh.t(), self.bias_hh)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """LSTM cell: returns ``(h', c')`` (gates input, forget, cell, output, stacked as torch's weights)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        gi, (h, c), batched = self._step_inputs(input, None if hx is None else tuple(hx), 2)
        h, c = lstm_cell(gi, h, c, self.weight_hh.t(), self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """GRU cell (gates reset, update, new, stacked as torch's weights)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        gi, (h,), batched = self._step_inputs(input, None if hx is None else (hx,), 1)
        out = gru_cell(gi, h, self.weight_hh.t(), self.bias_hh)
        return out if batched else out.squeeze(0)
