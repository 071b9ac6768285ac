"""torch.utils.data._utils look-alike, for code that imports collate from there."""
from . import collate

__all__ = ["collate"]
