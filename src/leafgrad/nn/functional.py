"""``leafgrad.nn.functional`` (usually imported as ``F``): torch.nn.functional's signatures.

These functions check and normalise their arguments the way torch does (with torch's
error messages), then call the differentiable ops of ``leafgrad/_ops/nn_ops.py`` or
compose existing leafgrad ops. Where torch itself composes (``l1_loss``,
``cross_entropy``, ``linear`` on a batch of vectors), the composition is the same, so
the recorded graph shows the grad_fn names torch's does.

Two families live in files of their own and are re-exported here: the ELU family and the
other kernel-backed activations (``_f_activations.py``), and the distance, divergence and
margin losses (``_f_losses.py``). ``_reduction.py`` reads every loss's ``reduction``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .._creation import _rng
from .._tensor import Tensor, vc_of
from .._ops import nn_ops as O
from .._ops.inplace import broadcast_or_raise
from .._autocast_ops import CPU as _AUTOCAST_CPU, lower_precision
from .._ops.nn_extra import index_pad as _index_pad
from .._ops.indexing import one_hot  # noqa: F401  (re-exported as F.one_hot)
from .._ops.linalg import addmm, bmm, linear_untracked, matmul
from .._ops.registry import records
from .._ops.pointwise import relu as _relu, sigmoid, tanh  # noqa: F401
from .._ops.reduction import log_softmax as _log_softmax, softmax as _softmax
from ._f_activations import (_act, _require_floating, celu, celu_, elu, elu_, glu, hardshrink, hardsigmoid, hardswish,  # noqa: F401
                             mish, selu, selu_, softshrink, softsign, tanhshrink, threshold, threshold_)
from ._f_losses import (cosine_embedding_loss, cosine_similarity, hinge_embedding_loss, kl_div,  # noqa: F401
                        margin_ranking_loss, pairwise_distance, soft_margin_loss)
from ._reduction import reduce_loss as _apply_reduction, reduction_of as _reduction
from ._f_extra import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d, avg_pool1d,  # noqa: F401
                       conv_transpose1d, conv_transpose2d, group_norm, instance_norm, interpolate,
                       local_response_norm, lp_pool1d,
                       lp_pool2d, max_pool1d, max_unpool1d, max_unpool2d, pixel_shuffle, pixel_unshuffle,
                       scaled_dot_product_attention)
from ._f_3d import (adaptive_avg_pool3d, adaptive_max_pool1d_with_indices,  # noqa: F401  (nn3d)
                    adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,
                    avg_pool3d, conv3d, conv_transpose3d, dropout3d, fold, lp_pool3d, max_pool1d_with_indices,
                    max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices, max_unpool3d, unfold, upsample,
                    upsample_bilinear, upsample_nearest)
from ._f_grid import affine_grid, grid_sample  # noqa: F401  (nn3d)
from ._f_fractional import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: F401  (nn3d)
                            fractional_max_pool3d, fractional_max_pool3d_with_indices)

_make = Tensor._make

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "embedding",
    "dropout", "dropout1d", "dropout2d", "batch_norm", "layer_norm", "relu", "relu_", "relu6", "hardtanh",
    "gelu", "silu", "leaky_relu", "elu", "elu_", "selu", "selu_", "celu", "celu_", "mish", "hardsigmoid",
    "hardswish", "softsign", "tanhshrink", "softshrink", "hardshrink", "threshold", "threshold_", "glu", "softplus",
    "tanh", "sigmoid", "logsigmoid", "softmax", "softmin", "log_softmax", "nll_loss", "cross_entropy", "mse_loss",
    "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "cosine_embedding_loss",
    "cosine_similarity", "pairwise_distance", "pad", "one_hot", "normalize", "scaled_dot_product_attention",
    "multi_head_attention_forward", "conv_transpose1d", "conv_transpose2d", "group_norm", "instance_norm",
    "interpolate", "pixel_shuffle", "pixel_unshuffle", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
    "local_response_norm",
]
__all__ += [  # (nn3d: a separate literal list, which type checkers read)
    "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "max_pool1d_with_indices", "max_pool2d_with_indices", "lp_pool3d",
    "max_unpool3d", "dropout3d", "fold", "unfold", "upsample", "upsample_bilinear", "upsample_nearest",
    "affine_grid", "grid_sample", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
]


# =============================================================================== helpers
def _tuple(x, n: int, name: str = "") -> tuple:
    if isinstance(x, (tuple, list)):
        if len(x) == 1:
            return (int(x[0]),) * n
        if len(x) != n:
            raise RuntimeError(f"{name} must be an int or a tuple of {n} ints, got {tuple(x)}")
        return tuple(int(v) for v in x)
    return (int(x),) * n


def _type_name(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(t.dtype.name, t.dtype.name)


def _scalar_type(t: Tensor) -> str:
    name = t.dtype.name
    return D.SCALAR_TYPE_NAMES.get(name, name.capitalize())


def _const(arr) -> Tensor:
    return _make(arr)


# =============================================================================== linear layers
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: addmm for a matrix (AddmmBackward0), as torch folds the rest."""
    if _AUTOCAST_CPU[0] is not None:  # (a CPU autocast region: leafgrad/_autocast_ops.py)
        return lower_precision(linear, input, weight, bias)
    if not isinstance(input, Tensor):
        raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    nd = input._data.ndim
    if input._data.dtype != weight._data.dtype:  # torch's message depends on the path: addmm or matmul
        if bias is not None and (nd == 2 or (nd >= 1 and input.is_contiguous())):
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_scalar_type(input)} and "
                               f"{_scalar_type(weight)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_type_name(input)} != "
                           f"{_type_name(weight)}")
    if not records(weight, input, bias):  # (no graph recorded: the steps below at once, on the arrays)
        fast = linear_untracked(input, weight, bias)
        if fast is not None:
            return fast
    if bias is not None:
        if nd == 2:
            return addmm(bias, input, weight.t())
        if nd >= 1 and input.is_contiguous():
            # torch flattens a contiguous batch of vectors into one addmm, then views it back
            out = addmm(bias, input.view(-1, input._data.shape[-1]), weight.t())
            return out.view(input._data.shape[:-1] + (weight._data.shape[0],))
        return matmul(input, weight.t()) + bias
    return matmul(input, weight.t())


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    o, i1, i2 = weight._data.shape
    if input1._data.shape[-1] != i1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1._data.shape[-1]} "
                           f"but expected {i1}")
    if input2._data.shape[-1] != i2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2._data.shape[-1]} "
                           f"but expected {i2}")
    if input1._data.shape[:-1] != input2._data.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1._data.shape[:-1])} and {list(input2._data.shape[:-1])}")
    lead = input1._data.shape[:-1]
    x1 = input1.reshape(-1, i1)
    x2 = input2.reshape(-1, i2)
    # y[b, o] = sum_ij x1[b, i] W[o, i, j] x2[b, j]: one matmul, then a product summed over j
    t = x1.mm(weight.permute(1, 0, 2).reshape(i1, o * i2)).view(-1, o, i2)
    y = (t * x2.unsqueeze(1)).sum(-1).reshape(lead + (o,))
    return y + bias if bias is not None else y


