"""Datasets (TensorDataset, Subset, ConcatDataset, StackDataset, ChainDataset) and random_split."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from leafgrad.utils import data as lgdata  # noqa: E402
from torch.utils import data as tdata  # noqa: E402


def _vals(sample):
    return [v.tolist() if hasattr(v, "tolist") else v for v in sample]


def test_tensor_dataset_indexing_and_size_check():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    lds = lgdata.TensorDataset(lg.tensor(x), lg.arange(6))
    tds = tdata.TensorDataset(torch.tensor(x), torch.arange(6))
    assert len(lds) == len(tds) == 6
    for i in (0, 3, -1):
        assert _vals(lds[i]) == _vals(tds[i])
    assert _vals(lds[1:3]) == _vals(tds[1:3])
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        lgdata.TensorDataset(lg.zeros(3), lg.zeros(4))


def test_subset_concat_stack_datasets_like_torch():
    a, b = list(range(5)), list(range(100, 103))
    for i in range(-8, 8):
        assert lgdata.ConcatDataset([a, b])[i] == tdata.ConcatDataset([a, b])[i]
    assert len(lgdata.ConcatDataset([a, b])) == 8
    assert lgdata.ConcatDataset([a, b]).cumulative_sizes == [5, 8]
    with raises_exactly(ValueError, match="absolute value of index should not exceed dataset length"):
        lgdata.ConcatDataset([a, b])[-9]

    sub = lgdata.Subset(a, [4, 0, 2])
    assert [sub[i] for i in range(len(sub))] == [4, 0, 2]
    assert sub.__getitems__([0, 2]) == [4, 2]

    stacked = lgdata.StackDataset(a, [x * 2 for x in a])
    assert stacked[3] == (3, 6) and len(stacked) == 5
    named = lgdata.StackDataset(x=a, y=a)
    assert named[1] == {"x": 1, "y": 1}
    with raises_exactly(ValueError, match="Size mismatch between datasets"):
        lgdata.StackDataset(a, b)

    class DS(lgdata.Dataset):
        def __init__(self, items):
            self.items = items

        def __getitem__(self, i):
            return self.items[i]

        def __len__(self):
            return len(self.items)

    both = DS(a) + DS(b)
    assert isinstance(both, lgdata.ConcatDataset) and both[5] == 100


def test_chain_dataset():
    class It(lgdata.IterableDataset):
        def __init__(self, items):
            self.items = items

        def __iter__(self):
            return iter(self.items)

        def __len__(self):
            return len(self.items)

    chain = It([1, 2]) + It([3])
    assert list(chain) == [1, 2, 3] and len(chain) == 3
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        lgdata.ConcatDataset([It([1])])


@pytest.mark.parametrize("n,lengths", [
    (10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (10, [0.33, 0.33, 0.34]), (7, [0.1, 0.2, 0.3, 0.4]),
    (1797, [0.8, 0.2]), (5, [5, 0]),
])
def test_random_split_sizes_equal_torch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lsplits = lgdata.random_split(range(n), lengths, generator=lg.Generator().manual_seed(0))
        tsplits = tdata.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in lsplits] == [len(s) for s in tsplits]
    everything = sorted(i for s in lsplits for i in s)
    assert everything == list(range(n))  # disjoint and covering


def test_random_split_warns_about_an_empty_split():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        splits = lgdata.random_split(range(2), [0.1, 0.1, 0.8])
    assert [len(s) for s in splits] == [1, 0, 1]


def test_random_split_reproducible_with_generator_and_errors():
    a = [list(s) for s in lgdata.random_split(range(20), [5, 15], generator=lg.Generator().manual_seed(3))]
    b = [list(s) for s in lgdata.random_split(range(20), [5, 15], generator=lg.Generator().manual_seed(3))]
    c = [list(s) for s in lgdata.random_split(range(20), [5, 15], generator=lg.Generator().manual_seed(4))]
    assert a == b and a != c
    for args in ([3, 3], [0.5, 0.6], [-0.5, 1.5]):
        with raises_exactly(ValueError) as t:
            tdata.random_split(range(10), args)
        with raises_exactly(ValueError) as lgerr:
            lgdata.random_split(range(10), args)
        assert str(lgerr.value) == str(t.value)


def test_random_split_on_tensor_dataset_feeds_a_loader():
    ds = lgdata.TensorDataset(lg.arange(100).float(), lg.arange(100))
    train, test = lgdata.random_split(ds, [0.8, 0.2], generator=lg.Generator().manual_seed(0))
    seen = []
    for xb, yb in lgdata.DataLoader(train, batch_size=16, shuffle=True, generator=lg.Generator().manual_seed(0)):
        assert xb.dtype == lg.float32 and yb.dtype == lg.int64
        seen += yb.tolist()
    assert sorted(seen) == sorted(train.indices) and len(seen) == 80
