"""DistributedSampler: torch's split (padding, drop_last, strides, epochs), index for index against torch."""
from __future__ import annotations

import itertools

import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad.utils.data.distributed import DistributedSampler

torch = pytest.importorskip("torch")
from torch.utils.data.distributed import DistributedSampler as TorchSampler  # noqa: E402

CASES = list(itertools.product([1, 2, 5, 7, 10, 16], [1, 2, 3, 4, 8], [False, True]))


@pytest.mark.parametrize("n,replicas,drop_last", CASES)
def test_unshuffled_split_equals_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) == ours.num_samples == theirs.num_samples
        assert ours.total_size == theirs.total_size


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (2, 5, False), (17, 4, True),
                                                   (1000, 8, False)])
@pytest.mark.parametrize("seed", [0, 11, 2 ** 40 + 5])
def test_shuffled_split_equals_torch(n, replicas, drop_last, seed):
    for epoch in (0, 3):
        for rank in range(replicas):
            ours = DistributedSampler(range(n), replicas, rank, shuffle=True, seed=seed, drop_last=drop_last)
            theirs = TorchSampler(range(n), replicas, rank, shuffle=True, seed=seed, drop_last=drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)


def test_torch_randperm_matches_torch():
    from leafgrad.utils.data.distributed import torch_randperm
    for n, seed in [(0, 0), (1, 3), (7, 1), (333, 2 ** 31 + 7), (5000, 123456789)]:
        assert torch_randperm(n, seed) == torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()


def test_epochs_reshuffle_and_every_rank_agrees():
    a = [list(DistributedSampler(range(20), 2, r, seed=3)) for r in range(2)]
    assert sorted(a[0] + a[1]) == list(range(20))
    s = DistributedSampler(range(20), 2, 0, seed=3)
    s.set_epoch(1)
    assert list(s) != a[0]
    assert list(DistributedSampler(range(20), 2, 0, seed=3)) == a[0]


@pytest.mark.parametrize("rank", [-1, 3])
def test_invalid_rank_like_torch(rank):
    with raises_exactly(ValueError) as t:
        TorchSampler(range(4), 3, rank)
    with raises_exactly(ValueError) as ours:
        DistributedSampler(range(4), 3, rank)
    assert str(ours.value) == str(t.value)


def test_without_replicas_it_needs_a_process_group():
    import leafgrad.distributed as dist
    if dist.is_available():  # as torch: the world's size and rank, and there is no world yet
        with raises_exactly(ValueError, match="Default process group has not been initialized"):
            DistributedSampler(range(4))
    else:
        with raises_exactly(RuntimeError, match="Requires distributed package to be available"):
            DistributedSampler(range(4))


def test_in_a_dataloader():
    ds = lg.utils.data.TensorDataset(lg.arange(10))
    loader = lg.utils.data.DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, 2, 1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7], [9]]
