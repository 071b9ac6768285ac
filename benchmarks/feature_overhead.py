"""What the safety features cost on a training step when nothing trips them.

Version checks (a saved tensor compares its version when unpacked; views re-check their
base's version before each use; every in-place write bumps a counter), provenance
records and hook support are always on. This script times the W2 MLP step (and the W1
chain) with each feature in place and with it replaced by a stand-in that does nothing,
interleaved round by round so machine noise hits every variant alike:

- ``all``:         leafgrad as shipped;
- ``no-versions``: SavedTensor.unpack without the version comparison, views without the
                   re-check, in-place writes without the bump;
- ``no-provenance``: the provenance hooks off;
- ``no-hooks``:    the engine's pre/post-hook branch short-circuited (no hook is
                   registered in these workloads, so this measures only the test for them).

CPU time per step, the minimum over rounds decides (least disturbed), the median is shown.

    python benchmarks/feature_overhead.py [--rounds 15]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

import leafgrad  # noqa: E402
from leafgrad import provenance  # noqa: E402
from leafgrad._ops import inplace, registry  # noqa: E402
from leafgrad._tensor import VersionCounter  # noqa: E402
from leafgrad.autograd import engine  # noqa: E402
from leafgrad.autograd.graph import SavedTensor  # noqa: E402
from workloads import FULL, ChainBench, MLPBench, make_data, w1_ops  # noqa: E402


def _unpack_unchecked(self, node=None):
    """SavedTensor.unpack minus the version comparison (the freed check stays: it is needed)."""
    if not self._is_output:
        return self._tensor
    t = leafgrad.Tensor._make(self._data)
    t._vc = self._vc
    if self._requires_grad and node is not None:
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = self._output_nr
    return t


@contextmanager
def without_versions():
    saved = (SavedTensor.unpack, registry._sync_view, VersionCounter.bump, inplace.regenerate_view_grad_fn)
    SavedTensor.unpack = _unpack_unchecked
    registry._sync_view = lambda t: None
    VersionCounter.bump = lambda self, site=None: None
    try:
        yield
    finally:
        SavedTensor.unpack, registry._sync_view, VersionCounter.bump, inplace.regenerate_view_grad_fn = saved


@contextmanager
def without_provenance():
    prev = provenance.set_enabled(False)  # (the registry tests the flag before its per-node walk)
    try:
        yield
    finally:
        provenance.set_enabled(prev)


@contextmanager
def without_hooks():
    pre, post = engine._call_pre_hooks, engine._call_post_hooks
    engine._call_pre_hooks = lambda fn, grads: grads if fn.__class__ is not engine.AccumulateGrad else pre(fn, grads)
    engine._call_post_hooks = lambda post_hooks, outputs, grads: outputs
    try:
        yield
    finally:
        engine._call_pre_hooks, engine._call_post_hooks = pre, post


@contextmanager
def as_shipped():
    yield


VARIANTS = {"all": as_shipped, "no-versions": without_versions, "no-provenance": without_provenance,
            "no-hooks": without_hooks}


def time_steps(bench, steps: int) -> float:
    t0 = time.process_time()
    for _ in range(steps):
        bench.step()
    return (time.process_time() - t0) / steps


def measure(make, steps: int, rounds: int) -> dict:
    samples = {name: [] for name in VARIANTS}
    benches = {}
    for name, variant in VARIANTS.items():
        with variant():
            benches[name] = make()
            time_steps(benches[name], max(1, steps // 4))
    for _ in range(rounds):
        for name, variant in VARIANTS.items():
            with variant():
                samples[name].append(time_steps(benches[name], steps))
    return {name: (min(v), statistics.median(v)) for name, v in samples.items()}


def report(title: str, result: dict) -> None:
    base = result["all"][0]
    print(f"{title}:")
    for name, (best, med) in result.items():
        cost = "" if name == "all" else f"   feature costs {100.0 * (base - best) / best:+.1f}%"
        print(f"  {name:>13}: {best * 1e3:8.3f} ms/step (median {med * 1e3:.3f}){cost}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args(argv)
    try:  # one BLAS thread, as benchmarks/run.py: two threads on two busy cores time the scheduler
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)
    except ImportError:
        print("threadpoolctl is not installed: BLAS runs with its default thread count (pip install threadpoolctl)")
    mlp = make_data("W2", FULL)
    report("W2 MLP step, batch 128", measure(lambda: MLPBench(leafgrad, mlp), 10, args.rounds))
    x = make_data("W1", FULL)["x"]
    ops = w1_ops(FULL)
    report("W1 200-op chain", measure(lambda: ChainBench(leafgrad, ops, x), 10, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
