"""The in-place variants, aliases and attributes of inplace_extra / aliases_extra / tensor_queries,
run on torch and on leafgrad: values, grad_fn names, version counters, gradients (first and second
order), leaf/view rules and exception classes."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg

torch = pytest.importorskip("torch")

A = np.array([[0.7, -1.3, 2.2], [1.6, 0.4, -0.6]])
POS = np.abs(A) + 0.5
W = np.array([[0.3, -0.2, 1.1], [0.5, 0.9, -0.4]])


def _inplace_case(method, args=(), data=A, kwargs=None, second=True, dtype="float64"):
    """A non-leaf y = x * 1 written in place by ``method``: what torch and leafgrad report."""
    def fn(m):
        x = m.tensor(data, dtype=getattr(m, dtype), requires_grad=True)
        y = x * 1.0
        other = [m.tensor(a, dtype=getattr(m, dtype)) if isinstance(a, np.ndarray) else a for a in args]
        r = getattr(y, method)(*other, **(kwargs or {}))
        out = {"same": r is y, "values": y, "grad_fn": y.grad_fn, "version": y._version, "shape": tuple(y.shape)}
        if y.grad_fn is not None:
            w = m.tensor(W if y.shape == W.shape else np.ones(tuple(y.shape)), dtype=getattr(m, dtype))
            (g,) = m.autograd.grad((y * y * w).sum(), x, create_graph=second, allow_unused=True)
            out["grad"] = g
            if second and g is not None and g.requires_grad:
                (gg,) = m.autograd.grad(g.sum(), x, allow_unused=True)
                out["grad2"] = gg
        return out
    return fn


VEC = np.array([0.3, 0.45, 0.7])
INPLACE_CASES = [
    ("absolute_", ()), ("negative_", ()), ("ceil_", ()), ("floor_", ()), ("trunc_", ()), ("fix_", ()), ("round_", ()),
    ("square_", ()), ("atan_", ()), ("arctan_", ()), ("tan_", ()), ("erf_", ()), ("expm1_", ()),
    ("cumsum_", (1,)), ("cumsum_", (0,)), ("cumprod_", (1,)), ("remainder_", (0.3,)), ("remainder_", (VEC,)),
    ("fmod_", (0.3,)), ("fmod_", (VEC,)), ("tril_", ()), ("triu_", (1,)), ("tril_", (-1,)),
    ("eq_", (0.4,)), ("ne_", (0.4,)), ("ge_", (0.4,)), ("gt_", (VEC,)), ("le_", (0.4,)), ("lt_", (VEC,)),
    ("greater_", (0.4,)), ("greater_equal_", (VEC,)), ("less_", (0.4,)), ("less_equal_", (0.4,)),
    ("not_equal_", (VEC,)), ("logical_and_", (VEC,)), ("logical_or_", (VEC * 0,)), ("logical_xor_", (VEC,)),
    ("logical_not_", ()), ("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)), ("swapdims_", (0, -1)),
    ("unsqueeze_", (1,)), ("unsqueeze_", (-1,)), ("squeeze_", (0,)), ("conj_physical_", ()),
]
POS_CASES = [("log2_", ()), ("log10_", ()), ("i0_", ()), ("digamma_", ()), ("lgamma_", ()), ("polygamma_", (1,)),
             ("polygamma_", (0,)), ("mvlgamma_", (1,)), ("round_", ())]


@pytest.mark.parametrize("method,args", INPLACE_CASES, ids=[f"{m}{a}" for m, a in INPLACE_CASES])
def test_inplace_on_non_leaf(method, args):
    same(torch, _inplace_case(method, args))


@pytest.mark.parametrize("method,args", POS_CASES, ids=[f"{m}{a}" for m, a in POS_CASES])
def test_inplace_positive_inputs(method, args):
    same(torch, _inplace_case(method, args, data=POS * 2, dtype="float32"))  # (SciPy's kernels: float32's tolerance)


def test_round_decimals_floor_divide_and_addmm():
    same(torch, _inplace_case("round_", kwargs={"decimals": 1}))
    same(torch, _inplace_case("floor_divide_", (0.3,), second=False))
    same(torch, _inplace_case("floor_divide_", (VEC,), second=False))
    m1, m2 = np.arange(8.0).reshape(2, 4) / 7, np.arange(12.0).reshape(4, 3) / 11
    same(torch, _inplace_case("addmm_", (m1, m2)))
    same(torch, _inplace_case("addmm_", (m1, m2), kwargs={"beta": 0.5, "alpha": 2.0}))
    same(torch, _inplace_case("addmm_", (m2, m1)))  # (shapes that do not multiply)
    same(torch, _inplace_case("squeeze_", ()))


def test_floor_divide_gradient_is_refused():
    def fn(m):
        y = m.tensor(A, requires_grad=True) * 1.0
        y.floor_divide_(0.3)
        y.sum().backward()
    same(torch, fn)


def test_inplace_through_a_view_of_a_non_leaf():
    def fn(m):
        x = m.tensor(A, dtype=m.float64, requires_grad=True)
        y = x * 1.0
        v = y[0]
        v.ceil_()
        v2 = y[1]
        v2.cumsum_(0)
        (y * m.tensor(W)).sum().backward()
        return y, y.grad_fn, v.grad_fn, x.grad, y._version
    same(torch, fn)


@pytest.mark.parametrize("method,args", [("ceil_", ()), ("t_", ()), ("unsqueeze_", (0,)), ("squeeze_", ()),
                                         ("transpose_", (0, 1)), ("eq_", (1.0,)),
                                         ("cumsum_", (0,)), ("tril_", ())])
def test_leaf_that_requires_grad_is_refused(method, args):
    def fn(m):
        x = m.tensor(A, requires_grad=True)
        try:
            getattr(x, method)(*args)
        finally:
            assert x._version == 0 and tuple(x.shape) == (2, 3)
    same(torch, fn)

    def view_of_leaf(m):
        x = m.tensor(A, requires_grad=True)
        getattr(x[0:2], method)(*args)
    same(torch, view_of_leaf)


def test_shape_changes_in_place_on_views_and_plain_tensors():
    def fn(m):
        b = m.tensor(A, requires_grad=True) * 1.0
        v = b[0:2]
        v.t_()
        u = b[1]
        u.unsqueeze_(0)
        out = [v.shape, v.stride(), v.grad_fn, b.grad_fn, v._version, b._version, v._base is b, u.shape, u.grad_fn]
        (v.sum() * 2 + (u * u).sum()).backward()
        x = m.tensor(A)
        x.t_()
        x.add_(1)
        x.transpose_(0, 1)
        z = m.zeros(2, 1, 3)
        z.squeeze_(1).unsqueeze_(0)
        return out + [x, x.stride(), x._version, z.shape, z._version]
    same(torch, fn)
    same(torch, lambda m: m.zeros(2, 3, 4).t_())
    same(torch, lambda m: m.zeros(2, 3).transpose_(0, 2))
    same(torch, lambda m: m.zeros(2, 3).squeeze_((0, 1)).shape)


def test_integer_and_bool_tensors():
    for method, args in [("ceil_", ()), ("round_", ()), ("fix_", ()), ("square_", ()), ("cumsum_", (0,)),
                         ("remainder_", (2,)), ("fmod_", (-2,)), ("floor_divide_", (2,)), ("eq_", (2,)),
                         ("bitwise_and_", (3,)), ("bitwise_or_", (4,)), ("bitwise_xor_", (1,)), ("bitwise_not_", ()),
                         ("bitwise_left_shift_", (1,)), ("bitwise_right_shift_", (1,)), ("log2_", ()), ("i0_", ()),
                         ("digamma_", ()), ("erf_", ()), ("remainder_", (1.5,)), ("lgamma_", ()), ("tan_", ()),
                         ("mvlgamma_", (1,)), ("polygamma_", (1,)), ("logical_and_", (0,)), ("negative_", ())]:
        def fn(m, method=method, args=args):
            a = m.tensor([1, 2, 3, -4])
            r = getattr(a, method)(*args)
            return r is a, a, a.dtype, a._version
        same(torch, fn)
    for method, args in [("bitwise_and_", (1,)), ("ceil_", ()), ("negative_", ()), ("logical_not_", ()),
                         ("eq_", (1.5,)), ("bitwise_and_", (True,))]:
        same(torch, lambda m, method=method, args=args: (getattr(m.tensor([True, False]), method)(*args)))
    same(torch, lambda m: m.tensor([1.5, 2.5]).bitwise_and_(1))
    same(torch, lambda m: m.tensor([1.5, 2.5]).polygamma_(-1))
    same(torch, lambda m: m.tensor([1.5, 2.5]).mvlgamma_(0))
    same(torch, lambda m: m.zeros(3).remainder_(m.ones(2)))
    same(torch, lambda m: m.zeros(3).eq_(m.ones(2, 3)))
    same(torch, lambda m: m.zeros(3).tril_())
    same(torch, lambda m: m.ones(3).cumsum_(0, dtype=m.float64))
    same(torch, lambda m: m.ones(3).cumprod_(0, dtype=m.int64))
    same(torch, lambda m: (m.ones(3).cumsum_(0, dtype=m.float32), m.ones(3, dtype=m.int32).cumsum_(0).dtype))


def test_top_level_functions():
    x = np.array([1.7, -2.3, 0.5])
    for name in ("arctan_", "atan_", "ceil_", "floor_", "round_", "trunc_", "fix", "fix_", "erf_", "expm1_",
                 "log10_", "log2_", "i0_", "square_", "tan_", "negative_"):
        def fn(m, name=name):
            t = m.tensor(np.abs(x))
            return getattr(m, name)(t), t
        same(torch, fn)
    for name in ("greater_equal", "less_equal", "not_equal"):
        same(torch, lambda m, name=name: getattr(m, name)(m.tensor(x), 0.5))
        same(torch, lambda m, name=name: getattr(m.tensor(x), name)(m.tensor(x[::-1].copy())))


# ----------------------------------------------------------------------------- aliases
ALIAS_CASES = [
    ("arctan", lambda t: t.arctan()), ("moveaxis", lambda t: t.moveaxis(0, 1)), ("ravel", lambda t: t.ravel()),
    ("ravel_t", lambda t: t.t().ravel()), ("positive", lambda t: t.positive()), ("adjoint", lambda t: t.adjoint()),
    ("mH", lambda t: t.mH), ("resolve", lambda t: t.resolve_conj().resolve_neg()),
    ("conj_physical", lambda t: t.conj_physical()), ("diagflat", lambda t: t.diagflat()),
    ("diagflat1", lambda t: t.diagflat(-1)), ("narrow_copy", lambda t: t.narrow_copy(1, 1, 2)),
    ("hsplit", lambda t: t.hsplit(3)), ("hsplit_list", lambda t: t.hsplit([1])), ("vsplit", lambda t: t.vsplit(2)),
    ("split_with_sizes", lambda t: t.split_with_sizes([1, 2], 1)), ("unsafe_chunk", lambda t: t.unsafe_chunk(2, 1)),
    ("unsafe_split", lambda t: t.unsafe_split(2, 1)),
    ("unsafe_split_with_sizes", lambda t: t.unsafe_split_with_sizes([2, 1], 1)),
    ("sum_to_size", lambda t: t.sum_to_size(1, 3)), ("sum_to_size_vec", lambda t: t.sum_to_size((3,))),
    ("sum_to_size_col", lambda t: t.sum_to_size(2, 1)), ("sum_to_size_same", lambda t: t.sum_to_size(2, 3)),
    ("hardshrink", lambda t: t.hardshrink(0.65)), ("cdouble", lambda t: t.cdouble()),
    ("cfloat", lambda t: t.cfloat()), ("to_dense", lambda t: t.to_dense()),
]


@pytest.mark.parametrize("name,op", ALIAS_CASES, ids=[c[0] for c in ALIAS_CASES])
def test_aliases(name, op):
    def fn(m):
        x = m.tensor(A, dtype=m.float64, requires_grad=True)
        y = x * 1.0
        r = op(y)
        rs = r if isinstance(r, tuple) else (r,)
        out = [(t, t.grad_fn, t._is_view(), t is y, t.dtype) for t in rs]
        if not rs[0].dtype.is_complex:
            loss = sum((t * t).sum() for t in rs)
            (g,) = m.autograd.grad(loss, x, create_graph=True)
            (gg,) = m.autograd.grad((g * m.tensor(W)).sum(), x, allow_unused=True)
            out += [g, gg]
        return out
    same(torch, fn)


def test_alias_errors_and_flags():
    same(torch, lambda m: m.tensor([True]).positive())
    same(torch, lambda m: m.ones(3).adjoint())
    same(torch, lambda m: m.ones(3).mH)
    same(torch, lambda m: m.ones(2, 3).sum_to_size(4, 3))
    same(torch, lambda m: m.ones(2, 3).sum_to_size(1, 2, 3))
    same(torch, lambda m: m.ones(2, 4).hsplit(3))
    same(torch, lambda m: m.ones(4).vsplit(2))
    same(torch, lambda m: m.ones(2, 2).dsplit(2))
    same(torch, lambda m: m.ones(2, 2, 4).dsplit([1, 3]))
    same(torch, lambda m: m.ones(2, 3).split_with_sizes([1, 1], 1))
    same(torch, lambda m: m.ones(2, 3).unsafe_split_with_sizes([1, 1], 1))
    same(torch, lambda m: m.ones(2, 3).narrow_copy(1, 2, 2))
    same(torch, lambda m: m.tensor([1, 2]).hardshrink())
    same(torch, lambda m: (m.ones(2).is_conj(), m.ones(2).is_neg(), m.ones(2).resolve_conj().is_conj()))
    same(torch, lambda m: m.ones(4).unsafe_chunk(3))

    def written(m):  # unsafe_split's pieces share the source's memory, untracked
        x = m.tensor(A)
        x.unsafe_split(1, 1)[0].fill_(5)
        return x
    same(torch, written)


def test_complex_adjoint_and_conj_physical():
    c = np.array([[1 + 2j, 3 - 1j], [-2j, 0.5 + 0.5j]])

    def fn(m):
        x = m.tensor(c, requires_grad=True)
        y = x * 1.0
        a = y.adjoint()
        p = y.conj_physical()
        (a.abs().sum() + (p * x).abs().sum()).backward()
        return a.resolve_conj(), p, p.grad_fn, x.grad
    same(torch, fn)
    def written(m):
        x = m.tensor(c)
        return x.conj_physical_(), x
    same(torch, written)


def test_new_empty_strided():
    def fn(m):
        t = m.ones(2, 3, dtype=m.float64).new_empty_strided((2, 3), (1, 2))
        t.fill_(3)
        return t.shape, t.stride(), t.dtype, t.is_contiguous(), t
    same(torch, fn)
    same(torch, lambda m: m.ones(2).new_empty_strided((2, 3), (1, 2), dtype=m.int32).dtype)
    same(torch, lambda m: m.ones(2).new_empty_strided((2, 3), (1,)))


# ----------------------------------------------------------------------------- random
def test_random_methods_shapes_dtypes_nodes_and_errors():
    for call in ("cauchy_()", "cauchy_(1.0, 2.0)", "geometric_(0.3)", "log_normal_()", "log_normal_(0.0, 0.5)"):
        def fn(m, call=call):
            y = m.ones(3, 4, dtype=m.float64, requires_grad=True) * 1.0
            r = eval("y." + call)
            y.sum().backward()
            return r is y, y.shape, y.dtype, y.grad_fn, y._version
        same(torch, fn)
    for call in ("cauchy_(sigma=0)", "geometric_(0)", "geometric_(1)", "log_normal_(std=0)"):
        same(torch, lambda m, call=call: eval("m.ones(3)." + call))
    same(torch, lambda m: m.zeros(3, dtype=m.int64).cauchy_())
    same(torch, lambda m: m.zeros(3, dtype=m.int64).log_normal_())
    same(torch, lambda m: m.zeros(3, dtype=m.int64).geometric_(0.5).dtype)

    def bern(m):
        p = m.full((2, 3), 0.5, dtype=m.float64, requires_grad=True)
        b = (p * 1.0).bernoulli()
        b.sum().backward()
        return b.shape, b.dtype, b.grad_fn, p.grad, m.ones(2).bernoulli(0.0), m.ones(2).bernoulli(1.0)
    same(torch, bern)
    same(torch, lambda m: m.ones(2).bernoulli(1.5))
    same(torch, lambda m: (m.ones(3) * 2).bernoulli())
    same(torch, lambda m: m.tensor([0.0, 1.0, 0.0]).multinomial(2, replacement=True))
    same(torch, lambda m: m.tensor([0.2, 0.8]).multinomial(3))


def test_random_moments_and_seeding():
    n = 200_000
    g = lg.Generator().manual_seed(7)
    c = lg.empty(n, dtype=lg.float64).cauchy_(1.0, 2.0, generator=g)
    assert abs(float(c.median()) - 1.0) < 0.05  # (Cauchy: no mean; median and quartiles +-sigma)
    q = np.quantile(c.numpy(), [0.25, 0.75])
    assert abs(q[0] + 1.0) < 0.06 and abs(q[1] - 3.0) < 0.06
    geo = lg.empty(n, dtype=lg.float64).geometric_(0.25, generator=g)
    assert float(geo.min()) == 1.0 and abs(float(geo.mean()) - 4.0) < 0.05 and abs(float(geo.var()) - 12.0) < 0.4
    ln = lg.empty(n, dtype=lg.float64).log_normal_(0.5, 0.25, generator=g)
    assert abs(float(ln.log().mean()) - 0.5) < 0.005 and abs(float(ln.log().std()) - 0.25) < 0.005
    b = lg.full((n,), 0.3).bernoulli(generator=g)
    assert abs(float(b.mean()) - 0.3) < 0.005 and set(np.unique(b.numpy())) <= {0.0, 1.0}
    for call in (lambda t, g: t.cauchy_(generator=g), lambda t, g: t.geometric_(0.5, generator=g),
                 lambda t, g: t.log_normal_(generator=g), lambda t, g: t.bernoulli(generator=g)):
        first = call(lg.full((5,), 0.5), lg.Generator().manual_seed(3))
        again = call(lg.full((5,), 0.5), lg.Generator().manual_seed(3))
        assert np.array_equal(first.numpy(), again.numpy())
    lg.manual_seed(11)
    u = lg.empty(4).cauchy_()
    lg.manual_seed(11)
    assert np.array_equal(u.numpy(), lg.empty(4).cauchy_().numpy())


# ----------------------------------------------------------------------------- attributes and queries
def test_device_and_layout_queries():
    def fn(m):
        x = m.ones(2, 3)
        return ([getattr(x, n) for n in ("is_cpu", "is_meta", "is_mps", "is_xla", "is_xpu", "is_ipu", "is_maia",
                                          "is_mtia", "is_mkldnn", "is_nested", "is_quantized", "is_sparse_csr",
                                          "is_vulkan", "itemsize", "nbytes", "name")]
                + [x.is_pinned(), x.is_distributed(), x.get_device(), x[0].nbytes, x.t().nbytes,
                   m.ones(2, dtype=m.float16).itemsize, x.element_size() == x.itemsize])
    same(torch, fn)
    same(torch, lambda m: [m.ones(1, dtype=d).is_signed() for d in (m.float32, m.uint8, m.bool, m.int8, m.int64,
                                                                      m.complex64)])
    same(torch, lambda m: (m.ones(2, 3).is_same_size(m.zeros(2, 3)), m.ones(2, 3).is_same_size(m.ones(3, 2))))


@pytest.mark.parametrize("value", [[], [1.0, 2.0], [0.0], [3], True, 0.1, 0])
def test_is_nonzero(value):
    same(torch, lambda m: m.tensor(value).is_nonzero())


def test_pointers_offsets_and_set_to():
    def fn(m):
        x = m.arange(24.0).reshape(4, 6)
        base = x.data_ptr()
        views = [x[1], x[:, 2], x.t(), x[1:3, 2:5], x.view(24)[5:], x[2].unsqueeze(0)]
        return ([v.storage_offset() for v in views] + [(v.data_ptr() - base) // 4 for v in views]
                + [x.const_data_ptr() == base, x.is_set_to(x), x.is_set_to(x.view(4, 6)), x.is_set_to(x[:]),
                   x.is_set_to(x.t()), x.is_set_to(x[1:]), x.is_set_to(x.clone())])
    same(torch, fn)
    same(torch, lambda m: m.ones(2).is_set_to(3))


@pytest.mark.parametrize("make", [lambda m: m.ones(2, 3, 4), lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
                                  lambda m: m.ones(2, 3, 4).transpose(0, 1), lambda m: m.ones(2, 1, 3),
                                  lambda m: m.ones(2, 1, 3).permute(2, 1, 0), lambda m: m.ones(3),
                                  lambda m: m.ones(()), lambda m: m.ones(2, 3, 4, 5).permute(0, 2, 3, 1),
                                  lambda m: m.ones(2, 3)[:, ::2], lambda m: m.ones(4, 4).t()[1:3]])
def test_dim_order(make):
    same(torch, lambda m: make(m).dim_order())
    same(torch, lambda m: make(m).dim_order(ambiguity_check=True))


def test_apply_and_map():
    def fn(m):
        a = m.arange(6.0)
        a.apply_(lambda v: v * 2 + 1)
        b = m.arange(6)
        b.map_(m.ones(6, dtype=m.int64), lambda p, q: p * 10 + q)
        c = m.arange(3.0)
        c.map2_(m.ones(3), m.ones(1) * 2, lambda p, q, r: p + q * r)
        d = m.arange(3)
        d.apply_(lambda v: v * 1.7)
        return a, b, c, d, a._version, c._version
    same(torch, fn)
    same(torch, lambda m: m.ones(2, requires_grad=True).apply_(lambda v: v))
    same(torch, lambda m: (m.ones(2, requires_grad=True) * 2).map_(m.ones(2), lambda p, q: p))
    same(torch, lambda m: m.ones(2).map_(m.ones(2, requires_grad=True), lambda p, q: p))
    same(torch, lambda m: m.ones(2).map2_(m.ones(2, requires_grad=True), m.ones(2), lambda p, q, r: p))
    same(torch, lambda m: m.ones(3).map_(m.ones(2), lambda p, q: p))
    same(torch, lambda m: m.ones(3).apply_(lambda p: "x"))
    same(torch, lambda m: m.ones(3).apply_(3))


def test_resize_and_set():
    def fn(m):
        a = m.arange(6.0)
        r = a.resize_(2, 2)
        out = [r is a, a, a._version]
        base = m.arange(6.0)
        b = base[1:]
        b.resize_(2, 2)
        out += [b, b.storage_offset(), base]
        c = m.arange(3.0)
        c.resize_(5)
        out += [c.shape, c[:3]]
        d = m.zeros(1)
        d.resize_as_(m.arange(6.0).reshape(2, 3).t())
        out += [d.shape, d.stride()]
        s = m.zeros(4)
        e = m.arange(6.0)
        e.set_(s)
        e.fill_(2)
        out += [e, s, e.is_set_to(s), e._version, e.data_ptr() == s.data_ptr()]
        f = m.arange(6.0)
        f.set_()
        out += [f.shape, f.dtype]
        g = m.arange(6.0).reshape(2, 3).t()
        g.resize_(3, 2)
        h = m.arange(6.0).reshape(2, 3).t()
        h.resize_(2, 3)
        return out + [g.stride(), g._version, h.stride(), h, h._version]
    same(torch, fn)
    same(torch, lambda m: m.ones(2, requires_grad=True).resize_(3))
    same(torch, lambda m: (m.ones(2, requires_grad=True) * 1).resize_(3))
    same(torch, lambda m: m.ones(2).resize_(-1, 2))
    same(torch, lambda m: m.ones(2, requires_grad=True).set_(m.ones(2)))
    same(torch, lambda m: m.ones(2).set_(m.ones(2, dtype=m.float64)))

    def set_non_leaf(m):
        y = m.ones(2, requires_grad=True) * 2
        y.set_(m.zeros(3))
        out = [y.grad_fn, y._version, y.requires_grad, y.shape]
        y.sum().backward()
        return out
    same(torch, set_non_leaf)


def test_module_load_as_subclass_to_dense():
    def fn(m):
        p = m.nn.Parameter(m.zeros(3))
        q = p.module_load(m.ones(3))
        r = p.module_load(m.full((3,), 2.0), assign=True)
        s = m.arange(3.0).as_subclass(m.nn.Parameter)
        t = m.ones(2)
        return [q, p, q is p, q.requires_grad, r, type(s).__name__, s.requires_grad, t.to_dense() is t,
                t.to_dense(m.float64).dtype]
    same(torch, fn)
    same(torch, lambda m: m.ones(3).module_load(m.ones(2)))
    same(torch, lambda m: m.ones(3).as_subclass(int))

    def subclass(m):
        class Sub(m.Tensor):
            pass
        x = m.ones(2, requires_grad=True)
        s, leaf = (x * 2).as_subclass(Sub), x.as_subclass(Sub)
        s.sum().backward()
        z = m.zeros(3)
        w = z.as_subclass(Sub)
        w.add_(1)
        return [type(s).__name__, s.grad_fn, s.is_leaf, leaf.requires_grad, leaf.grad_fn, x.grad, z, z._version,
                w._is_view()]
    same(torch, subclass)


def test_no_grad_writes_and_versions_match():
    def fn(m):
        x = m.tensor(A, requires_grad=True)
        with m.no_grad():
            x.ceil_()
            x.t_()
            x.eq_(1.0)
        return x, x._version, x.grad_fn, x.shape
    same(torch, fn)


def test_leafgrad_saved_tensors_checked_after_inplace():
    """A value saved for backward and then overwritten by one of the new in-place ops: torch's error."""
    def fn(m):
        y = m.tensor(POS, requires_grad=True) * 1.0
        z = y.exp()
        z.log2_()
        y2 = y.sin()
        y.cumsum_(0)
        (z.sum() + y2.sum()).backward()
    same(torch, fn)

    def fn2(m):
        y = m.tensor(POS, requires_grad=True) * 1.0
        z = y * y
        y.tan_()
        z.sum().backward()
    same(torch, fn2)


