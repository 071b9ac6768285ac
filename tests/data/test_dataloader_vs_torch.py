"""DataLoader and default_collate against torch.utils.data: the same batches, structures,
dtypes and errors for the same datasets; shuffling is reproducible with a seeded generator."""
from __future__ import annotations

import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from leafgrad.utils import data as lgdata  # noqa: E402
from torch.utils import data as tdata  # noqa: E402


def norm(x):
    """A framework-independent picture of a batch: types, dtypes, shapes and values."""
    if isinstance(x, (torch.Tensor, lg.Tensor)):
        return ("tensor", str(x.dtype), tuple(x.shape), x.detach().numpy().tolist())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(norm(v) for v in x))
    if isinstance(x, dict):
        return (type(x).__name__, [(k, norm(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [norm(v) for v in x])
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.tolist())
    return (type(x).__name__, x)


def batches(loader):
    return [norm(b) for b in loader]


X = np.arange(30, dtype=np.float32).reshape(10, 3)
Y = np.arange(10, dtype=np.int64) % 3


def tensor_datasets():
    return (tdata.TensorDataset(torch.tensor(X), torch.tensor(Y)),
            lgdata.TensorDataset(lg.tensor(X), lg.tensor(Y)))


@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 16])
@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_dataset_batches_equal_torch(batch_size, drop_last):
    tds, lds = tensor_datasets()
    tl = tdata.DataLoader(tds, batch_size=batch_size, drop_last=drop_last)
    ll = lgdata.DataLoader(lds, batch_size=batch_size, drop_last=drop_last)
    assert len(ll) == len(tl)
    assert batches(ll) == batches(tl)


class DictDataset:
    """A map-style dataset of dicts mixing arrays, numbers, strings and nested containers."""

    def __init__(self, n=7):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.full((2, 2), i, dtype=np.float32), "y": i, "w": 0.5 * i, "flag": i % 2 == 0,
                "name": f"item{i}", "np_scalar": np.float64(i) / 3, "np_int": np.int32(i),
                "pair": (i, float(i)), "nested": {"a": [i, i + 1]}}


class TupleDataset(DictDataset):
    def __getitem__(self, i):
        return np.arange(3, dtype=np.int64) + i, i, b"bytes%d" % i


Point = collections.namedtuple("Point", ["x", "y"])


class NamedTupleDataset(DictDataset):
    def __getitem__(self, i):
        return Point(x=np.float32(i), y=[i, 2 * i])


def _dataset_pair(cls):
    # any object with __getitem__ and __len__ works with both loaders
    return cls(), cls()


@pytest.mark.parametrize("cls", [DictDataset, TupleDataset, NamedTupleDataset])
@pytest.mark.parametrize("batch_size", [1, 3])
def test_structured_samples_collate_like_torch(cls, batch_size):
    tds, lds = _dataset_pair(cls)
    assert batches(lgdata.DataLoader(lds, batch_size=batch_size)) == \
        batches(tdata.DataLoader(tds, batch_size=batch_size))


@pytest.mark.parametrize("cls", [DictDataset, TupleDataset, NamedTupleDataset])
def test_no_batching_converts_like_torch(cls):
    tds, lds = _dataset_pair(cls)
    assert batches(lgdata.DataLoader(lds, batch_size=None)) == batches(tdata.DataLoader(tds, batch_size=None))


def test_custom_collate_fn():
    def collate(samples):
        xs, ys = zip(*samples)
        return {"n": len(samples), "sum_y": int(sum(int(y) for y in ys)), "first": xs[0]}

    tds, lds = tensor_datasets()
    assert batches(lgdata.DataLoader(lds, batch_size=4, collate_fn=collate)) == \
        batches(tdata.DataLoader(tds, batch_size=4, collate_fn=collate))


def test_custom_sampler_and_batch_sampler():
    tds, lds = tensor_datasets()
    order = [9, 0, 8, 1, 7, 2]
    assert batches(lgdata.DataLoader(lds, batch_size=4, sampler=order)) == \
        batches(tdata.DataLoader(tds, batch_size=4, sampler=order))
    groups = [[0, 1], [5, 6, 7], [2]]
    assert batches(lgdata.DataLoader(lds, batch_sampler=groups)) == \
        batches(tdata.DataLoader(tds, batch_sampler=groups))
    lsampler = lgdata.BatchSampler(lgdata.SequentialSampler(range(10)), 3, drop_last=True)
    tsampler = tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last=True)
    assert list(lsampler) == list(tsampler) and len(lsampler) == len(tsampler)
    assert batches(lgdata.DataLoader(lds, batch_sampler=lsampler)) == \
        batches(tdata.DataLoader(tds, batch_sampler=tsampler))


