"""torch.__version__, torch.return_types, torch.compile, torch.jit, torch.onnx, torch.serialization as torch 2.13."""
from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from differential import raises_exactly

import leafgrad as lg
from apihelp import same_outcome

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("other", ["2.0", "2.13", "2.13.0", "2.13.0+cpu", "2.2", "2.14", "1.13.1", "10.0",
                                   (2, 0), (2, 13), (2, 13, 0), (2, 14), 2])
def test_version_compares_as_torchs(other):
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        def cmp(m):
            r = getattr(m.__version__, op)(other)
            if r is NotImplemented:  # what the operator itself then does
                return {"__eq__": False, "__ne__": True}.get(op, "TypeError")
            return r
        assert cmp(lg) == cmp(torch), (op, other)


def test_version_string_forms():
    from packaging import version
    v = lg.__version__
    assert isinstance(v, str) and v == torch.__version__ and str(v) == str(torch.__version__)
    assert v.split(".") == torch.__version__.split(".") and v.split("+")[0] == "2.13.0"
    assert version.parse(v) == version.parse(torch.__version__) and version.parse(v) >= version.parse("2.0")
    assert v >= "2.0" and not v < "2.2" and hash(v) == hash(str(v))
    assert f"{v}" == "2.13.0+cpu" and lg.__leafgrad_version__ == "0.1.0"
    assert lg.version.__version__ == v and lg.version.cuda is torch.version.cuda is None
    assert lg.version.hip is torch.version.hip is None and lg.version.debug is torch.version.debug


