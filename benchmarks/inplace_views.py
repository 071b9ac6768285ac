#!/usr/bin/env python
"""A long chain of in-place writes through views, leafgrad against torch (issue 13: "within 2x torch").

Each step is ``y[i % 100].add_(1.0)`` on a clone of a leaf that requires grad: a view (``select``),
an in-place write into it (torch's ``CopySlices`` over the base), so the base's history grows by one
node per write; then one ``y.sum().backward()`` through all of them. The chain is the worst case of
in-place autograd (every write rebases the base's history), and the one a user meets when filling
a tensor element by element in a loop.

Both libraries run in this process, one thread each, in alternating rounds (drift of a shared
machine hits both alike); the table shows the minimum microseconds per write over the rounds and
the ratio leafgrad / torch, for the forward (the writes) and the backward. ``gc`` is leafgrad's
forward again with the cyclic garbage collector switched off, to show its share: nothing in the
chain is a cycle (it is freed by reference counting), but every object it keeps alive is traversed
by the collector's full collections while it grows.

Usage: ``python benchmarks/inplace_views.py [--writes 100000] [--rounds 3]``; ``--quick`` (CI) runs
a tiny chain once, to prove the script works, and checks both libraries' gradients agree.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import numpy as np  # noqa: E402


def chain(lib, writes: int, collect: bool = True) -> tuple[float, float, np.ndarray]:
    """(forward us per write, backward us per write, the leaf's gradient)."""
    x = lib.zeros(100, requires_grad=True)
    was_on = gc.isenabled()
    if not collect:
        gc.disable()
    try:
        t0 = time.perf_counter()
        y = x.clone()
        for i in range(writes):
            y[i % 100].add_(1.0)
        t1 = time.perf_counter()
        y.sum().backward()
        t2 = time.perf_counter()
    finally:
        if was_on:
            gc.enable()
    del y
    return (t1 - t0) / writes * 1e6, (t2 - t1) / writes * 1e6, x.grad.numpy().copy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="1,000 writes, one round (CI: the script runs)")
    args = ap.parse_args(argv)
    writes, rounds = (1_000, 1) if args.quick else (args.writes, args.rounds)

    import leafgrad
    libs = {"leafgrad": leafgrad}
    try:
        import torch
        torch.set_num_threads(1)
        libs["torch"] = torch
    except ImportError:
        print("torch is not installed: leafgrad alone")
    grads = {name: chain(lib, 200)[2] for name, lib in libs.items()}  # (warm-up, and the same answer)
    if "torch" in grads:
        np.testing.assert_allclose(grads["leafgrad"], grads["torch"])
    best: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, lib in libs.items():
            f, b, _g = chain(lib, writes)
            cur = best.setdefault(name, [f, b])
            cur[0], cur[1] = min(cur[0], f), min(cur[1], b)
        f_nogc = chain(leafgrad, writes, collect=False)[0]
        best["gc"] = [min(best.get("gc", [f_nogc])[0], f_nogc), 0.0]
    print(f"{writes} writes y[i % 100].add_(1.0), then y.sum().backward(); min over {rounds} round(s), us per write")
    print(f"{'':12} {'forward':>9} {'backward':>9}")
    for name in libs:
        f, b = best[name]
        print(f"{name:12} {f:9.1f} {b:9.1f}")
    print(f"{'leafgrad, GC off':12} {best['gc'][0]:9.1f}")
    if "torch" in best:
        (lf, lb), (tf, tb) = best["leafgrad"], best["torch"]
        print(f"leafgrad / torch: forward {lf / tf:.2f}x, backward {lb / tb:.2f}x, total {(lf + lb) / (tf + tb):.2f}x "
              "(issue 13's target: <= 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
