"""Functional forms beyond the core set: attention as torch runs it on CPU, transposed convolution.

``scaled_dot_product_attention`` takes torch's CPU route: 4-d float inputs with no dropout,
equal head sizes and a mask that needs no gradient go to the fused kernel (one
``ScaledDotProductFlashAttentionForCpuBackward0`` node); anything else is composed of
matmul and a softmax that gives zeros on fully masked rows, as torch's math path does.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .._ops import nn_extra as X
from .._ops.linalg import matmul
from .._ops.reduction import softmax as _softmax

__all__ = ["scaled_dot_product_attention", "conv_transpose1d", "conv_transpose2d", "group_norm", "instance_norm",
           "interpolate", "pixel_shuffle", "pixel_unshuffle", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
           "local_response_norm"]

_make = Tensor._make


def _torch_type(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bfloat16": "c10::BFloat16"}.get(t.dtype.name, t.dtype.name)


def _float_mask(mask, query: Tensor):
    """A bool mask as the float mask torch makes of it (0 to keep, -inf to drop)."""
    if mask is None or mask.dtype is not D.bool:
        return mask
    arr = np.where(mask._data, np.asarray(0, dtype=query._data.dtype), np.asarray(-np.inf, dtype=query._data.dtype))
    return _make(arr)


def _check_sdpa(query, key, value, attn_mask, enable_gqa):
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_torch_type(query)} key.dtype: {_torch_type(key)} and value.dtype: "
                           f"{_torch_type(value)} instead.")
    if attn_mask is not None and attn_mask.dtype is not D.bool and attn_mask.dtype is not query.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_torch_type(attn_mask)} and  query.dtype: {_torch_type(query)} "
                           "instead.")
    if enable_gqa and query.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query "
                               f"(query has {hq} heads, key {hk} and value {hv})")


def _repeat_heads(t: Tensor, heads: int) -> Tensor:
    h = t.shape[-3]
    return t if h == heads else t.repeat_interleave(heads // h, dim=-3)


def _safe_softmax(scores: Tensor) -> Tensor:
    """softmax over the last dim, with zeros (not NaN) on rows where every score is -inf."""
    dead = np.isneginf(scores._data).all(axis=-1, keepdims=True)
    if not dead.any():
        return _softmax(scores, -1)
    dead = _make(dead)  # those rows get no gradient either, as in torch's _safe_softmax
    return _softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale=None, enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, by torch's CPU route (fused node for 4-d inputs)."""
    _check_sdpa(query, key, value, attn_mask, enable_gqa)
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    fused = (query.ndim == key.ndim == value.ndim == 4 and dropout_p == 0.0
             and query.shape[-1] == key.shape[-1] == value.shape[-1]
             and query.dtype.is_floating_point
             and (attn_mask is None or not attn_mask.requires_grad))
    if enable_gqa:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    mask = _float_mask(attn_mask, query)
    if fused:
        return X.sdpa_flash(query, key, value, mask, is_causal, None if scale is None else s)
    from .functional import dropout  # (functional imports this module)
    root = math.sqrt(s)
    scores = matmul(query * root, key.transpose(-2, -1) * root)
    lq, lk = query.shape[-2], key.shape[-2]
    if is_causal:
        causal = np.where(np.tril(np.ones((lq, lk), dtype=bool)), 0.0, -np.inf).astype(query._data.dtype)
        scores = scores + _make(causal)
    if mask is not None:
        scores = scores + mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return matmul(attn, value)


# =============================================================================== transposed convolution
def _ntuple(x, n: int) -> tuple:
    if isinstance(x, (tuple, list)):
        return (int(x[0]),) * n if len(x) == 1 else tuple(int(v) for v in x)
    return (int(x),) * n


