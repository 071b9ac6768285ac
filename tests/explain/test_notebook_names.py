"""In Jupyter, explanations name the user's variable (not IPython's `_`/`_7`/Out cache) and the
cell (`In [3], line 1`), not the kernel's temporary file."""
import sys
import types

import pytest
from differential import raises_exactly

import leafgrad
from leafgrad._notebook import cell_label, is_cache_name

CELL = "/tmp/ipykernel_4242/3141592.py"


@pytest.fixture
def kernel(monkeypatch):
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(_filename_map={CELL: 3}))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))


def test_cache_names_and_cell_labels(kernel):
    assert all(map(is_cache_name, ["_", "__", "___", "_7", "_i", "_i12", "Out", "In"]))
    assert not any(map(is_cache_name, ["x", "_x", "w_", "loss", "Input"]))
    assert cell_label(CELL) == "In [3]"
    assert cell_label("/tmp/ipykernel_4242/999.py") == "a notebook cell"
    assert cell_label("<ipython-input-5-0123abcd>") == "In [5]"
    assert cell_label("/home/me/train.py") is None


def test_explanation_names_the_variable_and_the_cell(kernel):
    ns = {"leafgrad": leafgrad}
    exec(compile("w = leafgrad.ones(2, requires_grad=True)\n_ = w\n_7 = w\nOut = {7: w}\n", CELL, "exec"), ns)
    with raises_exactly(RuntimeError) as info:
        exec(compile("_.add_(1)\n", CELL, "exec"), ns)
    text = str(leafgrad.explain(info.value))
    assert "wrote into `w`" in text and "`_`" not in text and "`_7`" not in text
    assert "In [3], line 1" in text and "ipykernel" not in text


def test_only_cache_names_give_no_name(kernel):
    ns = {"leafgrad": leafgrad}
    exec(compile("_ = leafgrad.ones(2, requires_grad=True)\n", CELL, "exec"), ns)
    with raises_exactly(RuntimeError) as info:
        exec(compile("_.add_(1)\n", CELL, "exec"), ns)
    assert "`_`" not in str(leafgrad.explain(info.value))
