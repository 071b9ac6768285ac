"""Helpers the distributions share: broadcasting parameters, probs <-> logits, cached properties."""
from __future__ import annotations

from functools import update_wrapper
from numbers import Number

import leafgrad
import leafgrad.nn.functional as F

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property", "sum_rightmost",
           "set_broadcast_params", "expand_params"]


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers take the first tensor's dtype (else the default)."""
    if not all(isinstance(v, (leafgrad.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, leafgrad.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, leafgrad.Tensor)), leafgrad.get_default_dtype())
        values = [v if isinstance(v, leafgrad.Tensor) else leafgrad.tensor(v, dtype=dtype) for v in values]
    return leafgrad.broadcast_tensors(*values)


def sum_rightmost(value, dim: int):
    """Sum out the ``dim`` rightmost dimensions (an event's dims)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    return leafgrad.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Keep probabilities in [eps, 1 - eps] so their logs stay finite."""
    eps = leafgrad.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    ps = clamp_probs(probs)
    if is_binary:
        return leafgrad.log(ps) - leafgrad.log1p(-ps)
    return leafgrad.log(ps)


class lazy_property:
    """A property computed on first use (with grad enabled, so it stays differentiable) and then cached."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with leafgrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def set_broadcast_params(dist, **params):
    """Broadcast the parameters together and set them on ``dist``; the batch shape (``()`` if all numbers)."""
    values = broadcast_all(*params.values())
    for name, value in zip(params, values):
        setattr(dist, name, value)
    return leafgrad.Size() if all(isinstance(v, Number) for v in params.values()) else values[0].size()


def expand_params(dist, cls, batch_shape, names, _instance=None):
    """``dist.expand(batch_shape)`` for families whose parameters all have the batch shape."""
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = leafgrad.Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(dist, name).expand(batch_shape))
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new
