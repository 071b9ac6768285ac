"""Tensor attributes and storage-level methods: device and layout queries (``is_cpu``, ``is_meta``,
...), memory facts (``data_ptr``, ``storage_offset``, ``nbytes``, ``dim_order``), element-wise
Python callbacks (``apply_``, ``map_``, ``map2_``) and the storage-changing methods (``resize_``,
``resize_as_``, ``set_``), with torch's rules.

leafgrad's storage is the NumPy buffer under a tensor's array; a view's storage offset is counted
from its base's first element (torch's storage of a view is its base's). Every tensor is a dense,
strided CPU tensor, so the queries for other devices and layouts answer False.
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, vc_of
from .._unsigned_array import keep_shell
from . import inplace as IP
from .inplace_extra import restride
from .registry import apply, defop
from .shape import ALIAS

__all__ = ["METHODS", "PROPERTIES"]


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def data_ptr(self: Tensor) -> int:
    """The address of the tensor's first element (views at the same offset share it)."""
    return _address(self._data)


def _storage_start(self: Tensor) -> int:
    """The address torch's storage would begin at: the lowest address of the base's elements."""
    owner = (self._base if self._base is not None else self)._data
    start = _address(owner)
    for n, st in zip(owner.shape, owner.strides):
        if st < 0 and n > 1:
            start += (n - 1) * st
    return start


def storage_offset(self: Tensor) -> int:
    return (_address(self._data) - _storage_start(self)) // self._data.itemsize


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Same storage, offset, sizes and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    a, b = self._data, tensor._data
    return bool(_address(a) == _address(b) and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype
                and _root(a) is _root(b))


def _root(arr: np.ndarray):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr.base if arr.base is not None else arr


def is_nonzero(self: Tensor) -> bool:
    n = self._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self._data.reshape(-1)[0] != 0)


def is_same_size(self: Tensor, other: Tensor) -> bool:
    return tuple(self._data.shape) == tuple(other._data.shape)


def is_signed(self: Tensor) -> bool:
    return bool(self.dtype.is_signed)


def is_pinned(self: Tensor, device=None) -> bool:
    """False: leafgrad has no page-locked (pinned) memory; its tensors are ordinary NumPy buffers."""
    return False


def is_distributed(self: Tensor) -> bool:
    return False


def get_device(self: Tensor) -> int:
    return -1  # (torch's answer for a CPU tensor)


