"""autograd.Function: user-defined ops that go through the same Node base and engine as built-ins.

As in torch, ``ctx`` *is* the backward node (``<Name>Backward``), so what ``forward``
stores on it is what ``backward`` reads, and ``y.grad_fn`` is that same object.
"""
from __future__ import annotations

import functools
from typing import Any

from .._lowp import IN_KERNEL
from .._tensor import Tensor, vc_of
from ..errors import raise_autograd
from .grad_mode import STATE, no_grad
from .graph import Node, SavedTensor, next_sequence_nr

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` may call on ``ctx``."""

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._to_save_fwd = tensors

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self.__dict__.get("_saved_vars")
        if saved is None:
            if "_to_save" in self.__dict__:  # accessed inside forward
                return tuple(self._to_save)
            return ()
        return tuple(None if s is None else s.unpack(self) for s in saved)

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx, Node):
    """Base of the per-Function node classes; instances also serve as ``ctx``."""

    _forward_cls: type = None

    def apply(self, grads: list) -> tuple:
        cls = self._forward_cls
        if self.__dict__.get("_materialize", True):
            from .._creation import zeros
            metas = self._out_meta
            grads = [zeros(*metas[i][0], dtype=_dt(metas[i][1])) if g is None else g for i, g in enumerate(grads)]
            grads += [zeros(*m[0], dtype=_dt(m[1])) for m in metas[len(grads):]]
        IN_KERNEL[0] += 1  # (float16: the ops of a custom backward round once each, not per NumPy call: _lowp.py)
        try:
            result = cls.backward(self, *grads)
        finally:
            IN_KERNEL[0] -= 1
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self._arg_is_tensor)
        if len(result) < n_in:
            raise_autograd("LG124", f"function {self.name()} returned an incorrect number of gradients (expected "
                           f"{n_in}, got {len(result)}). backward() must return one gradient (or None) per forward "
                           "argument, including non-tensor arguments.", node=self, expected=n_in, got=len(result))
        if len(result) > n_in:
            extra = result[n_in:]
            if any(r is not None for r in extra):
                raise_autograd("LG124", f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(result)})", node=self, expected=n_in, got=len(result))
            result = result[:n_in]
        out = [g for g, is_t in zip(result, self._arg_is_tensor) if is_t]
        for i, g in enumerate(out):
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient of type {type(g).__name__} at index {i}; "
                                "gradients must be Tensors or None")
        return out

    def release_variables(self, site=None) -> None:
        for s in self.__dict__.get("_saved_vars") or ():
            if s is not None:
                s.release(site)

def _dt(np_dtype):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(np_dtype)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        node_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls, "__module__": cls.__module__})
        cls._backward_cls = node_cls


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``.apply``."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        return NotImplemented

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    def __init__(self, *args, **kwargs) -> None:
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method: call MyFunction.apply(...).")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = object.__new__(cls._backward_cls)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outs = list(output) if is_tuple else [output]
        needs = STATE.grad and any(t.requires_grad for t in tensor_args)
        dirty = ctx.__dict__.get("_dirty", ())
        non_diff = ctx.__dict__.get("_non_diff", ())
        from .._ops.registry import edge_of
        ctx._seq = next_sequence_nr()
        ctx.next_functions = tuple(edge_of(t) for t in tensor_args) if needs else ()
        ctx._in_meta = tuple((t._data.shape, t._data.dtype) for t in tensor_args)
        ctx._extra = None
        from ..provenance import node_site_at
        ctx._site = node_site_at(2)
        if STATE.anomaly:
            from .anomaly import record_forward_trace
            record_forward_trace(ctx)
        ctx._out_meta = [(o._data.shape, o._data.dtype) for o in outs if isinstance(o, Tensor)]
        final = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                final.append(o)
                continue
            is_dirty = any(o is d for d in dirty)
            if is_dirty:
                if needs and o._grad_fn is None and o._requires_grad:
                    raise_autograd("LG101", "a leaf Variable that requires grad is being used in an in-place "
                                   f"operation. {cls.__name__}.forward marked it dirty (modified in place).", tensor=o)
                vc_of(o).bump(ctx._site)
            elif any(o is t for t in tensor_args):
                # an input returned as-is comes back as a new tensor sharing its memory
                shared = Tensor._make(o._data)
                shared._vc = vc_of(o)
                o = shared
            if needs and o.dtype.is_floating_point and not any(o is n for n in non_diff):
                o._grad_fn = ctx
                o._requires_grad = True
                o._output_nr = i
            final.append(o)
        if needs:
            to_save = ctx.__dict__.pop("_to_save", ())
            ctx._saved_vars = tuple(None if t is None else SavedTensor(t, any(t is f for f in final), ctx._site)
                                    for t in to_save)
        else:
            ctx.__dict__.pop("_to_save", None)
            ctx._saved_vars = None
        return tuple(final) if is_tuple else final[0]


def once_differentiable(fn):
    """Run a backward under no_grad: its result cannot be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
