"""RNN / LSTM / GRU over a ``PackedSequence``: each step runs on the rows still active at that time.

A packed batch is sorted by decreasing length, time-major: step ``t`` holds the first
``batch_sizes[t]`` sequences. Going forward in time the state shrinks as sequences end (their
final state is kept aside); going backward it grows as sequences begin (from the initial state).
The result is packed the same way, built with the input's own PackedSequence class, so this file
needs nothing from ``nn.utils.rnn`` (any object with torch's four fields works). ``hx`` and the
final states are in the caller's order (``sorted_indices`` / ``unsorted_indices`` permute them).
"""
from __future__ import annotations

from ..._ops.shape import cat, stack
from .. import functional as F

__all__ = ["is_packed", "forward_packed"]


def is_packed(input) -> bool:
    """Is ``input`` a PackedSequence (torch's four fields, no tensor methods)?"""
    return type(input).__name__ == "PackedSequence" and hasattr(input, "batch_sizes") and hasattr(input, "data")


def _permute(states: list, index) -> list:
    return states if index is None else [s.index_select(1, index) for s in states]


def forward_packed(rnn, packed, hx=None):
    data, batch_sizes = packed.data, packed.batch_sizes
    sizes = [int(b) for b in batch_sizes.tolist()]
    if data.dim() != 2:
        raise ValueError(f"{rnn._get_name()}: Expected packed data to be 2D (sum of lengths, features), got "
                         f"{data.dim()}D tensor instead")
    rnn._check_features(data)
    initial = rnn._initial_states(hx, True, sizes[0] if sizes else 0, data.dtype)
    if hx is not None:
        initial = _permute(initial, packed.sorted_indices)
    per_stream = list(zip(*(h.unbind(0) for h in initial)))
    x, finals = data, []
    for layer in range(rnn.num_layers):
        outputs = []
        for direction in range(rnn._directions):
            k = layer * rnn._directions + direction
            seq, final = _run_packed_stream(rnn, x, sizes, per_stream[k], k, reverse=direction == 1)
            finals.append(final)
            outputs.append(cat(seq, 0))
        x = cat(outputs, 1) if len(outputs) > 1 else outputs[0]
        if rnn.dropout and rnn.training and layer < rnn.num_layers - 1:
            x = F.dropout(x, rnn.dropout, True)
    states = _permute([stack([f[i] for f in finals], 0) for i in range(len(initial))], packed.unsorted_indices)
    out = type(packed)(x, batch_sizes, packed.sorted_indices, packed.unsorted_indices)
    return out, (tuple(states) if len(states) > 1 else states[0])


def _run_packed_stream(rnn, x, sizes: list, state: tuple, k: int, reverse: bool):
    """One layer in one direction over packed ``x``: the outputs of each step (time order), final state."""
    from .rnn import _MODES
    p = rnn._stream_parameters(k)
    steps = F.linear(x, p["weight_ih"], p.get("bias_ih")).split(sizes, 0)
    cell = _MODES[rnn.mode][1]
    w_t = p["weight_hh"].t().contiguous()
    outputs = [None] * len(sizes)
    if not reverse:
        ended = [[] for _ in state]  # the final states of sequences that ended, latest first once reversed
        cur = state
        for t, bs in enumerate(sizes):
            if cur[0].size(0) > bs:
                for pieces, s in zip(ended, cur):
                    pieces.append(s[bs:])
                cur = tuple(s[:bs] for s in cur)
            cur = cell(steps[t], cur, w_t, p.get("bias_hh"), p.get("weight_hr"))
            outputs[t] = cur[0]
        return outputs, tuple(cat([s] + pieces[::-1], 0) if pieces else s for s, pieces in zip(cur, ended))
    cur = tuple(s[:sizes[-1]] for s in state)
    for t in reversed(range(len(sizes))):
        bs = sizes[t]
        if cur[0].size(0) < bs:  # sequences that begin here start from their initial state
            cur = tuple(cat([c, s[c.size(0):bs]], 0) for c, s in zip(cur, state))
        cur = cell(steps[t], cur, w_t, p.get("bias_hh"), p.get("weight_hr"))
        outputs[t] = cur[0]
    return outputs, cur
