"""Flatten and Unflatten: reshape layers, for use inside a Sequential (between conv and linear layers)."""
from __future__ import annotations

from .module import Module, _settings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["Unflatten", "Flatten"]


class Flatten(Module):
    """Merge dims ``start_dim`` to ``end_dim`` into one; by default everything but the batch dim."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(start_dim=self.start_dim, end_dim=self.end_dim)

    def extra_repr(self) -> str:
        return _settings(start_dim=self.start_dim, end_dim=self.end_dim)


class Unflatten(Module):
    """Split dim ``dim`` into the shape ``unflattened_size`` (the inverse of Flatten)."""

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}, e.g. Unflatten(1, (C, H, W))")
        for pos, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                f"{type(size).__name__} at pos {pos}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return _settings(dim=self.dim, unflattened_size=self.unflattened_size)
