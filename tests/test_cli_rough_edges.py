"""The command line's small promises: --version, demo's --help, explain's usage and codes,
tour's step list; the base install's demo message; wrapped explanations; packaging metadata."""
import io
import sys
import tomllib
from pathlib import Path

import pytest

import leafgrad
from leafgrad import cli
from leafgrad.explain import _core

ROOT = Path(__file__).resolve().parents[1]


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"leafgrad {leafgrad.__leafgrad_version__} (torch 2.13's semantics)"


def test_demo_help_names_leafgrad_demo(capsys, monkeypatch):
    monkeypatch.setattr(cli, "DEMO_NEEDS", {})  # (--help needs no extra either way)
    with pytest.raises(SystemExit) as info:
        cli.main(["demo", "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: leafgrad demo ")


def test_demo_on_the_base_install_names_the_extra(capsys, monkeypatch):
    monkeypatch.setattr(cli, "DEMO_NEEDS", {"no_such_module_for_the_demo": "scikit-learn"})
    assert cli.main(["demo", "--quick"]) == 2
    err = capsys.readouterr().err
    assert "leafgrad demo needs the demo extra (scikit-learn not installed)" in err
    assert 'pip install "leafgrad[demo]"' in err


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_explain_without_a_message_prints_usage(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Tty(""))
    assert cli.main(["explain"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: leafgrad explain") and "leafgrad explain LG110" in out


def test_explain_reads_a_piped_message(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("a leaf Variable that requires grad is being used in an "
                                                  "in-place operation."))
    assert cli.main(["explain"]) == 0
    assert capsys.readouterr().out.startswith("[LG")


def test_explain_a_code(capsys):
    assert cli.main(["explain", "LG110"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[LG110] ") and "The message says" not in out
    assert str(leafgrad.explain("lg110")) == out


def test_tour_list_and_unknown_step(capsys):
    from leafgrad.explain.tour import STEPS
    assert cli.main(["tour", "--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == [k for k, _ in STEPS]
    with pytest.raises(SystemExit) as info:
        cli.main(["tour", "--only", "nosuch"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "leafgrad tour: error: unknown tour step 'nosuch'" in err and STEPS[0][0] in err


def test_explanation_bodies_wrap_and_code_does_not():
    text = str(leafgrad.explain("LG110"))
    assert max(len(line) for line in text.splitlines()) <= _core.WIDTH
    long_code = "    " + "x = y" * 30
    assert list(_core._plain_lines(["```", "x" * 120, "```", long_code])) == ["x" * 120, long_code]
    wrapped = list(_core._plain_lines(["1. " + "word " * 40]))
    assert len(wrapped) > 1 and all(w.startswith("   ") for w in wrapped[1:])


def test_project_license_is_an_spdx_string():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["license"] == "MIT"
    assert "mypy>=1.10" in meta["project"]["optional-dependencies"]["test"]
    assert meta["project"]["optional-dependencies"]["docs"]


def test_readme_tells_how_to_get_the_cpu_wheel_and_about_threads():
    readme = (ROOT / "README.md").read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme
    assert "torch.set_num_threads" in readme and "docs/coverage.md" in readme
