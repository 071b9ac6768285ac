"""``torch.utils.checkpoint``: trade compute for memory by re-running a segment in the backward pass.

``use_reentrant=True`` is torch's original scheme, built here the same way: a custom autograd Function
runs the segment under ``no_grad`` (keeping only its inputs), and its backward re-runs the segment with
grad enabled, from the same random state when ``preserve_rng_state`` (so dropout draws the same mask),
then backpropagates through that fresh graph. Parameters used inside get their gradients accumulated
there, which is why this scheme suits ``.backward()`` rather than ``autograd.grad``.

``use_reentrant=False`` in torch records the ordinary graph and drops the saved activations through
saved-tensor hooks, recomputing them on demand. leafgrad has no saved-tensor hooks yet, so here it records
the ordinary graph and keeps the activations: the values, gradients, graph nodes and ``autograd.grad``
support are torch's, the memory saving is not (and the segment runs once, not twice).
"""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import leafgrad
from leafgrad import Tensor
from leafgrad.autograd import Function

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity",
           "noop_context_fn", "CheckpointFunction"]

_DETERMINISM_CHECKS = ("default", "none")


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad`` (the leaves of the re-run)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def _replaying_rng(state, enabled: bool):
    """Run with the random state ``state`` and give the caller's state back afterwards (torch's fork_rng)."""
    if not enabled:
        yield
        return
    outer = leafgrad.get_rng_state()
    leafgrad.set_rng_state(state)
    try:
        yield
    finally:
        leafgrad.set_rng_state(outer)


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by re-running with one."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = leafgrad.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with leafgrad.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor
        with _replaying_rng(getattr(ctx, "fwd_cpu_state", None), ctx.preserve_rng_state):
            detached = detach_variable(tuple(inputs))
            with leafgrad.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        leafgrad.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs):
    """``function(*args)`` with its activations recomputed in backward instead of stored (see the module doc
    for what ``use_reentrant=False`` does in leafgrad)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
                      "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got "
                         f"{determinism_check}")
    forward_context, _recompute_context = context_fn()
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Split ``functions`` (a Sequential or a list) into ``segments`` chunks and checkpoint all but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start: int, end: int, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if isinstance(functions, leafgrad.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
