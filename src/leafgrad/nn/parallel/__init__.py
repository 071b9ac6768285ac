"""leafgrad.nn.parallel: DistributedDataParallel (torch.nn.parallel's multi-process data parallelism)."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