def _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, nd: int, name: str):
    from .functional import _check_conv  # (functional imports this module)
    unbatched = _check_conv(input, weight, bias, groups, name, nd, stride, transposed=True)
    x = input.unsqueeze(0) if unbatched else input
    c = x.shape[1]
    if weight.shape[0] != c:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {weight.shape[0]} channels, but got {c} channels instead")
    stride, padding = _ntuple(stride, nd), _ntuple(padding, nd)
    output_padding, dilation = _ntuple(output_padding, nd), _ntuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got output_padding="
                           f"{list(output_padding)}, stride={list(stride)} and dilation={list(dilation)}")
    ks = weight.shape[2:]
    spatial = [(h - 1) * s - 2 * p + d * (k - 1) + op + 1
               for h, s, p, d, k, op in zip(x.shape[2:], stride, padding, dilation, ks, output_padding)]
    if any(v <= 0 for v in spatial):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))}). Calculated output "
                           f"size per channel: ({' x '.join(map(str, spatial))}). Output size is too small")
    pads = tuple((p, p) for p in padding)
    if nd == 1:
        stride, pads, dilation = (1,) + stride, ((0, 0),) + pads, (1,) + dilation
    out_shape = (x.shape[0], weight.shape[1] * groups, *spatial)
    out = X.conv_transpose(x, weight, bias, out_shape, stride, pads, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv1d: weight (C_in, C_out // groups, k); each input cell spreads a kernel-sized patch."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                              "conv_transpose1d")


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv2d: weight (C_in, C_out // groups, kh, kw); used to upsample learned features."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                              "conv_transpose2d")


# =============================================================================== group / instance normalisation
def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of ``C // num_groups`` channels (and all spatial cells)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    dt = input._data.dtype
    w = weight if weight is not None else _make(np.ones(c, dtype=dt))
    b = bias if bias is not None else _make(np.zeros(c, dtype=dt))
    return X.group_norm(input, w, b, num_groups, eps)


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) plane on its own: batch norm of the input viewed as (1, N*C, ...),
    as torch computes it (so the nodes are View / NativeBatchNorm / Repeat), the running statistics
    being the mean over the batch of what that batch norm gathers."""
    from .functional import batch_norm  # (functional imports this module)
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = input.shape[0], input.shape[1]
    shape = tuple(input.shape)
    x = input.contiguous().view(1, n * c, *shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    from .. import no_grad
    with no_grad():
        if running_mean is not None and use_input_stats:
            running_mean.copy_(rm.view(n, c).mean(0))
        if running_var is not None and use_input_stats:
            running_var.copy_(rv.view(n, c).mean(0))
    return out.view(*shape)


# =============================================================================== interpolation
_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims of a (N, C, ...) input to ``size`` or by ``scale_factor``."""
    from .._ops.upsample import upsample
    from .functional import adaptive_avg_pool2d
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    nd = input.ndim - 2
    if nd < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                         f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                         f"(got {mode})")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * nd
        if len(sizes) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and output size of {sizes}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                             "...,oK) format.")
        sizes, scales = [int(v) for v in sizes], [None] * nd
    elif scale_factor is not None:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nd
        if len(scales) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{scales}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scales]
        sizes = [int(math.floor(float(n) * s)) for n, s in zip(input.shape[2:], scales)]
        if recompute_scale_factor:
            scales = [None] * nd
    else:
        raise ValueError("either size or scale_factor should be defined")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by leafgrad yet; resize without "
                                  "antialiasing or pre-blur the input")
    if mode == "area":
        if nd == 3:  # (nn3d)
            from ._f_3d import adaptive_avg_pool3d
            return adaptive_avg_pool3d(input, sizes)
        if nd != 2:
            raise NotImplementedError(f"interpolate(mode='area') is supported for 4-d inputs only here, got "
                                      f"{input.ndim}D")
        return adaptive_avg_pool2d(input, sizes)
    if mode in _MODE_DIMS:
        if _MODE_DIMS[mode] != nd:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                      f"{_MODE_DIMS[mode] + 2}D input")
        align = bool(align_corners)
    elif mode in ("nearest", "nearest-exact"):
        if nd > 3:
            raise NotImplementedError(f"interpolate(mode={mode!r}) of a {input.ndim}D input is not supported by "
                                      "leafgrad yet")
        align = None
    else:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if any(v <= 0 for v in sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, input.shape[2:]))}) and output ({', '.join(map(str, sizes))})")
    if nd == 3:  # (nn3d: volumes, _ops/upsample3d.py)
        from .._ops.upsample3d import upsample3d
        return upsample3d(input, mode, tuple(sizes), align, tuple(scales))
    return upsample(input, mode, tuple(sizes), align, tuple(scales))


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): sub-pixel channels laid out as an r x r block."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return X.pixel_shuffle(input, r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of pixel_shuffle."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    h, w = input.shape[-2:]
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h} and width={w} for downscale_factor={r}")
    return X.pixel_unshuffle(input, r)


