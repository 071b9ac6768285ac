"""``F.embedding_bag``: torch's argument checks and layouts (2-d input: fixed-length bags; 1-d
input: bags that start at ``offsets``), then the kernel of ``leafgrad/_ops/embedding_bag.py``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._ops.embedding_bag import embedding_bag as _bags
from .._tensor import Tensor
from ._sparse_grad import warn_dense_gradient

__all__ = ["embedding_bag"]


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sums, means or maxima of bags of embeddings, without building the (bags, length, dim) lookup."""
    if weight.dtype is D.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    psw = per_sample_weights
    if psw is not None and input.size() != psw.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, then it must have the "
                         f"same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        starts = np.arange(0, idx.size, max(idx.shape[1], 1), dtype=np.int64)[:idx.shape[0]]
        include_last_offset = False
        idx = idx.reshape(-1)
        if psw is not None:
            psw = psw.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets._data.astype(np.int64)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:  # (a dense gradient of the same values: _sparse_grad.py)
        warn_dense_gradient("embedding_bag")
    if input.dtype._kind != 1:
        raise RuntimeError(f"expected scalar type Long but found {D.scalar_type_name(input.dtype)}")
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"index out of range in self: embedding_bag indices must lie in [0, {n})")
    if starts.size and (starts[0] != 0 if input.dim() == 1 else False):
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(starts[0])}")
    if starts.size and np.any(np.diff(starts) < 0) or (starts.size and starts[-1] > idx.size):
        raise RuntimeError("offsets must be non-decreasing and at most the number of indices")
    if max_norm is not None:
        from .functional import _embedding_renorm_
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but got "
                               f"{padding_idx}")
        padding_idx = padding_idx % n
    # with include_last_offset the last offset only counts the bags: torch's CPU kernel runs the last bag
    # to the end of the input all the same
    n_bags = len(starts) - 1 if include_last_offset else len(starts)
    offs = np.asarray(starts[:max(n_bags, 0)], dtype=np.int64)
    return _bags(weight, np.ascontiguousarray(idx, dtype=np.int64), offs, max(n_bags, 0), mode, psw, padding_idx,
                 scale_grad_by_freq, sparse)
