"""torch's top-level functions that programs call and that are built from leafgrad's existing ops:
atleast_1d/2d/3d, column_stack, row_stack, dstack, trapezoid, trapz, cumulative_trapezoid, vander,
unravel_index, chain_matmul, range, the aliases multiply/subtract, the removed matrix_rank, the queries is_nonzero/is_same_size/is_signed/typename, fill/zero_/detach, the top-level
in-place forms (``torch.exp_(t)`` is ``t.exp_()``) and the process settings benchmark scripts read
(interop threads, deterministic algorithms, warn-always).

Each is written as torch's own composite is (ATen's TensorShape.cpp, Integration.cpp, linalg's
multi_dot, torch/functional.py), so the nodes recorded are torch's: ``atleast_2d`` of a vector is an
UnsqueezeBackward0, ``trapezoid`` a MulBackward1, ``vander`` a FlipBackward0 (a CopySlices when
increasing), ``chain_matmul`` a ViewBackward0. Three need a node of their own, as in torch:
``block_diag`` (BlockDiagBackward0), ``complex`` (ComplexBackward0), ``polar`` (PolarBackward0), and
``fill`` (FillBackward0).

Loaded on first use of one of its names (``leafgrad.__getattr__``, see lazy.py).
"""
from __future__ import annotations

import builtins
import inspect
import itertools
import math
import operator
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap_dim
from .nn_ops import div_scalar, mul_scalar
from .pointwise import SGN, mul, sub
from .registry import apply, defop
from .shape import cat, hstack, narrow_xp

_make = Tensor._make

#: torch.set_warn_always's flag; the once-per-process warnings here (chain_matmul's) read it
_WARN = {"always": False, "said": set()}


def _warn_once(key: str, message: str) -> None:
    """torch's TORCH_WARN_ONCE: the first call in a process warns, later ones only with set_warn_always."""
    if _WARN["always"] or key not in _WARN["said"]:
        _WARN["said"].add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def _tensor_arg(name: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


# ----------------------------------------------------------------------------- atleast_nd
def _atleast(tensors: tuple, one, name: str):
    """torch.functional's wrapper: one tensor gives a tensor, several (or one sequence) a tuple."""
    if len(tensors) == 1:
        tensors = tensors[0]
    if isinstance(tensors, Tensor):
        return one(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    return tuple(one(t) for t in tensors)


def _at_least_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t._data.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    return t.reshape(1, 1) if nd == 0 else t.unsqueeze(0) if nd == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1, 1)
    if nd == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if nd == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d tensor becomes a view of shape (1,))."""
    return _atleast(tensors, _at_least_1d, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (a vector becomes a row, ``unsqueeze(0)``)."""
    return _atleast(tensors, _at_least_2d, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions (as NumPy's: a vector (n,) becomes (1, n, 1))."""
    return _atleast(tensors, _at_least_3d, "atleast_3d")


# ----------------------------------------------------------------------------- stacking
def _nonempty(tensors, name: str) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def column_stack(tensors) -> Tensor:
    """The tensors side by side as columns: scalars and vectors become (n, 1) columns, then hstack."""
    tensors = _nonempty(tensors, "column_stack")
    return hstack([t.reshape(t.numel(), 1) if t._data.ndim <= 1 else t for t in tensors])


def row_stack(tensors) -> Tensor:
    """torch's vstack: the tensors, each made at least 2-d (a vector as a row), one under the other."""
    tensors = _nonempty(tensors, "vstack")
    return cat([_at_least_2d(t) for t in tensors], 0)


def dstack(tensors) -> Tensor:
    """The tensors stacked along a third dimension (each made at least 3-d first)."""
    tensors = _nonempty(tensors, "dstack")
    return cat([_at_least_3d(t) for t in tensors], 2)


def _block_diag_fwd(xp, arrays, shapes, sizes):
    rows = builtins.sum(s[0] for s in shapes)
    cols = builtins.sum(s[1] for s in shapes)
    out = np.zeros((rows, cols), dtype=arrays[0].dtype)
    r = c = 0
    for a, (h, w) in zip(arrays, shapes):
        out[r:r + h, c:c + w] = a.reshape(h, w)
        r += h
        c += w
    return out


def _block_diag_back(xp, g, i, shapes, sizes):
    """The gradient's block of input ``i``, in that input's own shape (0-d, 1-d or 2-d)."""
    r = builtins.sum(s[0] for s in shapes[:i])
    c = builtins.sum(s[1] for s in shapes[:i])
    h, w = shapes[i]
    block = narrow_xp(xp, narrow_xp(xp, g, 0, r, h), 1, c, w)
    return xp.reshape(block, sizes[i])


BLOCK_DIAG = defop("BlockDiagBackward0", _block_diag_fwd, _block_diag_back, saved=("shapes", "sizes"),
                   variadic=True)
BLOCK_DIAG.node_cls._saved_names = ()


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors as the blocks of a block-diagonal matrix (0-d and 1-d ones as one row), in their
    promoted dtype; no tensors give an empty (1, 0) matrix, as in torch."""
    if not tensors:
        return _make(np.empty((1, 0), dtype=D.get_default_dtype().np))
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    shapes = tuple((1, 1) if t._data.ndim == 0 else (1, t._data.shape[0]) if t._data.ndim == 1
                   else tuple(t._data.shape) for t in tensors)
    sizes = tuple(tuple(t._data.shape) for t in tensors)
    dt = D.result_type(*tensors)
    cast = None if all(t._data.dtype == dt.np for t in tensors) else dt.np
    return apply(BLOCK_DIAG, tensors, (shapes, sizes), cast=cast)


# ----------------------------------------------------------------------------- integration
def _integration_x(name: str, y: Tensor, x: Tensor, dim: int):
    """ATen's view of ``x`` against ``y``: a vector along ``dim``, fewer dims padded in front; then its
    differences along ``dim``."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[dim] = x._data.shape[0]
        x = x.view(shape)
    elif x._data.ndim < y._data.ndim:
        x = x.view((1,) * (y._data.ndim - x._data.ndim) + tuple(x._data.shape))
    n = x._data.shape[dim]
    return x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)


def _check_dx(name: str, dx) -> float:
    if isinstance(dx, (builtins.bool, builtins.complex)) or isinstance(dx, Tensor):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def _times(t: Tensor, s: float) -> Tensor:
    """``t * s`` as ATen's C++ composites multiply by a number: a MulBackward1 on a floating-point tensor
    (an integer one, which records nothing, takes the ordinary product for torch's default float dtype)."""
    return mul_scalar(t, s) if t.dtype.is_floating_point or t.dtype.is_complex else t * s


def _zeros_except(y: Tensor, dim: int) -> Tensor:
    shape = list(y._data.shape)
    del shape[dim]
    return _make(np.zeros(shape, dtype=y._data.dtype))


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: with sample points ``x`` (a tensor) or a spacing ``dx``
    (default 1). Zero samples integrate to zeros, as NumPy's."""
    name = "trapezoid"
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both x and dx")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(x).__name__}), but expected one of:")
    dim = _wrap_dim(dim, y._data.ndim)
    n = y._data.shape[dim]
    if n == 0:
        return _zeros_except(y, dim)
    if x is None:
        if y.dtype is D.bool:
            raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
        step = _check_dx(name, 1 if dx is None else dx)
        return _times(y.sum(dim) - _times(y.select(dim, 0) + y.select(dim, -1), 0.5), step)
    if y.dtype is D.bool or x.dtype is D.bool:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    d = _integration_x(name, y, x, dim)
    total = (d * (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1))).sum(dim)
    return div_scalar(total, 2.0) if total.dtype.is_floating_point or total.dtype.is_complex else total / 2.0