# =============================================================================== 1-d, adaptive and Lp pooling, unpooling
# torch runs every 1-d pool as the 2-d one over a height of 1 (unsqueeze(-2), pool, squeeze(-2))
def _one(v, name: str):
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise RuntimeError(f"{name}: {name.split('_')[0]} must be an int or a tuple of one int, got {tuple(v)}")
        return int(v[0])
    return int(v)


def _check_1d(input: Tensor, name: str) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{name}() Expected 2D or 3D input tensor, but got {list(input.shape)}")


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    from .functional import max_pool2d
    _check_1d(input, "max_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _one(stride, "stride")
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")), (1, _one(dilation, "dilation")),
                     ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    from .functional import avg_pool2d
    _check_1d(input, "avg_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _one(stride, "stride")
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    from .functional import adaptive_avg_pool2d
    _check_1d(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _one(output_size, "output_size"))).squeeze(-2)


def _adaptive_out(input: Tensor, output_size, n: int) -> tuple:
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != n:
            raise RuntimeError(f"adaptive_max_pool{n}d(): internal error: output_size.size() must be {n}")
        return tuple(input.shape[-n + i] if v is None else int(v) for i, v in enumerate(output_size))
    return (int(output_size),) * n


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    out, idx = X.adaptive_max_pool2d(input, _adaptive_out(input, output_size, 2))
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    _check_1d(input, "adaptive_max_pool1d")
    out, idx = X.adaptive_max_pool2d(input.unsqueeze(-2), (1, _one(output_size, "output_size")))
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum of x**p over each window) ** (1/p), composed as torch does: avg_pool of x**p, times the window size."""
    from .functional import avg_pool2d, relu
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    from .functional import relu
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(_one(kernel_size, "kernel_size")).pow(1.0 / norm_type)


def _unpool_size(input: Tensor, kernel, stride, padding, output_size, n: int) -> tuple:
    spatial = input.shape[-n:]
    default = tuple((spatial[d] - 1) * stride[d] - 2 * padding[d] + kernel[d] for d in range(n))
    if output_size is None:
        return default
    size = [int(v) for v in output_size]
    if len(size) == n + 2 or len(size) == n + 1:
        size = size[-n:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < size[d] < hi:
            raise ValueError(f'invalid output_size "{size}" (dim {d} must be between {lo} and {hi})')
    return tuple(size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value back at the position its max came from (``MaxPool2d(return_indices=True)``); zeros elsewhere."""
    from .functional import _tuple
    k = _tuple(kernel_size, 2, "kernel_size")
    s = k if stride is None else _tuple(stride, 2, "stride")
    size = _unpool_size(input, k, s, _tuple(padding, 2, "padding"), output_size, 2)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    plane = size[0] * size[1]
    if indices.numel() and (int(indices.max()) >= plane or int(indices.min()) < 0):
        bad = int(indices.max()) if int(indices.max()) >= plane else int(indices.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {size[0]}x{size[1]})")
    return X.max_unpool2d(input, indices, tuple(input.shape[:-2]) + size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None else _one(stride, "stride")
    (length,) = _unpool_size(input, (k,), (s,), (_one(padding, "padding"),), output_size, 1)
    return max_unpool2d(input.unsqueeze(-2), indices.unsqueeze(-2), (1, k), (1, s), 0,
                        (1, length)).squeeze(-2)


# =============================================================================== local response normalisation
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x**2 over ``size`` neighbouring channels) ** beta (AlexNet's LRN).

    Composed as torch does (square, pad the channel dim, average-pool along it); for inputs of
    4 or more dims torch pools in 3-d, here the spatial dims are flattened into one and pooled in 2-d,
    which gives the same values."""
    from .functional import avg_pool2d, pad
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    sizes = tuple(input.shape)
    div = div.unsqueeze(1) if dim == 3 else div.view(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    if dim > 3:
        div = div.view(*sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
