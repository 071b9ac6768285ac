"""``F.fractional_max_pool2d`` / ``3d`` (and their ``_with_indices`` forms): argument checks in torch's
order and the default random samples; the op is ``_ops/fractional_pool.py``."""
from __future__ import annotations

from .._tensor import Tensor
from .._ops.fractional_pool import fractional_max_pool

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _sizes(value, nd: int, name: str, what: str) -> tuple:
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * nd
        if len(value) != nd:
            raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
        return tuple(value)
    return (value,) * nd


def _fractional(input: Tensor, kernel_size, output_size, output_ratio, samples, nd: int) -> tuple:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.ndim < nd + 1:  # (torch reads the channel dim first)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but "
                         f"got {-(nd + 1)})")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:  # (torch's 2-d form takes len() of the ratio: a bare float is a TypeError)
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        output_size = tuple(int(input.shape[-nd + d] * ratio[d]) for d in range(nd))
    out = tuple(int(v) for v in _sizes(output_size, nd, name, "output_size"))
    kernel = tuple(int(v) for v in _sizes(kernel_size, nd, name, "kernel_size"))
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    n = 1 if input.ndim == nd + 1 else input.shape[0]
    c = input.shape[-nd - 1]
    if samples is None:
        from .. import rand
        samples = rand(n, c, nd, dtype=input.dtype)
    if samples.ndim != 3 or samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    where = f"{name}()" if nd == 2 else f"{name}_out()"
    for d, dim in enumerate(_DIM_NAMES[nd]):
        size = input.shape[-nd + d]
        if out[d] + kernel[d] - 1 > size:
            raise RuntimeError(f"{where}: pool {dim} {kernel[d]} too large relative to input {dim} {size}")
    return fractional_max_pool(input, kernel, out, samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """(values, indices): max over pseudo-randomly placed (kH, kW) windows, to ``output_size`` or
    ``output_ratio`` of the input size; ``_random_samples`` (N, C, 2) in [0, 1) fixes the placement."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    out, idx = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, False,
                                                  _random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """The 3-d form: (kT, kH, kW) windows, ``_random_samples`` (N, C, 3)."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    out, idx = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, False,
                                                  _random_samples)
    return (out, idx) if return_indices else out
