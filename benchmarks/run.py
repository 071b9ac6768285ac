#!/usr/bin/env python
"""Benchmark runner: leafgrad vs torch vs hand-written NumPy, one fresh process per measurement.

Why fresh processes: import state, allocator state, caches and leaked graphs of
one measurement must not colour the next, and W5/W6 (peak RSS, import time) are
only meaningful in a fresh interpreter. Why interleaved (ABAB...): slow drift of
the machine (thermal, other load) then hits every implementation alike.

Flow: probe which implementations import (skip those that do not, saying why),
CHECK that all implementations agree on loss and gradients from identical
NumPy-generated weights (exit 1 loudly if not), then time, then print a table of
medians with ratios vs NumPy and vs torch, optionally saving JSON.

This file is also the child: ``run.py _child MODE WORKLOAD IMPL SIZES OUT``. It
imports only the standard library at top level so that a child imports exactly
what its measurement needs (W6 children do not even use this file).

Usage: see benchmarks/README.md, or ``python benchmarks/run.py --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"  # leafgrad's source tree; put on the children's PYTHONPATH

IMPLS = ("numpy", "torch", "leafgrad")
IMPL_MODULE = {"numpy": "numpy", "torch": "torch", "leafgrad": "leafgrad"}
THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "BLIS_NUM_THREADS",
)
OPENBLAS_TUNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

#: Max normalised error (max|a-b| / max|reference|) per checked quantity.
CHECK_TOL = {"W1": 1e-4, "W2": 1e-4, "W2m": 1e-4, "W3": 1e-3, "W4": 1e-4, "W4m": 1e-4, "W5": 1e-4}


@dataclass(frozen=True)
class WorkloadInfo:
    """Static description of one workload; ``title`` is formatted with the Sizes fields."""

    title: str
    unit: str
    mode: str  # child mode: "time", "rss" or "import"
    checked: bool
    extra_cols: tuple[str, ...] = ()


WORKLOADS: dict[str, WorkloadInfo] = {
    "W1": WorkloadInfo("{w1_ops} chained elementwise ops on {w1_len} float32, fwd+bwd", "us/op", "time", True),
    "W2": WorkloadInfo("MLP 784-256-128-10, batch {w2_batch}, CE, fwd+bwd+SGD", "ms/step", "time", True),
    "W2m": WorkloadInfo("W2 as users write it: nn.Sequential, optim.SGD, zero_grad/step, loss.item()", "ms/step",
                        "time", True),
    "W3": WorkloadInfo("{w3_ops}-op scalar chain (x*1.0001, x+0.0001), fwd+bwd", "ms", "time", True),
    "W4": WorkloadInfo("CNN 2x(conv3x3-relu-pool)+linear, batch {w4_batch}, fwd+bwd+SGD", "ms/step", "time", True),
    "W4m": WorkloadInfo("W4 as users write it: nn.Sequential of Conv2d/ReLU/MaxPool2d/Flatten/Linear, optim.SGD",
                        "ms/step", "time", True),
    "W5": WorkloadInfo(
        "peak RSS, fresh process, {w5_steps} W2 steps at batch {w5_batch}",
        "MiB",
        "rss",
        True,
        ("import MiB", "delta MiB"),
    ),
    "W6": WorkloadInfo("import time in a fresh process (numpy row = import numpy alone)", "ms", "import", False),
}


class ChildError(RuntimeError):
    """A child process failed; the message carries the tail of its stderr."""


# =========================================================================== child side


_LIMITER: Any = None  # keeps the threadpoolctl limit alive for the child's lifetime


def import_impl(impl: str) -> ModuleType | None:
    """Import the library under test (None for the NumPy reference, which needs no library)."""
    import importlib

    return None if impl == "numpy" else importlib.import_module(IMPL_MODULE[impl])


def pin_threads(lib: ModuleType | None) -> dict[str, Any]:
    """Limit every thread pool to 1 and report what is in effect (the env vars are set by the parent)."""
    global _LIMITER
    import numpy  # noqa: F401  (load NumPy's BLAS before threadpoolctl looks for it)
    from threadpoolctl import threadpool_info, threadpool_limits

    _LIMITER = threadpool_limits(limits=1)
    for name in ("set_num_threads", "set_num_interop_threads"):
        fn = getattr(lib, name, None)
        if callable(fn):
            try:
                fn(1)
            except RuntimeError:  # torch refuses interop changes once parallel work started
                pass
    info: dict[str, Any] = {
        "pools": [{k: p.get(k) for k in ("internal_api", "prefix", "num_threads")} for p in threadpool_info()]
    }
    get = getattr(lib, "get_num_threads", None)
    if callable(get):
        info["lib_num_threads"] = int(get())
    return info


def make_bench(impl: str, lib: ModuleType | None, workload: str, sizes: Any) -> Any:
    """The NumPy reference or the library-generic workload, built from the same data."""
    if impl == "numpy":
        import numpy_ref

        return numpy_ref.build(workload, sizes)
    import workloads

    assert lib is not None, f"{impl} needs its library module"
    return workloads.build(lib, workload, sizes)


def time_steps(bench: Any, warmup: int, min_time: float, min_iters: int, max_iters: int) -> list[float]:
    """Per-iteration wall times (s) after ``warmup`` untimed iterations."""
    for _ in range(warmup):
        bench.step()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_iters or (time.perf_counter() - start < min_time and len(times) < max_iters):
        t0 = time.perf_counter()
        bench.step()
        times.append(time.perf_counter() - t0)
    return times


def max_rss_mib() -> float:
    """Peak resident set size of this process so far (ru_maxrss: KiB on Linux, bytes on macOS)."""
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def child_main(argv: list[str]) -> None:
    """Entry point of a measurement child; writes its result to ``out`` (npz for check, else JSON)."""
    mode, workload, impl, sizes_name, out, timing = argv
    lib = import_impl(impl)
    threads = pin_threads(lib)
    import workloads

    if impl == "numpy":
        import numpy_ref  # noqa: F401  (imported before the W5 "after imports" reading)
    sizes = workloads.QUICK if sizes_name == "quick" else workloads.FULL
    result: dict[str, Any] = {"threads": threads}

    if mode == "check":
        import numpy as np

        np.savez(out, **make_bench(impl, lib, workload, sizes).check())
        return
    if mode == "rss":
        result["import_mib"] = max_rss_mib()
        bench = make_bench(impl, lib, workload, sizes)
        t0 = time.perf_counter()
        for _ in range(sizes.w5_steps):
            bench.step()
        result["seconds_per_step"] = (time.perf_counter() - t0) / sizes.w5_steps
        result["value"] = max_rss_mib()
        result["delta_mib"] = result["value"] - result["import_mib"]
    elif mode == "time":
        warmup, min_time, min_iters, max_iters = json.loads(timing)
        bench = make_bench(impl, lib, workload, sizes)
        times = time_steps(bench, warmup, min_time, min_iters, max_iters)
        per_step = statistics.median(times)
        result["iters"] = len(times)
        result["value"] = per_step * 1e6 / sizes.w1_ops if workload == "W1" else per_step * 1e3
        if workload == "W1":
            result["us_per_step"] = per_step * 1e6
    else:
        raise ValueError(f"unknown child mode {mode!r}")
    Path(out).write_text(json.dumps(result))


#: W6 child: nothing but ``time`` is imported before the measured import.
IMPORT_SCRIPT = "import time\nt0 = time.perf_counter()\nimport {module}\nprint((time.perf_counter() - t0) * 1e3)\n"

#: Probe child: does the implementation import, and is it a real package (not an empty namespace dir)?
PROBE_SCRIPT = """
import importlib, sys
import threadpoolctl
m = importlib.import_module({module!r})
if getattr(m, "__file__", None) is None:
    sys.exit("imports only as an empty namespace package (no __init__.py yet) from %s" % list(m.__path__))
