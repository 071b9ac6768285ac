"""The ``leafgrad`` command.

    leafgrad run [--lang zh] [--graph out.svg] [--nproc-per-node N] SCRIPT.py [args...]
        run a PyTorch script on leafgrad (``import torch`` resolves to leafgrad, in the
        processes it starts too); on an autograd error, print where it happened in your
        code, the error, and what it means; with --graph, draw the graph of the failing
        backward(); with --nproc-per-node N, run N ranks through mpiexec as torchrun would.
    leafgrad explain [--lang zh] "MESSAGE"      explain a pasted (PyTorch or leafgrad) error message
    leafgrad tour [--lang zh] [--pause]         the seed articles' topics, run live and explained
    leafgrad demo [args...]                     the demo (leafgrad.demo)
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import runpy
import sys
import traceback
import warnings

from ._torch_alias import SHIM_DIR, TorchAlias, aliased_modules, install

__all__ = ["main", "torch_alias"]


# ----------------------------------------------------------------------------- import torch -> leafgrad
@contextlib.contextmanager
def torch_alias():
    """While active, ``import torch`` (and torch.nn, torch.optim, ...) gives leafgrad."""
    saved = aliased_modules()
    for k in saved:
        del sys.modules[k]
    had_finder = any(isinstance(f, TorchAlias) for f in sys.meta_path)
    finder = install()
    try:
        yield finder
    finally:
        if not had_finder:
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(finder)
        for k in aliased_modules():
            del sys.modules[k]
        sys.modules.update(saved)


# ----------------------------------------------------------------------------- reporting an error
def error_line(exc: BaseException) -> str:
    """``RuntimeError: message`` as PyTorch users know it (leafgrad raises torch's own classes)."""
    return "".join(traceback.format_exception_only(type(exc), exc))


def _is_ours(filename: str) -> bool:
    from .errors import _PKG_DIR
    return filename.startswith(_PKG_DIR) or os.path.basename(filename) == "runpy.py" or filename.startswith("<frozen")


def _user_tb(tb):
    """The traceback entries in the user's code (leafgrad, runpy and this CLI left out)."""
    return [fs for fs in traceback.extract_tb(tb) if not _is_ours(fs.filename)]


def _report(exc: BaseException, lang: str, graph: str | None, err=None) -> None:
    from . import explain as _explain_mod
    from .explain._core import match_message, ui
    from .errors import code_of
    err = err or sys.stderr
    w = err.write
    code = code_of(exc)
    if code is None and isinstance(exc, Exception):
        code = match_message(str(exc))
    entries = _user_tb(exc.__traceback__)
    if code is None:
        # not an autograd error: the usual traceback, without leafgrad's and the runner's frames
        w("Traceback (most recent call last):\n")
        w("".join(traceback.format_list(entries)))
        w("".join(traceback.format_exception_only(type(exc), exc)))
        return
    w(f"{ui('run.where', lang)}:\n")
    if entries:
        w("".join(traceback.format_list(entries[-1:])))
    w("\n" + error_line(exc))
    w("\n" + str(_explain_mod.explain(exc, lang=lang)))
    if graph:
        _draw_failure(exc, graph, lang, w)


def _draw_failure(exc, path: str, lang: str, w) -> None:
    from .explain._core import ui
    details = getattr(exc, "details", None) or {}
    roots = list(details.get("roots") or ())
    if not roots:
        t = details.get("tensor")
        if t is not None and getattr(t, "_grad_fn", None) is not None:
            roots = [t]
    if not roots:
        w("\n" + ui("run.graph_none", lang) + "\n")
        return
    frame = None
    tb = exc.__traceback__
    while tb is not None:
        if not _is_ours(tb.tb_frame.f_code.co_filename):
            frame = tb.tb_frame
        tb = tb.tb_next
    try:
        from . import viz
        viz.draw(*roots, frame=frame).save(path)
        w("\n" + ui("run.graph", lang, path=path) + "\n")
    except Exception as e:  # drawing must never hide the error itself
        w("\n" + ui("run.nograph", lang, reason=f"{type(e).__name__}: {e}") + "\n")


# ----------------------------------------------------------------------------- commands
def _launch_ranks(args) -> int:
    from .distributed._launch import launch
    rank_argv = ["--lang", args.lang] + (["--graph", args.graph] if args.graph else []) + [args.script, *args.args]
    return launch(args.nproc_per_node, rank_argv, args.master_addr, args.master_port)


@contextlib.contextmanager
def _children_import_leafgrad():
    """Processes started from the script (spawned workers, ranks) find the torch shim first on their path."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = SHIM_DIR + (os.pathsep + old if old else "")
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def cmd_run(args) -> int:
    script = args.script
    if not os.path.exists(script):
        sys.stderr.write(f"leafgrad run: can't open file {script!r}: No such file or directory\n")
        return 2
    if args.nproc_per_node is not None:
        return _launch_ranks(args)
    from .distributed._launch import set_rank_env
    set_rank_env()  # a rank of mpiexec: torchrun's RANK, WORLD_SIZE, ... from MPI's variables
    old_argv = sys.argv[:]
    old_path = sys.path[:]
    sys.argv = [script] + list(args.args)
    # the script's folder first, as python does; then the shim, which a spawn child's path copies
    sys.path[:0] = [os.path.dirname(os.path.abspath(script)), SHIM_DIR]
    explained: set = set()
    old_show = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        old_show(message, category, filename, lineno, file, line)
        code = getattr(message, "code", None)
        if code and code not in explained:  # explain each kind of autograd warning once
            explained.add(code)
            from . import explain as _e
            (file or sys.stderr).write(str(_e.explain(message, lang=args.lang)) + "\n")

    warnings.showwarning = show
    try:
        with torch_alias(), _children_import_leafgrad():
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as e:
                return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # report it our way, then fail like python would
                sys.stdout.flush()
                _report(exc, args.lang, args.graph)
                return 1
    finally:
        warnings.showwarning = old_show
        sys.argv = old_argv
        sys.path[:] = old_path
        sys.stdout.flush()
    return 0


def cmd_explain(args, parser) -> int:
    from .explain._core import CODES, explain, match_message
    message = " ".join(args.message) if args.message else ""
    if not message and sys.stdin.isatty():  # nothing given and nothing piped in: say how to use it
        parser.print_usage()
        print("  leafgrad explain 'RuntimeError: ...'   a pasted message (or pipe one in: ... | leafgrad explain -)\n"
              f"  leafgrad explain LG110                 the explanation of a code ({min(CODES)}..{max(CODES)})")
        return 2
    if not message or message == "-":
        message = sys.stdin.read()
    print(explain(message, lang=args.lang), end="")
    return 0 if message.strip().upper() in CODES or match_message(message) else 1


def cmd_tour(args, parser) -> int:
    from .explain.tour import STEPS, _sections, run_tour
    keys = [k for k, _ in STEPS]
    if args.list:
        titles = _sections(args.lang)
        for k in keys:
            print(f"{k:<24} {titles.get(k, (k, ''))[0]}")
        return 0
    unknown = [k for k in args.only or () if k not in keys]
    if unknown:
        parser.error(f"unknown tour step {', '.join(map(repr, unknown))}; the steps are: {', '.join(keys)} "
                     "(leafgrad tour --list)")
    return run_tour(lang=args.lang, pause=args.pause, only=args.only or None)


#: what ``leafgrad demo`` imports beyond the base install, and the extra that brings it
DEMO_NEEDS = {"sklearn": "scikit-learn", "tqdm": "tqdm"}


def cmd_demo(rest: list) -> int:
    import importlib.util
    missing = [pkg for mod, pkg in DEMO_NEEDS.items() if importlib.util.find_spec(mod) is None]
    if missing and not {"-h", "--help"} & set(rest):
        print(f"leafgrad demo needs the demo extra ({', '.join(missing)} not installed): "
              "pip install \"leafgrad[demo]\" (or, in a checkout, pip install -e \".[demo]\")", file=sys.stderr)
        return 2
    demo = importlib.import_module("leafgrad.demo")
    res = demo.main(rest, prog="leafgrad demo")
    return res if isinstance(res, int) else 0


def _parser() -> argparse.ArgumentParser:
    from . import __leafgrad_version__
    p = argparse.ArgumentParser(prog="leafgrad", description="PyTorch's autograd, drawn and explained.")
    p.add_argument("--version", action="version",
                   version=f"leafgrad {__leafgrad_version__} (torch 2.13's semantics)")
    sub = p.add_subparsers(dest="command", metavar="{run,explain,tour,demo}")
    r = sub.add_parser("run", help="run a PyTorch script on leafgrad and explain its autograd errors")
    r.add_argument("--lang", choices=("en", "zh"), default="en")
    r.add_argument("--graph", metavar="OUT.svg", help="draw the graph of a failing backward() here (.svg/.dot/.txt)")
    r.add_argument("--nproc-per-node", "--nproc_per_node", type=int, dest="nproc_per_node", metavar="N",
                   help="start N ranks through mpiexec, with torchrun's environment (RANK, WORLD_SIZE, ...)")
    r.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1",
                   help="MASTER_ADDR given to the ranks (this machine's loopback by default)")
    r.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=29500,
                   help="MASTER_PORT given to the ranks (MPI does the rendezvous; scripts may read it)")
    r.add_argument("script")
    r.add_argument("args", nargs=argparse.REMAINDER)
    e = sub.add_parser("explain", help="explain a pasted error message")
    e.add_argument("--lang", choices=("en", "zh"), default="en")
    e.add_argument("message", nargs="*")
    e.set_defaults(parser=e)  # (its usage and errors name "leafgrad explain")
    t = sub.add_parser("tour", help="a live tour of autograd")
    t.add_argument("--lang", choices=("en", "zh"), default="en")
    t.add_argument("--pause", action="store_true", help="wait for Enter between steps")
    t.add_argument("--only", nargs="*", help="run only these steps (by key: see --list)")
    t.add_argument("--list", action="store_true", help="list the steps' keys and titles, and run none")
    t.set_defaults(parser=t)
    sub.add_parser("demo", help="run the demo (leafgrad.demo)", add_help=False)
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "demo":
        return cmd_demo(argv[1:])
    p = _parser()
    args = p.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "explain":
        return cmd_explain(args, args.parser)
    if args.command == "tour":
        return cmd_tour(args, args.parser)
    p.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