def test_version_compares_without_packaging():
    code = ("import sys; sys.modules['packaging'] = None; sys.modules['packaging.version'] = None\n"
            "import leafgrad as t\nv = t.__version__\n"
            "print(v >= '2.0', v < '2.2', v >= (2, 13), v == '2.13.0+cpu', v > '2.13.0', v < (2, 14))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    v = torch.__version__
    assert out.split() == [str(x) for x in (v >= "2.0", v < "2.2", v >= (2, 13), v == "2.13.0+cpu", v > "2.13.0",
                                            v < (2, 14))]


RESULTS = [
    ("max", lambda m, x: m.max(x, 0)), ("min", lambda m, x: x.min(dim=1, keepdim=True)),
    ("sort", lambda m, x: m.sort(x, 1)), ("topk", lambda m, x: x.topk(2)), ("kthvalue", lambda m, x: x.kthvalue(1, 0)),
    ("median", lambda m, x: x.median(1)), ("nanmedian", lambda m, x: x.nanmedian(0)),
    ("cummax", lambda m, x: m.cummax(x, 1)), ("cummin", lambda m, x: x.cummin(0)),
]


@pytest.mark.parametrize("name,fn", RESULTS, ids=[r[0] for r in RESULTS])
def test_return_types(name, fn):
    data = [[1.0, 3.0, 2.0], [4.0, 0.0, 6.0]]
    t, m = fn(torch, torch.tensor(data)), fn(lg, lg.tensor(data))
    assert type(m) is getattr(lg.return_types, name) and type(t) is getattr(torch.return_types, name)
    assert repr(m) == repr(t) and str(m) == str(t)
    assert type(m).__name__ == type(t).__name__ and isinstance(m, tuple) and len(m) == len(t) == 2
    assert m.n_fields == t.n_fields and hasattr(m, "_fields") == hasattr(t, "_fields")
    assert m.values.tolist() == t.values.tolist() and m[1].tolist() == t[1].tolist()
    values, indices = m
    assert values is m.values and indices is m.indices
    back = pickle.loads(pickle.dumps(m))
    assert type(back) is type(m) and back.values.tolist() == m.values.tolist()


def test_return_type_construction_rules():
    for args, kwargs in [(([1, 2],), {}), (((1, 2),), {}), ((1, 2), {}), (([1],), {}), (([1, 2, 3],), {}),
                         ((), {"values": 1, "indices": 2}), ("iter", {}), (((1, 2), 5), {}),
                         (((1, 2), {}), {}), (("ab",), {})]:
        def build(m):
            return repr(m.return_types.max(*((iter([1, 2]),) if args == "iter" else args), **kwargs))
        same_outcome(lambda: build(torch), lambda: build(lg), compare_message=True)
    r = lg.return_types.max([1, 2])
    with raises_exactly(AttributeError):
        r.values = 3
    names = {c.__name__ for c in torch.return_types.all_return_types if not c.__name__.endswith("_out")}
    assert {c.__name__ for c in lg.return_types.all_return_types} == names
    for c in lg.return_types.all_return_types:
        t = getattr(torch.return_types, c.__name__)
        assert repr(c(range(c.n_fields))) == repr(t(range(t.n_fields)))


def _f(x, y=2):
    """doc of f"""
    return x * y + 1


def test_compile_function_forms():
    for kwargs in ({}, {"backend": "eager"}, {"mode": "reduce-overhead"}, {"dynamic": False},
                   {"options": {"max_autotune": False}}, {"disable": True}):
        assert lg.compile(_f, **kwargs)(3) == torch.compile(_f, **kwargs)(3) == 7
    c = lg.compile(_f)
    assert c.__name__ == "_f" and c.__doc__ == "doc of f" and c.__wrapped__ is _f

    @lg.compile
    def g(x):
        return x + 1

    @lg.compile(mode="max-autotune")
    def h(x):
        return x - 1
    assert g(1) == 2 and h(1) == 0
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    lg.compile(lambda a: (a * a).sum())(x).backward()
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("kwargs,model", [({"mode": "fast", "options": {}}, "f"), ({"mode": "bogus"}, "f"),
                                          ({"backend": "bogus"}, "f"), ({}, 5)])
def test_compile_refusals(kwargs, model):
    def go(m):
        return m.compile(_f if model == "f" else model, **kwargs)
    same_outcome(lambda: go(torch), lambda: go(lg), compare_message=True)


def test_compile_module():
    lin = lg.nn.Linear(3, 2)
    tlin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        tlin.weight.copy_(torch.tensor(lin.weight.detach().numpy()))
        tlin.bias.copy_(torch.tensor(lin.bias.detach().numpy()))
    c, tc = lg.compile(lin), torch.compile(tlin)
    assert type(c).__name__ == type(tc).__name__ == "OptimizedModule" and isinstance(c, lg.nn.Module)
    assert c._orig_mod is lin and c.weight is lin.weight
    assert list(c.state_dict()) == list(tc.state_dict())
    assert [n for n, _ in c.named_parameters()] == [n for n, _ in tc.named_parameters()]
    x = [[1.0, 2.0, 3.0]]
    out = c(lg.tensor(x))
    out.sum().backward()
    tout = tlin(torch.tensor(x))  # (eager on torch: what torch's compiled module must reproduce)
    tout.sum().backward()
    assert out.tolist()[0] == pytest.approx(tout.tolist()[0], rel=1e-5, abs=1e-6)  # (float32; an output near 0)
    assert lin.weight.grad.flatten().tolist() == pytest.approx(tlin.weight.grad.flatten().tolist())
    c.eval()
    assert lin.training is False
    assert lg.compile(lin, disable=True) is lin


def test_compiler_module():
    for name in ("is_compiling", "is_dynamo_compiling", "is_exporting"):
        assert getattr(lg.compiler, name)() is getattr(torch.compiler, name)() is False
    assert lg.compiler.list_backends() == torch._dynamo.list_backends()
    assert lg.compiler.disable(_f) is _f


def test_jit_is_eager_and_says_so():
    with pytest.warns(DeprecationWarning):
        s = lg.jit.script(_f)
    assert s is _f and s(3) == 7
    lin = lg.nn.Linear(2, 2)
    with pytest.warns(DeprecationWarning):
        traced = lg.jit.trace(lin, lg.ones(1, 2))
    assert traced is lin
    with raises_exactly(RuntimeError):
        lg.jit.trace(lin)
    assert lg.jit.is_scripting() is torch.jit.is_scripting() is False
    assert lg.jit.is_tracing() is torch.jit.is_tracing() is False
    assert lg.jit.annotate(int, 3) == torch.jit.annotate(int, 3) == 3
    assert lg.jit.ignore(_f) is _f and lg.jit.unused(_f) is _f
    assert lg.jit.wait(lg.jit.fork(_f, 2)) == torch.jit.wait(torch.jit.fork(_f, 2)) == 5
    for fn in (lambda: lg.jit.save(lin, "x.pt"), lambda: lg.jit.load("x.pt")):
        with raises_exactly(RuntimeError, match="TorchScript"):
            fn()


def test_onnx_and_serialization_attributes():
    assert lg.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with raises_exactly(RuntimeError, match="ONNX"):
        lg.onnx.export(lg.nn.Linear(1, 1), (lg.ones(1),), "m.onnx")
    assert lg.serialization.save is lg.save and lg.serialization.load is lg.load


def test_import_stays_lazy():
    code = ("import sys, leafgrad\n"
            "print(sorted(m for m in ('leafgrad.amp', 'leafgrad.backends', 'leafgrad.compiler', 'leafgrad.jit', "
            "'leafgrad.onnx', 'leafgrad.accelerator', 'leafgrad.nn', 'leafgrad.distributions', 'leafgrad.version', "
            "'leafgrad.torch_version', 'leafgrad._precision', 'leafgrad._legacy_types', 'leafgrad.utils.tensorboard', "
            "'tensorboard') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
