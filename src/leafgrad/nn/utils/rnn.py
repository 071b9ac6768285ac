"""``nn.utils.rnn``: padding variable-length sequences and packing them for the recurrent layers.

A ``PackedSequence`` holds the valid time steps of a batch, step by step: ``data`` stacks, for each time
step t, the rows of the ``batch_sizes[t]`` sequences still running at t (so sequences are ordered by
decreasing length); ``sorted_indices`` records the reordering done when the input was not already sorted
and ``unsorted_indices`` its inverse, so ``pad_packed_sequence`` gives the batch back in the caller's order.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

import leafgrad
from leafgrad import Tensor

from ..._ops.packing import PACK_PADDED_SEQUENCE
from ..._ops.registry import apply

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """A packed batch (a named tuple, as torch's): build it with ``pack_padded_sequence`` or ``pack_sequence``."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def to(self, *args, **kwargs) -> "PackedSequence":
        """``data.to(...)``; the index tensors follow the data's device (``batch_sizes`` stays on the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = lambda t: t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, move),
                          _bind(self.unsorted_indices, move))

    def cuda(self, *args, **kwargs) -> "PackedSequence":
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs) -> "PackedSequence":
        kwargs.setdefault("device", "cpu")
        return self.to(*args, **kwargs)

    def pin_memory(self) -> "PackedSequence":
        return type(self)(self.data.pin_memory(), self.batch_sizes, _bind(self.sorted_indices, Tensor.pin_memory),
                          _bind(self.unsorted_indices, Tensor.pin_memory))

    def double(self):
        return self.to(dtype=leafgrad.float64)

    def float(self):
        return self.to(dtype=leafgrad.float32)

    def half(self):
        return self.to(dtype=leafgrad.float16)

    def long(self):
        return self.to(dtype=leafgrad.int64)

    def int(self):
        return self.to(dtype=leafgrad.int32)

    def short(self):
        return self.to(dtype=leafgrad.int16)

    def char(self):
        return self.to(dtype=leafgrad.int8)

    def byte(self):
        return self.to(dtype=leafgrad.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU: build a PackedSequence with pack_sequence or "
                             "pack_padded_sequence rather than by hand")
        return data, batch_sizes, sorted_indices, unsorted_indices
    # PackedSequence((data, batch_sizes)) also works, as in torch
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2 (data, batch_sizes) when "
                             "batch_sizes is not given")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse permutation: ``out[permutation[i]] = i``."""
    if permutation is None:
        return None
    return leafgrad.empty_like(permutation).scatter_(0, permutation, leafgrad.arange(permutation.numel()))


def _check_lengths(lengths: np.ndarray, batch: int, steps: int) -> None:
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    if batch and lengths.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if batch and lengths[0] > steps:
        # torch reads past the end of the input here; refusing is the only reproducible answer
        raise RuntimeError(f"pack_padded_sequence: a length of {int(lengths[0])} is longer than the input's "
                           f"{steps} time steps: lengths must not exceed the padded sequence dimension")


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ((T, B, *) or with ``batch_first`` (B, T, *)) given each sequence's length."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=leafgrad.int64)
    else:
        lengths = leafgrad.as_tensor(lengths, dtype=leafgrad.int64, device="cpu")
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D cpu "
                           "Long tensor")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = leafgrad.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    lens = np.asarray(lengths.numpy())
    _check_lengths(lens, input.size(batch_dim), input.size(time_dim))
    steps = int(lens[0]) if lens.size else 0
    batch_sizes = np.array([(lens > t).sum() for t in range(steps)], dtype=np.int64)
    time_idx = np.repeat(np.arange(steps), batch_sizes)
    batch_idx = np.concatenate([np.arange(b) for b in batch_sizes]) if steps else np.zeros(0, np.int64)
    key = (batch_idx, time_idx) if batch_first else (time_idx, batch_idx)
    data = apply(PACK_PADDED_SEQUENCE, (input,), (key,))
    return PackedSequence(data, leafgrad.from_numpy(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded batch (in the original order) and each sequence's length."""
    batch_sizes = np.asarray(sequence.batch_sizes.numpy())
    max_len = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch = int(batch_sizes[0]) if batch_sizes.size else 0
    time_idx = np.repeat(np.arange(batch_sizes.shape[0]), batch_sizes)
    batch_idx = np.concatenate([np.arange(b) for b in batch_sizes]) if batch_sizes.size else np.zeros(0, np.int64)
    shape = (batch, max_len) if batch_first else (max_len, batch)
    out = leafgrad.full(shape + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    out[(batch_idx, time_idx) if batch_first else (time_idx, batch_idx)] = data
    lengths = leafgrad.from_numpy((batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64))
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return out.index_select(0 if batch_first else 1, order), lengths[order]
    return out, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (each (L_i, *)) into (T, B, *) or (B, T, *), padding the rest."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences: pad_sequence needs at least one tensor")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(first.shape[1:])
    shape = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = leafgrad.full(shape + trailing, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        steps = slice(0, n) if padding_side == "right" else slice(max_len - n, max_len)
        out[(i, steps) if batch_first else (steps, i)] = seq
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The list of unpadded sequences of a padded batch.

    torch transposes a time-major input in place as a side effect; leafgrad has no in-place transpose and
    reads a transposed view instead, leaving the caller's tensor as it was."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    idx = leafgrad.arange(padded_sequences.shape[1])
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence`` of ``pad_sequence(sequences)``."""
    lengths = leafgrad.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
