"""The `leafgrad` command: run (seed snippets against real torch), explain, tour, demo."""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import textwrap
import types
import xml.etree.ElementTree as ET

import pytest

import leafgrad
from leafgrad import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNIPPETS = sorted(glob.glob(os.path.join(ROOT, "tests", "explain", "seed_snippets", "*.py")))
SRC = os.path.join(ROOT, "src")

# snippets that fail, with the code leafgrad must explain (None: not an autograd error)
FAILING = {
    "s000_4_detach_saved.py": "LG103",
    "s001_1_leaves.py": None,  # .cuda() without a GPU build
    "s001_4_no_retain_graph.py": "LG104",
    "s003_1_empty_requires_grad.py": "LG102",
    "s004_1_inplace.py": "LG102",
    "s004_2_add_inplace.py": "LG101",
    "s004_4_no_grad.py": "LG105",
}

_TORCH_RUNNER = textwrap.dedent("""
    import contextlib, io, json, runpy, sys, warnings
    warnings.simplefilter("ignore")
    out = {}
    for path in sys.argv[1:]:
        buf = io.StringIO()
        failed = False
        with contextlib.redirect_stdout(buf):
            try:
                runpy.run_path(path, run_name="__main__")
            except BaseException:
                failed = True
        out[path] = [buf.getvalue(), failed]
    print(json.dumps(out))
""")


