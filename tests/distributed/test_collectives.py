"""Every collective on 2 ranks against a NumPy reference computed here from the same inputs."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad.distributed as lgdist

N = 2


def rank_input(r: int, shape=(3, 4), dtype="float64"):
    """What rank r contributes (the script builds the same arrays)."""
    return (np.random.default_rng(10 + r).standard_normal(shape) * 4).astype(dtype)


SCRIPT = """
import leafgrad as torch, leafgrad.distributed as dist
def rank_input(r, shape=(3, 4), dtype="float64"):
    return (np.random.default_rng(10 + r).standard_normal(shape) * 4).astype(dtype)
def T(a):
    return torch.from_numpy(np.array(a))
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
res = {"rank": np.array(r), "size": np.array(n), "backend": np.array(dist.get_backend())}
for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
    t = T(rank_input(r)); dist.all_reduce(t, op=getattr(dist.ReduceOp, op)); res["all_reduce_" + op] = t.numpy()
for dt in ("float32", "int64", "float16", "int8"):
    t = T(rank_input(r, dtype=dt)); dist.all_reduce(t); res["all_reduce_" + dt] = t.numpy()
t = T(rank_input(r) > 0); dist.all_reduce(t); res["all_reduce_bool_sum"] = t.numpy()
t = T(rank_input(r) > 0); dist.all_reduce(t, op=dist.ReduceOp.PRODUCT); res["all_reduce_bool_prod"] = t.numpy()
base = T(rank_input(r)); view = base.t()                      # a non-contiguous view, reduced in place
dist.all_reduce(view); res["all_reduce_view"] = base.numpy()
x = T(rank_input(r)).requires_grad_(); v = x._version
dist.all_reduce(x); res["leaf_version_unchanged"] = np.array(x._version == v and x.requires_grad)
t = T(rank_input(r)); w = dist.all_reduce(t, async_op=True)
res["async_wait"] = np.array(w.wait()); res["async_done"] = np.array(w.is_completed()); res["async"] = t.numpy()
res["async_result_is_tensor"] = np.array(w.result()[0] is t)
t = T(rank_input(r)); dist.reduce(t, dst=1, op=dist.ReduceOp.MAX); res["reduce"] = t.numpy()
t = T(rank_input(r)); dist.broadcast(t, src=1); res["broadcast"] = t.numpy()
outs = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)]
dist.all_gather(outs, T(rank_input(r))); res["all_gather"] = np.stack([o.numpy() for o in outs])
o = torch.zeros(n * 3, 4, dtype=torch.float64); dist.all_gather_into_tensor(o, T(rank_input(r)))
res["all_gather_into_tensor"] = o.numpy()
o = torch.zeros(n, 3, 4, dtype=torch.float64); dist.all_gather_into_tensor(o, T(rank_input(r)))
res["all_gather_into_tensor_stacked"] = o.numpy()
ins = [T(rank_input(r)[i:i + 1]) for i in range(n)]
o = torch.zeros(1, 4, dtype=torch.float64); dist.reduce_scatter(o, ins); res["reduce_scatter"] = o.numpy()
o = torch.zeros(2, dtype=torch.float64); dist.reduce_scatter_tensor(o, T(rank_input(r)[0]), op=dist.ReduceOp.AVG)
res["reduce_scatter_tensor"] = o.numpy()
gl = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)] if r == 0 else None
dist.gather(T(rank_input(r)), gl, dst=0)
res["gather"] = np.stack([g.numpy() for g in gl]) if r == 0 else np.zeros(0)
sl = [T(rank_input(0)[i]) for i in range(n)] if r == 0 else None
t = torch.zeros(4, dtype=torch.float64); dist.scatter(t, sl, src=0); res["scatter"] = t.numpy()
if r == 0:
    dist.send(T(rank_input(0)), dst=1, tag=3)
    w = dist.irecv(t := torch.zeros(3, 4, dtype=torch.float64), src=1); w.wait(); res["p2p"] = t.numpy()
    res["recv_from"] = np.array(1)
else:
    t = torch.zeros(3, 4, dtype=torch.float64); res["recv_from"] = np.array(dist.recv(t, tag=3)); res["p2p"] = t.numpy()
    dist.isend(T(rank_input(1)), dst=0).wait()
objs = [None] * n; dist.all_gather_object(objs, {"r": r}); res["objects"] = np.array([o["r"] for o in objs])
lst = ["from", r]; dist.broadcast_object_list(lst, src=1); res["bcast_objects"] = np.array(lst[1])
g = dist.new_group([1])
res["group_rank"] = np.array(dist.get_rank(g)); res["group_size"] = np.array(dist.get_world_size(g))
t = T(rank_input(r))
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dist.all_reduce(t, group=g)       # rank 0 is not a member: a warning and nothing done
res["group_all_reduce"] = t.numpy(); res["nonmember_warned"] = np.array(len(caught))
res["group_ranks"] = np.array(dist.get_process_group_ranks(g) if r == 1 else [-1])
def err(f):
    try:
        f()
    except Exception as e:
        return np.array(type(e).__name__ + ": " + str(e))
    return np.array("no error")
