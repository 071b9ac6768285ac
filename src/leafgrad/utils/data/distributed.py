"""DistributedSampler: each rank reads its own share of a dataset, as torch.utils.data.distributed splits it.

The split is torch's exactly: (optionally) shuffle all indices with a generator seeded by
``seed + epoch``; pad the list by repeating its start until it divides by the number of
replicas (or, with ``drop_last``, cut the tail); rank r takes every ``num_replicas``-th index
starting at r. Unshuffled, rank r reads the same samples as under torch. Shuffled, the
permutation is leafgrad's ``randperm`` (NumPy's stream, as everywhere in leafgrad), so the
samples differ from torch's though the split rule applied to them is the same.
"""
from __future__ import annotations

import math
from typing import Iterator

from ... import Generator, randperm
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of rank ``rank``'s share of ``dataset`` (call ``set_epoch`` each epoch to reshuffle)."""

    def __init__(self, dataset: Dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available (pip install "
                                   "'leafgrad[distributed]'), or pass num_replicas and rank")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # the smallest share every rank can fill without repeating a sample
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            short = self.total_size - len(indices)
            if short <= len(indices):
                indices += indices[:short]
            else:  # fewer samples than ranks: repeat the whole list as often as needed
                indices += (indices * math.ceil(short / len(indices)))[:short]
        if len(indices) != self.total_size:
            raise AssertionError(f"DistributedSampler built {len(indices)} indices, expected {self.total_size}")
        mine = indices[self.rank:self.total_size:self.num_replicas]
        if len(mine) != self.num_samples:
            raise AssertionError(f"DistributedSampler gave rank {self.rank} {len(mine)} indices, expected "
                                 f"{self.num_samples}")
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch mixed into the shuffle's seed: every rank, same epoch, same permutation."""
        self.epoch = epoch
