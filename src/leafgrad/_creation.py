"""Factory functions (tensor, zeros, ones, arange, rand, ...) and the global random generator."""
from __future__ import annotations

import builtins
import math
import os
import warnings

import numpy as np

from . import _dtype as D
from . import _ranges
from ._alloc import allocate
from ._backend import DEFAULT_DEVICE as _DEFAULT_DEVICE, backend_for_array, backend_for_device
from ._lowp import keep_lowp
from ._ops.layout import check_rank, in_format, laid_out_like, preserve_format
from ._unsigned_array import keep_shell, refuse as _refuse_shell
from ._tensor import Tensor
from .autograd.grad_mode import STATE as _gm_state

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "arange", "linspace",
           "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "randperm", "manual_seed", "seed", "initial_seed",
           "Generator", "get_rng_state", "set_rng_state", "normal", "bernoulli", "multinomial", "scalar_tensor"]


# ----------------------------------------------------------------------------- random generators
class Generator:
    """torch.Generator look-alike over NumPy's PCG64 (streams differ from torch's, seeds are reproducible)."""

    def __init__(self, device="cpu") -> None:
        self._seed = 67280421310721
        self._rng = None  # NumPy's generator is made on first draw: importing numpy.random costs ~8 ms

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._rng = None
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        import pickle
        raw = pickle.dumps(self.rng.bit_generator.state)
        return Tensor._make(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, state: Tensor) -> "Generator":
        import pickle
        self.rng.bit_generator.state = pickle.loads(np.asarray(state._data, dtype=np.uint8).tobytes())
        return self

    @property
    def rng(self) -> "np.random.Generator":
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed & 0xFFFFFFFFFFFFFFFF)
        return self._rng


default_generator = Generator()
# torch seeds its default generator from the OS at startup: initial_seed() differs between runs
# unless manual_seed is called (a new Generator() keeps the fixed default seed, as torch's)
default_generator._seed = int.from_bytes(os.urandom(8), "little")


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(state: Tensor) -> None:
    default_generator.set_state(state)


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).rng


# ----------------------------------------------------------------------------- helpers
def _shape(size, negative: str | None = None) -> tuple:
    """The size as a tuple of ints; ``negative`` is the factory's own message for a negative size."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"size must contain only integers, but got {type(s).__name__} ({s!r})")
        if s < 0:
            raise RuntimeError(negative or f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _finish(arr, dtype, device, requires_grad: bool) -> Tensor:
    if device is None:
        device = _DEFAULT_DEVICE[0]  # torch.set_default_device's choice (None: the CPU)
    if device is not None:
        backend_for_device(device)  # raises a clear error for cuda
    arr = keep_shell(keep_lowp(arr))  # (float16, bfloat16 and uint16/32/64 data live in array types of their own)
    t = Tensor._make(arr)
    if requires_grad:
        t._set_requires_grad(True, factory=True)
    if _gm_state.inference:  # tensors made in inference_mode are inference tensors (LG116)
        t._m().inference = True
    return t


def _refuse_unsigned(d: D.dtype, kernel: str) -> None:
    """torch's NotImplementedError for a factory it has no uint16/32/64 kernel for (``_unsigned_array.py``)."""
    if d in D._UNSIGNED_WIDE:
        _refuse_shell(kernel, d.np)


def _dt(dtype, default=None) -> D.dtype:
    if dtype is None:
        return default if default is not None else D.get_default_dtype()
    return D.to_dtype(dtype)


def _infer_dtype(obj) -> D.dtype:
    """torch.tensor's inference: any float -> default dtype, all bool -> bool, ints -> int64."""
    kind = -1
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            return x.dtype if kind < x.dtype._kind else _kind_dtype(kind)
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, np.ndarray):
            return D.from_numpy_dtype(x.dtype)
        if isinstance(x, np.generic):
            return D.from_numpy_dtype(x.dtype)
        kind = max(kind, D._scalar_kind(x))
    return _kind_dtype(kind if kind >= 0 else 2)


def _kind_dtype(kind: int) -> D.dtype:
    return D._kind_default(kind)


