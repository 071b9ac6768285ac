"""Normalisation layers: BatchNorm1d / BatchNorm2d (statistics over the batch) and LayerNorm (per sample).

BatchNorm normalises each channel with the batch's mean and variance while training, and
keeps exponential running averages of them (``running_mean`` / ``running_var`` buffers)
to use in ``eval()`` mode, when a batch may be a single sample. ``momentum=None``
replaces the exponential average by a plain cumulative one.
"""
from __future__ import annotations

import numbers

from ... import _dtype as D
from ..._creation import ones, tensor, zeros
from .. import functional as F
from .. import init
from ..parameter import _uninitialized
from .module import Module, _settings, parameter_of
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm"]


def _affine(module: Module, shape: tuple, enabled: bool, bias: bool, device, dtype) -> None:
    """The learned per-feature scale (``weight``) and shift (``bias``); registered as None when disabled."""
    module.register_parameter("weight", _uninitialized(shape, device, dtype) if enabled else None)
    module.register_parameter("bias", _uninitialized(shape, device, dtype) if enabled and bias else None)


def _reset_affine(module: Module) -> None:
    # start as the identity transform: scale 1, shift 0
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _BatchNorm(Module):
    _version = 2  # version 2 added num_batches_tracked; older checkpoints lack it
    _input_dims: tuple[int, ...] = ()  # the input ranks a subclass accepts

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine(self, (num_features,), affine, bias, device, dtype)
        tracking = track_running_stats
        self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype) if tracking else None)
        self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype) if tracking else None)
        self.register_buffer("num_batches_tracked", tensor(0, dtype=D.int64) if tracking else None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Forget the statistics gathered so far (mean 0, variance 1, no batches seen)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the affine parameters to weight 1 and bias 0 (and, for batch norm, the running statistics)."""
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input) -> None:
        if input.dim() not in self._input_dims:
            wanted = " or ".join(f"{d}D" for d in self._input_dims)
            raise ValueError(f"expected {wanted} input (got {input.dim()}D input)")

    def extra_repr(self) -> str:
        return _settings(self.num_features, eps=self.eps, momentum=self.momentum, affine=self.affine,
                         bias=self.bias is not None, track_running_stats=self.track_running_stats)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        counter = prefix + "num_batches_tracked"
        from_before_v2 = local_metadata.get("version") is None or local_metadata["version"] < 2
        if from_before_v2 and self.track_running_stats and counter not in state_dict:
            # an old checkpoint: keep our own counter rather than report it missing
            state_dict[counter] = self.num_batches_tracked
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _update_factor(self) -> float:
        """How much of this batch's statistics goes into the running ones (counting the batch if tracked)."""
        if not (self.training and self.track_running_stats and self.num_batches_tracked is not None):
            return 0.0 if self.momentum is None else self.momentum
        self.num_batches_tracked.add_(1)
        if self.momentum is None:  # cumulative average: batch k gets weight 1/k
            return 1.0 / float(self.num_batches_tracked)
        return self.momentum

    def forward(self, input: Tensor) -> Tensor:
        """Normalise each channel of ``(N, C)`` / ``(N, C, L)`` (BatchNorm1d), ``(N, C, H, W)`` (2d) or
        ``(N, C, D, H, W)`` (3d) input, giving the same shape.

        In training (or without running statistics) the batch's own mean and variance are used and, when
        tracked, folded into ``running_mean``/``running_var`` in place (``momentum``, or a cumulative average
        when it is ``None``) and ``num_batches_tracked`` counts up; in eval mode the running statistics are
        used. Either way it is ``F.batch_norm`` and records ``NativeBatchNormBackward0`` (saving the input, the
        weight, the running buffers and the batch's mean and inverse std); the buffers get no gradient.
        """
        self._check_input_dim(input)
        factor = self._update_factor()
        no_running_stats = self.running_mean is None and self.running_var is None
        use_batch_stats = self.training or no_running_stats
        # while training without tracking, the buffers (if any) are left alone
        update = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if update else None, self.running_var if update else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Per-channel batch normalisation of (N, C) or (N, C, L) inputs."""

    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Per-channel batch normalisation of (N, C, H, W) inputs."""

    _input_dims = (4,)


class LayerNorm(Module):
    """Normalise each sample over its trailing ``normalized_shape`` dims: no batch statistics, so train = eval."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the affine parameters to weight 1 and bias 0 (and, for batch norm, the running statistics)."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        """Normalise over the trailing ``normalized_shape`` dims of an input ``(*, *normalized_shape)``, then
        scale and shift with the elementwise weight and bias (if any); the output has the input's shape.

        The same in training and eval (no running statistics). It is ``F.layer_norm``, which records
        ``NativeLayerNormBackward0``, saving the input with its mean and inverse standard deviation.
        """
        return F.layer_norm(input, self.normalized_shape, parameter_of(self, "weight"), parameter_of(self, "bias"),
                            self.eps)  # (see parameter_of)

    def extra_repr(self) -> str:
        return _settings(self.normalized_shape, eps=self.eps, elementwise_affine=self.elementwise_affine,
                         bias=self.bias is not None)