if {module!r} != "numpy" and not hasattr(m, "tensor"):
    sys.exit("imported from %s but has no `tensor`" % m.__file__)
print(getattr(m, "__version__", "unknown"))
"""


# =========================================================================== parent side


@dataclass
class Settings:
    """Everything a parent-side step needs to launch children."""

    sizes_name: str
    env: dict[str, str]
    timeout: float
    timing: tuple[int, float, int, int]  # warmup, min_time, min_iters, max_iters
    tmpdir: Path


@dataclass
class Samples:
    """Per-(workload, impl) measurements across repeats."""

    values: list[float] = field(default_factory=list)
    extra: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def child_env(unset_openblas_env: bool) -> dict[str, str]:
    """Environment of every child: single-threaded BLAS/OpenMP, leafgrad's src/ importable."""
    env = dict(os.environ)
    for var in THREAD_ENV_VARS:
        env[var] = "1"
    if unset_openblas_env:
        for var in OPENBLAS_TUNING_VARS:
            env.pop(var, None)
    if SRC.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    return env


def run_process(cmd: list[str], settings: Settings) -> str:
    """Run one child to completion; return stdout or raise ChildError with its stderr tail."""
    try:
        proc = subprocess.run(
            cmd, env=settings.env, capture_output=True, text=True, timeout=settings.timeout, cwd=settings.tmpdir
        )
    except subprocess.TimeoutExpired as exc:
        raise ChildError(f"timed out after {settings.timeout:.0f}s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise ChildError(f"exit code {proc.returncode}:\n{tail}")
    return proc.stdout


def run_child(mode: str, workload: str, impl: str, settings: Settings) -> dict[str, Any]:
    """Launch ``run.py _child`` (or the W6 import script) and parse its result."""
    if mode == "import":
        out = run_process([sys.executable, "-c", IMPORT_SCRIPT.format(module=IMPL_MODULE[impl])], settings)
        return {"value": float(out.strip().splitlines()[-1])}
    suffix = ".npz" if mode == "check" else ".json"
    out_path = settings.tmpdir / f"{mode}-{workload}-{impl}{suffix}"
    out_path.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        str(HERE / "run.py"),
        "_child",
        mode,
        workload,
        impl,
        settings.sizes_name,
        str(out_path),
        json.dumps(settings.timing),
    ]
    run_process(cmd, settings)
    if mode == "check":
        import numpy as np

        with np.load(out_path) as npz:
            return {k: npz[k] for k in npz.files}
    return json.loads(out_path.read_text())


