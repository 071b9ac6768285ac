"""Type checkers understand leafgrad: the stubs are current, and mypy accepts ordinary scripts.

Tensor's methods are bound at import time, so mypy reads them from the stubs that
tools/gen_stubs.py writes; a stale stub would hide a new op from every editor.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def test_stubs_are_current():
    # (a fresh interpreter: other tests may have attached extra names to Tensor in this one)
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--check"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("mypy_cache")  # one cache for the module: leafgrad is read once


def _mypy(tmp_path, cache, *args):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the test extra)")
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    # (leafgrad's own modules are read for their types, not reported on: the user's script is checked)
    cmd = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
           "--cache-dir", str(cache), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)


def test_plain_mypy_accepts_unannotated_training_scripts(tmp_path, mypy_cache):
    # (train_nn_plain.py: an nn.Module subclass, DataLoader, CrossEntropyLoss, Adam, StepLR, torch.save)
    r = _mypy(tmp_path, mypy_cache, str(HERE / "train_plain.py"), str(HERE / "train_nn_plain.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_strict_mypy_accepts_annotated_training_scripts(tmp_path, mypy_cache):
    r = _mypy(tmp_path, mypy_cache, "--strict", str(HERE / "train_strict.py"), str(HERE / "train_nn_strict.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_still_rejects_what_tensor_lacks(tmp_path, mypy_cache):
    # the stubs declare what is there, not everything: a misspelt method is still an error
    bad = tmp_path / "bad.py"
    # and calling a module is read as its forward: a Tensor, with forward's parameters
    bad.write_text("import leafgrad as torch\nimport leafgrad.nn.functional as F\nfrom leafgrad import nn, optim\n"
                   "x = torch.randn(3)\nx.summ()\ny: int = x.sum()\n"
                   "lin = nn.Linear(3, 4)\na: int = lin(x)\nb: int = F.relu(x)\n"
                   "c: int = nn.Sequential(lin, nn.ReLU())(x)\nd: int = nn.CrossEntropyLoss()(x, x)\n"
                   "lin('text')\nopt = optim.SGD(lin.parameters(), lr=0.1)\nopt.step()\n"
                   "@torch.no_grad()\ndef f(t: torch.Tensor) -> torch.Tensor:\n    return t\ne: int = f(x)\n")
    r = _mypy(tmp_path, mypy_cache, str(bad))
    assert r.returncode == 1
    assert '"Tensor" has no attribute "summ"' in r.stdout
    for line in (6, 8, 9, 10, 11, 18):  # (the decorated f keeps its signature too)
        assert f'bad.py:{line}: error: Incompatible types in assignment (expression has type "Tensor", variable ' \
               'has type "int")' in r.stdout, (line, r.stdout)
    assert 'bad.py:12: error: Argument 1 to "__call__" of "Module" has incompatible type "str"; expected "Tensor"' \
        in r.stdout, r.stdout
    assert r.stdout.count("error:") == 8, r.stdout
