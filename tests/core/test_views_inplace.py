"""Views share memory and version counters; in-place ops follow torch's checks, rebasing and CopySlices."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from differential import same, raises_exactly

VIEW_OPS = {
    "slice": lambda t: t[1:],
    "select": lambda t: t[0],
    "view": lambda t: t.view(6),
    "reshape": lambda t: t.reshape(3, 2),
    "flatten": lambda t: t.flatten(),
    "transpose": lambda t: t.transpose(0, 1),
    "permute": lambda t: t.permute(1, 0),
    "t": lambda t: t.t(),
    "unsqueeze": lambda t: t.unsqueeze(0),
    "squeeze": lambda t: t.unsqueeze(1).squeeze(1),
    "narrow": lambda t: t.narrow(1, 1, 2),
    "diagonal": lambda t: t.diagonal(),
    "detach": lambda t: t.detach(),
    "data": lambda t: t.data,
    "expand_read": lambda t: t[:1].expand(4, 3),
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_views_share_memory_and_version(torch, name):
    def f(m):
        base = m.arange(6.0).reshape(2, 3).clone()
        v = VIEW_OPS[name](base)
        out = [v._is_view(), base._version]
        base.add_(1)
        out += [v.clone(), v._version, base._version]
        if name != "expand_read":
            v.mul_(2)
            out += [base.clone(), base._version, v._version]
        return out
    same(torch, f)


@pytest.mark.parametrize("name", ["split", "chunk", "unbind"])
def test_multi_output_views_share_memory(torch, name):
    op = {"split": lambda t: t.split(1), "chunk": lambda t: t.chunk(2), "unbind": lambda t: t.unbind()}[name]

    def f(m):
        base = m.arange(6.0).reshape(2, 3)
        parts = op(base)
        base.add_(10)
        return [p.clone() for p in parts] + [parts[0]._is_view(), parts[0]._base is base]
    same(torch, f)


def test_base_attribute(torch):
    def f(m):
        a = m.ones(3, requires_grad=True)
        b = a * 1
        v = b[:2]
        w = v[1:]
        return [v._base is b, w._base is b, b._base, a.detach()._base, a.detach()._is_view()]
    same(torch, f)


INPLACE = {
    "add_": lambda t: t.add_(1), "sub_": lambda t: t.sub_(1), "mul_": lambda t: t.mul_(2), "div_": lambda t: t.div_(2),
    "pow_": lambda t: t.pow_(2), "neg_": lambda t: t.neg_(), "exp_": lambda t: t.exp_(),
    "log_": lambda t: t.abs_().add_(1).log_(), "sqrt_": lambda t: t.abs_().sqrt_(), "abs_": lambda t: t.abs_(),
    "clamp_": lambda t: t.clamp_(-0.5, 0.5), "relu_": lambda t: t.relu_(), "sigmoid_": lambda t: t.sigmoid_(),
    "tanh_": lambda t: t.tanh_(), "zero_": lambda t: t.zero_(), "fill_": lambda t: t.fill_(3.0),
    "copy_": lambda t: t.copy_(t.detach() * 0 + 7), "masked_fill_": lambda t: t.masked_fill_(t.detach() > 0, 0.0),
    "iadd": lambda t: t.__iadd__(1), "isub": lambda t: t.__isub__(1), "imul": lambda t: t.__imul__(3),
    "itruediv": lambda t: t.__itruediv__(4),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_leaf_raises(torch, name):
    same(torch, lambda m: INPLACE[name](m.tensor([0.5, -1.5, 2.0], requires_grad=True)))


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_view_of_leaf_raises(torch, name):
    same(torch, lambda m: INPLACE[name](m.tensor([0.5, -1.5, 2.0], requires_grad=True)[1:]))


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_leaf_allowed_in_no_grad(torch, name):
    def f(m):
        x = m.tensor([0.5, -1.5, 2.0], requires_grad=True)
        with m.no_grad():
            INPLACE[name](x)
            INPLACE[name](x[1:])
        return [x.detach().clone(), x.is_leaf, x.requires_grad, x.grad_fn, x._version]
    same(torch, f)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_non_leaf_rebases(torch, name):
    def f(m):
        x = m.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = x * 1.5
        before = y.grad_fn
        INPLACE[name](y)
        after = y.grad_fn
        (y * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        return [before, after, y.is_leaf, x.grad, y._version]
    same(torch, f)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_view_of_non_leaf_copyslices(torch, name):
    def f(m):
        x = m.tensor([0.5, -1.5, 2.0, 1.0], requires_grad=True)
        y = x * 1.5
        v = y[1:3]
        v_before = v.grad_fn
        INPLACE[name](v)
        out = [v_before, y.grad_fn, v.grad_fn, y.is_leaf, v.is_leaf, y._version]
        (y * m.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return out + [x.grad, y.detach().clone()]
    same(torch, f)


def test_inplace_with_grad_requiring_operand(torch):
    def f(m):
        x = m.ones(2, requires_grad=True).clone()
        w = m.full((2,), 3.0, requires_grad=True)
        x.mul_(w)
        x.sum().backward()
        return [x.grad_fn, [n is None for n, _ in x.grad_fn.next_functions], w.grad]
    same(torch, f)

    def into_no_grad_tensor(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        z = m.zeros(2)
        z.add_(w * 2)
        z.sum().backward()
        return [z.is_leaf, z.grad_fn, w.grad]
    same(torch, into_no_grad_tensor)

    def self_as_operand(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.mul_(y)
        y.sum().backward()
        return x.grad
    same(torch, self_as_operand)


def test_seed_000_setitem_on_non_leaf(torch):
    def f(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        b[0] = 99.0
        gf = b.grad_fn
        b.sum().backward()
        return [b, gf, a.grad]
    same(torch, f)


def test_seed_003_empty_filled_with_graph_values(torch):
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        out1 = (x * 2).sum()
        out2 = (x ** 2).sum()
        outi = m.empty(2)
        outi[0] = out1
        outi[1] = out2
        info = [outi.is_leaf, outi.grad_fn, outi.requires_grad]
        outi.backward(m.tensor([0.0, 1.0]))
        return info + [x.grad]
    same(torch, f)

    def leaf_requiring_grad(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        outi = m.empty(2, requires_grad=True)
        outi[0] = (x * 2).sum()
    same(torch, leaf_requiring_grad)


def test_seed_004_setitem_on_leaf(torch):
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x[0] = x[0] + 1.0
    same(torch, f)


@pytest.mark.parametrize("key", ["int", "slice", "mask", "index", "ellipsis", "none", "tuple", "neg_step_free"])
def test_setitem_every_index_kind(torch, key):
    keys = {
        "int": lambda m: 1, "slice": lambda m: slice(1, 3), "mask": lambda m: m.tensor([True, False, True, False]),
        "index": lambda m: m.tensor([0, 3]), "ellipsis": lambda m: Ellipsis, "none": lambda m: (None, slice(0, 2)),
        "tuple": lambda m: (slice(None), 1), "neg_step_free": lambda m: -1,
    }

    def f(m):
        leaf = m.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], requires_grad=True)
        x = leaf.t()  # (4, 2), a non-leaf view
        y = x * 2
        val = m.tensor(10.0, requires_grad=True)
        k = keys[key](m)
        y[k] = val * 3
        # weights that differ per element, so a gradient in the wrong place shows
        (y * m.arange(1.0, 9.0).reshape(4, 2)).sum().backward()
        return [y.grad_fn, y, leaf.grad, val.grad]
    out = same(torch, f)
    # the overwritten positions get no gradient in the leaf (all of them, for y[...] = ...)
    leaf_grad = out[1][2][1].arr
    assert (leaf_grad == 0).any() and ((leaf_grad != 0).any() or key == "ellipsis")


@pytest.mark.parametrize("key", ["mask", "mask2d", "index", "index_dup", "index2d", "bool_scalar"])
def test_setitem_zero_leaf_gradient_at_written_positions(torch, key):
    """``y[k] = 0`` (a constant) zeroes those positions' gradient in the leaf; ``y[k] = v`` sends it to v."""
    keys = {"mask": lambda m: m.tensor([True, False, True]), "mask2d": lambda m: m.tensor([[True, False]] * 3),
            "index": lambda m: m.tensor([2, 0]), "index_dup": lambda m: m.tensor([1, 1]),
            "index2d": lambda m: (m.tensor([0, 2]), m.tensor([1, 0])), "bool_scalar": lambda m: True}

    def f(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        y = x * 3
        y[keys[key](m)] = 0
        (y * m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
        x2 = m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        v = m.tensor(7.0, requires_grad=True)
        y2 = x2.exp()
        y2[keys[key](m)] = v * 2
        (y2 * m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
        return [y.grad_fn, y, x.grad, y2.grad_fn, x2.grad, v.grad]
    same(torch, f)


def test_saved_tensor_modified_raises(torch):
    def direct(m):
        a = m.ones(2, requires_grad=True)
        b = a.exp()
        b.add_(1)
        b.sum().backward()
    same(torch, direct)

    def through_view(m):
        a = m.ones(3, requires_grad=True)
        b = a * 1
        c = b.sigmoid()
        c[0] = 0
        c.sum().backward()
    same(torch, through_view)

    def through_detach(m):  # seed 000: detach() shares the version counter
        A = m.tensor([1.0, 2.0], requires_grad=True)
        B = A.exp()
        Bd = B.detach()
        Bd[0] = 99.0
        B.sum().backward()
    same(torch, through_detach)

    def through_data(m):
        a = m.ones(2, requires_grad=True)
        b = a * 1
        c = b * b
        b.data.mul_(3)  # .data shares memory but NOT the version counter: torch does not notice
        c.sum().backward()
        return a.grad
    same(torch, through_data)

    def input_saved(m):
        a = m.ones(2, requires_grad=True)
        b = a * 1
        c = b.sin()
        b.mul_(2)
        c.sum().backward()
    same(torch, input_saved)


def test_saved_tensor_error_names_the_line():
    a = leafgrad.ones(2, requires_grad=True)
    b = a.exp()
    b.add_(1)  # this line must appear in the message
    with raises_exactly(RuntimeError) as info:
        b.sum().backward()
    msg = str(info.value)
    assert msg.startswith("one of the variables needed for gradient computation has been modified by an inplace")
    assert "is at version 1; expected version 0" in msg
    assert "b.add_(1)" in msg and "test_views_inplace.py" in msg


def test_multi_output_view_inplace_raises(torch):
    for op in ("unbind", "split", "chunk"):
        def f(m, op=op):
            x = m.ones(4, requires_grad=True) * 1
            parts = {"unbind": x.unbind, "split": lambda: x.split(2), "chunk": lambda: x.chunk(2)}[op]()
            parts[0].mul_(2)
        same(torch, f)


def test_no_grad_view_inplace_raises(torch):
    def f(m):
        x = m.ones(3, requires_grad=True) * 1
        with m.no_grad():
            v = x[:2]
        v.mul_(2)
    same(torch, f)

    def inside(m):
        x = m.ones(3, requires_grad=True) * 1
        with m.no_grad():
            v = x[:2]
            v.mul_(2)
        return [x.detach().clone(), x.grad_fn]
    same(torch, inside)


def test_optimizer_update_pattern(torch):
    def f(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(3):
            loss = (w * w).sum()
            loss.backward()
            with m.no_grad():
                w -= 0.1 * w.grad
            w.grad.zero_()
        return [w, w.is_leaf, w.grad, w._version]
    same(torch, f)


def test_inplace_dtype_and_shape_errors(torch):
    same(torch, lambda m: m.ones(2, dtype=m.int64).add_(1.5))
    same(torch, lambda m: m.ones(2).add_(m.ones(3)))
    same(torch, lambda m: m.ones(1).add_(m.ones(3)))
    same(torch, lambda m: m.ones(2, 1).expand(2, 3).add_(1))


def test_views_regenerate_after_base_inplace(torch):
    def f(m):
        x = m.ones(4, requires_grad=True)
        y = x * 2
        v = y[:2]
        y.mul_(3)
        out = [v.grad_fn, v.clone()]
        (v * m.tensor([1.0, 5.0])).sum().backward()
        return out + [x.grad]
    same(torch, f)

    def view_of_no_grad_base(m):
        x = m.zeros(3)
        v = x[:2]
        w = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[2] = w[2] * 2
        return [x.grad_fn, v.grad_fn, v.requires_grad, x.is_leaf]
    same(torch, view_of_no_grad_base)


def test_double_backward_through_inplace(torch):
    def f(m):
        x = m.tensor([0.3, 0.7], requires_grad=True)
        y = x * 1
        y.exp_()
        g, = m.autograd.grad(y.sum(), x, create_graph=True)
        gg, = m.autograd.grad(g.sum(), x)
        return [g, gg]
    same(torch, f)


def test_random_program_property(torch):
    """Random programs of views, in-place writes and reads agree with torch on values, grads and failures."""
    rng = np.random.default_rng(123)
    views = [lambda t: t[1:], lambda t: t[:, :2], lambda t: t.t(), lambda t: t.view(-1)[::2], lambda t: t[0]]
    writes = [lambda t: t.mul_(1.5), lambda t: t.add_(0.5), lambda t: t.exp_(), lambda t: t.zero_(),
              lambda t: t.copy_(t.detach() * -1), lambda t: t.clamp_(0, 1)]
    reads = [lambda t: t.sin(), lambda t: t * t, lambda t: t.exp(), lambda t: t.sum()]
    for trial in range(40):
        steps = [(int(rng.integers(3)), int(rng.integers(5)), int(rng.integers(6)), int(rng.integers(4)))
                 for _ in range(4)]

        def prog(m, steps=steps):
            x = m.tensor([[0.2, -0.4, 0.6], [0.8, -1.0, 1.2]], requires_grad=True)
            y = x * 1.0
            outs = []
            for kind, vi, wi, ri in steps:
                target = views[vi](y) if kind else y
                if kind == 2:
                    outs.append(reads[ri](target).sum())
                else:
                    writes[wi](target)
                    outs.append(reads[ri](y).sum())
            total = outs[0]
            for o in outs[1:]:
                total = total + o
            total.backward()
            return [y.detach().clone(), x.grad, y.grad_fn]
        same(torch, prog)
