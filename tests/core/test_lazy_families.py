"""The rare op families (_ops/lazy.py) load on first use: `import leafgrad` leaves them out, the first
use of any of their names loads them and behaves as before, and the generated name table is exact."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import leafgrad
from leafgrad._ops import lazy
from leafgrad._ops._lazy_names import TENSOR, TOP_LEVEL

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (leafgrad imported first); it prints one JSON value."""
    out = subprocess.run([sys.executable, "-c", "import json, sys\nimport leafgrad\n" + code],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _generator():
    spec = importlib.util.spec_from_file_location("gen_lazy_names", ROOT / "tools" / "gen_lazy_names.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_is_complete_and_exact():
    # every name a family binds on Tensor or serves at the top level is in the table, and nothing else
    tables = _generator().read_families()
    assert tables["tensor"] == TENSOR
    assert tables["top"] == TOP_LEVEL


def test_each_family_alone_binds_only_its_own_names():
    # loaded first in a fresh interpreter, a family binds exactly the Tensor names the table gives it and
    # the families it imports itself (methods_extra's in-place forms import special_ops)
    before = set(_fresh("from leafgrad._tensor import Tensor\nprint(json.dumps(sorted(set(vars(Tensor)))))\n"))
    for family in lazy.FAMILIES:
        after, loaded = _fresh(f"from leafgrad._tensor import Tensor\nfrom leafgrad._ops import lazy\n"
                               f"lazy.load({family!r})\nprint(json.dumps([sorted(set(vars(Tensor))), "
                               f"[f for f in lazy.FAMILIES if 'leafgrad._ops.' + f in sys.modules]]))\n")
        assert family in loaded
        assert set(after) - before == {n for n, f in TENSOR.items() if f in loaded}, family


def test_import_leaves_the_rare_families_out():
    loaded = _fresh("print(json.dumps(sorted(m for m in sys.modules if m.startswith('leafgrad'))))")
    rare = {f"leafgrad._ops.{f}" for f in lazy.FAMILIES} | {
        "leafgrad.linalg", "leafgrad._ops.linalg_decomp", "leafgrad._ops.linalg_extra", "leafgrad._ops.stats_extra",
        "leafgrad._ops.pointwise_extra", "leafgrad._ops.aliases_extra", "leafgrad._ops.inplace_extra",
        "leafgrad._ops.tensor_queries", "leafgrad.nn", "leafgrad.optim"}
    assert not rare & set(loaded), sorted(rare & set(loaded))


def test_first_use_loads_the_family_and_works():
    out = _fresh(
        "t = leafgrad.tensor([0.5, 2.0], requires_grad=True)\n"
        "r = {'before': 'leafgrad._ops.special_ops' in sys.modules}\n"
        "y = t.lgamma(); y.sum().backward()\n"
        "r['lgamma'] = y.tolist(); r['grad'] = t.grad.tolist(); r['grad_fn'] = type(y.grad_fn).__name__\n"
        "r['after'] = 'leafgrad._ops.special_ops' in sys.modules\n"
        "r['top'] = leafgrad.digamma(leafgrad.tensor([1.0])).tolist()\n"
        "c = leafgrad.zeros(2, dtype=leafgrad.complex64); c.imag = leafgrad.ones(2)\n"  # a property's setter
        "r['imag'] = c.imag.tolist()\n"
        "r['addbmm'] = leafgrad.addbmm(leafgrad.zeros(2, 2), leafgrad.ones(3, 2, 1), leafgrad.ones(3, 1, 2)).tolist()\n"
        "r['index_add'] = leafgrad.zeros(3).index_add(0, leafgrad.tensor([1]), leafgrad.ones(1)).tolist()\n"
        "r['has'] = hasattr(leafgrad.Tensor, 'index_fill_') and 'scatter_reduce' in dir(leafgrad.Tensor)\n"
        "r['dir'] = 'inverse' in dir(leafgrad) and 'fix' in leafgrad.__all__\n"
        "try:\n    leafgrad.inverse(leafgrad.ones(2, 3))\nexcept Exception as e:\n    r['error'] = type(e).__name__\n"
        "print(json.dumps(r))\n")
    import torch
    t = torch.tensor([0.5, 2.0], requires_grad=True)
    y = t.lgamma()
    y.sum().backward()
    assert out["before"] is False and out["after"] is True
    assert out["lgamma"] == y.tolist()
    assert np.allclose(out["grad"], t.grad.tolist(), rtol=1e-6)  # (digamma: within float32 rounding of torch's)
    assert out["grad_fn"] == type(y.grad_fn).__name__
    assert np.allclose(out["top"], torch.digamma(torch.tensor([1.0])).tolist(), rtol=1e-6)
    assert out["imag"] == [1.0, 1.0]
    assert out["addbmm"] == torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 1), torch.ones(3, 1, 2)).tolist()
    assert out["index_add"] == [0.0, 1.0, 0.0]
    assert out["has"] and out["dir"]
    try:
        torch.inverse(torch.ones(2, 3))
    except Exception as e:  # noqa: BLE001  (the class torch raises, compared by name)
        assert out["error"] == type(e).__name__


def test_a_lazy_method_set_on_a_tensor_lands_where_it_did():
    # a method's name written on an instance goes to its __dict__ (the loaded method is a non-data descriptor)
    out = _fresh("t = leafgrad.ones(2)\nt.put = 3\nprint(json.dumps([t.put, callable(leafgrad.ones(1).put)]))\n")
    assert out == [3, True]


def test_load_all_binds_every_family_name():
    lazy.load_all()
    assert all(n in vars(leafgrad.Tensor) for n in TENSOR)
    assert all(n in vars(leafgrad) for n in TOP_LEVEL)
