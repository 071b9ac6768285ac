"""``parameters_to_vector`` / ``vector_to_parameters``: flatten parameters into one vector and back."""
from __future__ import annotations

from ..._ops.shape import cat
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """One 1-d tensor holding every parameter, flattened, in order (differentiable, as torch's)."""
    return cat([p.view(-1) if p.is_contiguous() else p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of ``vec`` into ``parameters`` (replacing their data, as torch's)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        with no_grad():
            param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
