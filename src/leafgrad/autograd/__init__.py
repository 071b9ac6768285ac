"""leafgrad.autograd: backward(), grad(), grad modes, Function, gradcheck, anomaly mode."""
from __future__ import annotations

import threading
from typing import Sequence

from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .graph import AccumulateGrad, Node, RemovableHandle, SavedTensor
from ..errors import code_of

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "Function", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
           "Node", "graph", "functional", "Variable"]


# The engine and the Tensor class, bound on the first backward: both import this package, so
# they cannot be imported at its top, and an import statement inside a function costs a
# trip through importlib's Python code on every call.
_LATE: list = []
_LATE_LOCK = threading.Lock()


def _late() -> list:
    # (under a lock: threads that start their first backward together must not both fill it)
    with _LATE_LOCK:
        if not _LATE:
            from .._tensor import Tensor
            from .engine import run_backward
            _LATE.extend((Tensor, run_backward))
    return _LATE


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (_LATE or _late())[0]):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    tensor_cls, run_backward = _LATE or _late()
    if isinstance(tensors, tensor_cls):  # (the usual loss.backward(): no tuple to build or check)
        tensors = (tensors,)
    else:
        tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if grads is None:
        grads = (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} tensors: pass one per tensor")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    try:
        run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)
    except RuntimeError as exc:
        if code_of(exc) is not None:
            exc.details.setdefault("roots", tensors)  # for explain() and `leafgrad run --graph`
        raise


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False):
    """Return d(outputs)/d(inputs) without touching any ``.grad``."""
    run_backward = (_LATE or _late())[1]
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs)
    if grads is None:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grads)} for {len(outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    try:
        result = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                              allow_unused=allow_unused, accumulate=False)
    except RuntimeError as exc:
        if code_of(exc) is not None:
            exc.details.setdefault("roots", outputs)  # for explain() and `leafgrad run --graph`
        raise
    if materialize_grads:
        from .._creation import zeros_like
        result = tuple(zeros_like(i) if g is None else g for g, i in zip(result, inputs_t))
    return result


_LAZY = {
    "Function": "function", "FunctionCtx": "function", "once_differentiable": "function",
    "gradcheck": "_gradcheck", "gradgradcheck": "_gradcheck", "GradcheckError": "_gradcheck",
    "detect_anomaly": "anomaly", "set_detect_anomaly": "anomaly", "is_anomaly_enabled": "anomaly",
    "Variable": "variable",
    "functional": None, "graph": None, "engine": None, "anomaly": None, "function": None, "variable": None,
}


def __getattr__(name: str):
    # loaded on first use: the Tensor module imports grad_mode from this package
    import importlib
    if name not in _LAZY:
        raise AttributeError(f"module 'leafgrad.autograd' has no attribute '{name}'")
    mod = _LAZY[name]
    if mod is None:
        return importlib.import_module("." + name, __name__)
    return getattr(importlib.import_module("." + mod, __name__), name)