# =============================================================================== convolution
def _check_conv(input: Tensor, weight: Tensor, bias, groups: int, name: str, nd: int, stride=1,
                transposed: bool = False) -> bool:
    dim = input._data.ndim
    if dim not in (nd + 1, nd + 2):
        kinds = {1: ("2D", "3D"), 2: ("3D", "4D"), 3: ("4D", "5D")}[nd]
        raise RuntimeError(f"Expected {kinds[0]} (unbatched) or {kinds[1]} (batched) input to {name}, but got "
                           f"input of size: {list(input._data.shape)}")
    if weight._data.ndim != nd + 2:
        if weight._data.ndim < 3:
            raise RuntimeError("weight should have at least three dimensions")
        # torch reads the number of spatial dims from the weight, so the first thing that disagrees is the stride
        strides = [stride] * nd if isinstance(stride, int) else list(stride)
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight._data.ndim - 2} "
                           f"values to match the convolution dimensions, but got stride={strides}. ({name} takes a "
                           f"{nd + 2}-dimensional weight; this one has size {list(weight._data.shape)}.)")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found {_scalar_type(weight)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_type_name(input)}) and bias type ({_type_name(bias)}) should be the same")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    o = weight._data.shape[0]
    if o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size {list(weight._data.shape)} instead")
    if transposed:  # a transposed weight is (C_in, C_out // groups, ...)
        o = weight._data.shape[1] * groups
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != o):
        raise RuntimeError(f"Given weight of size {list(weight._data.shape)}, expected bias to be 1-dimensional with "
                           f"{o} elements, but got bias of size {list(bias._data.shape)} instead")
    return dim == nd + 1


