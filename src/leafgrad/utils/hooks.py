"""torch.utils.hooks: the handle every ``register_*_hook`` returns (``handle.remove()``)."""
from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
