"""Leaf / requires_grad / grad_fn / backward rules, each checked against torch on the same code."""
from __future__ import annotations

import gc
import subprocess
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import leafgrad
from differential import same, raises_exactly


def test_leaf_flags(torch):
    def f(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = b.sum()
        d = m.randn(3, 3)
        return [a.is_leaf, a.requires_grad, a.grad_fn, b.is_leaf, b.requires_grad, b.grad_fn, c.grad_fn,
                d.is_leaf, d.requires_grad, (d + 2).is_leaf, b.detach().is_leaf, b.detach().requires_grad]
    same(torch, f)


def test_requires_grad_only_settable_on_leaves(torch):
    same(torch, lambda m: setattr(m.ones(2, requires_grad=True) * 2, "requires_grad", False))
    same(torch, lambda m: (m.ones(2, requires_grad=True) * 2).requires_grad_(False))

    def turn_on_non_leaf_of_no_grad(m):
        a = m.ones(2)
        b = 2 * a
        b.requires_grad = True  # b is a leaf: nothing it came from requires grad
        return [b.is_leaf, b.requires_grad]
    same(torch, turn_on_non_leaf_of_no_grad)


def test_requires_grad_on_int_tensor(torch):
    same(torch, lambda m: m.tensor([1, 2], requires_grad=True))
    same(torch, lambda m: m.arange(3).requires_grad_())


def test_backward_accumulates_and_zeroing(torch):
    def f(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        g1 = x.grad.clone()
        (x * 3).sum().backward()
        g2 = x.grad.clone()
        x.grad = None
        (x ** 3).sum().backward()
        return [g1, g2, x.grad]
    same(torch, f)


def test_non_leaf_grad_is_none_with_warning(torch):
    for m in (torch, leafgrad):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.sum().backward()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert y.grad is None
        assert len(w) == 1 and issubclass(w[0].category, UserWarning)
        assert str(w[0].message).startswith("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed")


def test_retain_grad_and_hooks_seed_001(torch):
    def f(m):
        x = m.tensor(2.0, requires_grad=True)
        y = x ** 2
        z = y ** 2
        y.retain_grad()
        z.backward(retain_graph=True)
        first = y.grad.clone()
        seen = []
        h = y.register_hook(lambda g: seen.append(g))
        z.backward()
        h.remove()
        return [first, seen[0], y.retains_grad, x.grad, y.grad]
    same(torch, f)


def test_hook_replaces_gradient_and_order(torch):
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        order = []
        x.register_hook(lambda g: order.append("leaf1") or g * 10)
        x.register_hook(lambda g: order.append("leaf2"))
        y = x * 3
        y.register_hook(lambda g: order.append("y") or g + 1)
        y.retain_grad()
        y.sum().backward()
        return [x.grad, y.grad, order]
    same(torch, f)


def test_removed_hook_does_not_run(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        calls = []
        h = x.register_hook(lambda g: calls.append(1))
        h.remove()
        (x * 2).sum().backward()
        return calls
    same(torch, f)


def test_post_accumulate_grad_hook(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        seen = []
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return seen
    same(torch, f)


def test_second_backward_raises_and_retain_graph_allows(torch):
    def twice(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    same(torch, twice)

    def retained(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    same(torch, retained)

    def no_saved_tensors(m):  # nothing saved: torch lets it run twice
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    same(torch, no_saved_tensors)


def test_backward_errors(torch):
    same(torch, lambda m: m.ones(2).sum().backward())
    same(torch, lambda m: (m.ones(2, requires_grad=True) * 2).backward())
    same(torch, lambda m: (m.ones(2, requires_grad=True) * 2).backward(m.ones(3)))

    def no_grad_cut(m):
        x = m.tensor([5.0], requires_grad=True)
        with m.no_grad():
            y = x * 2
        z = y * 3
        return [y.requires_grad, z.requires_grad, z.is_leaf]
    same(torch, no_grad_cut)


def test_explicit_gradient_for_non_scalar(torch):
    def f(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.backward(m.tensor([0.1, 1.0, 10.0]))
        return x.grad
    same(torch, f)


def test_detach_data_clone(torch):
    def f(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        d = b.detach()
        d[0] = 99.0  # shares memory with b (seed 000)
        c = a.clone()
        dd = a.data
        dd.add_(5.0)  # seed 004: .data writes are untracked
        return [b, d, c.grad_fn, c.requires_grad, a, d.requires_grad, d.is_leaf, dd.requires_grad]
    same(torch, f)


def test_clone_keeps_graph(torch):
    def f(m):
        x = m.tensor([5.0], requires_grad=True)
        y = x.clone() * 2
        z = y * 3
        z.backward()
        return x.grad
    same(torch, f)


def test_requires_grad_(torch):
    def f(m):
        x = m.tensor([1.0, 2.0])
        out = [x.requires_grad]
        x.requires_grad_(True)
        out.append(x.requires_grad)
        x.requires_grad_(False)
        out.append(x.requires_grad)
        return out
    same(torch, f)


def test_grad_modes_nest_and_decorate(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        out = []
        with m.no_grad():
            out.append((x * 2).requires_grad)
            with m.enable_grad():
                out.append((x * 2).requires_grad)
            out.append(m.is_grad_enabled())
        with m.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(m.is_grad_enabled())

        @m.no_grad()
        def g(t):
            return t * 2
        out.append(g(x).requires_grad)
        with m.inference_mode():
            out.append((x * 2).requires_grad)
        m.set_grad_enabled(False)
        out.append((x * 2).requires_grad)
        m.set_grad_enabled(True)
        out.append((x * 2).requires_grad)
        return out
    same(torch, f)


def test_grad_mode_is_per_thread():
    results = {}
    with leafgrad.no_grad():
        def worker():
            results["thread"] = leafgrad.is_grad_enabled()
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        results["main"] = leafgrad.is_grad_enabled()
    assert results == {"thread": True, "main": False}


def test_to_dtype_and_device(torch):
    def f(m):
        a = m.randn(3, requires_grad=True)
        b = a.to(m.float64)
        c = a.to("cpu")
        d = a.double().float()
        return [b.is_leaf, b.grad_fn, c is a, d.grad_fn, b.dtype, a.float() is a]
    same(torch, f)


def test_cuda_raises_clear_error():
    with raises_exactly(AssertionError, match="Torch not compiled with CUDA enabled"):  # (CPU-only torch's class)
        leafgrad.ones(2).cuda()
    with raises_exactly(AssertionError, match="Torch not compiled with CUDA enabled"):
        leafgrad.ones(2).to("cuda")
    assert leafgrad.cuda.is_available() is False


def test_autograd_grad(torch):
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        y = (x * w).sum()
        gx, = m.autograd.grad(y, [x], retain_graph=True)
        both = m.autograd.grad(y, [x, w])
        return [gx, both, x.grad, w.grad]
    same(torch, f)

    def unused(m):
        x = m.tensor([1.0], requires_grad=True)
        z = m.tensor([1.0], requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z])
    same(torch, unused)

    def allow_unused(m):
        x = m.tensor([1.0], requires_grad=True)
        z = m.tensor([1.0], requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    same(torch, allow_unused)

    def non_leaf_input(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        y = (h * h).sum()
        return m.autograd.grad(y, h)
    same(torch, non_leaf_input)


def test_higher_order(torch):
    def f(m):
        x = m.tensor([0.5, 1.5], requires_grad=True)
        y = (x ** 3 + x.sin() * x.exp()).sum()
        g, = m.autograd.grad(y, x, create_graph=True)
        gg, = m.autograd.grad(g.sum(), x, create_graph=True)
        ggg, = m.autograd.grad(gg.sum(), x)
        return [g, gg, ggg]
    same(torch, f)

    def backward_create_graph(m):
        x = m.tensor([2.0], requires_grad=True)
        y = x ** 3
        y.backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.backward()
        return [g, x.grad, g.requires_grad]
    same(torch, backward_create_graph)


def test_backward_inputs_argument(torch):
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        (x * w).sum().backward(inputs=[w])
        return [x.grad, w.grad]
    same(torch, f)


def test_engine_order_matches_torch(torch):
    def f(m):
        order = []
        x = m.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = x.exp()
        c = a + b
        d = a * c
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
            t.register_hook(lambda g, name=name: order.append(name))
        d.sum().backward()
        return order
    same(torch, f)


def test_diamond_and_reuse(torch):
    def f(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = x * x
        y = h * h + h.exp() * h - h.sum()
        y.sum().backward()
        return x.grad
    same(torch, f)


def test_numpy_requires_grad_error(torch):
    same(torch, lambda m: m.ones(2, requires_grad=True).numpy())
    same(torch, lambda m: m.ones(2, requires_grad=True).detach().numpy())


def test_deep_chain_does_not_recurse():
    x = leafgrad.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert x.grad.item() == 1.0
    del y  # freeing a million-node chain must not overflow the C stack either


def test_graph_freed_by_refcount_without_gc():
    gc.disable()
    try:
        a = leafgrad.randn(10, requires_grad=True)
        b = (a * 2).exp().sum()
        nodes = [weakref.ref(b.grad_fn), weakref.ref(b.grad_fn.next_functions[0][0])]
        del b
        assert all(r() is None for r in nodes)
        b = (a * 2).exp()
        c = b.sum()
        c.backward()
        r = weakref.ref(b.grad_fn)
        del b, c
        assert r() is None
        h = a * 3  # hooks and retain_grad must not create cycles either
        h.retain_grad()
        h.register_hook(lambda g: g)
        r = weakref.ref(h.grad_fn)
        rt = weakref.ref(h)
        del h
        assert r() is None and rt() is None
    finally:
        gc.enable()


def test_accumulated_grads_are_not_aliased():
    a = leafgrad.ones(3, requires_grad=True)
    b = leafgrad.ones(3, requires_grad=True)
    (a + b).sum().backward()
    a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0, 1.0]
    g = leafgrad.ones(3)
    x = leafgrad.ones(3, requires_grad=True)
    (x * 1).backward(g)
    x.grad.mul_(5)
    assert g.tolist() == [1.0, 1.0, 1.0]


def test_in_place_accumulation_keeps_grad_object(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        (x * 2).sum().backward()
        return [g is x.grad, x.grad]
    same(torch, f)


def test_custom_function(torch):
    def f(m):
        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x ** 3 * k

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 3 * x ** 2 * ctx.k, None

        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x, 2.0)
        y.sum().backward()
        return [y, y.grad_fn.name() if hasattr(y.grad_fn, "name") else None, x.grad,
                type(y.grad_fn).__name__]
    same(torch, f)


def test_custom_function_needs_input_grad_and_non_differentiable(torch):
    def f(m):
        class Split(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.flags = ctx.needs_input_grad
                idx = (x > 0).float()
                ctx.mark_non_differentiable(idx)
                return x * y, idx

            @staticmethod
            def backward(ctx, g, gidx):
                return g * 2, None

        x = m.tensor([1.0, -1.0], requires_grad=True)
        y = m.tensor([3.0, 3.0])
        out, idx = Split.apply(x, y)
        out.sum().backward()
        return [x.grad, idx.requires_grad, out.grad_fn.flags]
    same(torch, f)


def test_custom_function_mark_dirty(torch):
    def f(m):
        class AddOne(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        a = m.ones(2, requires_grad=True)
        b = a * 2
        c = AddOne.apply(b)
        c.sum().backward()
        return [c is b, b._version, a.grad]
    same(torch, f)


def test_custom_function_wrong_number_of_grads(torch):
    def f(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g

        x = m.ones(2, requires_grad=True)
        Bad.apply(x, x).sum().backward()
    same(torch, f)


def test_hook_changing_shape_raises(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: m.ones(3))
        y.sum().backward()
    t = raises_exactly(RuntimeError, f, torch)
    lg = raises_exactly(RuntimeError, f, leafgrad)
    assert "hook" in str(t.value) and "hook" in str(lg.value)


def test_gradcheck_catches_wrong_formula():
    class Wrong(leafgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x  # should be 2x

    x = leafgrad.randn(3, dtype=leafgrad.float64, requires_grad=True)
    assert not leafgrad.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
    with raises_exactly(leafgrad.autograd.GradcheckError, match="Jacobian mismatch"):
        leafgrad.autograd.gradcheck(Wrong.apply, (x,))


def test_anomaly_mode_nan(torch):
    def f(m):
        x = m.tensor([0.0], requires_grad=True)
        with m.autograd.detect_anomaly():
            y = x.sqrt() * 0
            y.backward()
    for m in (torch, leafgrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with raises_exactly(RuntimeError, match="returned nan values"):
                f(m)


_ANOMALY_FIRST_USE = """
x = m.ones(2, requires_grad=True)
got = ["traceback_" in (x * 2).grad_fn.metadata]
with m.autograd.set_detect_anomaly(True):
    got += ["traceback_" in (x * 2).grad_fn.metadata, "traceback_" in x.unsqueeze(0).grad_fn.metadata]
got += ["traceback_" in (x * 2).grad_fn.metadata]
print(got)
"""


def test_anomaly_mode_traces_from_its_first_use(torch):
    """The forward tests a process-wide "anomaly mode was ever on" flag before the mode itself
    (``grad_mode.ANOMALY_USED``): in a fresh process, nodes recorded before its first use and after it
    is switched off keep no forward trace, nodes recorded with it on keep one, in both forward paths
    (apply_simple's and the general one), as in torch."""
    code = "import {} as m\n" + _ANOMALY_FIRST_USE
    outs = [subprocess.run([sys.executable, "-c", code.format(name)], capture_output=True, text=True, timeout=120)
            for name in ("torch", "leafgrad")]
    assert [o.stdout for o in outs] == ["[False, True, True, False]\n"] * 2, [o.stderr[-2000:] for o in outs]


def test_inference_mode_results_do_not_require_grad(torch):
    def f(m):
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            y = x * 2
        return [y.requires_grad, m.is_inference_mode_enabled()]
    same(torch, f)


MIXED = {
    "mul": lambda m, a, b: a * b, "add": lambda m, a, b: a + b, "sub_rev": lambda m, a, b: b - a,
    "div": lambda m, a, b: a / b, "pow": lambda m, a, b: a ** b, "where": lambda m, a, b: m.where(a > 1.5, a, b),
    "cat": lambda m, a, b: m.cat([a, b]), "stack": lambda m, a, b: m.stack([a, b]),
    "maximum": lambda m, a, b: m.maximum(a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "0d_f64": lambda m, a, b: a * b.sum(), "lerp": lambda m, a, b: m.lerp(a, b.float(), 0.3) + b,
}


@pytest.mark.parametrize("op", sorted(MIXED))
@pytest.mark.parametrize("order", ["f32_first", "f64_first"])
def test_gradient_dtype_is_each_leafs_own_when_dtypes_mix(torch, op, order):
    """float32 and float64 leaves in one op: the result promotes, but each leaf's .grad has the leaf's dtype."""
    def f(m):
        a = m.tensor([1.0, 2.0, 3.0], dtype=m.float32, requires_grad=True)
        b = m.tensor([0.5, 1.5, 2.5], dtype=m.float64, requires_grad=True)
        out = MIXED[op](m, a, b) if order == "f32_first" else MIXED[op](m, b, a)
        (out * 1.25).sum().backward()
        return [out.dtype, a.grad, a.grad.dtype, b.grad, b.grad.dtype]
    same(torch, f)
