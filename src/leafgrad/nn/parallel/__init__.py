"""leafgrad.nn.parallel: DistributedDataParallel (torch.nn.parallel's multi-process data parallelism)."""
from .distributed import DistributedDataParallel
from ..modules.misc_more import DataParallel  # (torch.nn.parallel.DataParallel is torch.nn.DataParallel)

__all__ = ["DistributedDataParallel", "DataParallel"]
