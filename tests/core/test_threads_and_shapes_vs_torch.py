"""torch.get_num_threads/set_num_threads (the BLAS pool) and torch.broadcast_shapes, against torch."""
from __future__ import annotations

import pytest
from differential import raises_exactly, same

import leafgrad


@pytest.fixture
def restore_threads():
    before = leafgrad.get_num_threads()
    yield
    leafgrad.set_num_threads(before)


def test_get_num_threads_returns_the_current_setting(restore_threads):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = threadpoolctl.ThreadpoolController().select(user_api="blas")
    for n in (1, 2, 1):
        leafgrad.set_num_threads(n)
        assert leafgrad.get_num_threads() == n
        # the setting is the BLAS pool's own: NumPy's matmuls run on n threads
        assert all(c.num_threads == n for c in blas.lib_controllers)


def test_get_num_threads_starts_at_the_pool_size():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = threadpoolctl.threadpool_info()
    sizes = [i["num_threads"] for i in blas if i["user_api"] == "blas"]
    if sizes:
        assert leafgrad.get_num_threads() == max(sizes)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "2", True])
def test_set_num_threads_refuses_as_torch(torch, bad, restore_threads):
    same(torch, lambda m: m.set_num_threads(bad))


def test_without_threadpoolctl_the_setting_is_remembered(monkeypatch):
    from leafgrad import _threads
    monkeypatch.setitem(_threads._STATE, "controller", False)
    monkeypatch.setitem(_threads._STATE, "set", None)
    with pytest.warns(UserWarning, match="threadpoolctl is not installed"):
        leafgrad.set_num_threads(3)
    assert leafgrad.get_num_threads() == 3


SHAPES = [((2,), (3, 1)), (2, (3, 1)), ([1, 2], (4, 1)), ((), (3,)), ((0,), (1,)), (), ((1,),), (3, 2),
          ((3,), (4,)), ((2, -1), (2,)), ((-1,),), ((2.0,),), ((5, 1, 3), (4, 1))]


@pytest.mark.parametrize("shapes", SHAPES, ids=[repr(s) for s in SHAPES])
def test_broadcast_shapes_as_torch(torch, shapes):
    same(torch, lambda m: tuple(m.broadcast_shapes(*shapes)))


def test_broadcast_shapes_of_a_tensor_refused(torch):
    same(torch, lambda m: m.broadcast_shapes(m.tensor([2, 3])))


def test_broadcast_shapes_returns_size():
    assert type(leafgrad.broadcast_shapes((2, 1), (3,))) is leafgrad.Size
    with raises_exactly(RuntimeError, match="Attempting to broadcast a dimension of length 4 at -1"):
        leafgrad.broadcast_shapes((3,), (4,))