def _conv_nd(input, weight, bias, stride, padding, dilation, groups, nd: int, name: str) -> Tensor:
    unbatched = _check_conv(input, weight, bias, groups, name, nd, stride)
    x = input.unsqueeze(0) if unbatched else input
    c = x._data.shape[1]
    if weight._data.shape[1] * groups != c:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight._data.shape)}, expected "
                           f"input{list(x._data.shape)} to have {weight._data.shape[1] * groups} channels, but got "
                           f"{c} channels instead")
    stride = _tuple(stride, nd, "stride")
    dilation = _tuple(dilation, nd, "dilation")
    ks = weight._data.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = tuple((0, 0) for _ in range(nd))
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for k, d in zip(ks, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))  # torch pads the odd extra on the right
            pads = tuple(pads)
        else:
            raise RuntimeError(f"Invalid padding string '{padding}', should be one of ('valid', 'same')")
    else:
        pads = tuple((p, p) for p in _tuple(padding, nd, "padding"))
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p[0] < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    spatial = x._data.shape[2:]
    padded = [s + p[0] + p[1] for s, p in zip(spatial, pads)]
    eff = [d * (k - 1) + 1 for k, d in zip(ks, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input size")
    if nd == 1:
        stride, pads, dilation = (1,) + stride, ((0, 0),) + pads, (1,) + dilation
    out = O.conv(x, weight, bias, stride, pads, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if _AUTOCAST_CPU[0] is not None:
        return lower_precision(conv1d, input, weight, bias, stride, padding, dilation, groups)
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if _AUTOCAST_CPU[0] is not None:
        return lower_precision(conv2d, input, weight, bias, stride, padding, dilation, groups)
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


# =============================================================================== pooling
def _pool_geometry(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode, name: str):
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"{name}: Expected 3D or 4D tensor, but got {list(input._data.shape)}" if
                           name != "max_pool2d" else "non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _tuple(kernel_size, 2, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 2, "stride")
    p = _tuple(padding, 2, "padding")
    d = _tuple(dilation, 2, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    for kk, pp, dd in zip(k, p, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    h, w = input._data.shape[-2:]
    ho = O.pool_out_size(h, k[0], s[0], p[0], d[0], ceil_mode)
    wo = O.pool_out_size(w, k[1], s[1], p[1], d[1], ceil_mode)
    if ho <= 0 or wo <= 0:
        c = input._data.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{ho}x{wo}). Output size "
                           "is too small")
    return k, s, p, d, (ho, wo)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    k, s, p, d, out_hw = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    out, idx = O.max_pool2d(input, k, s, p, d, bool(ceil_mode), out_hw)
    return (out, idx) if return_indices else out



def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    k, s, p, _, out_hw = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return O.avg_pool2d(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override, out_hw)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input._data.shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 2:
            raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
        out = tuple(input._data.shape[-2 + i] if v is None else int(v) for i, v in enumerate(output_size))
    else:
        out = (int(output_size),) * 2
    if out == (1, 1):
        return input.mean((-1, -2), keepdim=True)  # torch's shortcut: MeanBackward1
    return O.adaptive_avg_pool2d(input, out)


# =============================================================================== embedding
def embedding(input: Tensor, weight: Tensor, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if input.dtype._kind != 1:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_legacy(input)} instead (while checking arguments for embedding)")
    n = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    if sparse:  # (a dense gradient of the same values, said once: nn/_sparse_grad.py)
        from ._sparse_grad import warn_dense_gradient
        warn_dense_gradient("embedding")
    return O.embedding(input, weight, padding_idx, bool(scale_grad_by_freq), bool(sparse))


def _legacy(t: Tensor) -> str:
    from ..autograd.graph import _legacy_type_name
    return _legacy_type_name(t.dtype)


def _embedding_renorm_(weight: Tensor, idx, max_norm: float, norm_type: float) -> None:
    """Rescale (in place, untracked) the rows looked up whose norm exceeds ``max_norm``."""
    rows = np.unique(idx.reshape(-1))
    w = weight._data
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = max_norm / (norms[big] + 1e-7)
        w[rows[big]] = (w[rows[big]] * scale[:, None]).astype(w.dtype)
        vc_of(weight).bump()


# =============================================================================== dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_mask(shape, p: float, dtype) -> Tensor:
    if p == 1:
        return _make(np.zeros((), dtype=dtype))
    keep = _rng(None).random(shape) >= p  # Bernoulli(1 - p)
    return _make((keep / (1 - p)).astype(dtype))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (MulBackward0, as torch on CPU)."""
    _check_p(p)
    if not training or p == 0 or input._data.size == 0:
        return input
    mask = _dropout_mask(input._data.shape, p, input._data.dtype)
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched_dim: int, name: str):
    _check_p(p)
    nd = input._data.ndim
    if nd not in (batched_dim - 1, batched_dim):
        raise RuntimeError(f"{name}: Expected {batched_dim - 1}D or {batched_dim}D input, but got input of size: "
                           f"{list(input._data.shape)}")
    if not training or p == 0 or input._data.size == 0:
        return input
    lead = 2 if nd == batched_dim else 1
    shape = input._data.shape[:lead] + (1,) * (nd - lead)
    mask = _dropout_mask(shape, p, input._data.dtype)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    # (its docstring, with torch's legacy shape rules, is in _f_docs.py)
    _check_p(p)
    nd = input._data.ndim
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated; it will be an "
                      "error in a future release. Use dropout for elementwise dropout: dropout2d drops "
                      "whole channels of (N, C, H, W) or (C, H, W) inputs.", UserWarning, stacklevel=2)
    elif nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired: the input is read as (N, C, L). Use dropout1d for that, since "
                      "a future release will read 3-D input as unbatched (C, H, W).", UserWarning, stacklevel=2)
    if nd < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input "
                           f"(dropout2d got a tensor of size {list(input._data.shape)})")
    return _feature_dropout(input, p, training, inplace, nd, "dropout2d")


# =============================================================================== normalisation
def _verify_batch_size(input: Tensor) -> None:
    size = input._data.shape
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")


def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if training:
        _verify_batch_size(input)
    if input._data.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input._data.ndim}D input)")
    c = input._data.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    dt = input._data.dtype
    w = weight if weight is not None else _const(np.ones(c, dtype=dt))
    b = bias if bias is not None else _const(np.zeros(c, dtype=dt))
    out, mean, var = O.batch_norm(input, w, b, running_mean, running_var, bool(training), eps)
    if training and running_mean is not None and running_var is not None:
        n = input._data.size // c
        m = momentum
        rm, rv = running_mean._data, running_var._data
        rm *= 1 - m
        rm += (m * mean._data).astype(rm.dtype, copy=False)
        rv *= 1 - m
        rv += (m * var._data * (n / max(n - 1, 1))).astype(rv.dtype, copy=False)
        # (no version bump: torch's kernel updates the running stats without one, and the node
        # has just saved them, so a later in-place change is what its version check catches)
    return out


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    shape = (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
    n = len(shape)
    if n == 0 or input._data.ndim < n or input._data.shape[-n:] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(map(str, shape))}], but got input of size{list(input._data.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._data.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t._data.shape)} and normalized_shape = {list(shape)}")
    dt = input._data.dtype
    w = weight if weight is not None else _const(np.ones(shape, dtype=dt))
    b = bias if bias is not None else _const(np.zeros(shape, dtype=dt))
    return O.layer_norm(input, w, b, n, eps, shape, weight, bias)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    # torch writes through div's out=, so div's rules apply (refused under autograd, out's dtype kept)
    import leafgrad
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return leafgrad.div(input, denom, out=out)


# =============================================================================== activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else _relu(input)


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype is D.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits: this uint8 tensor cannot "
                           "hold them; pass limits >= 0, or convert first, e.g. x.to(torch.int16)")
    return _act(O.HARDTANH, input, (min_val, max_val), inplace, "hardtanh_")


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _require_floating(input, "GeluKernelImpl")
    if approximate == "none":
        return _act(O.GELU_EXACT, input, (approximate,), False, "gelu")[0]  # (its second output: the CDF)
    return _act(O.GELU, input, (approximate,), False, "gelu")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    _require_floating(input, "silu_cpu")
    return _act(O.SILU, input, (), inplace, "silu_")


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    from .._ops.nn_more_act import LEAKY_RELU_INPLACE  # (in place: torch's LeakyReluBackward1, saving the result)
    _require_floating(input, "leaky_relu_cpu")
    return _act(O.LEAKY_RELU, input, (negative_slope,), inplace, "leaky_relu_", LEAKY_RELU_INPLACE)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    _require_floating(input, "softplus_cpu")
    return _act(O.SOFTPLUS, input, (beta, threshold), False, "softplus")


def logsigmoid(input: Tensor) -> Tensor:
    _require_floating(input, "log_sigmoid_cpu")
    return O.log_sigmoid(input)


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    return _softmax(input, _softmax_dim(input, dim, "softmax"), dtype=dtype)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    return _log_softmax(input, _softmax_dim(input, dim, "log_softmax"), dtype=dtype)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-input)``: recorded as torch's Python writes it (NegBackward0, then SoftmaxBackward0)."""
    dim = _softmax_dim(input, dim, "softmin")
    return _softmax(-input, dim, dtype=dtype)


def _softmax_dim(input: Tensor, dim, name: str):
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=4)
    return 0 if input._data.ndim in (0, 1, 3) else 1


# =============================================================================== losses
def _warn_target_size(input: Tensor, target: Tensor) -> None:
    if target._data.shape != input._data.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _broadcast_pair(input: Tensor, target: Tensor):
    if input._data.shape == target._data.shape:
        return input, target
    shape = broadcast_or_raise(input._data.shape, target._data.shape)  # (torch's RuntimeError on a clash)
    a = input if input._data.shape == shape else input.expand(shape)
    b = target if target._data.shape == shape else target.expand(shape)
    return a, b


def _weighted(loss: Tensor, weight, input: Tensor, reduction: str) -> Tensor:
    if weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum()


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight=None) -> Tensor:
    _warn_target_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    a, b = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((a - b).pow(2), weight, input, reduction)
    return _loss_op(O.MSE_LOSS, a, b, (reduction,))


def _loss_op(op, a: Tensor, b: Tensor, params: tuple) -> Tensor:
    from .._ops.registry import apply
    if a._data.dtype != b._data.dtype:
        dt = D.promote_types(a.dtype, b.dtype)
        a, b = a.to(dt), b.to(dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        return apply(op, (a, b), params)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight=None) -> Tensor:
    _warn_target_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    a, b = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((a - b).abs(), weight, input, reduction)
    with np.errstate(invalid="ignore"):
        return _apply_reduction((a - b).abs(), reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    _warn_target_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    a, b = _broadcast_pair(input, target)
    if beta == 0.0:
        with np.errstate(invalid="ignore"):
            return _apply_reduction((a - b).abs(), reduction)
    return _loss_op(O.SMOOTH_L1_LOSS, a, b, (reduction, float(beta)))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight=None) -> Tensor:
    _warn_target_size(input, target)
    reduction = _reduction(reduction)
    a, b = _broadcast_pair(input, target)
    if not float(delta) > 0:  # (torch's kernel checks this after broadcasting; nan fails it too)
        raise RuntimeError(f"huber_loss does not support non-positive values for delta. Got delta={delta}: "
                           "pass a delta > 0 (the point where the loss turns from quadratic to linear).")
    if weight is not None:
        return _weighted(_loss_op(O.HUBER_LOSS, a, b, ("none", float(delta))), weight, input, reduction)
    return _loss_op(O.HUBER_LOSS, a, b, (reduction, float(delta)))


def binary_cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    x = input._data
    if x.size and (np.any(x < 0) or np.any(x > 1) or np.isnan(x).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(target._data.shape, weight._data.shape))
    return _loss_op(O.BCE, input, target, (weight, reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _loss_op(O.BCE_LOGITS, input, target, (weight, pos_weight, reduction))


def _check_nll(input: Tensor, target: Tensor, weight) -> None:
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd == 1:
        if target._data.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif nd == 2 and target._data.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if nd >= 2 and input._data.shape[0] != target._data.shape[0]:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
                         f"({target._data.shape[0]}).")
    if nd > 2 and input._data.shape[2:] != target._data.shape[1:]:
        raise RuntimeError(f"Expected target size {list(input._data.shape[:1] + input._data.shape[2:])}, got "
                           f"{list(target._data.shape)}")
    if target.dtype is not D.int64 and target.dtype is not D.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar_type(target)}")
    c = input._data.shape[0 if nd == 1 else 1]
    if weight is not None and weight._data.size != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got weight "
                           f"tensor of shape: {list(weight._data.shape)}")


