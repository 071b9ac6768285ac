"""``embedding_bag``'s kernel: the rows of a weight looked up by index and reduced per bag
(sum, mean or max), one node (EmbeddingBagBackward0) with gradients for the weight and for
``per_sample_weights``. As in torch, the backward is not recorded even under create_graph
(a gradient of the gradient finds nothing that requires grad).
``leafgrad/nn/_f_embedding_bag.py`` checks the arguments and calls this.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .registry import apply, defop


def _arr(x):
    return x._data if isinstance(x, Tensor) else x


def _layout(idx, offsets, n_bags, padding_idx):
    """Each index's bag, and which indices count (not padding_idx)."""
    bag_of = np.searchsorted(offsets[:n_bags], np.arange(len(idx)), side="right") - 1
    valid = bag_of >= 0
    if padding_idx is not None:
        valid &= idx != padding_idx
    return bag_of, valid


def _counts(bag_of, valid, n_bags):
    return np.bincount(bag_of[valid], minlength=n_bags)


def _bags_fwd(xp, weight, psw, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse=False):
    idx = _arr(idx)
    bag_of, valid = _layout(idx, offsets, n_bags, padding_idx)
    d = weight.shape[1]
    out = np.zeros((n_bags, d), dtype=weight.dtype)
    rows = weight[idx[valid]]
    if mode == "max":
        out[:] = -np.inf
        np.maximum.at(out, bag_of[valid], rows)
        out[_counts(bag_of, valid, n_bags) == 0] = 0
        return out
    if psw is not None:
        rows = rows * psw[valid][:, None]
    np.add.at(out, bag_of[valid], rows)
    if mode == "mean":
        counts = _counts(bag_of, valid, n_bags)
        out = out / np.maximum(counts, 1)[:, None]
    return out.astype(weight.dtype, copy=False)


def _freq_divisors(idx, num_weights):
    """Each weight row's divisor under scale_grad_by_freq, as torch 2.13's CPU kernel computes it.

    torch counts every index (padding_idx included), sorts the indices, and divides the k-th
    distinct index (in ascending order) by the count of the index at position k of the sorted
    list, not by its own count (pytorch/pytorch#190063, fixed after 2.13). The two agree when all
    counts are equal; we reproduce 2.13's numbers because torch 2.13 CPU is the oracle.
    """
    counts = np.bincount(idx, minlength=num_weights)
    distinct = np.unique(idx)
    divisors = np.ones(num_weights, dtype=np.float64)
    divisors[distinct] = counts[np.sort(idx)[:len(distinct)]]
    return divisors


def _bags_back_fwd(xp, g, weight, psw, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, which):
    """The gradient for the weight (``which`` 0) or for per_sample_weights (1)."""
    idx, psw = _arr(idx), _arr(psw)
    bag_of, valid = _layout(idx, offsets, n_bags, padding_idx)
    if which == 1:
        out = np.zeros(len(idx), dtype=psw.dtype)
        out[valid] = (g[bag_of[valid]] * weight[idx[valid]]).sum(1)
        return out
    grad = np.zeros_like(weight)
    if mode == "max":
        rows = weight[idx[valid]]
        best = np.zeros_like(g) - np.inf
        np.maximum.at(best, bag_of[valid], rows)
        # the first index of each bag that reaches the max, per feature
        hit = rows == best[bag_of[valid]]
        taken = np.zeros(g.shape, dtype=bool)
        for k in range(hit.shape[0]):
            b = bag_of[valid][k]
            cols = hit[k] & ~taken[b]
            taken[b] |= cols
            grad[idx[valid][k], cols] += g[b, cols]
        return grad
    contrib = g[bag_of[valid]]
    if mode == "mean":
        contrib = contrib / np.maximum(_counts(bag_of, valid, n_bags), 1)[bag_of[valid]][:, None]
    if psw is not None:
        contrib = contrib * psw[valid][:, None]
    if scale_grad_by_freq:
        contrib = contrib / _freq_divisors(idx, weight.shape[0])[idx[valid]][:, None]
    np.add.at(grad, idx[valid], contrib)
    return grad.astype(weight.dtype, copy=False)


def _backward(xp, g, weight, psw, params, which):
    """torch's embedding_bag backward is not recorded even under create_graph: its result is a constant.
    (``sparse`` only asks torch for a sparse COO gradient: leafgrad's is dense, F.embedding_bag says so.)"""
    if params[-1] and params[-2] and which == 0:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients; pass "
                           "sparse=False to scale by frequency.")
    params = params[:-1]
    return xp.constant(_bags_back_fwd(np, xp.data(g), xp.data(weight), None if psw is None else xp.data(psw),
                                      *params, which))


def _grad_weight(xp, g, self, input1, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse):
    return _backward(xp, g, self, input1, (idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse), 0)


def _grad_psw(xp, g, self, input1, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse):
    return _backward(xp, g, self, input1, (idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse), 1)


_SAVED = ("self", "input1", "idx", "offsets", "n_bags", "mode", "padding_idx", "scale_grad_by_freq", "sparse")
BAGS = defop("EmbeddingBagBackward0", _bags_fwd, (_grad_weight, _grad_psw), saved=_SAVED, n_in=2)
BAGS_NO_PSW = defop("EmbeddingBagBackward0",
                    lambda xp, weight, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse: _bags_fwd(
                        xp, weight, None, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq),
                    lambda xp, g, self, idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse: _backward(
                        xp, g, self, None, (idx, offsets, n_bags, mode, padding_idx, scale_grad_by_freq, sparse), 0),
                    saved=("self", "idx", "offsets", "n_bags", "mode", "padding_idx", "scale_grad_by_freq",
                           "sparse"))


def embedding_bag(weight: Tensor, idx: np.ndarray, offsets: np.ndarray, n_bags: int, mode: str, psw,
                  padding_idx, scale_grad_by_freq: bool, sparse: bool = False) -> Tensor:
    params = (idx, offsets, n_bags, mode, padding_idx, bool(scale_grad_by_freq), bool(sparse))
    if psw is None:
        return apply(BAGS_NO_PSW, (weight,), params)
    return apply(BAGS, (weight, psw), params)