class Stream(lgdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter([{"v": np.float32(i), "i": i} for i in range(self.n)])

    def __len__(self):
        return self.n


class TorchStream(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter([{"v": np.float32(i), "i": i} for i in range(self.n)])

    def __len__(self):
        return self.n


@pytest.mark.parametrize("batch_size,drop_last", [(None, False), (1, False), (3, False), (3, True), (4, False),
                                                   (4, True)])
def test_iterable_dataset_like_torch(batch_size, drop_last):
    ll = lgdata.DataLoader(Stream(10), batch_size=batch_size, drop_last=drop_last)
    tl = tdata.DataLoader(TorchStream(10), batch_size=batch_size, drop_last=drop_last)
    assert len(ll) == len(tl)
    assert batches(ll) == batches(tl)


# ----------------------------------------------------------------------------- shuffling
def test_shuffle_with_seeded_generator_is_reproducible_and_a_permutation():
    _, lds = tensor_datasets()

    def epoch_orders(seed, epochs=3):
        loader = lgdata.DataLoader(lds, batch_size=3, shuffle=True, generator=lg.Generator().manual_seed(seed))
        return [[int(v) for b in loader for v in (b[0][:, 0] / 3).tolist()] for _ in range(epochs)]

    a, b = epoch_orders(123), epoch_orders(123)
    assert a == b  # same seed, same orders
    for order in a:
        assert sorted(order) == list(range(10))
    assert a[0] != a[1] or a[1] != a[2]  # a new permutation each pass
    assert epoch_orders(7) != a
    # samples stay aligned with their labels
    loader = lgdata.DataLoader(lds, batch_size=4, shuffle=True, generator=lg.Generator().manual_seed(1))
    for xb, yb in loader:
        np.testing.assert_array_equal((xb[:, 0] / 3).long().numpy() % 3, yb.numpy())


def test_shuffle_without_generator_follows_manual_seed():
    _, lds = tensor_datasets()
    orders = []
    for _ in range(2):
        lg.manual_seed(42)
        orders.append([b[1].tolist() for b in lgdata.DataLoader(lds, batch_size=5, shuffle=True)])
    assert orders[0] == orders[1]


def test_random_sampler_variants():
    g = lg.Generator().manual_seed(0)
    s = lgdata.RandomSampler(range(10), replacement=True, num_samples=50, generator=g)
    draws = list(s)
    assert len(draws) == len(s) == 50 and all(0 <= d < 10 for d in draws)
    s = lgdata.RandomSampler(range(4), num_samples=10, generator=g)
    draws = list(s)
    assert len(draws) == 10 and sorted(draws[:4]) == [0, 1, 2, 3] and sorted(draws[4:8]) == [0, 1, 2, 3]
    sub = lgdata.SubsetRandomSampler([3, 5, 7, 11], generator=lg.Generator().manual_seed(3))
    assert sorted(sub) == [3, 5, 7, 11] and len(sub) == 4
    assert list(lgdata.SubsetRandomSampler([3, 5, 7, 11], generator=lg.Generator().manual_seed(3))) == \
        list(lgdata.SubsetRandomSampler([3, 5, 7, 11], generator=lg.Generator().manual_seed(3)))
    w = lgdata.WeightedRandomSampler([0.0, 0.0, 1.0], num_samples=5, generator=g)
    assert list(w) == [2] * 5


# ----------------------------------------------------------------------------- errors and lengths
@pytest.mark.parametrize("kwargs", [
    dict(shuffle=True, sampler=[0, 1]),
    dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_size=None, drop_last=True),
    dict(num_workers=-1),
    dict(prefetch_factor=2),
    dict(persistent_workers=True),
    dict(timeout=-1),
    dict(batch_size=0),
], ids=str)
def test_argument_errors_match_torch(kwargs):
    tds, lds = tensor_datasets()
    with pytest.raises(ValueError) as t:
        tdata.DataLoader(tds, **kwargs)
    with pytest.raises(ValueError) as lgerr:
        lgdata.DataLoader(lds, **kwargs)
    assert str(lgerr.value) == str(t.value)


def test_iterable_dataset_rejects_shuffle_and_attributes_are_frozen():
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        lgdata.DataLoader(Stream(3), shuffle=True)
    loader = lgdata.DataLoader(Stream(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 2


def test_default_collate_direct_calls_like_torch():
    cases = [
        [1, 2, 3], [1.5, 2.5], [True, False], ["a", "b"], [np.float32(1), np.float32(2)],
        [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        [(1, "a"), (2, "b")], [[1, 2], [3, 4]], [{"a": 1.0}, {"a": 2.0}],
    ]
    for batch in cases:
        assert norm(lgdata.default_collate(batch)) == norm(tdata.default_collate(batch))
    tensors_l = [lg.tensor([1.0, 2.0]), lg.tensor([3.0, 4.0])]
    tensors_t = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]
    assert norm(lgdata.default_collate(tensors_l)) == norm(tdata.default_collate(tensors_t))
    for bad in ([object(), object()], [np.array(["a"]), np.array(["b"])]):
        with pytest.raises(TypeError) as t:
            tdata.default_collate(bad)
        with pytest.raises(TypeError) as lgerr:
            lgdata.default_collate(bad)
        assert str(lgerr.value).split(";")[0] == str(t.value).split(";")[0]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        lgdata.default_collate([[1, 2], [3]])
