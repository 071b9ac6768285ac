"""leafgrad: PyTorch's tensors and autograd, in readable Python on NumPy.

``import leafgrad as torch`` runs ordinary PyTorch code; every graph can be printed,
drawn and explained.
"""
from __future__ import annotations

import builtins as _builtins
import math as _math
import operator as _operator

#: leafgrad's own release. ``__version__`` (made on first use, in version.py) is the torch release whose
#: semantics it follows, so that scripts comparing ``torch.__version__`` (as a version: see
#: torch_version.py) take torch 2.13's branch
__leafgrad_version__ = "0.1.0"

from . import _dtype
from ._dtype import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, float, float16,  # noqa: A004
                     float32, float64, get_default_dtype, half, int, int8, int16, int32, int64, long,  # noqa: A004
                     promote_types, result_type as _result_type_impl, set_default_dtype, short, uint8, uint16, uint32, uint64, can_cast,
                     finfo, iinfo)
from ._backend import device, get_default_device, set_default_device
from ._tensor import Size, Tensor
from . import _ops  # noqa: F401  (binds ops onto Tensor)
from . import _grad_dtype  # noqa: F401,E402  (misc14: binds Tensor.grad_dtype; .grad checks it)
from . import _device_flags  # noqa: F401  (t.is_cpu / is_xpu / is_mps ... flags)
from ._creation import (Generator, arange, as_tensor, asarray, bernoulli, empty, empty_like, eye, from_numpy, full,
                        full_like, get_rng_state, initial_seed, linspace, logspace, manual_seed, multinomial, normal,
                        ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm,
                        scalar_tensor, seed, set_rng_state, tensor, zeros, zeros_like)
from ._creation import default_generator  # noqa: F401
from ._ops.pointwise import addcdiv, addcmul, lerp  # the fused helpers optimizer code calls
from ._ops.pointwise import (abs, absolute, add, allclose, atan, bitwise_and, bitwise_left_shift, bitwise_not,
                             bitwise_or, bitwise_right_shift, bitwise_xor,
                             ceil, clamp, clamp_max, clamp_min, clip, clone, conj, cos, div, divide, eq, equal, erf,
                             exp, expm1, floor, floor_divide, fmax, fmin, fmod, ge, greater, greater_equal, gt,
                             isclose, isfinite, isinf, isnan, le, less, less_equal, log, log1p, log2, log10,
                             logical_and, logical_not, logical_or, logical_xor, lt, maximum, minimum, mul, ne, neg,
                             negative, not_equal, pow, reciprocal, relu, remainder, round, rsqrt, rsub, sigmoid, sign,
                             sin, sqrt, square, sub, tan, tanh, true_divide, trunc, where)
from ._ops.pointwise_math import (acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan2, arctanh, asin, asinh,
                                  atan2, atanh, cosh, deg2rad, erfc, erfinv, exp2, frac, heaviside, hypot, logaddexp,
                                  logaddexp2, logit, nan_to_num, rad2deg, sgn, signbit, sinc, sinh, xlogy)
from ._ops.reduction import (all, amax, amin, any, argmax, argmin, count_nonzero, cumsum, logsumexp, max, mean,
                             min, norm, prod, softmax, log_softmax, std, sum, var)
from ._ops.linalg import addmm, bmm, dot, einsum, ger, inner, matmul, mm, mv, outer, vdot
from ._ops.shape import (broadcast_to, cat, chunk, concat, concatenate, diagonal, flatten, flip, hstack, movedim,
                         narrow, permute, repeat, reshape, roll, select, split, squeeze, stack, swapaxes, swapdims, t,
                         tensor_split, tile, transpose, unbind, unflatten, unsqueeze, vstack)
from ._ops.sorting import argsort, cummax, cummin, kthvalue, median, msort, nanmedian, sort, topk
from ._ops.shape_extra import (cumprod, diag, diag_embed, diff, fliplr, flipud, kron, logcumsumexp, meshgrid,
                               repeat_interleave, rot90, take_along_dim, tensordot, trace, tril_indices, triu_indices)
from ._ops.indexing import gather, index_select, masked_fill, masked_select, nonzero, scatter, scatter_add, take, tril, triu
from ._ops.out_arg import add_out_args as _add_out_args
# (the rare op families, torch.addbmm, torch.index_add, torch.lgamma, torch.fix ...: loaded on first use by
# __getattr__ below, see _ops/lazy.py)

_add_out_args(globals())  # (out= on the functions that take it in torch: _ops/out_arg.py)
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                                 set_grad_enabled)
from . import autograd
from . import cuda
from ._threads import get_num_threads, set_num_threads
from . import _quiet

_quiet.install()  # (NumPy's RuntimeWarnings from leafgrad's own arithmetic: torch prints none)

strided = "torch.strided"
from ._ops.layout import (memory_format, contiguous_format, preserve_format, channels_last,  # noqa: E402
                          channels_last_3d)
pi = 3.141592653589793
e = 2.718281828459045
inf = _math.inf
nan = _math.nan


def result_type(tensor1, tensor2) -> dtype:
    return _result_type_impl(tensor1, tensor2)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(t: Tensor) -> bool:
    return t.dtype.is_floating_point


def is_complex(t: Tensor) -> bool:
    return t.dtype.is_complex


def numel(t: Tensor) -> int:
    return t.numel()


def set_printoptions(**kwargs) -> None:
    from ._printing import set_printoptions as _set
    _set(**kwargs)


