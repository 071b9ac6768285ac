"""DistributedSampler: each rank reads its own share of a dataset, as torch.utils.data.distributed splits it.

The split is torch's exactly: (optionally) shuffle all indices with a generator seeded by
``seed + epoch``; pad the list by repeating its start until it divides by the number of
replicas (or, with ``drop_last``, cut the tail); rank r takes every ``num_replicas``-th index
starting at r.

The shuffle is torch's too, so rank r reads the same samples as under torch, shuffled or not
(a job can move between the two libraries mid-training and keep its data order). Elsewhere
leafgrad's random streams are NumPy's; here the permutation is the one torch's CPU
``randperm`` draws from a fresh generator: Mersenne Twister seeded with the seed's low 32 bits
(NumPy's MT19937 with legacy seeding is the same generator), then a Fisher-Yates pass that swaps
position i with i + (next 32-bit output mod (n - i)).
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler", "torch_randperm"]

_RAW32_LIMIT = 2 ** 32 // 20  # from this n on, torch's randperm draws 64-bit numbers instead


def torch_randperm(n: int, seed: int) -> list[int]:
    """``torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()``, computed with NumPy."""
    # MT19937 seeded as torch seeds it; integers over the full 32-bit range are its raw outputs, in order
    mt = np.random.RandomState(seed & 0xFFFFFFFF)
    if n < _RAW32_LIMIT:
        draws = mt.randint(0, 2 ** 32, size=max(n - 1, 0), dtype=np.uint64)
    else:  # torch joins two outputs, the first as the high half (not checked against torch: too large to test)
        raw = mt.randint(0, 2 ** 32, size=2 * max(n - 1, 0), dtype=np.uint64)
        draws = (raw[0::2] << np.uint64(32)) | raw[1::2]
    steps = np.arange(len(draws), dtype=np.uint64)
    partners = (steps + draws % (np.uint64(n) - steps)).tolist()  # the swap targets, computed at once
    order = list(range(n))
    for i, j in enumerate(partners):  # the swaps themselves depend on each other: one at a time
        order[i], order[j] = order[j], order[i]
    return order


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
            indices = torch_randperm(n, self.seed + self.epoch)
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
