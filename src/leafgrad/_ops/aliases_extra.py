"""Tensor methods that are other names or thin compositions of ops leafgrad has (``moveaxis``,
``ravel``, ``adjoint``, ``hsplit``, ``sum_to_size``, ...), the few small ops torch records under
their own node names (``narrow_copy``, ``unsafe_split``, ``conj_physical``), and the random
methods ``bernoulli``, ``cauchy_``, ``geometric_``, ``log_normal_``.

leafgrad materialises conjugation and negation (there are no lazy conj/neg bits), so
``is_conj``/``is_neg`` are always False and ``resolve_conj``/``resolve_neg`` return the tensor.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._creation import _num, _rng
from .._creation import bernoulli as _bernoulli_draw
from .._creation import multinomial as _multinomial
from .._tensor import Tensor, _wrap_dim
from . import inplace as IP
from . import pointwise as P
from . import reduction as R
from . import shape as S
from . import shape_extra as SX
from .indexing import SLICE_BACKWARD
from .registry import apply, defop, show_saved_as
from .unsigned import refuse_unsigned

__all__ = ["FUNCTIONS", "METHODS"]


def positive(input: Tensor) -> Tensor:
    """The tensor itself (torch's unary ``+``); a bool tensor is refused, as torch."""
    if input.dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported. Use the tensor itself, or convert "
                           "it first (t.int()).")
    return input


def ravel(input: Tensor) -> Tensor:
    """A 1-D view of a contiguous copy (a view of the tensor itself when it is contiguous)."""
    return S.view(S.contiguous(input), (-1,))


def _matrix_transpose(input: Tensor, what: str) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got "
                           f"{input._data.ndim}-D tensor.")
    t = S.transpose(input, -2, -1)
    return P.conj(t) if input.dtype.is_complex else t


def adjoint(input: Tensor) -> Tensor:
    return _matrix_transpose(input, "adjoint()")


def resolve_conj(input: Tensor) -> Tensor:
    return input  # (conjugation is already materialised in leafgrad)


def resolve_neg(input: Tensor) -> Tensor:
    return input


def is_conj(input: Tensor) -> bool:
    return False


def is_neg(input: Tensor) -> bool:
    return False


CONJ_PHYSICAL = defop("ConjPhysicalBackward0", lambda xp, a: xp.conj(a), lambda xp, g: xp.conj(g))
CONJ_PHYSICAL_INPLACE = defop("ConjPhysicalBackward1", lambda xp, a: xp.conj(a), lambda xp, g: xp.conj(g))


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate as a new tensor; a real tensor is returned as it is (torch does the same)."""
    if not input.dtype.is_complex:
        return input
    return apply(CONJ_PHYSICAL, (input,))


def conj_physical_(input: Tensor) -> Tensor:
    return IP.inplace(CONJ_PHYSICAL_INPLACE, input, (), (), "conj_physical_")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened tensor on the ``offset`` diagonal of a square matrix."""
    return SX.diag_embed(S.reshape(input, -1), int(offset))


def _narrow_copy_grad(xp, g, self_sym_sizes, dim, start, length):
    key = (slice(None),) * dim + (slice(start, start + length),)
    return xp.apply(SLICE_BACKWARD, g, params=(self_sym_sizes, key))


NARROW_COPY = defop("NarrowCopyBackward0", lambda xp, a, dim, start, length: S._slice_fwd(
    xp, a, dim, start, start + length, 1).copy(), _narrow_copy_grad, saved=("self_sym_sizes", "dim", "start", "length"))


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """narrow's region as a new tensor (not a view)."""
    probe = S.narrow(input.detach(), dim, start, length)  # (narrow's argument checks and start wrapping)
    d = _wrap_dim(dim, input._data.ndim)
    begin = int(start) + input._data.shape[d] if int(start) < 0 else int(start)
    del probe
    return apply(NARROW_COPY, (input,), (d, begin, int(length)))


# torch's unsafe_split pieces share the input's memory but are not tracked as views (no version
# sharing, no view checks): that is what "unsafe" means. Their op is not a view op here either.
UNSAFE_SPLIT = defop("UnsafeSplitBackward0", S._split_fwd, S._split_back,
                     saved=("dim", "split_sizes", "self_sym_sizes"), n_out=-1)
UNSAFE_SPLIT.node_cls._saved_names = ("dim", "split_size", "self_sym_sizes")  # (torch's: one size, as split's)
show_saved_as(UNSAFE_SPLIT, "split_size", lambda sizes: sizes[0])
UNSAFE_SPLIT_SIZES = defop("UnsafeSplitWithSizesBackward0", S._split_fwd, S._split_back,
                           saved=("dim", "split_sizes", "self_sym_sizes"), n_out=-1)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    return S.split(input, list(split_sizes), dim)


def _split_sizes(input: Tensor, split_size: int, dim: int) -> tuple:
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    step = int(split_size)
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    return d, (tuple(min(step, size - s) for s in range(0, size, step)) if size else (0,))


