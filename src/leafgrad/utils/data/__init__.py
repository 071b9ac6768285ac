"""leafgrad.utils.data: datasets, samplers and the DataLoader, as torch.utils.data.

    from leafgrad.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True,
                        generator=leafgrad.Generator().manual_seed(0))
    for xb, yb in loader:
        ...

Loading always runs in the calling process: ``num_workers`` is accepted (and checked)
so ordinary PyTorch code runs unchanged, but no worker processes are started.
"""
from .collate import collate, default_collate, default_collate_fn_map, default_convert
from .dataloader import DataLoader, WorkerInfo, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "collate", "default_collate",
           "default_collate_fn_map", "default_convert", "get_worker_info", "random_split"]
