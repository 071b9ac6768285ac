"""Every public name of nn.functional, nn and optim (and their classes' public methods) has a docstring.

The names are read at run time, so a function or module added on any branch is checked as
soon as it is merged; the failure lists exactly the names that lack one. The examples of
the nn.functional table (``nn/_f_docs.py``) are run as doctests, so they stay true.
"""
from __future__ import annotations

import doctest
import inspect

import leafgrad
import leafgrad.nn
import leafgrad.nn.functional as F
import leafgrad.optim
import leafgrad.optim.lr_scheduler
from leafgrad.nn import _f_docs


def _public_names(mod) -> list:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    return [n for n in names if not n.startswith("_") and hasattr(mod, n)]


def _own_doc(obj) -> bool:
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return bool(doc and doc.strip())


def functions_lacking_docs(mod) -> list:
    """Public functions of ``mod`` whose own docstring is empty."""
    out = []
    for n in _public_names(mod):
        obj = getattr(mod, n)
        if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj) and not _own_doc(obj):
            out.append(f"{mod.__name__}.{n}")
    return out


def classes_lacking_docs(mod) -> list:
    """Public classes of ``mod`` without their own docstring, and their public methods and properties
    (defined in leafgrad) without one; a method overriding a documented one inherits its doc, as in help()."""
    out = []
    for n in _public_names(mod):
        cls = getattr(mod, n)
        if not inspect.isclass(cls) or not cls.__module__.startswith("leafgrad"):
            continue
        if not _own_doc(cls):
            out.append(f"{mod.__name__}.{n}")
        for attr in dir(cls):
            if attr.startswith("_"):
                continue
            try:
                raw = inspect.getattr_static(cls, attr)
            except AttributeError:
                continue
            if isinstance(raw, (staticmethod, classmethod)):
                raw = raw.__func__
            if isinstance(raw, property):
                fn, doc = raw.fget, inspect.getdoc(raw)
            elif inspect.isfunction(raw):
                fn, doc = raw, inspect.getdoc(getattr(cls, attr))
            else:
                continue
            if not (getattr(fn, "__module__", "") or "").startswith("leafgrad"):
                continue
            if not doc:
                out.append(f"{mod.__name__}.{n}.{attr}")
    return out


def test_every_public_function_of_nn_functional_has_a_docstring():
    lacking = functions_lacking_docs(F)
    assert lacking == [], f"{len(lacking)} public functions of leafgrad.nn.functional have no docstring: " \
                          f"{', '.join(lacking)}"


def test_every_public_nn_and_optim_class_and_method_has_a_docstring():
    lacking = []
    for mod in (leafgrad.nn, leafgrad.optim, leafgrad.optim.lr_scheduler):
        lacking += classes_lacking_docs(mod)
    assert lacking == [], f"{len(lacking)} public classes/methods of nn and optim have no docstring: " \
                          f"{', '.join(lacking)}"


def test_the_checks_can_fail():
    """The helpers do see a name without a docstring (so the two tests above are not vacuous)."""
    import types
    mod = types.ModuleType("leafgrad_fake")
    def documented():
        """Has one."""
    def bare():
        pass
    class Thing:
        """A class."""
        def method(self):
            pass
    Thing.__module__ = documented.__module__ = bare.__module__ = Thing.method.__module__ = "leafgrad.fake"
    mod.documented, mod.bare, mod.Thing = documented, bare, Thing
    assert functions_lacking_docs(mod) == ["leafgrad_fake.bare"]
    assert classes_lacking_docs(mod) == ["leafgrad_fake.Thing.method"]


def test_table_docstrings_are_applied_and_their_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for name, doc in {**_f_docs.DOCS, **_f_docs.SECTIONS}.items():
        fn = getattr(F, name)
        assert fn.__doc__ is not None and doc in fn.__doc__, name  # (applied: the whole entry is in the docstring)
        for test in finder.find(doc, name, globs={"leafgrad": leafgrad, "F": F}):
            runner.run(test)
    assert runner.failures == 0, f"{runner.failures} examples in nn/_f_docs.py print something else now"


def test_table_docstrings_name_the_node_recorded():
    """Each table entry's 'Autograd:' section names the grad_fn the function records (checked on a run)."""
    x = leafgrad.randn(2, 3, 6, requires_grad=True)
    v = leafgrad.randn(4, 5, requires_grad=True)
    cases = {"conv1d": lambda: F.conv1d(x, leafgrad.randn(2, 3, 3)), "relu": lambda: F.relu(v),
             "gelu": lambda: F.gelu(v), "softmax": lambda: F.softmax(v, 1), "mse_loss": lambda: F.mse_loss(v, v * 0),
             "layer_norm": lambda: F.layer_norm(v, (5,)), "max_pool1d": lambda: F.max_pool1d(x, 2),
             "l1_loss": lambda: F.l1_loss(v, v.detach()), "lp_pool1d": lambda: F.lp_pool1d(x, 2, 2),
             "hardtanh": lambda: F.hardtanh(v), "relu6": lambda: F.relu6(v)}
    cases.update({"linear": lambda: F.linear(v, leafgrad.ones(2, 5), leafgrad.zeros(2)),
                  "glu": lambda: F.glu(v, 0), "group_norm": lambda: F.group_norm(x, 1),
                  "selu": lambda: F.selu(v), "mish": lambda: F.mish(v)})
    cases.update({"softshrink": lambda: F.softshrink(v), "hardshrink": lambda: F.hardshrink(v),
                  "threshold": lambda: F.threshold(v, 0., 1.),
                  "soft_margin_loss": lambda: F.soft_margin_loss(v, v.detach().sign()),
                  "conv_transpose1d": lambda: F.conv_transpose1d(x, leafgrad.randn(3, 2, 3)),
                  "pixel_shuffle": lambda: F.pixel_shuffle(x.reshape(1, 4, 3, 3), 2),
                  "pairwise_distance": lambda: F.pairwise_distance(v, v.detach() + 1),
                  "local_response_norm": lambda: F.local_response_norm(x, 2),
                  "max_unpool2d": lambda: F.max_unpool2d(*F.max_pool2d(x.reshape(1, 1, 6, 6), 2,
                                                                        return_indices=True), 2)})
    table = {**_f_docs.DOCS, **_f_docs.SECTIONS}
    for name, make in cases.items():
        node = type(make().grad_fn).__name__
        assert f"``{node}``" in table[name].split("Autograd:")[1], (name, node)