def unsafe_split(input: Tensor, split_size: int, dim: int = 0):
    """split's pieces, over the input's memory but not tracked as its views (torch's unsafe form)."""
    d, sizes = _split_sizes(input, split_size, dim)
    return apply(UNSAFE_SPLIT, (input,), (d, sizes))


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    S.split(input.detach(), list(split_sizes), dim)  # (the sizes must add up: split_with_sizes' error)
    return apply(UNSAFE_SPLIT_SIZES, (input,), (_wrap_dim(dim, input._data.ndim), tuple(int(s) for s in split_sizes)))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    return unsafe_split(input, -(-size // chunks), dim)  # (pieces of ceil(size / chunks), as chunk's)


def _directional_split(name: str, dim: int, min_dims: int):
    """hsplit / vsplit / dsplit: tensor_split along one dimension; an int must divide it evenly."""
    def fn(input: Tensor, indices_or_sections):
        nd = input._data.ndim
        if nd < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {nd} dimensions!")
        d = 0 if (name == "hsplit" and nd == 1) else dim
        if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
            size = input._data.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
        else:
            indices_or_sections = list(indices_or_sections)
        return S.tensor_split(input, indices_or_sections, d)
    fn.__name__ = fn.__qualname__ = name
    return fn


hsplit = _directional_split("hsplit", 1, 1)
vsplit = _directional_split("vsplit", 0, 2)
dsplit = _directional_split("dsplit", 2, 3)


def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum ``input`` down to ``size`` (the shape it was broadcast from): the tensor itself when equal."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = input._data.shape
    if size == shape:
        return input
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    out = R.sum(input, dims, keepdim=True) if dims else input
    return S.view(out, size) if lead else out


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False,
                      layout=None, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with the given strides (in elements) over a fresh buffer."""
    from .._backend import backend_for_device
    backend_for_device(device or "cpu")
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)}): give one stride per dimension.")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative sizes or strides are not supported, got size {list(size)} and "
                           f"stride {list(stride)}")
    dt = D.to_dtype(dtype) if dtype is not None else self.dtype
    n = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    buf = np.empty(n, dtype=dt.np)
    item = buf.itemsize
    arr = np.lib.stride_tricks.as_strided(buf, size, tuple(st * item for st in stride), writeable=True)
    t = Tensor._make(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for '{D.scalar_type_name(input.dtype)}'")
    # (nn_activations is imported on first use, keeping `import leafgrad` light)
    from .nn_activations import HARDSHRINK
    return apply(HARDSHRINK, (input,), (lambd,))


# ----------------------------------------------------------------------------- random
BERNOULLI = defop("BernoulliBackward0", lambda xp, a, draws: draws.astype(a.dtype, copy=False),
                  lambda xp, g: xp.zeros_like(g))


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """0/1 draws with probabilities ``input`` (or ``p``); torch records a node whose gradient is zero."""
    if p is not None:
        from .random_ import check_p
        check_p(p)  # (torch checks p before it looks for a kernel)
    # (uint16/32/64: see _ops/unsigned.py)
    refuse_unsigned(input.dtype, "bernoulli_tensor_cpu_self_" if p is None else "bernoulli_scalar_cpu_")
    draws = _bernoulli_draw(input.detach(), p, generator=generator)._data
    if not input.dtype.is_floating_point:
        return Tensor._make(draws)
    return apply(BERNOULLI, (input,), (draws,))


_RANDOM_OPS = {name: defop(name, lambda xp, a, arr: arr.astype(a.dtype, copy=False), lambda xp, g: g * 0)
               for name in ("CauchyBackward0", "GeometricBackward0", "LogNormalBackward0")}


def _floating_only(self: Tensor, what: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{what} is a continuous probability distribution. dtype must be a floating point but "
                           f"you specified {D.CPP_NAMES.get(self.dtype.name, self.dtype.name)}")


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    _floating_only(self, "Cauchy distribution")
    arr = median + sigma * _rng(generator).standard_cauchy(self._data.shape)
    return IP.inplace(_RANDOM_OPS["CauchyBackward0"], self, (), (arr,), "cauchy_")


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """The number of Bernoulli(p) trials up to and including the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    arr = _rng(generator).geometric(p, self._data.shape)
    return IP.inplace(_RANDOM_OPS["GeometricBackward0"], self, (), (arr,), "geometric_")


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{D.scalar_type_name(self.dtype)}'")
    arr = _rng(generator).lognormal(mean, std, self._data.shape)
    return IP.inplace(_RANDOM_OPS["LogNormalBackward0"], self, (), (arr,), "log_normal_")


def _multinomial_method(self: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    return _multinomial(self, num_samples, replacement, generator=generator)


def _cast(dt):
    def m(self: Tensor, memory_format=None) -> Tensor:
        return P.to_dtype(self, dt)
    return m


# names that are both a Tensor method and a top-level function, with the same implementation
_BOTH = {
    "arctan": P.atan, "moveaxis": S.movedim, "ravel": ravel, "positive": positive, "adjoint": adjoint,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": is_conj, "is_neg": is_neg,
    "conj_physical": conj_physical, "conj_physical_": conj_physical_, "diagflat": diagflat,
    "narrow_copy": narrow_copy, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "split_with_sizes": split_with_sizes, "unsafe_chunk": unsafe_chunk, "unsafe_split": unsafe_split,
    "unsafe_split_with_sizes": unsafe_split_with_sizes,
}

METHODS = {
    **_BOTH, "sum_to_size": sum_to_size, "new_empty_strided": new_empty_strided, "hardshrink": hardshrink,
    "bernoulli": bernoulli, "multinomial": _multinomial_method, "cauchy_": cauchy_, "geometric_": geometric_, "log_normal_": log_normal_,
    "cdouble": _cast(D.complex128), "cfloat": _cast(D.complex64),
}

def mH(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (a view, as ``adjoint()``)."""
    return _matrix_transpose(self, "mH")


PROPERTIES = {"mH": mH}

FUNCTIONS = dict(_BOTH)  # (torch.hardshrink is nn.functional's, found there on first use)
