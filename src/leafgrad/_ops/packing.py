"""The one differentiable op behind ``nn.utils.rnn.pack_padded_sequence``: gather the valid time steps.

A padded batch (time-major or batch-first) becomes the packed ``data`` rows, step by step, the
sequences still alive at each step in batch order; the backward scatters the gradient rows back into
zeros of the padded shape (the padding gets no gradient).
"""
from __future__ import annotations

from .registry import defop

PACK_PADDED_SEQUENCE = defop(
    "PackPaddedSequenceBackward0", lambda xp, input, key: input[key],
    lambda xp, g, self_sym_sizes, key: xp.index_add_zeros(g, self_sym_sizes, key),
    saved=("self_sym_sizes", "key"))
