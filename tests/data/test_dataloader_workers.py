"""DataLoader(num_workers > 0) against torch's: real worker processes, the same batches in the same order,
the same worker for each batch, worker info, per-worker seeds, IterableDataset replication, persistent
workers, and errors raised in the main process with the worker's exception class."""
from __future__ import annotations

import os
import random

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")
import leafgrad as lg  # noqa: E402
from leafgrad.utils import data as lgdata  # noqa: E402
from torch.utils import data as tdata  # noqa: E402


def plain(x):
    """A framework-independent picture of a batch."""
    if isinstance(x, (torch.Tensor, lg.Tensor)):
        return (str(x.dtype).replace("torch.", ""), x.tolist())
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def both(make):
    """The same dataset class built on leafgrad's and torch's base classes."""
    return make(lgdata, lg), make(tdata, torch)


def probe_dataset(data, lib):
    class Probe(data.Dataset):
        """Each sample says which worker (and process) made it."""

        def __len__(self):
            return 11

        def __getitem__(self, i):
            info = data.get_worker_info()
            return lib.tensor([i, info.id, info.num_workers])
    return Probe()


@pytest.mark.parametrize("kwargs", [dict(batch_size=3, num_workers=2), dict(batch_size=2, num_workers=3),
                                    dict(batch_size=None, num_workers=2), dict(batch_size=4, num_workers=2,
                                                                               prefetch_factor=1, drop_last=True)],
                         ids=str)
