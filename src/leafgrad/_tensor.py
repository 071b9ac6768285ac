"""The Tensor: an array plus the autograd state PyTorch keeps beside it.

This file holds state and the autograd API (requires_grad, grad, grad_fn, is_leaf,
backward, hooks, detach, views' bookkeeping). Arithmetic and every other op are
attached from ``_ops`` (``_ops/methods.py``), so each op is defined in one place.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Iterator

import numpy as np

from . import _dtype as D
from ._backend import backend_for_array, backend_for_device, device as Device
from . import autograd as _autograd
from .autograd import grad_mode as _gm, graph as _graph
from .autograd.graph import AccumulateGrad, RemovableHandle, _add_hook, _HookDict
from .errors import raise_autograd, warn_autograd, user_site
from .provenance import note_detach as _note_detach, note_escape as _note_escape

__all__ = ["Tensor", "VersionCounter", "Size"]

_STATE = _gm.STATE


class VersionCounter:
    """Shared by a tensor, its views, ``detach()`` and ``.data``: bumped by every in-place write."""

    __slots__ = ("v", "last_site")

    def __init__(self) -> None:
        self.v = 0
        self.last_site = None

    def bump(self, site=None) -> None:
        self.v += 1
        self.last_site = site


class Size(tuple):
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


class _TensorMeta:
    """Rarely used per-tensor state, kept out of the hot slots."""

    __slots__ = ("hooks", "post_acc_hooks", "retains_grad", "view_kind", "name", "site", "inference", "cut")

    def __init__(self) -> None:
        self.hooks = None
        self.post_acc_hooks = None
        self.retains_grad = False
        self.view_kind = None  # None, "multi_output" (unbind/split/chunk) or "no_grad"
        self.name = None
        self.site = None
        self.inference = False
        self.cut = None  # provenance.Cut: where the chain from a tensor that requires grad was cut


_new = object.__new__
TENSOR_TYPES: set = set()  # Tensor and its subclasses (Parameter): `type(x) in TENSOR_TYPES` is the fast test


class _TorchOnlyNames:
    """Tensor's base: holds, for each public ``torch.Tensor`` name leafgrad lacks, a descriptor
    whose read raises "leafgrad does not implement torch.Tensor.<name> yet" (``_ops/methods.py``
    fills it from ``coverage.torch_names``). Tensor's own attributes come first in the lookup.

    Why not ``Tensor.__getattr__``: a class that defines it gets none of CPython's specialised
    attribute reads (``t._data``, ``t._grad_fn``: the engine's hot path), and every read then
    goes through the generic lookup: 7% of W2's step, 10% of its forward (callgrind).
    """

    __slots__ = ()


class Tensor(_TorchOnlyNames):
    """A multi-dimensional array that can record the ops applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_grad", "_vc", "_base", "_view_v",
                 "_output_nr", "_accumulator", "_meta", "__weakref__", "__dict__")

    __array_priority__ = 1000  # NumPy defers ``ndarray * tensor`` to us

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        TENSOR_TYPES.add(cls)

    def __init__(self, *args, **kwargs) -> None:
        # torch.Tensor(2, 3) makes an uninitialised tensor of the default dtype; torch.Tensor([1, 2]) copies
        # data: the legacy constructor's rules (see _legacy_types.py)
        from ._legacy_types import legacy_new
        Tensor._init_from(self, legacy_new(D.get_default_dtype(), args, kwargs, "new")._data)

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _init_from(t: "Tensor", arr) -> None:
        t._data = arr
        t._requires_grad = False
        t._grad_fn = None
        t._grad = None
        t._vc = None
        t._base = None
        t._view_v = 0
        t._output_nr = 0
        t._accumulator = None
        t._meta = None

    @staticmethod
    def _make(arr) -> "Tensor":
        """Wrap an array without copying or validating: the per-op fast path.

        ``autograd.graph.SavedTensor.unpack`` (nearly every node of a backward) and
        ``_ops.registry.apply_simple`` (every recorded op's result) set the same slots
        themselves: a slot added here must be set there too."""
        t = _new(Tensor)
        t._data = arr
        t._requires_grad = False
        t._grad_fn = None
        t._grad = None
        t._vc = None  # made on first need (a save, a view, an in-place write): most tensors never need one
        t._base = None
        t._view_v = 0
        t._output_nr = 0
        t._accumulator = None
        t._meta = None
        return t

    def _m(self) -> _TensorMeta:
        m = self._meta
        if m is None:
            m = self._meta = _TensorMeta()
        return m

    # ------------------------------------------------------------------ basic properties
    @property
    def dtype(self) -> D.dtype:
        return D._FROM_NP[self._data.dtype]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndim = property(dim)

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim: int | None = None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        from ._ops.layout import is_in_format  # (torch.channels_last & co: see _ops/layout.py)
        return is_in_format(self._data, memory_format)

    @property
    def device(self) -> Device:
        return backend_for_array(self._data).device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_floating_point_(self) -> bool:  # pragma: no cover - alias guard
        return self.dtype.is_floating_point

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    @property
    def layout(self) -> str:
        return "torch.strided"

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def _version(self) -> int:
        return 0 if self._vc is None else self._vc.v

    def _is_view(self) -> bool:
        return self._base is not None

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous: this tensor has "
                f"{self._data.size} elements. Use .any() or .all() to reduce it to one value first.")
        return bool(self._data.reshape(()))

    def __index__(self) -> int:
        if self._data.size != 1 or self.dtype._kind > 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __int__(self) -> int:
        return int(self._scalar_value())

    def __float__(self) -> float:
        return float(self._scalar_value())

    def _scalar_value(self):
        """int(t) / float(t): torch's ValueError for more than one element (item()'s is a RuntimeError)."""
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (this one has "
                             f"{self._data.size}: index it, or reduce it with .sum() or .mean(), first)")
        return self._data.reshape(()).item()

    def __complex__(self) -> complex:
        return complex(self.item())

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar. item() needs "
                f"exactly one element; index it first (t[0].item()) or reduce it (t.sum().item()).")
        if self._requires_grad or (self._meta is not None and self._meta.cut is not None):
            _note_escape(self, "item")
        return self._data.reshape(()).item()

    def tolist(self):
        if self._requires_grad or (self._meta is not None and self._meta.cut is not None):
            _note_escape(self, "tolist")
        return backend_for_array(self._data).to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self.requires_grad and not force:
            raise_autograd(
                "LG113",
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead. "
                "The array would not be tracked, so gradients could not flow back through anything computed "
                "from it; detach() makes that cut explicit.", tensor=self)
        if self._data.__class__ is not np.ndarray:  # (bfloat16: torch's numpy() refuses it too)
            from ._bfloat16 import refuse_numpy
            refuse_numpy(self._data)
        arr = backend_for_array(self._data).to_numpy(self._data)
        if self._requires_grad or (self._meta is not None and self._meta.cut is not None):
            from .provenance import note_numpy
            note_numpy(self, arr)
        return arr

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:  # np.asarray(t) / np.array(t) / np.exp(t): torch refuses as numpy() does
            raise_autograd(
                "LG113",
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead. (NumPy "
                "asked for this tensor's values: np.asarray, np.array or a NumPy function; the array would not "
                "be part of the graph, so gradients would stop there.)", tensor=self)
        if self._data.__class__ is not np.ndarray:  # (bfloat16: see numpy())
            from ._bfloat16 import refuse_numpy
            refuse_numpy(self._data)
        arr = backend_for_array(self._data).to_numpy(self._data)
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        return arr

    def is_inference(self) -> bool:
        """Made inside ``inference_mode`` (torch's inference tensors: never saved for backward)."""
        m = self._meta
        if m is not None and m.inference:
            return True
        return self._base is not None and self._base.is_inference()  # (a view of one is one, as torch)

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        """A NumPy ufunc applied to a tensor returns a tensor, as torch's does (np.exp(t) is a Tensor)."""
        return Tensor._make(np.asarray(arr))

    def __repr__(self, *, tensor_contents=None) -> str:
        from ._printing import default_hides_dtype, format_tensor
        extras = []
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        d = self.dtype
        return format_tensor(np.asarray(self._data), dtype_name=repr(d),
                             show_dtype=not default_hides_dtype(repr(d)), extras=extras)

    __str__ = __repr__

    def _repr_html_(self):
        """Jupyter: a tensor with history shows its graph under its value (plain text otherwise)."""
        if self._grad_fn is None:
            return None
        from .viz import tensor_html
        return tensor_html(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (np.asarray(self._data).copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise_autograd(
                "LG123",
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                "the moment. Call .detach() (or .clone().detach()) on this non-leaf tensor first.", tensor=self)
        t = Tensor._make(self._data.copy())
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = t
        return t

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        if self._base is not None:
            if self._vc.v != self._view_v:
                _refresh_view(self)
            if not self._requires_grad:
                m = self._meta  # a view made under no_grad of a tensor that requires grad: torch reports True
                if m is not None and m.view_kind == "no_grad" and self._base._requires_grad:
                    return True
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self._grad_fn is not None:  # (the method form accepts this as a no-op; the attribute does not)
            raise_autograd("LG107", "you can only change requires_grad flags of leaf variables. This tensor was "
                           f"made by {self._grad_fn.name()}, so it already requires grad through its inputs.",
                           tensor=self)
        self._set_requires_grad(bool(value), factory=True)  # torch words the attribute like the factory

    def _set_requires_grad(self, value: bool, factory: bool = False) -> None:
        # factory=True: the 'Only ... and complex dtype' wording of torch.tensor(..., requires_grad=True)
        if self._grad_fn is not None:
            if not value:
                raise_autograd(
                    "LG107",
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
                    f"var.detach(). This tensor was made by {self._grad_fn.name()}, so it is not a leaf: its "
                    "requires_grad follows from its inputs and cannot be switched off.", tensor=self)
            return
        if value and self._meta is not None and self._meta.inference and not _gm.STATE.inference:
            raise_autograd("LG116", "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                           "allowed. Make a normal tensor with t.clone() outside inference_mode first.", tensor=self)
        if value and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise_autograd(
                "LG112",
                # torch words the factory (requires_grad=True argument) and the setter differently
                ("Only Tensors of floating point and complex dtype can require gradients" if factory else
                 "only Tensors of floating point dtype can require gradients") + " (this one is "
                f"{self.dtype!r}). Create it with a float dtype, e.g. torch.tensor(data, dtype=torch.float32) "
                "or t.float().requires_grad_().", tensor=self)
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self._set_requires_grad(bool(requires_grad))
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._vc.v != self._view_v:
            _refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self):
        if self._grad_fn is not None and not self.retains_grad and self._grad is None:
            warn_autograd(
                "LG108",
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
                "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor "
                f"(call it before backward()). This tensor was made by {self._grad_fn.name()}; only leaves "
                "(tensors you created with requires_grad=True, and nn.Parameters) get .grad filled.",
                tensor=self)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise_autograd(
                    "LG125",
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of size "
                    f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size",
                    tensor=self, grad=value)
            if value._data.dtype != self._data.dtype:
                raise_autograd(
                    "LG125",
                    f"attempting to assign a gradient with dtype '{D.CPP_NAMES.get(value.dtype.name, value.dtype.name)}' "
                    f"to a tensor with grad_dtype '{D.scalar_type_name(self.dtype)}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype).", tensor=self, grad=value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._meta is not None and self._meta.retains_grad

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise_autograd(
                "LG119",
                "can't retain_grad on Tensor that has requires_grad=False: nothing will flow into it. Set "
                "requires_grad=True on the leaf it comes from.", tensor=self)
        if self.grad_fn is None or self.retains_grad:
            return
        self._m().retains_grad = True
        self._grad_fn._set_retains_grad(self._output_nr, self)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(grad)`` runs when the gradient for this tensor is computed; may return a replacement."""
        if not self.requires_grad:
            raise_autograd(
                "LG120",
                "cannot register a hook on a tensor that doesn't require gradient: set requires_grad=True on "
                "it (if it is a leaf) or on the leaf it is computed from.", tensor=self)
        if self.grad_fn is None:
            m = self._m()
            if m.hooks is None:
                m.hooks = _HookDict()
            return _add_hook(m.hooks, hook)
        return self._grad_fn._register_tensor_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(tensor)`` runs after ``tensor.grad`` has been accumulated (leaves only)."""
        if self.grad_fn is not None:
            raise_autograd(
                "LG121",
                "post accumulate grad hooks cannot be registered on non-leaf tensors: a non-leaf never "
                "accumulates into .grad. Register a plain hook with register_hook instead.", tensor=self)
        if not self._requires_grad:
            raise_autograd("LG120", "cannot register a hook on a tensor that doesn't require gradient", tensor=self)
        m = self._m()
        if m.post_acc_hooks is None:
            m.post_acc_hooks = _HookDict()
        return _add_hook(m.post_acc_hooks, hook)

    def _grad_accumulator(self) -> AccumulateGrad:
        ref = self._accumulator
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._accumulator = weakref.ref(acc)
        return acc

    def backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
                 inputs=None) -> None:
        """Compute the gradient of this tensor with respect to the leaves of its graph.

        Runs the graph's nodes from this tensor's ``grad_fn`` back to the leaves and adds each
        leaf's gradient into its ``.grad`` (accumulating: call ``zero_grad``/``grad = None``
        between steps). ``gradient`` is the gradient of some scalar with respect to this tensor:
        needed unless this tensor has one element. ``retain_graph=True`` keeps the saved tensors
        for a second backward (they are freed otherwise); ``create_graph=True`` records the
        backward pass itself, for higher derivatives; ``inputs`` limits accumulation to those
        tensors. Same as ``leafgrad.autograd.backward(self, ...)``.

        Example::

            >>> x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> (x * x).sum().backward()
            >>> x.grad
            tensor([2., 4.])
        """
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ detaching and data
    def detach(self) -> "Tensor":
        """A leaf sharing this tensor's memory and version counter, with no history."""
        t = Tensor._make(self._data)
        t._vc = vc_of(self)
        if self._requires_grad:
            _note_detach(self, t, "detach")
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None:  # torch refuses for every view, whatever made it
            raise_autograd(
                "LG122",
                "Can't detach views in-place. Use detach() instead: this tensor is a view of another tensor and "
                "its history is tied to it.", tensor=self, base=self._base)
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self) -> "Tensor":
        # same memory, but a fresh version counter: torch's .data writes are invisible to autograd's checks
        t = Tensor._make(self._data)
        if self._requires_grad:
            _note_detach(self, t, "data")
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    # ------------------------------------------------------------------ device and dtype moves
    def cpu(self) -> "Tensor":
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> "Tensor":
        return self.to("cuda" if device is None else device)

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """x.type() -> 'torch.FloatTensor'; x.type(torch.LongTensor), x.type('torch.LongTensor') or a dtype casts."""
        from ._legacy_types import type_
        return type_(self, dtype, non_blocking, **kwargs)

    def new(self, *args, **kwargs) -> "Tensor":
        """The legacy constructor with this tensor's dtype: x.new(2, 3), x.new([1, 2]), x.new() (_legacy_types.py)."""
        from ._legacy_types import legacy_new
        return legacy_new(self.dtype, args, kwargs, "new")

    @property
    def volatile(self) -> bool:
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    def __class_getitem__(cls, item):
        return cls


D._TENSOR_TYPE[0] = Tensor
TENSOR_TYPES.add(Tensor)
_graph._TensorType = Tensor  # (SavedTensor.unpack rebuilds saved outputs)
_graph._VersionCounter = VersionCounter


def vc_of(t: Tensor) -> VersionCounter:
    """The tensor's version counter, made on first use."""
    vc = t._vc
    if vc is None:
        vc = t._vc = VersionCounter()
    return vc


def _rebuild(arr, requires_grad):
    from ._lowp import keep_lowp
    from ._unsigned_array import keep_shell
    # (float16, bfloat16 and uint16/32/64 data get their array types back: _lowp.py, _unsigned_array.py)
    t = Tensor._make(keep_lowp(keep_shell(arr)))
    t._requires_grad = requires_grad
    return t


def _wrap_dim(dim: int, ndim: int) -> int:
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _refresh_view(view: Tensor) -> None:
    """Re-derive a view's grad_fn after its base (or a sibling view) was written in place."""
    from ._ops.inplace import regenerate_view_grad_fn
    regenerate_view_grad_fn(view)
