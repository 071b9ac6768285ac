"""GroupNorm and InstanceNorm1d/2d/3d: per-sample normalisation that does not mix the batch.

GroupNorm normalises each sample over groups of channels (``num_groups=1`` is a LayerNorm over
(C, *), ``num_groups=C`` an instance norm); InstanceNorm normalises every (sample, channel)
plane on its own, optionally keeping running averages (``track_running_stats``) for ``eval()``.
InstanceNorm shares BatchNorm's parameters and buffers (torch's ``_NormBase``), so their
checkpoints have the same keys; it never counts batches.
"""
from __future__ import annotations

import warnings

from .. import functional as F
from .module import Module, _settings
from .normalization import _affine, _BatchNorm, _reset_affine
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm"]


class GroupNorm(Module):
    """Normalise each sample over ``num_groups`` groups of channels, then scale and shift per channel."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the per-channel affine parameters to weight 1 and bias 0."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return _settings(self.num_groups, self.num_channels, eps=self.eps, affine=self.affine,
                         bias=self.bias is not None)


class _InstanceNorm(_BatchNorm):
    _input_dims: tuple[int, ...] = ()  # (unbatched rank, batched rank)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        unbatched = input.dim() == self._input_dims[0]
        feature_dim = 0 if unbatched else 1
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Per-(sample, channel) normalisation of (N, C, L) or unbatched (C, L) inputs."""

    _input_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Per-(sample, channel) normalisation of (N, C, H, W) or unbatched (C, H, W) inputs."""

    _input_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Per-(sample, channel) normalisation of (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    _input_dims = (4, 5)


class LocalResponseNorm(Module):
    """Divide each channel by a power of the mean square of its ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