def test_raises_exactly_for_bad_arguments():
    raises_exactly(RuntimeError, lambda: lg.ones(2, 3, 4).t_())
    raises_exactly(TypeError, lambda: lg.ones(2).polygamma_(1.5))
    raises_exactly(NotImplementedError, lambda: lg.ones(2).bitwise_not_())


def test_share_memory():
    def fn(m):
        x = m.arange(6.0)
        before = x.is_shared()
        r = x.share_memory_()
        v = x[2:]
        x[3] = 100
        p = m.ones(3, requires_grad=True)
        w = m.arange(6.0)[1:]
        w.share_memory_()
        return [before, r is x, x, v, v.is_shared(), x.t().is_shared(), x.is_shared(), p.share_memory_() is p,
                p.requires_grad, w.is_shared(), w.storage_offset(), w, x.share_memory_() is x]
    same(torch, fn)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_shared_memory_is_seen_by_a_forked_child():
    import os
    x = lg.zeros(4).share_memory_()
    pid = os.fork()
    if pid == 0:  # (the child writes and leaves at once, without pytest's teardown)
        x[1] = 7.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [0.0, 7.0, 0.0, 0.0]
    y = lg.zeros(2)
    pid = os.fork()
    if pid == 0:
        y[0] = 7.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert y.tolist() == [0.0, 0.0]  # (not shared: the child's copy)