def probe_impls(impls: list[str], settings: Settings) -> tuple[dict[str, str], dict[str, str]]:
    """Split ``impls`` into available (-> version) and skipped (-> reason), in a fresh process each."""
    available: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for impl in impls:
        try:
            out = run_process([sys.executable, "-c", PROBE_SCRIPT.format(module=IMPL_MODULE[impl])], settings)
            available[impl] = out.strip().splitlines()[-1] if out.strip() else "unknown"
        except ChildError as exc:
            skipped[impl] = str(exc).splitlines()[-1]
    return available, skipped


# --------------------------------------------------------------------------- check


def normalised_error(got: Any, ref: Any) -> float:
    """max|got - ref| / max|ref|: a relative error that small gradient entries cannot blow up."""
    import numpy as np

    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        return float("inf")
    if not np.all(np.isfinite(got)):
        return float("inf")
    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-30)
    return float(np.max(np.abs(got - ref))) / scale if ref.size else 0.0


def compare(got: dict[str, Any], ref: dict[str, Any], tol: float) -> dict[str, Any]:
    """Compare every quantity of one implementation's check record with the reference's."""
    missing = sorted(set(ref) ^ set(got))
    errors = {k: normalised_error(got[k], ref[k]) for k in ref if k in got}
    worst = max(errors, key=errors.__getitem__) if errors else None
    bad = sorted(k for k, e in errors.items() if not e <= tol)
    return {
        "ok": not missing and not bad,
        "missing_or_extra": missing,
        "failed": bad,
        "worst": worst,
        "max_err": errors[worst] if worst else None,
        "tol": tol,
        "errors": errors,
    }