def trapz(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """torch's older name of :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one value fewer than the samples)."""
    name = "cumulative_trapezoid"
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both x and dx")
    dim = _wrap_dim(dim, y._data.ndim)
    n = y._data.shape[dim]
    if x is None:
        if y.dtype is D.bool:
            raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
        step = _check_dx(name, 1 if dx is None else dx)
    else:
        if y.dtype is D.bool or x.dtype is D.bool:
            raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
        step = _integration_x(name, y, x, dim)
    left, right = y.narrow(dim, 0, builtins.max(n - 1, 0)), y.narrow(dim, 1, builtins.max(n - 1, 0))
    pairs = left + right
    if isinstance(step, Tensor):  # (ATen halves after the sum here, before it with a number dx)
        total = (step * pairs).cumsum(dim)
        return div_scalar(total, 2.0) if total.dtype.is_floating_point or total.dtype.is_complex else total / 2.0
    return _times(pairs, step / 2.0).cumsum(dim)


# ----------------------------------------------------------------------------- vander, unravel_index
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the vector ``x``: columns ``x**(N-1) ... x**0`` (``increasing``: the
    other way round); integer and bool inputs give int64, as torch's cumprod does."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = D.promote_types(x.dtype, D.int64)
    result = _make(np.empty((x._data.shape[0], n), dtype=dt.np))
    if n > 0:
        result.fill_(1)
        if n > 1:  # (ATen's: the powers written into the columns after the first, a CopySlices)
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)