_INT64 = np.dtype(np.int64)


def _check_targets(target: Tensor, c: int, ignore_index: int) -> bool:
    """Raise torch's IndexError for a target that is neither a class nor ignore_index.
    True when every target is a class in [0, c): one reduction in that usual case."""
    t = target._data
    if not t.size:
        return False
    # (an int64 read as uint64 is below c only when it is in [0, c): negatives read as huge)
    # (np.maximum.reduce: ``.max()`` without NumPy's Python wrapper, about 5 k instructions less a call)
    if np.maximum.reduce(t.view(np.uint64) if t.dtype == _INT64 else t, axis=None) < c:
        return True
    bad = (t != ignore_index) & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    return False


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    return _nll_loss(input, target, weight, ignore_index, _reduction(reduction, size_average, reduce), False)


def _nll_loss(input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str, log_probs: bool) -> Tensor:
    """nll_loss once its reduction is known. ``log_probs``: ``input`` is a log_softmax
    output, so it holds no +inf (its values are <= 0 or nan)."""
    _check_nll(input, target, weight)
    nd = input._data.ndim
    c = input._data.shape[0 if nd == 1 else 1]
    classes_only = _check_targets(target, c, ignore_index)
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found {_scalar_type(weight)}")
    if target._data.dtype != np.int64:  # (an int64 target is saved as it is, so the node's version
        target = _make(target._data.astype(np.int64))  # check sees the caller's in-place changes)
    nothing_ignored = classes_only and not 0 <= ignore_index < c
    if nd <= 2 and nothing_ignored and weight is None and (log_probs or reduction == "none"):
        # nothing ignored and no weights: the op only negates, sums and divides by N > 0, and
        # a sum without +inf cannot hit inf - inf, so no NumPy warning can arise (no errstate)
        return O.nll_loss(input, target, None, reduction, ignore_index, False, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        if nd <= 2:
            return O.nll_loss(input, target, weight, reduction, ignore_index, False, nothing_ignored)
        if nd == 4:
            return O.nll_loss(input, target, weight, reduction, ignore_index, True, nothing_ignored)
        # torch's nll_loss_nd: other ranks go through the 2-d loss on an (N, C, 1, L) view
        n, c = input._data.shape[:2]
        x = input.contiguous().view(n, c, 1, -1)
        t = _make(np.ascontiguousarray(target._data).reshape(n, 1, -1))
        out = O.nll_loss(x, t, weight, reduction, ignore_index, True, nothing_ignored)
        if reduction == "none":
            out = out.view((n,) + input._data.shape[2:])
        return out


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the class dim, then the negative log likelihood: torch's own composition."""
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_scalar_type(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0:
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return _nll_loss(_log_softmax(input, class_dim), target, weight, ignore_index, reduction, True)


def _class_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight._data.shape[0]
    return weight.view(shape)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim):
    n_classes = input._data.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, input._data.ndim, class_dim)
    if reduction == "none":
        return -prod.sum(class_dim)
    total = -prod.sum()
    if reduction == "sum":
        return total
    if input._data.size == 0:
        return total * float("nan")
    return O.div_scalar(total, input._data.size / n_classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim):
    n_classes = input._data.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    nll = _nll_loss(logp, target, weight, ignore_index, reduction, True)
    ignore = _make(target._data == ignore_index)
    if weight is not None:
        smooth = -(logp * _class_view(weight, input._data.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target._data[target._data != ignore_index]
            denom = _make(np.asarray(weight._data[kept].sum(), dtype=input._data.dtype))
        else:
            denom = _make(np.asarray((~ignore._data).sum(), dtype=np.int64))
        with np.errstate(invalid="ignore", divide="ignore"):
            ret = smooth.sum() / denom
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return O.mul_scalar(nll, 1 - label_smoothing) + O.mul_scalar(ret, label_smoothing / n_classes)


# =============================================================================== padding
def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input._data.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input._data.ndim}")
    if mode != "constant":
        return _pad_by_index(input, pad, mode)
    widths = [(0, 0)] * input._data.ndim
    for i in range(len(pad) // 2):
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        dim = input._data.ndim - 1 - i
        if input._data.shape[dim] + min(lo, 0) + min(hi, 0) < 0:  # negative widths crop, as torch
            raise RuntimeError(f"narrow(): length must be non-negative. Padding ({lo}, {hi}) crops more than "
                               f"the {input._data.shape[dim]} elements of dim {dim} of the input {list(input.shape)}")
        widths[dim] = (lo, hi)
    return O.constant_pad(input, widths, 0 if value is None else value)


def _pad_by_index(input: Tensor, pad, mode: str) -> Tensor:
    """reflect / replicate padding as one ReflectionPad/ReplicationPad node (torch's); circular
    padding as one index_select per padded dim."""
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    nd = input._data.ndim
    n_pad = len(pad) // 2
    if nd not in (n_pad + 1, n_pad + 2) or n_pad > 3:
        raise NotImplementedError(f"Only {n_pad + 1}D, {n_pad + 2}D padding with non-constant padding are supported "
                                  "for now" if mode != "circular" else "Padding length too large")
    out = input
    for i in range(n_pad):
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        dim = nd - 1 - i
        n = input._data.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({lo}, {hi}) at dimension {dim} of input {list(input.shape)}")
        if mode == "circular":
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            idx = list(range(n - lo, n)) + list(range(n)) + list(range(hi))
            out = out.index_select(dim, _make(np.asarray(idx, dtype=np.int64)))
    return out if mode == "circular" else _index_pad(input, tuple(pad), mode)


# =============================================================================== attention
def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type, check_other: bool = True):
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not D.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        arr = np.where(mask._data, np.asarray(-np.inf, dtype=target_type.np), np.asarray(0, dtype=target_type.np))
        return _make(arr)
    return mask


def _in_projection_packed(q, k, v, w, b):
    e = q._data.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        q_proj = linear(q, w_q, b_q)
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """torch's multi-head attention, step for step (sequence-first layout: (L, N, E))."""
    from .._creation import zeros
    from .._ops.shape import cat
    is_batched = query._data.ndim == 3
    if not is_batched:
        if query._data.ndim != 2:
            raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                                 f"{query._data.ndim}-D query tensor")
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query._data.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       attn_mask.dtype if attn_mask is not None else None, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    src_len = key._data.shape[0]
    if attn_mask is not None:
        if attn_mask._data.ndim == 2:
            if tuple(attn_mask._data.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask._data.ndim == 3:
            if tuple(attn_mask._data.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask._data.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.view(k._data.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k)
    v = (v.view(v._data.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v)
    if add_zero_attn:
        z = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(z, dtype=k.dtype)], 1)
        v = cat([v, zeros(z, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k._data.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask._data.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask._data.shape[0]}")
        if key_padding_mask._data.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask._data.shape[1]}")
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        e = q._data.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        scores = bmm(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores  # torch.baddbmm(attn_mask, q, k^T)
        weights = _softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out._data.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask._data.shape[0] == 1 and attn_mask._data.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out._data.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# =============================================================================== more names (files of their own)
from ._f_losses_more import *  # noqa: E402,F401,F403
from ._f_losses_more import __all__ as _losses_more_all  # noqa: E402

from ._f_more import *  # noqa: E402,F401,F403
from ._f_more import __all__ as _more_all  # noqa: E402

from ._f_embedding_bag import embedding_bag  # noqa: E402,F401

__all__ += _losses_more_all + [n for n in _more_all if n != "Optional"] + ["embedding_bag"]

# the docstrings of functions defined without one live in a table of their own (see _f_docs.py for why)
from ._f_docs import apply as _apply_docs  # noqa: E402
_apply_docs(globals())


def __getattr__(name: str):
    # a torch name leafgrad lacks says so, rather than a bare AttributeError (leafgrad/coverage.py)
    from ..coverage import missing
    raise missing("torch.nn.functional", name)