def run_checks(workloads: list[str], impls: list[str], settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """Run one check child per (workload, impl) and compare each against NumPy (or the first impl)."""
    report: dict[str, Any] = {}
    failures: list[str] = []
    for workload in (w for w in workloads if WORKLOADS[w].checked):
        records: dict[str, dict[str, Any]] = {}
        for impl in impls:
            try:
                records[impl] = run_child("check", workload, impl, settings)
            except ChildError as exc:
                failures.append(f"{workload}/{impl}: check child failed: {exc}")
        if not records:
            continue
        ref_impl = "numpy" if "numpy" in records else next(iter(records))
        report[workload] = {"reference": ref_impl, "results": {}}
        for impl, record in records.items():
            if impl == ref_impl:
                continue
            res = compare(record, records[ref_impl], CHECK_TOL[workload])
            report[workload]["results"][impl] = res
            status = "OK" if res["ok"] else "MISMATCH"
            print(f"  check {workload}: {impl} vs {ref_impl}: max err {res['max_err']:.2e} ({res['worst']}) {status}")
            if not res["ok"]:
                detail = ", ".join(f"{k}={res['errors'].get(k, float('nan')):.2e}" for k in res["failed"])
                failures.append(
                    f"{workload}/{impl} disagrees with {ref_impl} (tol {res['tol']:.0e}): {detail}"
                    + (f"; missing/extra keys {res['missing_or_extra']}" if res["missing_or_extra"] else "")
                )
        if len(records) == 1:
            print(f"  check {workload}: only {ref_impl} ran, nothing to compare against")
    return report, failures


# --------------------------------------------------------------------------- timing


def run_timings(
    workloads: list[str], impls: list[str], repeats: int, settings: Settings
) -> tuple[dict[str, dict[str, Samples]], dict[str, Any]]:
    """Interleave impls (ABAB...) across ``repeats`` fresh-process runs of every workload."""
    samples = {w: {impl: Samples() for impl in impls} for w in workloads}
    threads: dict[str, Any] = {}
    for workload in workloads:
        info = WORKLOADS[workload]
        for rep in range(repeats):
            line = []
            for impl in impls:
                s = samples[workload][impl]
                try:
                    res = run_child(info.mode, workload, impl, settings)
                except ChildError as exc:
                    s.errors.append(str(exc))
                    line.append(f"{impl} FAILED")
                    continue
                s.values.append(res["value"])
                for key in ("import_mib", "delta_mib", "us_per_step", "seconds_per_step"):
                    if key in res:
                        s.extra.setdefault(key, []).append(res[key])
                if "threads" in res:
                    threads.setdefault(impl, res["threads"])
                line.append(f"{impl} {res['value']:.4g}")
            print(f"  {workload} rep {rep + 1}/{repeats}: " + ", ".join(line) + f" ({info.unit})", flush=True)
    return samples, threads


def thread_warnings(threads: dict[str, Any]) -> list[str]:
    """Any thread pool a child saw with more than one thread (pinning failed)."""
    warnings = []
    for impl, info in threads.items():
        for pool in info.get("pools", []):
            if pool.get("num_threads") not in (None, 1):
                warnings.append(f"{impl}: {pool['internal_api']} ({pool['prefix']}) has {pool['num_threads']} threads")
        if info.get("lib_num_threads", 1) != 1:
            warnings.append(f"{impl}: get_num_threads() = {info['lib_num_threads']}")
    return warnings


# --------------------------------------------------------------------------- reporting


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarise(samples: dict[str, dict[str, Samples]], sizes: Any) -> dict[str, Any]:
    """Medians, spreads and ratios (impl / reference: >1 means slower or bigger) per workload."""
    summary: dict[str, Any] = {}
    for workload, per_impl in samples.items():
        info = WORKLOADS[workload]
        medians = {impl: median_or_none(s.values) for impl, s in per_impl.items()}
        rows = {}
        for impl, s in per_impl.items():
            m = medians[impl]
            rows[impl] = {
                "samples": s.values,
                "median": m,
                "min": min(s.values) if s.values else None,
                "max": max(s.values) if s.values else None,
                "vs_numpy": _ratio(m, medians.get("numpy")),
                "vs_torch": _ratio(m, medians.get("torch")),
                "extra": {k: {"samples": v, "median": statistics.median(v)} for k, v in s.extra.items()},
                "errors": s.errors,
            }
        summary[workload] = {
            "title": info.title.format(**vars(sizes)),
            "unit": info.unit,
            "impls": rows,
        }
    return summary


def _ratio(value: float | None, ref: float | None) -> float | None:
    return value / ref if value is not None and ref else None


def _fmt(x: float | None, spec: str = ".4g") -> str:
    return "-" if x is None else format(x, spec)


def print_table(workload: str, entry: dict[str, Any], repeats: int) -> None:
    """One table per workload: medians over fresh processes and ratios vs numpy and torch."""
    info = WORKLOADS[workload]
    print(f"\n{workload}: {entry['title']}  [{entry['unit']}, median of {repeats} fresh processes]")
    extra_keys = {"import MiB": "import_mib", "delta MiB": "delta_mib"}
    header = f"  {'impl':<9}{'median':>11}{'min':>11}{'max':>11}{'vs numpy':>10}{'vs torch':>10}"
    header += "".join(f"{c:>12}" for c in info.extra_cols)
    print(header)
    for impl, row in entry["impls"].items():
        line = f"  {impl:<9}{_fmt(row['median']):>11}{_fmt(row['min']):>11}{_fmt(row['max']):>11}"
        line += f"{_fmt(row['vs_numpy'], '.2f') + 'x':>10}{_fmt(row['vs_torch'], '.2f') + 'x':>10}"
        for col in info.extra_cols:
            extra = row["extra"].get(extra_keys[col])
            line += f"{_fmt(extra['median'] if extra else None, '.1f'):>12}"
        if row["errors"]:
            line += f"   ({len(row['errors'])} failed runs)"
        print(line)
    torch_row = entry["impls"].get("torch")
    if workload == "W1" and torch_row and torch_row["median"] is not None:
        print(f"  torch per-op figure: {torch_row['median']:.3g} us per elementwise op (forward + backward, 1 thread)")


# --------------------------------------------------------------------------- main


def parse_list(text: str, allowed: tuple[str, ...] | list[str], what: str) -> list[str]:
    """Parse a comma list, keep the canonical order, reject unknown names."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in items if t not in allowed]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return [a for a in allowed if a in items]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--only", default=",".join(WORKLOADS), help="workloads, e.g. W2,W4 (default: all)")
    p.add_argument("--impl", default=",".join(IMPLS), help="implementations (default: numpy,torch,leafgrad)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, 2 repeats: proves the suite runs (CI)")
    p.add_argument("--repeats", type=int, help="fresh processes per (workload, impl) (default 5, quick 2)")
    p.add_argument("--min-time", type=float, help="seconds of timed iterations per child (default 1.0, quick 0.05)")
    p.add_argument("--json", metavar="PATH", help="save all results, checks and metadata as JSON")
    p.add_argument(
        "--unset-openblas-env",
        action="store_true",
        help="remove OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE from the children's environment",
    )
    p.add_argument("--skip-check", action="store_true", help="skip the correctness check (debugging only)")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds before a child is killed")
    return p.parse_args(argv)


def collect_meta(args: argparse.Namespace, versions: dict[str, str], settings: Settings) -> dict[str, Any]:
    """Machine and environment facts needed to interpret (or reproduce) the numbers."""
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "argv": sys.argv[1:],
        "quick": args.quick,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "versions": versions,
        "child_env": {v: settings.env.get(v) for v in THREAD_ENV_VARS + OPENBLAS_TUNING_VARS},
        "timing": dict(zip(("warmup", "min_time", "min_iters", "max_iters"), settings.timing, strict=True)),
    }


def _compile_leafgrad() -> None:
    """Write leafgrad's bytecode cache first, as an installed package has one (numpy's and torch's
    ship compiled): otherwise W6 would time the compiler, not the import, wherever
    PYTHONDONTWRITEBYTECODE is set."""
    import compileall
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "src" / "leafgrad"), quiet=1)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    workloads = parse_list(args.only, tuple(WORKLOADS), "workload")
    impls = parse_list(args.impl, IMPLS, "implementation")
    repeats = args.repeats or (2 if args.quick else 5)
    min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 1.0)
    timing = (1, min_time, 2, 50) if args.quick else (3, min_time, 5, 10_000)

    with tempfile.TemporaryDirectory(prefix="leafgrad-bench-") as tmp:
        env = child_env(args.unset_openblas_env)
        if "leafgrad" in impls:
            _compile_leafgrad()
        settings = Settings("quick" if args.quick else "full", env, args.timeout, timing, Path(tmp))
        print("probing implementations (fresh process each)...")
        versions, skipped = probe_impls(impls, settings)
        for impl, version in versions.items():
            print(f"  {impl}: {version}")
        for impl, reason in skipped.items():
            print(f"  {impl}: SKIPPED, cannot import: {reason}")
        impls = [i for i in impls if i in versions]
        if not impls:
            print("no implementation could be imported", file=sys.stderr)
            return 1
        env_note = "unset" if args.unset_openblas_env else "inherited"
        blas_env = ", ".join(f"{v}={settings.env.get(v)}" for v in OPENBLAS_TUNING_VARS)
        print(f"children: 1 thread everywhere; OpenBLAS tuning env {env_note} ({blas_env})")

        checks: dict[str, Any] = {}
        if not args.skip_check:
            print("checking that implementations agree (same NumPy-generated weights)...")
            checks, failures = run_checks(workloads, impls, settings)
            if failures:
                print("\nCORRECTNESS CHECK FAILED, no timings taken:", file=sys.stderr)
                for f in failures:
                    print(f"  - {f}", file=sys.stderr)
                print("(narrow with --only/--impl; --skip-check times anyway, for debugging)", file=sys.stderr)
                _save_json(args.json, collect_meta(args, versions, settings), checks, {}, skipped, failures, {})
                return 1

        print(f"timing: {repeats} repeats, impls interleaved in fresh processes...")
        samples, threads = run_timings(workloads, impls, repeats, settings)

    sizes = _sizes(args.quick)
    summary = summarise(samples, sizes)
    for workload, entry in summary.items():
        print_table(workload, entry, repeats)
    warnings = thread_warnings(threads)
    for w in warnings:
        print(f"WARNING: thread pinning: {w}", file=sys.stderr)
    errors = [f"{w}/{i}: {e}" for w, per in samples.items() for i, s in per.items() for e in s.errors]
    for e in errors:
        print(f"ERROR: {e}", file=sys.stderr)
    meta = collect_meta(args, versions, settings)
    meta["threads"] = threads
    _save_json(args.json, meta, checks, summary, skipped, errors, {"thread_warnings": warnings})
    return 1 if errors else 0


def _sizes(quick: bool) -> Any:
    """The Sizes used (imported lazily: the parent must not need NumPy before probing)."""
    sys.path.insert(0, str(HERE))
    import workloads

    return workloads.QUICK if quick else workloads.FULL


def _save_json(
    path: str | None,
    meta: dict[str, Any],
    checks: dict[str, Any],
    results: dict[str, Any],
    skipped: dict[str, str],
    errors: list[str],
    more: dict[str, Any],
) -> None:
    if not path:
        return
    doc = {"meta": meta, "skipped": skipped, "checks": checks, "results": results, "errors": errors, **more}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, indent=2, default=float))
    print(f"\nsaved {path}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        child_main(sys.argv[2:])
    else:
        sys.exit(main(sys.argv[1:]))
