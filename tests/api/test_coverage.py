"""docs/coverage.md is current, and a torch name leafgrad lacks says so plainly.

The names used here are picked from the data file at test time (the first torch name leafgrad
does not have), so the tests keep meaning something as leafgrad grows.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import leafgrad
import leafgrad.nn
import leafgrad.nn.functional
from leafgrad.coverage import missing, torch_names

ROOT = Path(__file__).resolve().parents[2]

SPACES = [("torch", lambda: leafgrad, "module 'leafgrad'"),
          ("torch.nn", lambda: leafgrad.nn, "module 'leafgrad.nn'"),
          ("torch.nn.functional", lambda: leafgrad.nn.functional, "module 'leafgrad.nn.functional'"),
          ("torch.Tensor", lambda: leafgrad.zeros(2), "'Tensor' object")]


def _lacking(namespace, obj):
    for name in sorted(torch_names(namespace)):
        if not hasattr(obj, name):
            return name
    pytest.skip(f"leafgrad has every name of {namespace}")


def test_the_data_file_lists_torch_namespaces():
    assert {"fft", "linalg", "nn"} <= torch_names("torch:modules")
    assert {"randn", "fft"} <= torch_names("torch")
    assert {"sum", "backward", "stft"} <= torch_names("torch.Tensor")
    assert "Linear" in torch_names("torch.nn") and "grid_sample" in torch_names("torch.nn.functional")


@pytest.mark.parametrize("namespace,get,owner", SPACES, ids=[s[0] for s in SPACES])
def test_a_torch_name_leafgrad_lacks_says_so(namespace, get, owner):
    obj = get()
    name = _lacking(namespace, obj)
    with pytest.raises(AttributeError) as info:
        getattr(obj, name)
    assert type(info.value) is AttributeError
    assert str(info.value).startswith(f"leafgrad does not implement {namespace}.{name} yet ({owner} has no "
                                      f"attribute '{name}'")
    assert "docs/coverage.md" in str(info.value)
    assert info.value.name == name


@pytest.mark.parametrize("namespace,get,owner", SPACES, ids=[s[0] for s in SPACES])
def test_a_name_torch_lacks_keeps_pythons_message(namespace, get, owner):
    with pytest.raises(AttributeError) as info:
        getattr(get(), "no_such_name_anywhere")
    assert type(info.value) is AttributeError
    assert str(info.value) == f"{owner} has no attribute 'no_such_name_anywhere'"


def test_tensor_private_misses_and_present_names_are_untouched():
    t = leafgrad.ones(2)
    assert not hasattr(t, "_no_such_slot") and hasattr(t, "sum") and hasattr(leafgrad.nn, "Linear")
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute '_x'$"):
        t._x  # noqa: B018
    assert str(missing("torch", "__path__")) == "module 'leafgrad' has no attribute '__path__'"


def test_coverage_doc_and_data_are_current():
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "coverage.py"), "--check"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = (ROOT / "docs" / "coverage.md").read_text()
    assert "| Tensor methods and attributes" in doc and "**Lacks:**" in doc