def unravel_index(indices: Tensor, shape) -> tuple:
    """The coordinates in an array of ``shape`` of each flat index (one int64 tensor per dimension);
    as torch, indices out of range wrap instead of raising."""
    if indices.dtype.is_complex or indices.dtype.is_floating_point or indices.dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.int):
        shape = (shape,)
    elif not isinstance(shape, (tuple, list, str)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for d in shape:
        if not isinstance(d, builtins.int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    shape = tuple(shape)
    if not all(d >= 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs = list(reversed(list(itertools.accumulate(reversed(shape[1:] + (1,)), func=operator.mul))))
    out = indices.unsqueeze(-1).floor_divide(_make(np.asarray(coefs, dtype=np.int64))) % \
        _make(np.asarray(shape, dtype=np.int64))
    return out.unbind(-1)


# ----------------------------------------------------------------------------- complex, polar
def _complex_inputs(name: str, a: Tensor, b: Tensor, kinds: tuple) -> None:
    if a.dtype not in kinds or b.dtype not in kinds:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {D.scalar_type_name(a.dtype)} and "
                           f"{D.scalar_type_name(b.dtype)}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {D.scalar_type_name(a.dtype)} but got scalar type "
                           f"{D.scalar_type_name(b.dtype)} for second argument")


def _from_parts(re, im):
    """The complex array with these real and imaginary parts (written in: ``re + 1j * im`` would make
    ``0 * inf`` a nan in the real part)."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, dtype=np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


COMPLEX = defop("ComplexBackward0", lambda xp, re, im: _from_parts(re, im),
                (lambda xp, g: xp.real(g),
                 lambda xp, g: xp.real(xp.multiply(g, -1j))), n_in=2)  # (imag(g) = real(-i g))


def _polar_fwd(xp, r, theta):
    return _from_parts(r * np.cos(theta), r * np.sin(theta))


def _polar_abs_grad(xp, g, result):
    return xp.real(xp.multiply(xp.conj(g), xp.apply(SGN, result)))


def _polar_angle_grad(xp, g, result):
    return xp.real(xp.multiply(xp.conj(g), xp.multiply(result, 1j)))


POLAR = defop("PolarBackward0", _polar_fwd, (_polar_abs_grad, _polar_angle_grad), saved=("result",), n_in=2)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001  (torch's name)
    """The complex tensor ``real + i imag`` (float32 parts give complex64, float64 complex128)."""
    _complex_inputs("complex", real, imag, (D.float16, D.float32, D.float64))
    if real.dtype is D.float16:
        raise NotImplementedError("leafgrad has no complex32 (torch.chalf) dtype")
    return apply(COMPLEX, (real, imag))


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002  (torch's names)
    """The complex tensor with modulus ``abs`` and argument ``angle``: ``abs * (cos + i sin)(angle)``."""
    if abs.dtype is D.float16 and angle.dtype is D.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    _complex_inputs("polar", abs, angle, (D.float32, D.float64))
    return apply(POLAR, (abs, angle))


# ----------------------------------------------------------------------------- aliases, deprecated forms
multiply = mul
subtract = sub


def range(start=0, end=None, step=1, *, dtype=None, requires_grad: bool = False, device=None,  # noqa: A001
          layout=None, out=None) -> Tensor:
    """torch's deprecated ``range``: ``start, start + step, ...`` up to and including ``end``, in the
    default dtype unless ``dtype`` says otherwise (``arange`` leaves ``end`` out)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    dt = D.get_default_dtype() if dtype is None else dtype
    exact = dt.is_floating_point or dt.is_complex
    kind = builtins.float if exact else builtins.int
    xstart, xend, xstep = kind(start), kind(end), kind(step)
    if xstep == 0:
        raise RuntimeError("step must be nonzero")
    if exact and not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart} -> {xend}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = builtins.int((xend - xstart) / xstep + 1) if exact else (xend - xstart) // xstep + 1
    values = xstart + np.arange(size, dtype=np.float64 if exact else np.int64) * xstep  # (torch's double steps)
    result = _make(values.astype(dt.np))
    if out is not None:
        out.resize_(result.shape)
        out.copy_(result)
        return out
    return result.requires_grad_() if requires_grad else result


def _chain_order(dims: list) -> list:
    """CLRS's matrix-chain order (ATen's multi_dot): split[i][j] is where to cut the product i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in builtins.range(n)]
    split = [[0] * n for _ in builtins.range(n)]
    for length in builtins.range(1, n):
        for i in builtins.range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in builtins.range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(ms: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return ms[i]
    return _chain(ms, split, i, split[i][j]).mm(_chain(ms, split, split[i][j] + 1, j))


def chain_matmul(*matrices: Tensor, out=None) -> Tensor:
    """The product of the 2-d tensors, in the cheapest order (torch's deprecated form of
    ``linalg.multi_dot``, whose result is a view: ViewBackward0)."""
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
               "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
               "multiple parameters.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        ms = list(matrices)
        if len(ms) == 3:  # (ATen's closed form for three)
            a, b = ms[0]._data.shape
            c, d = ms[2]._data.shape
            result = ms[0].mm(ms[1].mm(ms[2])) if (a * c) * (b + d) > (b * d) * (a + c) else ms[0].mm(ms[1]).mm(ms[2])
        else:
            dims = [m._data.shape[0] for m in ms] + [ms[-1]._data.shape[1]]
            result = _chain(ms, _chain_order(dims), 0, len(ms) - 1)
        result = result.view(result.shape)
    if out is not None:
        out.resize_(result.shape)
        out.copy_(result)
        return out
    return result


def matrix_rank(input: Tensor, tol=None, symmetric: bool = False, *, out=None) -> Tensor:
    """Removed from torch in 1.9: raises, as torch 2.13's does, pointing at ``linalg.matrix_rank``."""
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                       "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")