def test_map_dataset_batches_and_worker_assignment_like_torch(kwargs):
    ours, theirs = both(probe_dataset)
    with pytest.warns(UserWarning) if kwargs["num_workers"] > (len(os.sched_getaffinity(0))) else _nothing():
        got = [plain(b) for b in lgdata.DataLoader(ours, **kwargs)]
    want = [plain(b) for b in tdata.DataLoader(theirs, **kwargs)]
    assert got == want


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_workers_are_processes_and_main_has_no_worker_info():
    class Pid(lgdata.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return os.getpid()
    pids = {p for b in lgdata.DataLoader(Pid(), batch_size=2, num_workers=2) for p in b.tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert lgdata.get_worker_info() is None


def stream_dataset(data, lib):
    class Stream(data.IterableDataset):
        """Every worker holds a copy; the copy reads its id and (optionally) takes its share."""

        def __init__(self, split):
            self.split = split

        def __iter__(self):
            info = data.get_worker_info()
            start, step = (info.id, info.num_workers) if self.split else (0, 1)
            return iter([lib.tensor([i, info.id]) for i in range(start, 7, step)])
    return Stream


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("kwargs", [dict(batch_size=2, num_workers=2), dict(batch_size=3, num_workers=2,
                                                                           drop_last=True),
                                    dict(batch_size=None, num_workers=2)], ids=str)
def test_iterable_dataset_is_replicated_per_worker_like_torch(split, kwargs):
    ours, theirs = both(stream_dataset)
    got = [plain(b) for b in lgdata.DataLoader(ours(split), **kwargs)]
    want = [plain(b) for b in tdata.DataLoader(theirs(split), **kwargs)]
    assert got == want


def seed_dataset(data, lib):
    class Seeds(data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = data.get_worker_info()
            return [info.id, info.seed, random.random(), float(np.random.rand()), lib.rand(1).item()]
    return Seeds()


def test_per_worker_seeds_follow_torchs_rule():
    from torch.utils.data._utils.worker import _generate_state
    ours, _ = both(seed_dataset)
    g = lg.Generator().manual_seed(5)
    rows = [r for b in lgdata.DataLoader(ours, batch_size=1, num_workers=2, generator=g, collate_fn=lambda s: s)
            for r in b]
    seeds = {}
    for wid, seed, py, npy, lgr in rows:
        seeds.setdefault(wid, []).append((seed, py, npy, lgr))
    assert sorted(seeds) == [0, 1]
    base = seeds[0][0][0]
    assert seeds[1][0][0] == base + 1  # seed = base_seed + worker_id
    for wid, draws in seeds.items():
        seed = base + wid
        rpy, rnp = random.Random(seed), np.random.RandomState(_generate_state(base, wid))  # torch's numpy seed
        lg.manual_seed(seed)
        for s, py, npy, lgr in draws:
            assert s == seed and py == rpy.random() and npy == rnp.rand()
            assert lgr == lg.rand(1).item()
    # the base seed comes from the loader's generator: the same generator seed, the same worker seeds
    again = [r[1] for b in lgdata.DataLoader(ours, batch_size=1, num_workers=2, collate_fn=lambda s: s,
                                             generator=lg.Generator().manual_seed(5)) for r in b]
    assert again == [r[1] for r in rows]


def test_worker_init_fn_runs_in_each_worker():
    class Marks(lgdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.environ.get("LG_TEST_WORKER_MARK", "")

    def init(worker_id):
        os.environ["LG_TEST_WORKER_MARK"] = f"w{worker_id}"
    got = [m for b in lgdata.DataLoader(Marks(), batch_size=1, num_workers=2, worker_init_fn=init) for m in b]
    assert got == ["w0", "w1", "w0", "w1"] and "LG_TEST_WORKER_MARK" not in os.environ


def test_persistent_workers_survive_epochs():
    class Pid(lgdata.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return lg.tensor([i, os.getpid()])
    loader = lgdata.DataLoader(Pid(), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [[b.tolist() for b in loader] for _ in range(3)]
    assert all([[r[0] for r in b] for b in e] == [[0, 1], [2, 3], [4, 5]] for e in epochs)
    pids = [{r[1] for b in e for r in b} for e in epochs]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    half = iter(loader)
    next(half)  # an epoch left early: the next one starts from its first batch on the same workers
    assert [[r[0] for r in b.tolist()] for b in loader] == [[0, 1], [2, 3], [4, 5]]
    fresh = lgdata.DataLoader(Pid(), batch_size=2, num_workers=2)
    assert {r[1] for b in fresh for r in b.tolist()} != {r[1] for b in loader for r in b.tolist()}


def test_persistent_iterable_dataset_restarts_its_stream():
    ours, theirs = both(stream_dataset)
    ol = lgdata.DataLoader(ours(True), batch_size=2, num_workers=2, persistent_workers=True)
    tl = tdata.DataLoader(theirs(True), batch_size=2, num_workers=2, persistent_workers=True)
    assert [[plain(b) for b in ol] for _ in range(2)] == [[plain(b) for b in tl] for _ in range(2)]


def failing_dataset(data, lib):
    class Failing(data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == 3:
                raise KeyError("no sample 3")
            if i == 5:
                raise ValueError("bad sample 5")
            return i
    return Failing()


def test_worker_errors_raise_the_same_class_in_the_main_process():
    ours, theirs = both(failing_dataset)
    with raises_exactly(KeyError) as t:
        list(tdata.DataLoader(theirs, batch_size=2, num_workers=2))
    with raises_exactly(KeyError) as lgerr:
        list(lgdata.DataLoader(ours, batch_size=2, num_workers=2))
    first = "Caught KeyError in DataLoader worker process 1.\nOriginal Traceback (most recent call last):"
    assert str(t.value).startswith(first) and str(lgerr.value).startswith(first)
    assert "no sample 3" in str(lgerr.value)
    loader = lgdata.DataLoader(ours, batch_size=1, num_workers=2)
    it = iter(loader)
    assert [next(it).item() for _ in range(3)] == [0, 1, 2]
    with raises_exactly(KeyError):
        next(it)
    assert next(it).item() == 4  # as torch, the pass goes on after an error
    with raises_exactly(ValueError, match="Caught ValueError in DataLoader worker process 1"):
        next(it)


def test_timeout_and_options():
    import time

    class Slow(lgdata.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(2)
            return i
    with raises_exactly(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(lgdata.DataLoader(Slow(), num_workers=1, timeout=0.2))
    for kwargs, exc in [(dict(multiprocessing_context="spawn"), ValueError),
                        (dict(num_workers=1, multiprocessing_context="nope"), ValueError),
                        (dict(num_workers=1, multiprocessing_context=3), TypeError)]:
        with pytest.raises(exc) as t:
            tdata.DataLoader(range(3), **kwargs)
        with pytest.raises(exc) as ours:
            lgdata.DataLoader(range(3), **kwargs)
        assert type(ours.value) is type(t.value) and str(ours.value)[:40] == str(t.value)[:40]


@pytest.mark.parametrize("prefetch", [1, 3])
def test_prefetch_factor_bounds_the_batches_in_flight_like_torch(prefetch):
    ours, theirs = both(probe_dataset)
    sent = []
    for data, ds in ((lgdata, ours), (tdata, theirs)):
        it = iter(data.DataLoader(ds, batch_size=1, num_workers=2, prefetch_factor=prefetch))
        counts = [it._send_idx]  # tasks sent before the first batch is asked for
        for _ in range(3):
            next(it)
            counts.append(it._send_idx)  # one more task per batch handed out
        sent.append(counts)
        del it
    assert sent[0] == sent[1] == [2 * prefetch + k for k in range(4)]
