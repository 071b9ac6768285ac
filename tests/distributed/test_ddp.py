"""DistributedDataParallel on 2 ranks: training equals one process on the global batch (float64, 1e-6)."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad.nn.parallel import DistributedDataParallel
from leafgrad.nn.parallel._reducer import assign_buckets

COMMON = """
import leafgrad as torch, leafgrad.distributed as dist
from leafgrad.nn.parallel import DistributedDataParallel as DDP
def model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 8), torch.nn.Tanh(),
                               torch.nn.Linear(8, 1)).double()
rng = np.random.default_rng(0)
X = torch.from_numpy(rng.standard_normal((6, 16, 5))); Y = torch.from_numpy(rng.standard_normal((6, 16, 1)))
def params(m):
    return np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
"""

TRAIN = COMMON + """
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
res = {}
if r == 0:  # the reference: one process, the whole (global) batch, plain model
    ref = model(100)            # what rank 0 starts from, and DDP broadcasts
    opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    for step in range(6):
        opt.zero_grad(); ((ref(X[step]) - Y[step]) ** 2).mean().backward(); opt.step()
    res["reference"] = params(ref)
m = model(100 + r)                       # a different start on each rank: DDP must broadcast rank 0's
before = params(m)
ddp = DDP(m, bucket_cap_mb=0.0005)       # tiny buckets: several of them, launched as backward goes
res["broadcast_equal_rank0_model0"] = np.array(np.allclose(params(m), params(model(100))))
res["buckets"] = np.array(len(ddp.reducer.buckets))
opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
for step in range(6):
    xb, yb = X[step][r * 8:(r + 1) * 8], Y[step][r * 8:(r + 1) * 8]   # this rank's half of the global batch
    opt.zero_grad(); ((ddp(xb) - yb) ** 2).mean().backward(); opt.step()
res["ddp"] = params(m)
res["keys"] = np.array(list(ddp.state_dict().keys()))
res["module_is_model"] = np.array(ddp.module is m)

# no_sync: two half-micro-batches accumulated locally, averaged once at the synced backward
m2 = DDP(model(0)); opt2 = torch.optim.SGD(m2.parameters(), lr=0.1)
for step in range(3):
    opt2.zero_grad()
    xb, yb = X[step][r * 8:(r + 1) * 8], Y[step][r * 8:(r + 1) * 8]
    with m2.no_sync():
        (((m2(xb[:4]) - yb[:4]) ** 2).mean() / 2).backward()
    local = m2.module[0].bias.grad.numpy().copy()
    (((m2(xb[4:]) - yb[4:]) ** 2).mean() / 2).backward()
    opt2.step()
res["no_sync"] = params(m2.module); res["no_sync_local_grad"] = local
if r == 0:
    ref2 = model(0); o = torch.optim.SGD(ref2.parameters(), lr=0.1)
    for step in range(3):
        o.zero_grad(); ((ref2(X[step]) - Y[step]) ** 2).mean().backward(); o.step()
    res["no_sync_reference"] = params(ref2)
save(**res)
"""

UNUSED = COMMON + """
dist.init_process_group("gloo")
r = dist.get_rank()
class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(3, 4).double(); self.a = torch.nn.Linear(4, 1).double()
        self.b = torch.nn.Linear(4, 1).double(); self.never = torch.nn.Linear(4, 1).double()
    def forward(self, x, head):
        h = self.body(x).tanh()
        return self.a(h) if head == "a" else self.b(h)
x = torch.from_numpy(np.random.default_rng(5 + r).standard_normal((4, 3)))
res = {}
m = DDP(TwoHeads(), find_unused_parameters=True)
out = m(x, "a" if r == 0 else "b")       # rank 0 uses head a, rank 1 head b; nobody uses `never`
out.sum().backward()
res["a_grad"] = m.module.a.weight.grad.numpy(); res["b_grad"] = m.module.b.weight.grad.numpy()
res["never_grad_is_none"] = np.array(m.module.never.weight.grad is None)
local = TwoHeads(); local.load_state_dict(m.module.state_dict())
local(x, "a" if r == 0 else "b").sum().backward()
res["local_used_grad"] = (local.a if r == 0 else local.b).weight.grad.numpy()

plain = DDP(TwoHeads())                  # without find_unused_parameters: the next forward must say why it fails
plain(x, "a").sum().backward()
try:
    plain(x, "a")
    res["error"] = np.array("no error")
except RuntimeError as e:
    res["error"] = np.array(type(e).__name__ + ": " + str(e))
try:
    DDP(torch.nn.ReLU())
except RuntimeError as e:
    res["no_params"] = np.array(str(e))
try:
    DDP(torch.nn.Linear(2 + r, 1))       # different models on the two ranks
except RuntimeError as e:
    res["mismatch"] = np.array(str(e))
bn = torch.nn.BatchNorm1d(3).double()
d = DDP(torch.nn.Sequential(torch.nn.Linear(3, 3).double(), bn))
d(x)                                     # each rank's running stats now follow its own batch
d.eval()
d(x)                                     # this forward starts by broadcasting rank 0's (and eval adds nothing)
res["running_mean"] = bn.running_mean.numpy()

# overlap: buckets start from the hooks while backward still runs (the first layer's gradient comes last)
import leafgrad.nn.parallel._reducer as R
events = []
real = R.all_reduce
def logged(t, *a, **k):
    events.append("allreduce %d" % t.numel())
    return real(t, *a, **k)