SAVED_CASES = {
    "t_": lambda y, m: y.t_(), "transpose_": lambda y, m: y.transpose_(0, 1), "unsqueeze_": lambda y, m: y.unsqueeze_(1),
    "squeeze_": lambda y, m: y.squeeze_(), "squeeze_dim": lambda y, m: y.squeeze_(0),
    "squeeze_dims": lambda y, m: y.squeeze_((0, 1)), "eq_": lambda y, m: y.eq_(1.0),
    "eq_tensor": lambda y, m: y.eq_(m.ones(3, dtype=m.float64)), "polygamma_": lambda y, m: y.polygamma_(1),
    "narrow_copy": lambda y, m: y.narrow_copy(1, 1, 2), "unsafe_split": lambda y, m: y.unsafe_split(2, 1)[0],
    "unsafe_split_with_sizes": lambda y, m: y.unsafe_split_with_sizes([1, 2], 1)[0],
    "conj_physical_": lambda y, m: y.conj_physical_(), "cauchy_": lambda y, m: y.cauchy_(),
    "bernoulli": lambda y, m: (y / 4).bernoulli(), "floor_divide_": lambda y, m: y.floor_divide_(0.3),
    "cumsum_": lambda y, m: y.cumsum_(1), "tril_": lambda y, m: y.tril_(1),
}