def _norm(text: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


@pytest.fixture(scope="module")
def torch_outputs():
    pytest.importorskip("torch")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-c", _TORCH_RUNNER, *SNIPPETS], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_there_are_seed_snippets():
    assert len(SNIPPETS) >= 15
    assert set(FAILING) <= {os.path.basename(p) for p in SNIPPETS}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("path", SNIPPETS, ids=[os.path.basename(p) for p in SNIPPETS])
def test_seed_snippet_prints_what_torch_prints(path, torch_outputs, capsys):
    rc = cli.main(["run", path])
    out, err = capsys.readouterr()
    torch_out, torch_failed = torch_outputs[path]
    assert _norm(out) == _norm(torch_out)
    name = os.path.basename(path)
    assert (rc != 0) == torch_failed == (name in FAILING), (rc, err[-1500:])
    code = FAILING.get(name)
    if code is not None:
        assert f"[{code}]" in err, err
        assert "What happened" in err and "Fixes" in err
        assert f'File "{path}"' in err  # the last user frame
        assert "RuntimeError: " in err and "leafgrad.errors" not in err
    elif name in FAILING:
        assert "Traceback (most recent call last)" in err and "[LG" not in err


def test_run_in_a_subprocess_zh_with_graph(tmp_path):
    script = os.path.join(ROOT, "tests", "explain", "seed_snippets", "s000_4_detach_saved.py")
    out_svg = tmp_path / "fail.svg"
    env = dict(os.environ, PYTHONPATH=SRC)
    res = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--lang", "zh", "--graph", str(out_svg), script],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert res.returncode == 1
    assert "[LG103]" in res.stderr and "发生了什么" in res.stderr and "s000_4_detach_saved.py:7" in res.stderr
    root = ET.parse(str(out_svg)).getroot()
    assert root.tag.endswith("svg")
    assert "saved result" in out_svg.read_text() and "STALE" in out_svg.read_text()


def test_run_passes_args_and_exit_code(tmp_path, capsys):
    script = tmp_path / "args.py"
    script.write_text("import sys, torch, torch.nn.functional as F\n"
                      "print(sys.argv[1:], torch.__name__, F.__name__)\n"
                      "sys.exit(3)\n")
    rc = cli.main(["run", str(script), "a", "--b"])
    out, _ = capsys.readouterr()
    assert rc == 3
    assert out == "['a', '--b'] leafgrad leafgrad.nn.functional\n"
    assert cli.main(["run", str(tmp_path / "missing.py")]) == 2


def test_run_explains_each_warning_once(tmp_path, capsys):
    script = tmp_path / "warn.py"
    script.write_text("import torch\n"
                      "x = torch.ones(2, requires_grad=True)\n"
                      "y = x * 2\n"
                      "print(y.grad)\n"
                      "print(y.grad)\n")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        old = warnings.showwarning
        try:
            warnings.showwarning = lambda *a, **k: None
            rc = cli.main(["run", str(script)])
        finally:
            warnings.showwarning = old
    out, err = capsys.readouterr()
    assert rc == 0 and out == "None\nNone\n"
    assert err.count("[LG108]") <= 1


def test_torch_alias_is_undone():
    before = sys.modules.get("torch")
    with cli.torch_alias():
        import torch as aliased
        import torch.nn.functional as F  # noqa: F401
        assert aliased is leafgrad
        assert sys.modules["torch.nn"] is sys.modules["leafgrad.nn"]
    assert sys.modules.get("torch") is before
    assert "torch.nn" not in sys.modules or sys.modules["torch.nn"] is not sys.modules["leafgrad.nn"]
    assert leafgrad.__spec__.name == "leafgrad"
    assert sys.modules["leafgrad.nn"].__spec__.name == "leafgrad.nn"


def test_explain_command(capsys, monkeypatch):
    assert cli.main(["explain", "RuntimeError: Trying to backward through the graph a second time"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("[LG104]") and "retain_graph=True" in out
    assert cli.main(["explain", "--lang", "zh", "grad can be implicitly created only for scalar outputs"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("[LG106]") and "怎么改" in out
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("element 0 of tensors does not require grad and "
                                                               "does not have a grad_fn"))
    assert cli.main(["explain", "-"]) == 0
    assert capsys.readouterr()[0].startswith("[LG105]")
    assert cli.main(["explain", "hello world"]) == 1


RAISING_STEPS = {"requires-grad": "LG107", "inplace-leaf": "LG101", "saved-modified": "LG103",
                 "retain-graph": "LG104", "no-grad": "LG105"}


def test_tour_steps_behave_as_torch_does():
    from leafgrad.explain.tour import STEPS, run_step
    keys = [k for k, _ in STEPS]
    assert len(keys) == 14 and len(set(keys)) == 14
    for key, code in STEPS:
        res = run_step(key, code)
        err = res["error"]
        if key in RAISING_STEPS:
            assert err is not None and err.code == RAISING_STEPS[key], (key, err)
        else:
            assert err is None, (key, err)
    res = run_step("intermediate-grad", dict(STEPS)["intermediate-grad"])
    assert res["output"] == "tensor(32.)\nNone\n"
    assert any(getattr(w.message, "code", None) == "LG108" for w in res["warnings"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tour_command(lang, capsys):
    assert cli.main(["tour", "--lang", lang]) == 0
    out, _ = capsys.readouterr()
    from leafgrad.explain.tour import STEPS, _sections
    titles = _sections(lang)
    for key, _ in STEPS:
        assert titles[key][0] in out, key
    for code in RAISING_STEPS.values():
        assert f"[{code}]" in out
    assert ("Why:" in out) if lang == "en" else ("为什么:" in out)


def test_tour_pause_quits(monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert cli.main(["tour", "--pause"]) == 0
    out, _ = capsys.readouterr()
    assert "Step 1/14" in out and "Step 2/14" not in out


def test_demo_dispatch(monkeypatch):
    calls = []
    fake = types.ModuleType("leafgrad.demo")
    fake.main = lambda argv, prog: calls.append((argv, prog)) or 0
    monkeypatch.setitem(sys.modules, "leafgrad.demo", fake)
    monkeypatch.setattr(cli, "DEMO_NEEDS", {})  # (the extra's modules are checked before the import)
    assert cli.main(["demo", "--quick", "x"]) == 0
    assert calls == [(["--quick", "x"], "leafgrad demo")]


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 2
    assert "run" in capsys.readouterr()[0]
