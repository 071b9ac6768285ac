"""Executed instructions per W2 step, by phase, counted with valgrind's callgrind.

Time on this project's shared 2-core machine swings by 20-40% from run to run; the count of
executed instructions does not (the same binary and inputs give the same total to about 0.3%).
This script counts them for W2's own code on a tiny 8-8-8-4 MLP, where the arrays cost next to
nothing, so the count is the engine's Python: what each library adds per step.

Each phase is counted as the difference between a run of 2N steps and a run of N steps, divided
by N, so interpreter start-up, imports and set-up cancel out:

* ``forward``: ``loss()`` alone; ``backward``: ``loss().backward()`` minus forward;
  ``update``: the whole step minus forward and backward.

    python benchmarks/instructions.py                   # leafgrad, the bare engine, hand-written NumPy
    python benchmarks/instructions.py --impl leafgrad --steps 300
    python benchmarks/instructions.py --form module     # nn.Sequential + optim.SGD, as users write it
    python benchmarks/instructions.py --workload W3     # the W3 (or W1) chain: instructions per op

For the chains (W1, W3) each count is per op of the chain, ``forward`` and ``backward`` alone:
the per-op framework cost that W1/W3's ratios against torch measure.

Needs ``valgrind`` on PATH (Debian's package); prints a note and exits 0 without it.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = dict(w2_batch=4)  # (the tiny MLP's batch: see _tiny below)


def _tiny(workloads):
    """W2's code on an 8-8-8-4 MLP: the same ops and nodes, arrays of a few dozen floats."""
    sizes = dataclasses.replace(workloads.FULL, **SIZES)
    data = workloads.make_data("W2", sizes)
    import numpy as np
    rng = np.random.default_rng(0)
    dims = [(8, 8), (8,), (8, 8), (8,), (8, 4), (4,)]
    for name, shape in zip(workloads.MLP_PARAMS, dims):
        data[name] = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    data["x"] = rng.standard_normal((SIZES["w2_batch"], 8)).astype(np.float32)
    data["y"] = rng.integers(0, 4, SIZES["w2_batch"]).astype(np.int64)
    return sizes, data


def _chain_child(impl: str, phase: str, n_ops: int, workload: str) -> None:
    """Build the W1/W3 chain of ``n_ops`` ops (after a warm-up chain), then run its backward in phase ``backward``."""
    import workloads
    import leafgrad as lib
    x = workloads.make_data(workload, workloads.FULL)["x"]
    sizes = dataclasses.replace(workloads.FULL, w1_ops=n_ops, w3_ops=n_ops)
    warm = workloads.ChainBench(lib, workloads.chain_ops(workload, dataclasses.replace(sizes, w1_ops=40, w3_ops=40)), x)
    warm.step()
    bench = workloads.ChainBench(lib, workloads.chain_ops(workload, sizes), x)
    out = bench._forward()
    if phase == "backward":
        out.backward()


def _child(impl: str, phase: str, steps: int, form: str) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent / "src"))
    if form in ("W1", "W3"):
        _chain_child(impl, phase, steps, form)
        return
    import workloads
    sizes, data = _tiny(workloads)
    if impl == "numpy":
        import numpy_ref
        bench = numpy_ref.NumpyMLP(data)  # (the tiny MLP's own weights, as the other implementations get)
        run = bench.step
    else:
        if impl == "bare":
            import bare_engine
            lib = bare_engine.bare
        else:
            import leafgrad as lib
        bench = (workloads.MLPModuleBench(lib, data) if form == "module" else workloads.MLPBench(lib, data))
        if phase == "forward":
            def run():
                bench.loss()
        elif phase == "backward":
            def run():
                bench.loss().backward()
                for p in bench.params:
                    p.grad = None
        else:
            run = bench.step
    for _ in range(3):  # (warm: caches, first-use set-up)
        run()
    for _ in range(steps):
        run()


def _count(impl: str, phase: str, steps: int, form: str) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
           "--child", impl, phase, str(steps), form]
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or m is None:
        raise RuntimeError(f"callgrind run failed ({impl} {phase}):\n{out.stderr[-2000:]}")
    return int(m.group(1))


def per_step(impl: str, phase: str, steps: int, form: str) -> float:
    return (_count(impl, phase, 2 * steps, form) - _count(impl, phase, steps, form)) / steps


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], int(argv[3]), argv[4])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impl", default="leafgrad,bare,numpy")
    ap.add_argument("--steps", type=int, default=200, help="N: each count is (2N steps - N steps) / N")
    ap.add_argument("--form", choices=("manual", "module"), default="manual",
                    help="manual: W2's functional code and SGD by hand; module: nn.Sequential, F.cross_entropy, "
                         "optim.SGD with zero_grad()/step() and loss.item()")
    ap.add_argument("--workload", choices=("W2", "W1", "W3"), default="W2",
                    help="W2: the tiny MLP step by phase; W1/W3: the chain, instructions per op (forward, backward)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing counted (apt-get install valgrind)")
        return 0
    if args.workload != "W2":
        n = args.steps * 10
        print(f"{args.workload} chain, leafgrad: instructions per op ((2N - N ops) / N, N = {n})")
        fwd = per_step("leafgrad", "forward", n, args.workload)
        fb = per_step("leafgrad", "backward", n, args.workload)
        print(f"  forward {fwd:9.0f}   backward {fb - fwd:9.0f}   total {fb:9.0f}")
        return 0
    print(f"W2 on an 8-8-8-4 MLP, batch {SIZES['w2_batch']}, {args.form} form: thousands of instructions per step")
    print(f"  {'impl':10s} {'forward':>9s} {'backward':>9s} {'update':>9s} {'step':>9s}")
    for impl in args.impl.split(","):
        if impl == "numpy":
            step = per_step(impl, "step", args.steps, args.form)
            print(f"  {impl:10s} {'':>9s} {'':>9s} {'':>9s} {step / 1e3:9.0f}")
            continue
        if impl == "bare" and args.form == "module":
            continue  # (the bare engine has no nn or optim)
        fwd = per_step(impl, "forward", args.steps, args.form)
        fb = per_step(impl, "backward", args.steps, args.form)
        step = per_step(impl, "step", args.steps, args.form)
        print(f"  {impl:10s} {fwd / 1e3:9.0f} {(fb - fwd) / 1e3:9.0f} {(step - fb) / 1e3:9.0f} {step / 1e3:9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