@pytest.mark.parametrize("case", list(SAVED_CASES))
def test_node_names_and_saved_attributes(case):
    def fn(m):
        y = m.tensor(POS, dtype=m.float64, requires_grad=True) * 1.0
        node = SAVED_CASES[case](y, m).grad_fn
        names = sorted(a for a in dir(torch_node[0]) if a.startswith("_saved_"))
        return node.name(), {a: getattr(node, a) for a in names}
    torch_node = [SAVED_CASES[case](torch.tensor(POS, requires_grad=True) * 1.0, torch).grad_fn]
    same(torch, fn)


@pytest.mark.parametrize("method,args", [("t_", ()), ("unsqueeze_", (0,)), ("eq_", (1.0,)), ("ceil_", ()),
                                         ("logical_not_", ())])
@pytest.mark.parametrize("kind", ["multi_output", "no_grad"])
def test_views_that_refuse_in_place_writes(method, args, kind):
    """unbind's outputs and views made under no_grad refuse in-place ops (shape changes too) with grad on;
    the non-differentiable logical ops are let through, as torch."""
    def fn(m):
        y = m.ones(2, 3, requires_grad=True) * 1
        if kind == "multi_output":
            v = y.unbind(0)[0]
        else:
            with m.no_grad():
                v = y[0]
        getattr(v, method)(*args)
        return v, v.shape, v._version, y._version
    same(torch, fn)
