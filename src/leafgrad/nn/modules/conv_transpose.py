"""ConvTranspose1d and ConvTranspose2d: the adjoint of a convolution, used to upsample learned features.

The weight is (in_channels, out_channels // groups, *kernel_size), torch's layout, so
checkpoints move between the two. ``output_padding`` (or ``output_size`` at call time)
picks among the output sizes that a strided convolution maps back onto the same input size.
"""
from __future__ import annotations

from .. import functional as F
from ..parameter import _uninitialized
from .conv import _ConvNd
from .module import Module

__all__ = ["ConvTranspose1d", "ConvTranspose2d"]


class _ConvTransposeNd(Module):
    """The shared implementation; a subclass sets the number of spatial dims and the functional op."""

    _spatial_dims = 2
    _function = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__()
        n = self._spatial_dims
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if groups <= 0:
            raise ValueError(f"groups must be a positive integer (got groups={groups} in {name})")
        for label, channels in (("in_channels", in_channels), ("out_channels", out_channels)):
            if channels % groups:
                raise ValueError(f"{label} must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = F._tuple(kernel_size, n, "kernel_size")
        self.stride = F._tuple(stride, n, "stride")
        self.padding = F._tuple(padding, n, "padding")
        self.dilation = F._tuple(dilation, n, "dilation")
        self.transposed = True
        self.output_padding = F._tuple(output_padding, n, "output_padding")
        self.groups, self.padding_mode = groups, padding_mode
        new = dict(device=device, dtype=dtype)
        self.weight = _uninitialized((in_channels, out_channels // groups, *self.kernel_size), **new)
        if bias:
            self.bias = _uninitialized((out_channels,), **new)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    # the same defaults and repr as a convolution's (torch shows output_padding only when set)
    reset_parameters = _ConvNd.reset_parameters
    extra_repr = _ConvNd.extra_repr

    def _output_padding(self, input, output_size) -> tuple:
        """The output_padding that gives ``output_size`` (the last spatial sizes, or with N and C in front)."""
        if output_size is None:
            return self.output_padding
        n = self._spatial_dims
        size = [int(v) for v in output_size]
        if len(size) > n:
            size = size[-n:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size)})")
        spatial = input.shape[-n:]
        smallest = [(spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [lo + s - 1 for lo, s in zip(smallest, self.stride)]
        if any(not lo <= v <= hi for lo, v, hi in zip(smallest, size, largest)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {list(spatial)})")
        pads = [v - lo for v, lo in zip(size, smallest)]
        return tuple(pads)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._function(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed filters over the last dim of (N, C_in, L) or unbatched (C_in, L) inputs."""

    _spatial_dims = 1
    _function = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed filters over the last two dims of (N, C_in, H, W) or unbatched (C_in, H, W) inputs."""

    _spatial_dims = 2
    _function = staticmethod(F.conv_transpose2d)
