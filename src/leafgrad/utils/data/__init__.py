"""leafgrad.utils.data: datasets, samplers and the DataLoader, as torch.utils.data::

    from leafgrad.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True,
                        generator=leafgrad.Generator().manual_seed(0))
    for xb, yb in loader:
        ...

``num_workers > 0`` starts worker processes as torch does; ``DistributedSampler`` gives
each rank of a ``leafgrad.distributed`` job its share of the dataset.
"""
from .collate import collate, default_collate, default_collate_fn_map, default_convert
from .dataloader import DataLoader, WorkerInfo, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "collate", "default_collate",
           "default_collate_fn_map", "default_convert", "get_worker_info", "random_split"]