# ----------------------------------------------------------------------------- dim_order
def _strides(self: Tensor) -> tuple:
    return tuple(s // self._data.itemsize for s in self._data.strides)


def _channels_last(shape: tuple, strides: tuple) -> bool:
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _outer_first(shape: tuple, strides: tuple, a: int, b: int) -> int:
    """Should dim ``a`` come after ``b`` in memory order (1), before (-1), or is it a tie (0)?"""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0

    def at_least(x, y):
        return y == 0 or (x != 0 and (x >= y or x % y == 0))
    if sa == sb:
        return 0 if at_least(shape[b], shape[a]) else 1
    if at_least(sb, sa):
        return -1
    return 1 if at_least(sa, sb) else 0


def dim_order(self: Tensor, *, ambiguity_check=False) -> tuple:
    """The dims from outermost to innermost in memory; with ``ambiguity_check`` an order that is not
    unique (a size-1 dim, equal strides) is refused, as torch."""
    if isinstance(ambiguity_check, list):
        raise NotImplementedError("dim_order(ambiguity_check=[memory formats]) is not supported by leafgrad; "
                                  "pass ambiguity_check=True or False.")
    shape, strides = tuple(self._data.shape), _strides(self)
    if ambiguity_check and (any(a == b for a, b in itertools.pairwise(strides)) or 1 in shape):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    nd = len(shape)
    if nd <= 1:
        return tuple(range(nd))
    contiguous = bool(self._data.flags.c_contiguous)
    channels_last = _channels_last(shape, strides)
    if contiguous and not channels_last:
        return tuple(range(nd))
    if channels_last and not contiguous:
        return (0,) + tuple(range(2, nd)) + (1,)
    perm = list(range(nd))[::-1]  # (sorted innermost first, then reversed)
    for i in range(1, nd):
        j = i
        for k in range(i - 1, -1, -1):
            c = _outer_first(shape, strides, perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    return tuple(perm[::-1])


# ----------------------------------------------------------------------------- Python callbacks
def _check_no_grad(name: str, *tensors: Tensor) -> None:
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _as_element(value, dtype: np.dtype):
    if not isinstance(value, (numbers.Number, np.generic)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    kind = dtype.kind
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    if kind == "c":
        return complex(value)
    return float(value)


def _callback_write(self: Tensor, fn, operands: tuple, name: str) -> Tensor:
    """Call ``fn`` on each element (and the broadcast operands' elements) and write the results: no
    version bump and no history (torch's apply_/map_ are outside autograd)."""
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")
    _check_no_grad(name, self, *operands)
    shape = self._data.shape
    from .shape import expanded_sizes
    arrays = []
    for o in operands:
        expanded_sizes(o, shape)  # (torch's expand error for an operand that does not broadcast)
        arrays.append(np.broadcast_to(o._data, shape))
    dt = self._data.dtype
    out = np.empty(shape, dtype=dt)
    flat_out = out.reshape(-1)
    columns = [self._data.reshape(-1).tolist()] + [a.reshape(-1).tolist() for a in arrays]
    for i, args in enumerate(zip(*columns)):
        flat_out[i] = _as_element(fn(*args), dt)
    if not self._data.flags.writeable:
        IP._check_writable(self)
    self._data[...] = out
    return self


def apply_(self: Tensor, callable) -> Tensor:
    return _callback_write(self, callable, (), "apply_")


def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    return _callback_write(self, callable, (tensor,), "map_")


def map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:
    return _callback_write(self, callable, (x, y), "map2_")


# ----------------------------------------------------------------------------- resize_ / set_
def _root_buffer(arr: np.ndarray):
    """The 1-D C-ordered array over all of ``arr``'s memory block, when it has one (else None)."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous or not root.flags.writeable:
        return None
    return root.reshape(-1)


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give the tensor a new (contiguous) shape over its storage from its offset on; kept elements stay in
    place. When the storage is too small, a larger buffer is allocated and the old values copied over:
    other tensors of the old storage keep the old memory (torch moves them to the grown storage)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(s) for s in sizes)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad. Resize a detached copy instead: "
                           "t.detach().resize_(...), or build a new tensor.")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"numel: integer multiplication overflow (torch's words for a negative size: {list(sizes)})")
    arr = self._data
    if sizes == arr.shape:
        return self  # (torch: the same sizes leave the strides and the version as they are)
    n = int(np.prod(sizes, dtype=np.int64))
    item = arr.itemsize
    root = _root_buffer(arr)
    new = None
    if root is not None and arr.size:
        offset = (_address(arr) - _address(root)) // item
        if offset + n <= root.size:
            new = root[offset:offset + n].reshape(sizes)
    elif arr.size == 0 and n == 0:
        new = arr.reshape(sizes) if arr.flags.c_contiguous else np.empty(sizes, dtype=arr.dtype)
    if new is None:
        buf = np.empty(n, dtype=arr.dtype)
        keep = arr.reshape(-1)[:n]  # (the old elements, in order, at the front of the new memory)
        buf[:keep.size] = keep
        new = buf.reshape(sizes)
        self._base = None  # (its memory is its own now: no longer a view of the old base's)
    self._data = new
    vc_of(self).bump()
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    return resize_(self, tuple(the_template._data.shape))


def _set_has_no_derivative(xp, g):
    raise RuntimeError("derivative for set_ is not implemented: set_ replaces the tensor's storage, so it has no "
                       "gradient (torch has none either). Detach the tensor first, or build the new value out of "
                       "place.")


SET = defop("torch::autograd::NotImplemented", lambda xp, a, source: source, _set_has_no_derivative)


def set_(self: Tensor, source=None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """``set_(source)``: share ``source``'s memory, shape and strides; ``set_()``: an empty tensor."""
    if source is None:
        arr = keep_shell(np.empty((0,), dtype=self._data.dtype))  # (uint16/32/64: their array type)
    elif isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"Could not set tensor of type {D.CPP_NAMES.get(source.dtype.name, source.dtype.name)}"
                               f" to a tensor of type {D.CPP_NAMES.get(self.dtype.name, self.dtype.name)}")
        if size is not None or storage_offset:
            raise NotImplementedError("set_(source, storage_offset, size, stride) with a tensor source is not "
                                      "supported by leafgrad; use set_(source) or source.as_strided(...).")
        arr = source._data
    else:
        raise TypeError(f"set_() received an invalid combination of arguments: got {type(source).__name__}; "
                        "leafgrad supports set_() and set_(source: Tensor)")
    if self._base is not None:
        raise NotImplementedError("set_ on a view is not supported by leafgrad: call it on the base tensor, or on "
                                  "a clone.")
    return restride(self, SET, (arr,), "set_")


# ----------------------------------------------------------------------------- shared memory
def _memory_owner(arr: np.ndarray):
    """The ndarray that owns ``arr``'s memory block, and the object under it (an mmap when shared)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr, arr.base


def is_shared(self: Tensor) -> bool:
    """Is the tensor's memory in a shared (``share_memory_``) block?"""
    import mmap  # (here, not at import: only sharing needs it)
    return isinstance(_memory_owner(self._data)[1], mmap.mmap)


def _rebuilt(arr: np.ndarray, old_root: np.ndarray, new_root: np.ndarray) -> np.ndarray:
    offset = _address(arr) - _address(old_root)
    return np.ndarray(arr.shape, arr.dtype, buffer=new_root, offset=offset, strides=arr.strides)


def share_memory_(self: Tensor) -> Tensor:
    """Move the tensor's memory block (its base's, for a view) into an anonymous shared mapping, which
    processes forked afterwards share with this one (writes on either side are seen by both).

    The tensor and its base move together; views taken *before* the move keep the old memory (torch
    moves its one storage object under every view). Take views after sharing."""
    if is_shared(self):
        return self
    owner = self._base if self._base is not None else self
    root, _ = _memory_owner(owner._data)
    if not root.flags.c_contiguous:
        raise NotImplementedError("share_memory_: the tensor's memory comes from a non-contiguous NumPy array "
                                  "that leafgrad cannot move; share t.clone() instead.")
    import mmap
    block = mmap.mmap(-1, max(root.nbytes, 1))
    new_root = np.ndarray(root.shape, root.dtype, buffer=block)
    new_root[...] = root
    for t in {id(owner): owner, id(self): self}.values():
        t._data = keep_shell(_rebuilt(t._data, root, new_root))  # (uint16/32/64: their array type)
    return self


# ----------------------------------------------------------------------------- module_load, as_subclass, ...
def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What ``load_state_dict`` swaps in (with swap-on-conversion): ``other`` detached, or, without
    ``assign``, ``self`` after copying ``other`` into it, detached."""
    if assign:
        return other.detach()
    return IP.copy_(self, other).detach()


def as_subclass(self: Tensor, cls) -> Tensor:
    """An alias of the tensor (same memory and version counter; ``AliasBackward0`` when it requires
    grad, as torch records) that is an instance of the Tensor subclass ``cls``."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    t = apply(ALIAS, (self,))
    t.__class__ = cls
    return t


def to_dense(self: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """A strided tensor is dense already: itself (or a cast copy when ``dtype`` differs)."""
    if dtype is not None and D.to_dtype(dtype) is not self.dtype:
        return self.to(D.to_dtype(dtype))
    return self


METHODS = {
    "data_ptr": data_ptr, "const_data_ptr": data_ptr, "storage_offset": storage_offset, "is_set_to": is_set_to,
    "is_nonzero": is_nonzero, "is_same_size": is_same_size, "is_signed": is_signed, "is_pinned": is_pinned,
    "is_shared": is_shared, "share_memory_": share_memory_,
    "is_distributed": is_distributed, "get_device": get_device, "dim_order": dim_order, "apply_": apply_, "map_": map_,
    "map2_": map2_, "resize_": resize_, "resize_as_": resize_as_, "set_": set_, "module_load": module_load,
    "as_subclass": as_subclass, "to_dense": to_dense,
}

def _attribute(name: str, getter, doc: str):
    """A property getter with its public name and a docstring (help() shows both)."""
    def fget(self: Tensor):
        return getter(self)
    fget.__name__, fget.__qualname__, fget.__doc__ = name, f"Tensor.{name}", doc
    return fget


_OTHER_DEVICES = ("is_meta", "is_mps", "is_xla", "is_xpu", "is_ipu", "is_maia", "is_mtia", "is_mkldnn", "is_nested",
                  "is_quantized", "is_sparse_csr", "is_vulkan")

PROPERTIES = {
    "is_cpu": _attribute("is_cpu", lambda t: True, "True: every leafgrad tensor lives in CPU memory."),
    "itemsize": _attribute("itemsize", lambda t: t._data.itemsize, "The size of one element in bytes."),
    "nbytes": _attribute("nbytes", lambda t: t._data.size * t._data.itemsize,
                         "The bytes the tensor's elements take (numel * itemsize; a view counts its own elements)."),
    "name": _attribute("name", lambda t: None, "None: leafgrad has no named tensors (torch's name is None too)."),
    **{n: _attribute(n, lambda t: False, f"False: leafgrad tensors are dense, strided CPU tensors ({n[3:]} "
                                         "tensors do not exist here).") for n in _OTHER_DEVICES},
}
