"""leafgrad.utils: torch.utils look-alikes (``data`` for datasets and loaders, ``hooks``)."""
from . import data, hooks

__all__ = ["data", "hooks"]
