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


def test_plain_mypy_accepts_an_unannotated_training_script(tmp_path, mypy_cache):
    r = _mypy(tmp_path, mypy_cache, str(HERE / "train_plain.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_strict_mypy_accepts_an_annotated_training_script(tmp_path, mypy_cache):
    r = _mypy(tmp_path, mypy_cache, "--strict", str(HERE / "train_strict.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_still_rejects_what_tensor_lacks(tmp_path, mypy_cache):
    # the stubs declare what is there, not everything: a misspelt method is still an error
    bad = tmp_path / "bad.py"
    bad.write_text("import leafgrad as torch\nx = torch.randn(3)\nx.summ()\ny: int = x.sum()\n")
    r = _mypy(tmp_path, mypy_cache, str(bad))
    assert r.returncode == 1
    assert '"Tensor" has no attribute "summ"' in r.stdout
    assert 'has type "Tensor", variable has type "int"' in r.stdout
