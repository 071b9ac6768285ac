"""The losses that torch computes with one kernel each, and so records as one node each:
``multi_margin_loss`` (MultiMarginLossBackward0), ``multilabel_margin_loss``
(MultilabelMarginLossBackward0) and ``_ctc_loss`` (CtcLossBackward0).

Each forward and each backward is a NumPy kernel here. As in torch, their backward kernels
have no derivative of their own: a second backward through them raises torch's
``derivative for aten::<name>_backward is not implemented`` (the pattern of ``cdist``).
``leafgrad/nn/_f_losses_more.py`` checks the arguments and calls these.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .registry import apply, defop


def _arr(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _no_double(name: str):
    def formula(xp, gg, *rest):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


def _reduce(xp, per_sample, reduction: str, dtype):
    if reduction == "mean":
        return np.asarray(per_sample.mean() if per_sample.size else np.nan, dtype=dtype)
    if reduction == "sum":
        return np.asarray(per_sample.sum(), dtype=dtype)
    return per_sample.astype(dtype, copy=False)


def _grad_scale(g, reduction: str, n: int, dtype):
    """The incoming gradient per sample: the scalar g spread (and divided by n for 'mean')."""
    g = np.asarray(g, dtype=dtype)
    if reduction == "none":
        return g.reshape(-1)
    return np.full(n, g / n if reduction == "mean" else g, dtype=dtype)


# =============================================================================== multi margin loss
def _margins(x, y, margin):
    """``margin - x[i, y_i] + x[i, j]`` for every (i, j), and the mask of the terms that count (j != y_i, > 0)."""
    z = margin - np.take_along_axis(x, y[:, None], 1) + x
    keep = z > 0
    keep[np.arange(x.shape[0]), y] = False
    return z, keep


def _multi_margin_fwd(xp, x, target, p, margin, weight, reduction):
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim == 2 else x.reshape(1, -1)
    y = _arr(target).reshape(-1)
    z, keep = _margins(x2, y, margin)
    h = np.where(keep, z if p == 1 else z * z, 0)
    if weight is not None:
        h = h * _arr(weight).reshape(-1)[y][:, None]
    per = (h.sum(1) / x2.shape[1]).astype(x.dtype)
    if reduction == "none":
        return per.reshape(_arr(target).shape)
    return _reduce(xp, per, reduction, x.dtype)


def _multi_margin_back_fwd(xp, g, x, target, p, margin, weight, reduction):
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim == 2 else x.reshape(1, -1)
    y = _arr(target).reshape(-1)
    n, c = x2.shape
    z, keep = _margins(x2, y, margin)
    gh = np.where(keep, 1.0 if p == 1 else 2 * z, 0) / c
    if weight is not None:
        gh = gh * _arr(weight).reshape(-1)[y][:, None]
    gh = gh * _grad_scale(g, reduction, n, x.dtype)[:, None]
    out = gh.copy()
    out[np.arange(n), y] -= gh.sum(1)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


MULTI_MARGIN_BACK = defop("MultiMarginLossBackwardBackward0", _multi_margin_back_fwd,
                          (_no_double("multi_margin_loss_backward"),) * 2, n_in=2)
MULTI_MARGIN = defop("MultiMarginLossBackward0", _multi_margin_fwd,
                     lambda xp, g, self, target, p, margin, weight, reduction: xp.apply(
                         MULTI_MARGIN_BACK, g, self, params=(target, p, margin, weight, reduction)),
                     saved=("self", "target", "p", "margin", "weight", "reduction"))


def multi_margin_loss(input: Tensor, target: Tensor, p: int, margin: float, weight, reduction: str) -> Tensor:
    return apply(MULTI_MARGIN, (input,), (target, p, float(margin), weight, reduction))


# =============================================================================== multilabel margin loss
def _labels(x2, t2):
    """Per sample: the target classes (up to the first -1, repeats counted) as a mask of
    positions, and which classes are targets."""
    n, c = x2.shape
    valid = np.cumprod(t2 >= 0, axis=1).astype(bool)
    is_target = np.zeros((n, c), dtype=bool)
    rows = np.repeat(np.arange(n), c).reshape(n, c)
    is_target[rows[valid], t2[valid]] = True
    return valid, is_target


def _multilabel_terms(x2, t2):
    valid, is_target = _labels(x2, t2)
    xj = np.take_along_axis(x2, np.where(valid, t2, 0), 1)  # (n, c): x at each listed target
    z = 1.0 - xj[:, :, None] + x2[:, None, :]  # (n, target slot, class)
    keep = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return z, keep


def _as_matrix(x, t):
    return (x.reshape(1, -1), t.reshape(1, -1)) if x.ndim <= 1 else (x, t)


def _multilabel_fwd(xp, x, target, reduction):
    x2, t2 = _as_matrix(x, _arr(target))
    z, keep = _multilabel_terms(x2, t2)
    per = (np.where(keep, z, 0).sum((1, 2)) / x2.shape[1]).astype(x.dtype)
    if reduction == "none":
        return per.reshape(()) if x.ndim <= 1 else per
    return _reduce(xp, per, reduction, x.dtype)


def _multilabel_back_fwd(xp, g, x, target, reduction):
    x2, t2 = _as_matrix(x, _arr(target))
    n, c = x2.shape
    z, keep = _multilabel_terms(x2, t2)
    w = keep / c * _grad_scale(g, reduction, n, x.dtype)[:, None, None]
    out = w.sum(1)  # + for each non-target class d
    valid = np.cumprod(t2 >= 0, axis=1).astype(bool)
    minus = w.sum(2)  # - for each listed target j
    for i in range(n):
        np.add.at(out[i], t2[i][valid[i]], -minus[i][valid[i]])
    return out.reshape(x.shape).astype(x.dtype, copy=False)


MULTILABEL_MARGIN_BACK = defop("MultilabelMarginLossBackwardBackward0", _multilabel_back_fwd,
                               (_no_double("multilabel_margin_loss_backward"),) * 2, n_in=2)
MULTILABEL_MARGIN = defop("MultilabelMarginLossBackward0", _multilabel_fwd,
                          lambda xp, g, self, target, reduction: xp.apply(
                              MULTILABEL_MARGIN_BACK, g, self, params=(target, reduction)),
                          saved=("self", "target", "reduction"))


def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    return apply(MULTILABEL_MARGIN, (input,), (target, reduction))


# =============================================================================== CTC
def _extended(labels, blank):
    ext = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
    ext[1::2] = labels
    skip = np.zeros(len(ext), dtype=bool)  # may alpha(s) come from alpha(s - 2)?
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return ext, skip


def _alphas(lp, ext, skip, t_len):
    """log alpha (t_len, S): the log-probability of every prefix of the extended label path."""
    s_len = len(ext)
    alpha = np.full((max(t_len, 1), s_len), -np.inf)
    if t_len == 0:
        return alpha
    alpha[0, 0] = lp[0, ext[0]]
    if s_len > 1:
        alpha[0, 1] = lp[0, ext[1]]
    with np.errstate(invalid="ignore"):
        for t in range(1, t_len):
            a = alpha[t - 1]
            acc = a.copy()
            acc[1:] = np.logaddexp(acc[1:], a[:-1])
            acc[2:] = np.where(skip[2:], np.logaddexp(acc[2:], a[:-2]), acc[2:])
            alpha[t] = acc + lp[t, ext]
    return alpha


def _betas(lp, ext, skip, t_len):
    s_len = len(ext)
    beta = np.full((max(t_len, 1), s_len), -np.inf)
    if t_len == 0:
        return beta
    beta[t_len - 1, s_len - 1] = lp[t_len - 1, ext[s_len - 1]]
    if s_len > 1:
        beta[t_len - 1, s_len - 2] = lp[t_len - 1, ext[s_len - 2]]
    with np.errstate(invalid="ignore"):
        for t in range(t_len - 2, -1, -1):
            b = beta[t + 1]
            acc = b.copy()
            acc[:-1] = np.logaddexp(acc[:-1], b[1:])
            acc[:-2] = np.where(skip[2:], np.logaddexp(acc[:-2], b[2:]), acc[:-2])
            beta[t] = acc + lp[t, ext]
    return beta


def _targets_of(targets, target_lengths, b):
    if targets.ndim == 1:
        start = int(np.sum(target_lengths[:b]))
        return targets[start:start + target_lengths[b]]
    return targets[b, :target_lengths[b]]


def _ctc_fwd(xp, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lp = log_probs.astype(np.float64)
    nll = np.empty(lp.shape[1])
    for b in range(lp.shape[1]):
        ext, skip = _extended(_targets_of(targets, target_lengths, b), blank)
        t_len = int(input_lengths[b])
        alpha = _alphas(lp[:, b], ext, skip, t_len)
        last = alpha[t_len - 1, -1] if t_len else (0.0 if len(ext) == 1 else -np.inf)
        if len(ext) > 1 and t_len:
            last = np.logaddexp(last, alpha[t_len - 1, -2])
        nll[b] = -last
    return nll.astype(log_probs.dtype)


def _ctc_back_fwd(xp, g, log_probs, result, targets, input_lengths, target_lengths, blank, zero_infinity):
    """torch's ctc_loss_backward: ``exp(lp) - exp(log(sum of alpha*beta over the char) + nll - lp)``, the
    gradient as if a log_softmax came before (what torch's kernel returns), zero past each input's length
    and, with zero_infinity, for every impossible alignment."""
    lp = log_probs.astype(np.float64)
    nll = np.asarray(result, dtype=np.float64)
    grad = np.zeros_like(lp)
    gr = np.asarray(g, dtype=np.float64).reshape(-1)
    for b in range(lp.shape[1]):
        t_len = int(input_lengths[b])
        if zero_infinity and nll[b] == np.inf:
            continue
        ext, skip = _extended(_targets_of(targets, target_lengths, b), blank)
        alpha = _alphas(lp[:, b], ext, skip, t_len)[:t_len]
        beta = _betas(lp[:, b], ext, skip, t_len)[:t_len]
        lcab = np.full((t_len, lp.shape[2]), -np.inf)
        with np.errstate(invalid="ignore"):
            for s, c in enumerate(ext):
                lcab[:, c] = np.logaddexp(lcab[:, c], alpha[:, s] + beta[:, s])
            sub = lp[:t_len, b]
            grad[:t_len, b] = (np.exp(sub) - np.exp(lcab + nll[b] - sub)) * gr[b]
    return grad.astype(log_probs.dtype)


CTC_BACK = defop("CtcLossBackwardBackward0", _ctc_back_fwd, (_no_double("_ctc_loss_backward"),) * 3, n_in=3)
CTC = defop("CtcLossBackward0", _ctc_fwd,
            lambda xp, g, self, result, targets, input_lengths, target_lengths, blank, zero_infinity:
            xp.apply(CTC_BACK, g, self, result,
                     params=(targets, input_lengths, target_lengths, blank, zero_infinity)),
            saved=("self", "result", "targets", "input_lengths", "target_lengths", "blank", "zero_infinity"))
CTC.node_cls._saved_names = ("log_probs", "result0", "targets", "input_lengths", "target_lengths", "blank",
                             "zero_infinity")


def ctc(log_probs: Tensor, targets: np.ndarray, input_lengths: np.ndarray, target_lengths: np.ndarray,
        blank: int, zero_infinity: bool) -> Tensor:
    """``torch._ctc_loss``'s negative log-likelihood per sample (N,), for log_probs (T, N, C)."""
    return apply(CTC, (log_probs,), (targets, input_lengths, target_lengths, blank, zero_infinity))