res["e_list_len"] = err(lambda: dist.all_gather([torch.zeros(3, 4, dtype=torch.float64)], T(rank_input(r))))
res["e_shape"] = err(lambda: dist.all_gather([torch.zeros(2), torch.zeros(3)], torch.zeros(2)))
res["e_into"] = err(lambda: dist.all_gather_into_tensor(torch.zeros(3), torch.zeros(2)))
res["e_root"] = err(lambda: dist.broadcast(torch.zeros(2), src=5))
res["e_type"] = err(lambda: dist.all_reduce([torch.zeros(2)]))
res["e_avg_int"] = err(lambda: dist.all_reduce(torch.zeros(2, dtype=torch.int64), op=dist.ReduceOp.AVG))
res["e_scatter_list"] = err(lambda: dist.scatter(torch.zeros(2), None, src=r))
res["e_gather_list"] = err(lambda: dist.gather(torch.zeros(2), None, dst=r))
res["e_self_send"] = err(lambda: dist.send(torch.zeros(2), dst=r))
res["e_twice"] = err(lambda: dist.init_process_group("gloo"))
res["e_group_big"] = err(lambda: dist.new_group([0, 1, 2]))
dist.barrier()
dist.destroy_process_group()
res["after_destroy"] = np.array(dist.is_initialized())
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"   # torch's debug mode: collectives compare their arguments
dist.init_process_group("mpi")
res["e_mismatch"] = err(lambda: dist.all_reduce(torch.zeros(3 + r)))
t = torch.ones(2); dist.all_reduce(t); res["detail_ok"] = t.numpy()
dist.destroy_process_group()
save(**res)
"""


@pytest.fixture(scope="module")
def ranks(run_ranks):
    return run_ranks(SCRIPT)  # one launch for the whole module: starting MPI ranks costs about a second


def inputs(dtype="float64"):
    return [rank_input(r, dtype=dtype) for r in range(N)]


def test_world(ranks):
    assert [int(r["rank"]) for r in ranks] == [0, 1]
    assert all(int(r["size"]) == N and str(r["backend"]) == "gloo" for r in ranks)


@pytest.mark.parametrize("op,ref", [
    ("SUM", lambda xs: xs[0] + xs[1]), ("AVG", lambda xs: (xs[0] + xs[1]) / 2), ("PRODUCT", lambda xs: xs[0] * xs[1]),
    ("MIN", lambda xs: np.minimum(*xs)), ("MAX", lambda xs: np.maximum(*xs))])
def test_all_reduce_ops(ranks, op, ref):
    for r in ranks:
        np.testing.assert_allclose(r["all_reduce_" + op], ref(inputs()), rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16", "int8"])
def test_all_reduce_dtypes(ranks, dtype):
    xs = inputs(dtype)
    for r in ranks:
        assert r["all_reduce_" + dtype].dtype == np.dtype(dtype)
        np.testing.assert_array_equal(r["all_reduce_" + dtype], xs[0] + xs[1])


def test_all_reduce_bool_is_logical_or_and(ranks):
    xs = [x > 0 for x in inputs()]
    for r in ranks:
        np.testing.assert_array_equal(r["all_reduce_bool_sum"], xs[0] | xs[1])
        np.testing.assert_array_equal(r["all_reduce_bool_prod"], xs[0] & xs[1])


def test_all_reduce_in_place_on_views_and_leaves(ranks):
    xs = inputs()
    for r in ranks:
        np.testing.assert_allclose(r["all_reduce_view"], xs[0] + xs[1], rtol=1e-15)
        assert bool(r["leaf_version_unchanged"])  # as torch: no version bump, requires_grad kept


def test_async_work(ranks):
    for r in ranks:
        assert bool(r["async_wait"]) and bool(r["async_done"]) and bool(r["async_result_is_tensor"])
        np.testing.assert_allclose(r["async"], inputs()[0] + inputs()[1], rtol=1e-15)


def test_reduce_and_broadcast(ranks):
    xs = inputs()
    np.testing.assert_array_equal(ranks[1]["reduce"], np.maximum(*xs))
    np.testing.assert_array_equal(ranks[0]["reduce"], xs[0])  # not the destination: left as it was
    for r in ranks:
        np.testing.assert_array_equal(r["broadcast"], xs[1])


def test_gathers(ranks):
    xs = inputs()
    for r in ranks:
        np.testing.assert_array_equal(r["all_gather"], np.stack(xs))
        np.testing.assert_array_equal(r["all_gather_into_tensor"], np.concatenate(xs))
        np.testing.assert_array_equal(r["all_gather_into_tensor_stacked"], np.stack(xs))
    np.testing.assert_array_equal(ranks[0]["gather"], np.stack(xs))


def test_reduce_scatter_and_scatter(ranks):
    xs = inputs()
    for k, r in enumerate(ranks):
        np.testing.assert_allclose(r["reduce_scatter"], xs[0][k:k + 1] + xs[1][k:k + 1], rtol=1e-15)
        np.testing.assert_allclose(r["reduce_scatter_tensor"], (xs[0][0] + xs[1][0])[2 * k:2 * k + 2] / 2,
                                   rtol=1e-15)
        np.testing.assert_array_equal(r["scatter"], xs[0][k])


def test_point_to_point(ranks):
    xs = inputs()
    np.testing.assert_array_equal(ranks[1]["p2p"], xs[0])
    np.testing.assert_array_equal(ranks[0]["p2p"], xs[1])
    assert int(ranks[1]["recv_from"]) == 0


def test_object_collectives(ranks):
    for r in ranks:
        assert r["objects"].tolist() == [0, 1] and int(r["bcast_objects"]) == 1


def test_new_group_members_and_non_members(ranks):
    xs = inputs()
    assert (int(ranks[0]["group_rank"]), int(ranks[0]["group_size"])) == (-1, -1)
    assert (int(ranks[1]["group_rank"]), int(ranks[1]["group_size"])) == (0, 1)
    np.testing.assert_array_equal(ranks[0]["group_all_reduce"], xs[0])  # a non-member does nothing...
    assert int(ranks[0]["nonmember_warned"]) == 1                        # ...and says so
    np.testing.assert_array_equal(ranks[1]["group_all_reduce"], xs[1])  # a group of one: its own value
    assert ranks[1]["group_ranks"].tolist() == [1]


@pytest.mark.parametrize("key,start", [
    ("e_list_len", "RuntimeError: ProcessGroupMPI::allgather: invalid output tensor list"),
    ("e_shape", "RuntimeError: ProcessGroupMPI::allgather: invalid tensor size at index 1 (expected (2), got (3))"),
    ("e_into", "RuntimeError: ProcessGroupMPI::allgather_into_tensor: output tensor size must be equal to "
               "world_size times input tensor size"),
    ("e_root", "RuntimeError: ProcessGroupMPI::broadcast: invalid root rank: 5"),
    ("e_type", "TypeError: Invalid function argument. Expected parameter `tensor` of type torch.Tensor"),
    ("e_avg_int", "ValueError: all_reduce: ReduceOp.AVG needs a floating point"),
    ("e_scatter_list", "ValueError: Argument ``scatter_list`` must be specified on source rank."),
    ("e_gather_list", "ValueError: Argument ``gather_list`` must be specified on destination rank."),
    ("e_self_send", "ValueError: Invalid destination rank: destination rank should not be the same as the rank"),
    ("e_twice", "ValueError: trying to initialize the default process group twice!"),
    ("e_group_big", "ValueError: the new group's world size should be less or equal to the world size"),
])
def test_wrong_calls_raise_torchs_classes(ranks, key, start):
    for r in ranks:
        assert str(r[key]).startswith(start), str(r[key])


def test_debug_detail_names_both_sides_of_a_mismatch(ranks):
    for me, r in enumerate(ranks):
        msg = str(r["e_mismatch"])
        assert msg.startswith("RuntimeError: Detected mismatch between collectives on ranks. "
                              f"Rank {me} is running collective: CollectiveFingerPrint(OpType=all_reduce, "
                              f"TensorShape=[{3 + me}], TensorDtypes=float32)"), msg
        assert f"but Rank {1 - me} is running collective: CollectiveFingerPrint(OpType=all_reduce, " \
               f"TensorShape=[{4 - me}]" in msg
        assert r["detail_ok"].tolist() == [2.0, 2.0]


def test_destroy_process_group(ranks):
    assert not any(bool(r["after_destroy"]) for r in ranks)


# ----------------------------------------------------------------------------- without a process group
@pytest.mark.parametrize("call", [lambda d: d.get_rank(), lambda d: d.get_world_size(), lambda d: d.barrier(),
                                  lambda d: d.new_group([0])])
def test_no_group_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist
    with pytest.raises(Exception) as t:
        call(tdist)
    with pytest.raises(Exception) as lg:
        call(lgdist)
    assert type(lg.value) is type(t.value) and str(lg.value) == str(t.value)
    assert not lgdist.is_initialized()


def test_no_group_all_reduce_matches_torch():
    torch = pytest.importorskip("torch")
    import leafgrad
    with raises_exactly(ValueError) as t:
        torch.distributed.all_reduce(torch.ones(1))
    with raises_exactly(ValueError) as lg:
        lgdist.all_reduce(leafgrad.ones(1))
    assert str(lg.value) == str(t.value)


def test_nccl_and_unknown_backends():
    with raises_exactly(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        lgdist.init_process_group("nccl")
    with raises_exactly(ValueError, match="Invalid backend: 'tpu'"):
        lgdist.init_process_group("tpu")
    assert not lgdist.is_initialized()
    assert lgdist.ReduceOp.SUM is not lgdist.ReduceOp.AVG and str(lgdist.ReduceOp.SUM) == "RedOpType.SUM"