def _to_array(obj):
    if isinstance(obj, Tensor):
        return np.asarray(obj._data)
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (Tensor, list, tuple)) for x in obj):
        parts = [_to_array(x) for x in obj]
        return np.stack(parts) if parts else np.array([])
    if isinstance(obj, (list, tuple)):
        return np.array([_scalar_value(x) for x in obj])
    return np.asarray(obj)


def _scalar_value(x):
    if isinstance(x, Tensor):
        return x.item()
    return x


def ones_like_array(arr):
    """The implicit gradient of ``backward()``. Nearly always a 0-d loss: ``asarray(1)`` makes
    that in a third of the time of ``ones_like`` (a Python-level NumPy function)."""
    xp = backend_for_array(arr).xp
    if arr.ndim == 0:
        return xp.asarray(1, dtype=arr.dtype)
    return xp.ones_like(arr)


# ----------------------------------------------------------------------------- constructors
def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Copy ``data`` into a new leaf tensor, inferring the dtype as torch does."""
    if isinstance(data, Tensor):
        from .errors import warn_autograd
        warn_autograd(
            "LG126",
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            stacklevel=3, tensor=data)
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    try:
        d = _dt(dtype, _infer_dtype(data))
        if d is D.uint64:  # (the whole unsigned range, and torch's checks: _uint64_data.py)
            from ._uint64_data import uint64_array
            arr = uint64_array(data)
        else:
            arr = np.array(_to_array(data), dtype=d.np, copy=True)
    except (ValueError, TypeError):
        _diagnose_sequence(data)  # torch's error for the nesting NumPy refused
        raise
    t = _finish(arr, d, device, requires_grad)
    if not requires_grad:  # provenance: a copy of a tensor (or of an array) that came from autograd
        from . import provenance as _prov
        if isinstance(data, Tensor):
            _prov.note_tensor_copy(data, t)
        elif isinstance(data, np.ndarray) and _prov._ARRAYS:
            _prov.note_from_array(data, t)
    return t


def _diagnose_sequence(data) -> None:
    """Raise torch's error for nested data it cannot make a tensor of: the shape is read from the first
    element at each depth, then every element must match it."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]
    if isinstance(x, str):
        raise ValueError("too many dimensions 'str'")

    def walk(x, d):
        if isinstance(x, Tensor):
            return
        if d < len(shape):
            if not isinstance(x, (list, tuple)):
                raise TypeError("not a sequence")
            if len(x) != shape[d]:
                raise ValueError(f"expected sequence of length {shape[d]} at dim {d} (got {len(x)})")
            for y in x:
                walk(y, d + 1)
        elif isinstance(x, str):
            raise TypeError("new(): invalid data type 'str'")
        elif isinstance(x, (list, tuple)):
            raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
    walk(data, 0)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return tensor(value, dtype=_dt(dtype), device=device, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Shares memory with a NumPy array (or returns the tensor) when no conversion is needed."""
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is D.to_dtype(dtype) else data.to(D.to_dtype(dtype))
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        return t if dtype is None else t.to(D.to_dtype(dtype))
    return tensor(data, dtype=None if dtype is None else D.to_dtype(dtype), device=device)


asarray = as_tensor


_WARNED_READ_ONLY: list = []


def from_numpy(arr: np.ndarray) -> Tensor:
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    D.from_numpy_dtype(arr.dtype)
    if arr.__class__ is not np.ndarray:
        # an ndarray subclass (np.memmap, np.matrix, a user's): the tensor holds a plain ndarray view of the
        # same memory, as torch keeps only the buffer. Every op finds its backend by the array's exact class,
        # and a subclass's own rules (matrix's `*` is matmul, its reductions stay 2-d) must not leak into ops.
        arr = arr.view(np.ndarray)
    arr = keep_shell(arr)  # (uint16/32/64: a view of the same memory in their array type, _unsigned_array.py)
    if not arr.flags.writeable and not _WARNED_READ_ONLY:  # (once per process, as torch)
        _WARNED_READ_ONLY.append(True)
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program. (leafgrad refuses writes "
                      "into it instead: np.array(arr) or arr.copy() gives one you can write.)", UserWarning,
                      stacklevel=2)
    t = Tensor._make(keep_lowp(arr))  # (a float16 array: a Float16Array view of the same memory, see _lowp.py)
    from . import provenance as _prov
    if _prov._ARRAYS:  # provenance: an array that left autograd through .numpy() comes back
        _prov.note_from_array(arr, t)
    return t


def zeros(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    d = _dt(dtype)
    shape = _shape(size, "zeros: Dimension size must be non-negative.")
    return _finish(allocate(lambda: np.zeros(shape, dtype=d.np), shape, d.itemsize), d, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    d = _dt(dtype)
    shape = _shape(size)
    return _finish(allocate(lambda: np.ones(shape, dtype=d.np), shape, d.itemsize), d, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False, memory_format=None, out=None) -> Tensor:
    # zero-filled rather than uninitialised: reproducible, and as cheap with NumPy
    d = _dt(dtype)
    shape = _shape(size)
    if memory_format is not None and memory_format is not preserve_format:
        check_rank(memory_format, len(shape))
        return _finish(in_format(allocate(lambda: np.zeros(shape, dtype=d.np), shape, d.itemsize), memory_format), d,
                       device, requires_grad)
    return _finish(allocate(lambda: np.zeros(shape, dtype=d.np), shape, d.itemsize), d, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if isinstance(fill_value, bool) or not isinstance(fill_value, (int, float, complex, np.number, np.bool_)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    d = _dt(dtype, _infer_dtype(fill_value))
    shape = _shape((size,) if isinstance(size, int) else (tuple(size),))
    return _finish(allocate(lambda: np.full(shape, fill_value, dtype=d.np), shape, d.itemsize),
                   d, device, requires_grad)


def _num(v) -> str:
    """A number as torch's messages print it (0, 0.5, inf)."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_num(start)} -> {_num(end)}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None and start.__class__ is int and end.__class__ is int and step.__class__ is int:
        d = D.int64  # (integer bounds: _infer_dtype's answer, without its walk)
    else:
        d = _dt(dtype, _infer_dtype(vals))
    _refuse_unsigned(d, "arange_cpu")
    n = max(0, math.ceil((end - start) / step))
    if d.is_floating_point and d.itemsize >= 4:
        make = lambda: _ranges.arange_values(start, step, n, d.np)  # noqa: E731  (torch's float values, bit for bit)
    elif d.is_floating_point:
        make = lambda: (np.arange(n, dtype=np.float64) * step + start).astype(d.np)  # noqa: E731
    else:
        make = lambda: np.arange(start, end, step).astype(d.np)  # noqa: E731
    return _finish(allocate(make, (n,), d.itemsize), d, device, requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    d = _dt(dtype)
    _refuse_unsigned(d, "linspace_cpu")
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if d.is_floating_point and d.itemsize >= 4 and steps:
        make = lambda: _ranges.linspace_values(float(start), float(end), steps, d.np)  # noqa: E731  (as torch's)
    else:
        make = lambda: np.linspace(float(start), float(end), steps).astype(d.np)  # noqa: E731
    return _finish(allocate(make, (steps,), d.itemsize), d, device, requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    d = _dt(dtype)
    return _finish(np.logspace(float(start), float(end), int(steps), base=base).astype(d.np), d, device,
                   requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    d = _dt(dtype)
    _refuse_unsigned(d, "eye")
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _finish(np.eye(n, m, dtype=d.np), d, device, requires_grad)


def _like_dtype(t: Tensor, dtype):
    return t.dtype if dtype is None else D.to_dtype(dtype)


def _like(arr, input: Tensor, memory_format):
    """A ``*_like`` result laid out as torch lays it out: by default in ``input``'s own layout."""
    if memory_format is None and input._data.flags.c_contiguous:  # (the usual case: nothing to arrange)
        return arr
    return laid_out_like(arr, input._data, memory_format)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    d = _like_dtype(input, dtype)
    return _finish(_like(np.zeros(input._data.shape, dtype=d.np), input, memory_format), d, device, requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    d = _like_dtype(input, dtype)
    return _finish(_like(np.ones(input._data.shape, dtype=d.np), input, memory_format), d, device, requires_grad)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    d = _like_dtype(input, dtype)
    return _finish(_like(np.full(input._data.shape, fill_value, dtype=d.np), input, memory_format), d, device,
                   requires_grad)


def _floating_only(d: D.dtype, kernel: str) -> None:
    if not d.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_type_name(d)}\'')


def rand(*size, generator: Generator | None = None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    d = _dt(dtype)
    _floating_only(d, "check_uniform_bounds")
    shape = _shape(size)
    return _finish(allocate(lambda: _rng(generator).random(shape).astype(d.np), shape, d.itemsize),
                   d, device, requires_grad)


def randn(*size, generator: Generator | None = None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    d = _dt(dtype)
    _floating_only(d, "normal_kernel_cpu")
    shape = _shape(size)
    return _finish(allocate(lambda: _rng(generator).standard_normal(shape).astype(d.np), shape, d.itemsize),
                   d, device, requires_grad)


def check_random_range(low, high) -> None:
    """torch's refusal of an empty [low, high) for randint and random_."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def randint(low, high=None, size=None, *, generator: Generator | None = None, dtype=None, device=None,
            requires_grad: bool = False) -> Tensor:
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)  (pytorch/examples' mnist_forward_forward)
        low, high = 0, low
    if size is None:
        raise TypeError("randint() received an invalid combination of arguments: it needs a size, "
                        "as randint(high, size) or randint(low, high, size)")
    d = _dt(dtype, D.int64)
    shape = _shape((tuple(size),))
    check_random_range(low, high)
    return _finish(allocate(lambda: _rng(generator).integers(low, high, size=shape).astype(d.np), shape, d.itemsize),
                   d, device, requires_grad)


def _random_like(t: Tensor, input: Tensor, memory_format) -> Tensor:
    if memory_format is not None or not input._data.flags.c_contiguous:
        t._data = laid_out_like(t._data, input._data, memory_format)  # (a fresh tensor no one else holds yet)
    return t


def rand_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
              memory_format=None) -> Tensor:
    return _random_like(rand(*input.shape, dtype=_like_dtype(input, dtype), requires_grad=requires_grad), input,
                        memory_format)


def randn_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               memory_format=None) -> Tensor:
    return _random_like(randn(*input.shape, dtype=_like_dtype(input, dtype), requires_grad=requires_grad), input,
                        memory_format)


def randint_like(input: Tensor, low, high=None, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
                 memory_format=None) -> Tensor:
    return _random_like(randint(low, high, tuple(input.shape), dtype=_like_dtype(input, dtype),
                                requires_grad=requires_grad), input, memory_format)


def randperm(n: int, *, generator: Generator | None = None, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    d = _dt(dtype, D.int64)
    return _finish(_rng(generator).permutation(int(n)).astype(d.np), d, device, requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator: Generator | None = None, dtype=None) -> Tensor:
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if isinstance(std, Tensor):
        if (s < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    shape = _shape((tuple(size),)) if size is not None else np.broadcast(np.asarray(m), np.asarray(s)).shape
    ref = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    d = ref.dtype if ref is not None and dtype is None else _dt(dtype)
    return Tensor._make(keep_lowp((_rng(generator).standard_normal(shape) * s + m).astype(d.np)))


def bernoulli(input: Tensor, p=None, *, generator: Generator | None = None) -> Tensor:
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        probs = np.full(input._data.shape, p)
    else:
        probs = input._data
        if probs.size and not ((probs >= 0) & (probs <= 1)).all():  # (nan fails both tests too)
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. bernoulli's "
                               "probabilities must lie in [0, 1]")
    return Tensor._make((_rng(generator).random(input._data.shape) < probs).astype(input._data.dtype))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{D.scalar_type_name(input.dtype)}")
    if input._data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input._data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    probs = np.asarray(input._data, dtype=np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    if not (np.isfinite(rows) & (rows >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = []
    for row in rows:
        p = row / row.sum()
        out.append(_rng(generator).choice(len(p), size=num_samples, replace=replacement, p=p))
    res = np.array(out, dtype=np.int64)
    return Tensor._make(res.reshape(probs.shape[:-1] + (num_samples,)))
