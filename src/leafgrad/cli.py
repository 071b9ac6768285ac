"""The ``leafgrad`` command.

    leafgrad run [--lang zh] [--graph out.svg] SCRIPT.py [args...]
        run a PyTorch script on leafgrad (``import torch`` resolves to leafgrad); on an
        autograd error, print where it happened in your code, the error, and what it
        means; with --graph, draw the graph of the failing backward().
    leafgrad explain [--lang zh] "MESSAGE"      explain a pasted (PyTorch or leafgrad) error message
    leafgrad tour [--lang zh] [--pause]         the seed articles' topics, run live and explained
    leafgrad demo [args...]                     the demo (leafgrad.demo)
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
import traceback
import warnings

__all__ = ["main", "torch_alias"]


# ----------------------------------------------------------------------------- import torch -> leafgrad
class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real: str) -> None:
        self.real = real
        self._spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.real)
        self._spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module) -> None:
        # module_from_spec() overwrote __spec__ with the alias's: give leafgrad's back
        if self._spec is not None:
            module.__spec__ = self._spec


class _TorchAlias(importlib.abc.MetaPathFinder):
    """``torch`` and ``torch.X`` resolve to ``leafgrad`` and ``leafgrad.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "leafgrad" + fullname[5:]
        try:
            if importlib.util.find_spec(real) is None:
                return None
        except (ImportError, ValueError):
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


@contextlib.contextmanager
def torch_alias():
    """While active, ``import torch`` (and torch.nn, torch.optim, ...) gives leafgrad."""
    import leafgrad
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for k in saved:
        del sys.modules[k]
    finder = _TorchAlias()
    sys.meta_path.insert(0, finder)
    sys.modules["torch"] = leafgrad
    try:
        yield finder
    finally:
        try:
            sys.meta_path.remove(finder)
        except ValueError:
            pass
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
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
def cmd_run(args) -> int:
    script = args.script
    if not os.path.exists(script):
        sys.stderr.write(f"leafgrad run: can't open file {script!r}: No such file or directory\n")
        return 2
    old_argv = sys.argv[:]
    old_path = sys.path[:]
    sys.argv = [script] + list(args.args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
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
        with torch_alias():
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


def cmd_explain(args) -> int:
    from .explain._core import explain, match_message
    message = " ".join(args.message) if args.message else ""
    if not message or message == "-":
        message = sys.stdin.read()
    print(explain(message, lang=args.lang), end="")
    return 0 if match_message(message) else 1


def cmd_tour(args) -> int:
    from .explain.tour import run_tour
    return run_tour(lang=args.lang, pause=args.pause, only=args.only or None)


def cmd_demo(rest: list) -> int:
    demo = importlib.import_module("leafgrad.demo")
    res = demo.main(rest)
    return res if isinstance(res, int) else 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="leafgrad", description="PyTorch's autograd, drawn and explained.")
    sub = p.add_subparsers(dest="command", metavar="{run,explain,tour,demo}")
    r = sub.add_parser("run", help="run a PyTorch script on leafgrad and explain its autograd errors")
    r.add_argument("--lang", choices=("en", "zh"), default="en")
    r.add_argument("--graph", metavar="OUT.svg", help="draw the graph of a failing backward() here (.svg/.dot/.txt)")
    r.add_argument("script")
    r.add_argument("args", nargs=argparse.REMAINDER)
    e = sub.add_parser("explain", help="explain a pasted error message")
    e.add_argument("--lang", choices=("en", "zh"), default="en")
    e.add_argument("message", nargs="*")
    t = sub.add_parser("tour", help="a live tour of autograd")
    t.add_argument("--lang", choices=("en", "zh"), default="en")
    t.add_argument("--pause", action="store_true", help="wait for Enter between steps")
    t.add_argument("--only", nargs="*", help="run only these steps (by key)")
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
        return cmd_explain(args)
    if args.command == "tour":
        return cmd_tour(args)
    p.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
