"""Past one process: a DDP training step at 1 and 2 MPI ranks, and DataLoader throughput at 0 and 2 workers.

    python benchmarks/distributed_bench.py            # full sizes (about a minute)
    python benchmarks/distributed_bench.py --quick    # tiny sizes: proves it runs (CI); no timing assertions

DDP: an MLP (784-512-256-10, float32), the same per-rank batch at 1 and 2 ranks (weak
scaling: 2 ranks do twice the samples per step). Reported: the median step time, samples per
second, and the time of one allreduce of all the gradients alone, which is the communication
a step cannot avoid. DataLoader: a dataset whose ``__getitem__`` is slow, once by waiting
(``sleep``, like reading a file or a socket) and once by computing (a NumPy loop, like
decoding or augmenting), at ``num_workers`` 0 and 2. Each rank or worker is a process; the
script prints what the machine offers (cores, load), which is what limits the scaling here.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")
sys.path.insert(0, SRC)


# ----------------------------------------------------------------------------- DDP, inside each rank
def ddp_rank(steps: int, batch: int, hidden: int) -> None:
    import numpy as np
    import leafgrad as torch
    import leafgrad.distributed as dist
    from leafgrad.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden // 2),
                                torch.nn.ReLU(), torch.nn.Linear(hidden // 2, 10))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    rng = np.random.default_rng(rank)
    x = torch.from_numpy(rng.standard_normal((batch, 784)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, batch))
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for step in range(steps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        opt.step()
        if step >= 3:  # the first steps warm caches and MPI's connections
            times.append(time.perf_counter() - t0)
    grads = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    comm = []
    for _ in range(max(3, steps // 2)):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(grads)
        comm.append(time.perf_counter() - t0)
    if rank == 0:
        print(json.dumps({"world": world, "step_ms": statistics.median(times) * 1e3,
                          "allreduce_ms": statistics.median(comm) * 1e3, "grad_mb": grads.numel() * 4 / 2 ** 20,
                          "samples_per_s": world * batch / statistics.median(times)}))
    dist.destroy_process_group()


def run_ddp(world: int, args) -> dict:
    from leafgrad.distributed._launch import find_mpiexec, loopback_env
    mpiexec = find_mpiexec()
    env = loopback_env(dict(os.environ))
    env.update(PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPIEXEC_TIMEOUT=str(args.timeout))
    cmd = [mpiexec, "-n", str(world), sys.executable, __file__, "--ddp-rank", str(args.steps), str(args.batch),
           str(args.hidden)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout + 30)
    if out.returncode != 0:
        raise RuntimeError(f"{world} ranks failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- DataLoader
class SlowDataset:
    """``__getitem__`` takes ``cost`` seconds: waiting (``mode="sleep"``) or computing (``mode="cpu"``)."""

    def __init__(self, n: int, cost: float, mode: str) -> None:
        self.n, self.cost, self.mode = n, cost, mode

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        import numpy as np
        if self.mode == "sleep":
            time.sleep(self.cost)
        else:
            end = time.process_time() + self.cost
            a = np.ones(64)
            while time.process_time() < end:
                a = np.sqrt(a + 1.0)
        return np.full(16, i, dtype=np.float32)


def loader_throughput(workers: int, mode: str, args, lib: str = "leafgrad") -> float:
    """Samples per second of one epoch, worker start-up included (what a user's epoch costs)."""
    if lib == "torch":
        from torch.utils.data import DataLoader
    else:
        from leafgrad.utils.data import DataLoader
    ds = SlowDataset(args.samples, args.cost, mode)
    loader = DataLoader(ds, batch_size=8, num_workers=workers)
    t0 = time.perf_counter()
    n = sum(len(b) for b in loader)
    assert n == args.samples
    return n / (time.perf_counter() - t0)


# ----------------------------------------------------------------------------- report
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny sizes, to prove the benchmark runs")
    p.add_argument("--timeout", type=int, default=300, help="seconds allowed per launch of the ranks")
    p.add_argument("--ddp-rank", nargs=3, type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.ddp_rank:
        ddp_rank(*args.ddp_rank)
        return 0
    args.steps, args.batch, args.hidden = (3, 16, 64) if args.quick else (30, 128, 512)
    args.samples, args.cost = (32, 0.001) if args.quick else (400, 0.005)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"machine: {cores} cores usable, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")

    try:
        import mpi4py  # noqa: F401
        from leafgrad.distributed._launch import find_mpiexec
        have_mpi = find_mpiexec() is not None
    except ImportError:
        have_mpi = False
    if have_mpi:
        print(f"\nDDP step, MLP 784-{args.hidden}-{args.hidden // 2}-10 float32, batch {args.batch} per rank, "
              f"median of {args.steps} steps")
        print(f"{'ranks':>5} {'step ms':>9} {'samples/s':>10} {'allreduce of grads ms':>22} {'grad MiB':>9}")
        rows = {w: run_ddp(w, args) for w in (1, 2)}
        for w, r in rows.items():
            print(f"{w:>5} {r['step_ms']:>9.2f} {r['samples_per_s']:>10.0f} {r['allreduce_ms']:>22.3f} "
                  f"{r['grad_mb']:>9.2f}")
        speedup = rows[2]["samples_per_s"] / rows[1]["samples_per_s"]
        print(f"2-rank throughput / 1-rank: {speedup:.2f}x (ideal 2x with 2 free cores); the step grew by "
              f"{rows[2]['step_ms'] - rows[1]['step_ms']:.2f} ms, of which the gradient allreduce alone is "
              f"{rows[2]['allreduce_ms']:.2f} ms")
    else:
        print("\nDDP: skipped (pip install -e '.[distributed]' for mpi4py and mpiexec)")

    print(f"\nDataLoader, {args.samples} samples, __getitem__ {args.cost * 1e3:.0f} ms each, batch 8")
    try:
        import torch  # noqa: F401  (the same loader on torch, for scale: same dataset, same machine, same moment)
        libs = ("leafgrad", "torch")
    except ImportError:
        libs = ("leafgrad",)
    print(f"{'library':>9} {'getitem':>8} {'workers':>8} {'samples/s':>10} {'vs 0 workers':>13}")
    for mode in ("sleep", "cpu"):
        for lib in libs:
            base = loader_throughput(0, mode, args, lib)
            two = loader_throughput(2, mode, args, lib)
            print(f"{lib:>9} {mode:>8} {0:>8} {base:>10.0f} {1.0:>12.2f}x")
            print(f"{lib:>9} {mode:>8} {2:>8} {two:>10.0f} {two / base:>12.2f}x")
    print("\nWhat limits the scaling here: a waiting __getitem__ overlaps across workers almost perfectly; a "
          "computing one and a DDP step need a free core per process, and this machine has "
          f"{cores} shared by everything running on it (load above), plus the main process that collates and "
          "hands out batches, and MPI's copies of the gradients.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