# ----------------------------------------------------------------------------- queries
def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor (refused for any other size)."""
    return _tensor_arg("is_nonzero", input).is_nonzero()


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape."""
    return _tensor_arg("is_same_size", input).is_same_size(other)


def is_signed(input: Tensor) -> bool:
    """Whether the tensor's dtype is a signed one."""
    return _tensor_arg("is_signed", input).is_signed()


def typename(obj, /) -> str:
    """A tensor's legacy type name (``torch.FloatTensor``), else the object's module and qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"


# ----------------------------------------------------------------------------- fill, zero_, detach
FILL = defop("FillBackward0", lambda xp, a, value: np.full(a.shape, value, dtype=a.dtype),
             lambda xp, g: xp.zeros_like(g))


def fill(input: Tensor, value) -> Tensor:
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (a number or a 0-d tensor)."""
    input = _tensor_arg("fill", input)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        value = value.item()
    return apply(FILL, (input,), (value,))


def zero_(input: Tensor) -> Tensor:
    """``input.zero_()``."""
    return _tensor_arg("zero_", input).zero_()


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same data, out of the graph."""
    return _tensor_arg("detach", input).detach()


def _inplace_form(name: str):
    """``torch.<name>(input, ...)``: the Tensor method ``input.<name>(...)``, with its signature."""
    def fn(input, *args, **kwargs):
        return getattr(_tensor_arg(name, input), name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: the in-place method, as torch's top-level ``torch.{name}``."
    try:
        params = list(inspect.signature(getattr(Tensor, name)).parameters.values())
        fn.__signature__ = inspect.Signature([params[0].replace(name="input")] + params[1:])
    except (TypeError, ValueError, IndexError):
        pass
    return fn


INPLACE = ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctanh_", "asin_", "asinh_",
           "atanh_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erfc_",
           "exp2_", "exp_", "fill_", "frac_", "log1p_", "log_", "logit_", "nan_to_num_", "neg_", "rad2deg_",
           "reciprocal_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "tanh_", "xlogy_")


# ----------------------------------------------------------------------------- process settings
_INTEROP = {"n": None}


def get_num_interop_threads() -> int:
    """The size torch's inter-op pool would have (leafgrad runs one op at a time: only the setting)."""
    if _INTEROP["n"] is not None:
        return _INTEROP["n"]
    import os
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def set_num_interop_threads(n: int) -> None:
    """Remember ``n`` as the inter-op pool's size; as torch, once per process and positive only."""
    if isinstance(n, bool) or not isinstance(n, builtins.int):
        raise TypeError(f"set_num_interop_threads(): argument 'int' (position 1) must be int, not {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _INTEROP["n"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _INTEROP["n"] = n


def set_warn_always(b: bool) -> None:
    """Make torch's once-per-process warnings warn on every call (chain_matmul's here)."""
    _WARN["always"] = builtins.bool(b)


def is_warn_always_enabled() -> bool:
    """Whether :func:`set_warn_always` is on."""
    return _WARN["always"]


NAMES = ("atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "column_stack", "row_stack", "dstack", "trapezoid",
         "trapz", "cumulative_trapezoid", "vander", "unravel_index", "complex", "polar", "multiply", "subtract",
         "chain_matmul", "matrix_rank", "is_nonzero", "is_same_size", "is_signed", "typename",
         "fill", "zero_", "detach", "get_num_interop_threads", "set_num_interop_threads", "set_warn_always",
         "is_warn_always_enabled")

#: torch's top-level functions here, served by ``leafgrad.__getattr__`` (lazy.py). ``range`` is left out for
#: now: ``_serve`` keeps a served function in leafgrad's namespace, where it would shadow the builtin that
#: ``leafgrad.broadcast_shapes`` loops with (``_builtins.range`` there first)
TOP_LEVEL = {name: globals()[name] for name in NAMES}
TOP_LEVEL.update({name: _inplace_form(name) for name in INPLACE})