def broadcast_shapes(*shapes) -> Size:
    """The shape the given shapes broadcast to; each may be an int, a tuple/list of ints or a Size."""
    as_tuples = []
    for s in shapes:
        if isinstance(s, Tensor):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
        s = (s,) if not hasattr(s, "__iter__") else tuple(s)
        dims = []
        for i, d in enumerate(s):
            try:
                dims.append(_operator.index(d))  # ints, NumPy ints, 0-d integer tensors
            except TypeError:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(d).__name__}')") from None
        as_tuples.append(tuple(dims))
    out = [1] * _builtins.max((len(s) for s in as_tuples), default=0)  # (max here is torch.max)
    for k, s in enumerate(as_tuples):
        for i in range(-1, -1 - len(s), -1):
            if s[i] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if s[i] == 1 or s[i] == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                                   f"argument at index {k} had {s}; but expected shape should be broadcastable "
                                   f"to {out}")
            out[i] = s[i]
    return Size(out)


def broadcast_tensors(*tensors):
    from ._ops.inplace import broadcast_or_raise
    shape = broadcast_or_raise(*[tuple(t.shape) for t in tensors])  # (torch's tensor-a/tensor-b wording)
    # a tensor that already has the broadcast shape is returned itself, as torch does (no ExpandBackward0)
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """leafgrad is always deterministic: accepted for compatibility."""


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None, options=None,
            disable: bool = False):
    """torch.compile as torch's eager fallback: the result runs ``model`` eagerly (see compiler.py)."""
    from .compiler import compile as _compile
    return _compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                    disable=disable)


# torch's top-level forms of some nn.functional functions (torch.selu, torch.cosine_similarity, ...):
# the same functions, found in nn.functional on first use
_FROM_NN_FUNCTIONAL = frozenset({"selu", "selu_", "celu", "celu_", "hardshrink", "threshold", "threshold_", "relu_",
                                 "cosine_similarity", "pairwise_distance",
                                 # (nnloss branch)
                                 "prelu", "rrelu", "rrelu_", "pdist", "channel_shuffle", "native_channel_shuffle",
                                 "rms_norm", "alpha_dropout", "feature_alpha_dropout", "conv_tbc"})


# submodules loaded on first use, keeping `import leafgrad` fast
_LAZY_MODULES = frozenset({"linalg", "special", "fft", "nn", "optim", "utils", "viz", "explain_module", "amp", "backends", "accelerator",
                           "compiler", "jit", "onnx", "return_types", "serialization", "version", "torch_version",
                           "distributions", "cpu"})
_LEGACY_TYPE_NAMES = frozenset({"DoubleTensor", "FloatTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
                                "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"})
_FROM_AMP = frozenset({"autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
                       "set_autocast_dtype"})


def __getattr__(name: str):
    # the training library is imported on first use, keeping `import leafgrad` fast
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LEGACY_TYPE_NAMES:  # torch.FloatTensor and the other legacy types (_legacy_types.py)
        from ._legacy_types import LEGACY_TYPES
        return LEGACY_TYPES[name]
    if name == "set_default_tensor_type":
        from ._legacy_types import set_default_tensor_type
        return set_default_tensor_type
    if name == "__version__":
        from .version import __version__
        return __version__
    if name in ("set_float32_matmul_precision", "get_float32_matmul_precision"):
        return getattr(importlib.import_module("._precision", __name__), name)
    fn = _lazy_ops.top_level(name)  # a rare op family's function (_ops/lazy.py), loaded on first use
    if fn is not None:
        return _serve(name, fn)
    if name in _FROM_AMP:
        return getattr(importlib.import_module(".amp.autocast_mode", __name__), name)
    if name in _FROM_NN_FUNCTIONAL:
        return getattr(importlib.import_module(".nn.functional", __name__), name)
    if name in ("explain", "explain_grad"):
        mod = importlib.import_module(".explain", __name__)
        return getattr(mod, name)
    if name in ("save", "load"):
        mod = importlib.import_module(".serialization", __name__)
        return getattr(mod, name)
    if name in ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"):
        mod = importlib.import_module(".autograd.anomaly", __name__)  # (torch's top-level forms)
        return getattr(mod, "set_detect_anomaly" if name == "set_anomaly_enabled" else name)
    if name.startswith("_foreach_"):  # torch._foreach_add_ and the other list ops optimizers use (_foreach.py)
        mod = importlib.import_module("._foreach", __name__)
        if name in mod.__all__:
            return getattr(mod, name)
    from .coverage import missing
    raise missing("torch", name)  # (a torch name leafgrad lacks says so: coverage.py)


def _serve(name: str, fn):
    """A lazy family's top-level function as the eager ones are: with ``out=`` where torch has it, its public
    name and docstring; kept in this module's namespace, so the next read is an ordinary one."""
    namespace = {name: fn}
    _add_out_args(namespace)
    _ops.docs.document_functions(namespace)
    fn = globals()[name] = namespace[name]
    return fn


def __dir__() -> list:
    return sorted(set(globals()) | set(_lazy_ops.TOP_LEVEL))

from ._ops import lazy as _lazy_ops  # noqa: E402

_ops.docs.document_functions(globals())  # public names and op-table docstrings on factory-made functions
_ops.methods.install_missing_names()  # (last: the names torch.Tensor has and leafgrad's Tensor lacks)
#: what ``from leafgrad import *`` takes: the public names, the rare families' functions too (loaded then)
__all__ = sorted({_n for _n in globals() if not _n.startswith("_")} | set(_lazy_ops.TOP_LEVEL))
