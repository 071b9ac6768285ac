"""Functional forms over volumes and sliding windows: 3-d convolution and pooling, fold / unfold,
the always-a-tuple ``*_with_indices`` pools, ``dropout3d`` and the deprecated ``upsample*`` aliases.

Arguments are checked here, in torch's order and with its exception classes; the ops live in
``_ops/conv_nd.py`` and ``_ops/pool_nd.py``.
"""
from __future__ import annotations

import math
import warnings

from .._tensor import Tensor
from .._ops import pool_nd as P

__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "lp_pool3d", "max_unpool3d", "dropout3d", "fold", "unfold", "upsample",
           "upsample_bilinear", "upsample_nearest"]


def _tup(x, n: int, name: str) -> tuple:
    from .functional import _tuple  # (functional imports this module)
    return _tuple(x, n, name)


# =============================================================================== convolution
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """Filters (C_out, C_in // groups, kD, kH, kW) slid over the last three dims of a (N, C_in, D, H, W) input."""
    from .functional import _conv_nd
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv3d: weight (C_in, C_out // groups, kD, kH, kW); upsamples learned volumes."""
    from ._f_extra import _conv_transpose_nd
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                              "conv_transpose3d")


# =============================================================================== 3-d pooling
def _pool3d_geometry(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode, avg: bool):
    if input.ndim not in (4, 5) or input.numel() == 0:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    k = _tup(kernel_size, 3, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tup(stride, 3, "stride")
    p = _tup(padding, 3, "padding")
    d = _tup(dilation, 3, "dilation")
    if any(v == 0 for v in s):  # (torch works out the output size first: a zero kernel is a zero stride there)
        raise RuntimeError("stride should not be zero")
    if any(v < 0 for v in k + s):
        raise RuntimeError(f"kernel size and stride should be greater than zero, but got kernel_size={list(k)} and "
                           f"stride={list(s)}")
    for kk, pp, dd in zip(k, p, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    spatial = tuple(input.shape[-3:])
    from .._ops.nn_ops import pool_out_size
    out = tuple(pool_out_size(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip(spatial, k, s, p, d))
    c = input.shape[-4]
    if avg and any(n < kk for n, kk in zip(spatial, k)):  # (torch compares the unpadded input)
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size: ({c}x{'x'.join(map(str, spatial))}). Calculated output size: "
                           f"({c}x{'x'.join(map(str, out))}). Output size is too small")
    return k, s, p, d, out


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, indices): each window's max and where it came from (flat D*H*W index)."""
    k, s, p, d, out = _pool3d_geometry(input, kernel_size, stride, padding, dilation, bool(ceil_mode), False)
    return P.max_pool_nd(input, k, s, p, d, bool(ceil_mode), out)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    out, idx = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """The mean of each window of a (C, D, H, W) or (N, C, D, H, W) input."""
    k, s, p, _, out = _pool3d_geometry(input, kernel_size, stride, padding, 1, bool(ceil_mode), True)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return P.avg_pool_nd(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override, out)


def _adaptive3d_size(input: Tensor, output_size, name: str, colon: str) -> tuple:
    if input.ndim not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{colon} {list(input.shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 3:
            raise RuntimeError("adaptive_avg_pool3d: output_size must be 3" if name == "adaptive_avg_pool3d" else
                               "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
        return tuple(input.shape[-3 + i] if v is None else int(v) for i, v in enumerate(output_size))
    return (int(output_size),) * 3


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    out = _adaptive3d_size(input, output_size, "adaptive_avg_pool3d", "")
    if out == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)  # torch's shortcut: MeanBackward1
    return P.adaptive_avg_pool_nd(input, out)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return P.adaptive_max_pool_nd(input, _adaptive3d_size(input, output_size, "adaptive_max_pool3d", ":"))


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# the 1-d and 2-d ``*_with_indices`` forms: always (values, indices), as torch's
def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    from ._f_extra import max_pool1d
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    from .functional import max_pool2d
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    from ._f_extra import adaptive_max_pool1d
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    from ._f_extra import adaptive_max_pool2d
    return adaptive_max_pool2d(input, output_size, True)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum of x**p over each window) ** (1/p), composed as torch does: avg_pool of x**p, times the window size."""
    from .functional import relu
    kd, kh, kw = _tup(kernel_size, 3, "kernel_size")
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kd * kh * kw).pow(1.0 / norm_type)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value back at the flat D*H*W position its max came from; zeros elsewhere."""
    from ._f_extra import _unpool_size
    k = _tup(kernel_size, 3, "kernel_size")
    s = k if stride is None else _tup(stride, 3, "stride")
    size = _unpool_size(input, k, s, _tup(padding, 3, "padding"), output_size, 3)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                           f"{input.ndim} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    vol = math.prod(size)
    if indices.numel():
        hi, lo = int(indices.max()), int(indices.min())
        if hi >= vol or lo < 0:
            raise RuntimeError(f"Found an invalid max index: {hi if hi >= vol else lo} (output volumes are of size "
                               f"{'x'.join(map(str, size))})")
    return P.max_unpool_nd(input, indices, tuple(input.shape[:-3]) + size)


# =============================================================================== dropout3d
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole (D, H, W) channels of a (N, C, D, H, W) or (C, D, H, W) input with probability ``p``."""
    from .functional import _check_p, _dropout_mask
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", UserWarning, stacklevel=2)
    if not training or p == 0 or input.numel() == 0:
        return input
    batched = nd == 5
    shape = tuple(input.shape)
    mask_shape = (shape[:2] if batched else shape[:1]) + (1,) * (nd - (2 if batched else 1))
    if inplace:
        return input.mul_(_dropout_mask(mask_shape, p, input._data.dtype))
    x = input if batched else input.unsqueeze(0)
    out = x * _dropout_mask((1,) * (not batched) + mask_shape, p, input._data.dtype)
    return out if batched else out.squeeze(0)


# =============================================================================== fold / unfold
def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """im2col: every kernel_size block of a (N, C, H, W) input as a column of (N, C * kH * kW, L)."""
    if 0 < input.ndim < 3:  # (torch reads the size of dim 2 before it checks the dims)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but "
                         "got 2)")
    if input.ndim not in (3, 4) or any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    k, d = _tup(kernel_size, 2, "kernel_size"), _tup(dilation, 2, "dilation")
    p, s = _tup(padding, 2, "padding"), _tup(stride, 2, "stride")
    _check_blocks(tuple(input.shape[-2:]), k, d, p, s, "input")
    return P.im2col(input, k, d, p, s)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """col2im: sum the ``(N, C * kH * kW, L)`` columns back into an ``(N, C, *output_size)`` image (overlaps add)."""
    if input.ndim not in (2, 3) or any(v == 0 for v in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    size = _tup(output_size, 2, "output_size")
    k, d = _tup(kernel_size, 2, "kernel_size"), _tup(dilation, 2, "dilation")
    p, s = _tup(padding, 2, "padding"), _tup(stride, 2, "stride")
    ck = input.shape[-2]
    if ck % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ck} and kernel_size=({k[0]}, {k[1]}).")
    blocks = _check_blocks(size, k, d, p, s, "output")
    if input.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected "
                           f"size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)="
                           f"{input.shape[-1]}.")
    return P.col2im(input, size, k, d, p, s)


def _check_blocks(size, k, d, p, s, what: str) -> tuple:
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: "
                           f"{k[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: "
                           f"{d[1]}")
    if any(v < 0 for v in p):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    blocks = tuple((n + 2 * pp - (dd * (kk - 1) + 1)) // ss + 1 for n, kk, dd, pp, ss in zip(size, k, d, p, s))
    if any(b < 1 for b in blocks):
        label = "input with spatial size" if what == "input" else "output_size="
        sz = f"({size[0]}, {size[1]})"
        raise RuntimeError(f"Given {label}{' ' if what == 'input' else ''}{sz}, kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of "
                           f"sliding blocks as ({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    return blocks


# =============================================================================== deprecated upsampling aliases
def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", UserWarning,
                  stacklevel=2)
    from ._f_extra import interpolate
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    from ._f_extra import interpolate
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    from ._f_extra import interpolate
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