R.all_reduce = logged
net = torch.nn.Sequential(torch.nn.Linear(3, 50), torch.nn.Tanh(), torch.nn.Linear(50, 7)).double()
d = DDP(net, bucket_cap_mb=1e-4)   # about 100 bytes: a bucket per parameter
net[0].weight.register_hook(lambda g: events.append("first layer's grad"))  # computed, not yet accumulated
d(x).sum().backward()
R.all_reduce = real
res["events"] = np.array(events)

# a process group other than the world: a group of both ranks made by new_group
g = dist.new_group([0, 1])
m = DDP(torch.nn.Linear(3, 1).double(), process_group=g)
m(x).sum().backward()
res["group_grad"] = m.module.weight.grad.numpy()
lone = torch.nn.Linear(3, 1).double(); lone.load_state_dict(m.module.state_dict())
lone(x).sum().backward()
res["group_local_grad"] = lone.weight.grad.numpy()
save(**res)
"""


@pytest.fixture(scope="module")
def train(run_ranks):
    return run_ranks(TRAIN)


def test_two_ranks_train_as_one_process_on_the_global_batch(train):
    ref = train[0]["reference"]
    for r in train:
        np.testing.assert_allclose(r["ddp"], ref, rtol=0, atol=1e-6)
        assert int(r["buckets"]) > 2
    np.testing.assert_array_equal(train[0]["ddp"], train[1]["ddp"])  # the replicas stay bit-identical


def test_wrap_broadcasts_rank0_and_keeps_torchs_layout(train):
    torch = pytest.importorskip("torch")
    tm = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 8), torch.nn.Tanh(),
                             torch.nn.Linear(8, 1))
    for r in train:
        assert bool(r["broadcast_equal_rank0_model0"]) and bool(r["module_is_model"])
        assert r["keys"].tolist() == ["module." + k for k in tm.state_dict()]


def test_no_sync_accumulates_then_averages(train):
    for r in train:
        np.testing.assert_allclose(r["no_sync"], train[0]["no_sync_reference"], rtol=0, atol=1e-6)
    # inside no_sync the gradients were each rank's own (they differ between ranks)
    assert not np.allclose(train[0]["no_sync_local_grad"], train[1]["no_sync_local_grad"])


@pytest.fixture(scope="module")
def unused(run_ranks):
    return run_ranks(UNUSED)


def test_find_unused_parameters(unused):
    # each head is used on one rank: its gradient is that rank's, averaged over 2 ranks
    np.testing.assert_allclose(unused[0]["a_grad"], unused[0]["local_used_grad"] / 2, rtol=1e-12)
    np.testing.assert_allclose(unused[1]["b_grad"], unused[1]["local_used_grad"] / 2, rtol=1e-12)
    for r in unused:
        np.testing.assert_array_equal(unused[0]["a_grad"], r["a_grad"])
        assert bool(r["never_grad_is_none"])  # unused everywhere: .grad untouched, as in torch


def test_unused_parameters_without_the_flag_fail_at_the_next_forward(unused):
    for r in unused:
        assert str(r["error"]).startswith("RuntimeError: Expected to have finished reduction in the prior "
                                          "iteration before starting a new one.")


def test_wrap_time_errors(unused):
    for r in unused:
        assert str(r["no_params"]) == ("DistributedDataParallel is not needed when a module doesn't have any "
                                       "parameter that requires a gradient.")
        assert str(r["mismatch"]).startswith("DDP expects same model across all ranks")


def test_buffers_follow_rank0(unused):
    np.testing.assert_array_equal(unused[0]["running_mean"], unused[1]["running_mean"])


def test_buckets_start_during_backward(unused):
    for r in unused:
        events = r["events"].tolist()
        # reverse order of the parameters: 7, 350, 50, then the first layer's weight (150) whose gradient is last
        assert events[:3] == ["allreduce 7", "allreduce 350", "allreduce 50"]
        assert events.index("first layer's grad") == 3 and events[4:] == ["allreduce 150"]


def test_ddp_over_a_new_group(unused):
    total = unused[0]["group_local_grad"] + unused[1]["group_local_grad"]
    for r in unused:
        np.testing.assert_allclose(r["group_grad"], total / 2, rtol=1e-12)


def test_without_a_group_ddp_raises_torchs_error():
    torch = pytest.importorskip("torch")
    with raises_exactly(ValueError) as t:
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1))
    with raises_exactly(ValueError) as ours:
        DistributedDataParallel(lg.nn.Linear(1, 1))
    assert str(ours.value) == str(t.value)


def test_bucket_assignment_like_torchs_initial_one():
    ps = [lg.zeros(300_000), lg.zeros(10), lg.zeros(10, dtype=lg.float64), lg.zeros(300_000), lg.zeros(5)]
    # float32 bytes: 1.2 MB, 40, -, 1.2 MB, 20. Filled forward, a bucket closes once it reaches its limit,
    # the first float32 bucket's limit is 1 MiB; buckets sorted by their first index, then reduced last-first
    assert assign_buckets(ps, cap_bytes=25 * 2 ** 20, first_bytes=2 ** 20) == [[2], [1, 3, 4], [0]]
    assert assign_buckets(ps, cap_bytes=1, first_bytes=1) == [[4], [3], [2], [1], [0]]
    assert assign_buckets(ps, cap_bytes=2 ** 30, first_bytes=2 ** 30) == [[2], [0, 1, 3, 4]]
