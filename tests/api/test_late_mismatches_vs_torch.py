"""The last known mismatches with torch 2.13 on issue 14, each checked against torch: embedding_bag's
scale_grad_by_freq, complex tensors' real/imag views, linalg.eig's double backward, grid_sample's
double-backward nodes, Tensor.grad_dtype, var_mean/std_mean with an explicit None dim, and sparse
embedding gradients (dense in leafgrad, with a warning)."""
import warnings

import numpy as np
import pytest
from differential import raises_exactly, same

torch = pytest.importorskip("torch")
import leafgrad  # noqa: E402


def _grads(m, out, inputs):
    """The gradients of out.sum() (weighted, so every element counts differently)."""
    w = m.arange(out.numel(), dtype=out.real.dtype if out.is_complex() else out.dtype).reshape(out.shape) + 1
    (out * w).sum().backward()
    return [x.grad for x in inputs]


# ----------------------------------------------------------------------------- 1. embedding_bag frequencies
_BAG_IDX = [1, 2, 1, 1, 3, 2, 0, 4]


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_bag_scales_by_frequency_as_torch(mode, padding_idx, weighted):
    """torch 2.13's CPU kernel divides the k-th distinct index by the count at position k of the sorted
    indices (pytorch#190063), padding indices counted: leafgrad gives the same numbers."""
    if weighted and mode != "sum":
        pytest.skip("per_sample_weights is for mode='sum' only")

    def run(m):
        w = m.tensor(np.arange(15.0).reshape(5, 3), dtype=m.float64, requires_grad=True)
        psw = m.tensor(np.arange(1.0, 9.0), dtype=m.float64, requires_grad=True) if weighted else None
        out = m.nn.functional.embedding_bag(m.tensor(_BAG_IDX), w, m.tensor([0, 3, 5]), mode=mode,
                                            per_sample_weights=psw, padding_idx=padding_idx,
                                            scale_grad_by_freq=True)
        return [out.grad_fn, out] + _grads(m, out, [w] + ([psw] if weighted else []))
    same(torch, run)


@pytest.mark.parametrize("idx", [[[1, 1, 2], [1, 3, 3]], [[4, 4, 4], [0, 1, 2]], [[3, 1, 3], [1, 3, 2]]])
def test_embedding_bag_module_frequency_scaling_2d_input(idx):
    def run(m):
        m.manual_seed(0)
        bag = m.nn.EmbeddingBag(5, 3, mode="mean", scale_grad_by_freq=True).double()
        out = bag(m.tensor(idx))
        return _grads(m, out, [bag.weight])
    same(torch, run)


def test_embedding_bag_max_mode_refuses_frequency_scaling():
    def run(m):
        w = m.ones(5, 3, requires_grad=True)
        return m.nn.functional.embedding_bag(m.tensor(_BAG_IDX), w, m.tensor([0, 3]), mode="max",
                                             scale_grad_by_freq=True)
    same(torch, run)


# ----------------------------------------------------------------------------- 2. real / imag views
_Z = [1 + 2j, 3 - 1j, -2 + 0.5j]


def _z(m, grad=True, dtype="complex128"):
    return m.tensor(_Z, dtype=getattr(m, dtype), requires_grad=grad)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_real_imag_are_views_with_select_history(dtype):
    def run(m):
        z = _z(m, dtype=dtype)
        re, im = z.real, z.imag
        return [re.grad_fn, re.grad_fn.next_functions[0][0], im.grad_fn, re._base is z, im._base is z,
                re.is_leaf, re.requires_grad, re.dtype, im.dtype, re.stride(), im.storage_offset(),
                re, im] + _grads(m, re * re * 2 + im * 3, [z])
    same(torch, run)


def test_real_imag_second_gradients_as_torch():
    def run(m):
        z = _z(m)
        y = (z.real ** 3 + z.imag ** 2 * z.real).sum()
        g, = m.autograd.grad(y, z, create_graph=True)
        g2, = m.autograd.grad(g.abs().sum(), z)
        return g, g.grad_fn, g2
    same(torch, run)


def test_functions_real_imag_and_real_tensors():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        z = _z(m)
        return [m.real(x) is x, x.real is x, m.real(z).grad_fn, m.imag(z).grad_fn, m.real(z), m.imag(z)]
    same(torch, run)
    same(torch, lambda m: m.tensor([1.0, 2.0]).imag)
    same(torch, lambda m: m.imag(m.tensor([1, 2])))


@pytest.mark.parametrize("part", ["real", "imag"])
def test_writes_through_real_imag_reach_the_base(part):
    def run(m):
        z = _z(m, grad=False)
        v = getattr(z, part)
        v[0] = 10
        v.mul_(2)
        z.mul_(1j)  # (the view sees the base's write, and shares its version counter)
        return z, v, v._version, z._version
    same(torch, run)


@pytest.mark.parametrize("part", ["real", "imag"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_inplace_through_real_imag_records_copy_slices(part, create_graph):
    def run(m):
        a = _z(m)
        z = a * 1
        getattr(z, part).mul_(3)
        y = (z.abs() ** 2 * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum()
        g, = m.autograd.grad(y, a, create_graph=create_graph)
        out = [z.grad_fn, z.grad_fn.next_functions[0][0], z, g]
        if create_graph:
            out.append(m.autograd.grad(g.abs().sum(), a)[0])
        return out
    same(torch, run)


def test_view_of_a_base_written_in_place_regenerates_as_torch():
    def run(m):
        a = _z(m)
        z = a * 1
        im = z.imag
        z.mul_(2)
        return [im.grad_fn, im.grad_fn.next_functions[0][0], im] + _grads(m, im * im, [a])
    same(torch, run)


def test_setters_copy_into_the_parts():
    def run(m):
        z = _z(m, grad=False)
        z.real = m.tensor([5.0, 6.0, 7.0], dtype=m.float64)
        z.imag = 0.5
        return z
    same(torch, run)

    def bad(m):
        z = _z(m, grad=False)
        z.real = m.tensor([1.0, 2.0], dtype=m.float64)
    same(torch, bad)


def test_view_as_real_and_view_as_complex_as_torch():
    def run(m):
        w = m.tensor(np.arange(12.0).reshape(3, 2, 2), dtype=m.float64, requires_grad=True)
        c = m.view_as_complex(w)
        r = m.view_as_real(c)
        g, = m.autograd.grad((c.abs() * c.real).sum(), w, create_graph=True)
        g2, = m.autograd.grad((g ** 2).sum(), w)
        return [c.grad_fn, r.grad_fn, c._base is w, r._base is w, c.shape, r.stride(), c, g, g.grad_fn, g2]
    same(torch, run)


@pytest.mark.parametrize("make", [lambda m: m.ones(3, 3), lambda m: m.ones(3, 2).t(), lambda m: m.ones(2, 4)[:, ::2],
                                  lambda m: m.ones(2, 4, dtype=m.int64), lambda m: m.ones(()),
                                  lambda m: m.ones(4, 2)[::2]])
def test_view_as_complex_refusals(make):
    same(torch, lambda m: m.view_as_complex(make(m)))


def test_view_as_real_refuses_real_tensors():
    same(torch, lambda m: m.view_as_real(m.ones(2)))


def test_inplace_through_view_as_complex():
    def run(m):
        w0 = m.tensor(np.arange(8.0).reshape(4, 2), dtype=m.float64, requires_grad=True)
        w = w0 * 1
        c = m.view_as_complex(w)
        c[1:].mul_(1j)
        return [w.grad_fn, w] + _grads(m, w, [w0])
    same(torch, run)


# ----------------------------------------------------------------------------- 3. linalg.eig double backward
_A = np.array([[[2.0, 1, 0], [0.5, 3, 1], [0.2, 0.1, 1.0]], [[1.0, -2, 0.5], [0.3, 0.5, 1], [0.0, 1, -1.5]]])


@pytest.mark.parametrize("which", ["eig", "eigvals", "vectors_only"])
def test_eig_double_backward_as_torch(which):
    def run(m):
        A = m.tensor(_A, dtype=m.float64, requires_grad=True)
        if which == "eigvals":
            y = (m.linalg.eigvals(A).abs() ** 3).sum()
        else:
            L, V = m.linalg.eig(A)
            y = (V.abs() ** 2 * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum()
            if which == "eig":
                y = y + (L.real ** 2 + L.imag).sum()
        g, = m.autograd.grad(y, A, create_graph=True)
        g2, = m.autograd.grad((g * m.arange(18.0, dtype=m.float64).reshape(2, 3, 3)).sum(), A)
        return g.grad_fn.name(), g.detach().numpy(), g2.numpy()
    t, lg = run(torch), run(leafgrad)
    assert lg[0] == t[0]
    # (the two LAPACK paths round differently: eigen-sums of 1e-13 magnitude sit near zero)
    np.testing.assert_allclose(lg[1], t[1], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(lg[2], t[2], rtol=1e-8, atol=1e-9)


_C1 = np.array([[2 + 1j, 1 - 1j], [0.5j, 3 + 0j]])
_C2 = np.array([[1 + 1j, -0.5j], [2 - 1j, 1.5 + 0.5j]])
_PRODUCTS = {"mm": lambda m, a, b: m.mm(a, b), "matmul": lambda m, a, b: a @ b,
             "bmm": lambda m, a, b: m.bmm(a[None], b[None]), "mv": lambda m, a, b: m.mv(a, b[0]),
             "dot": lambda m, a, b: m.dot(a[0], b[1]), "addmm": lambda m, a, b: m.addmm(a, a, b, alpha=2),
             "div": lambda m, a, b: a / b, "reciprocal": lambda m, a, b: a.reciprocal() * b,
             "linear": lambda m, a, b: m.nn.functional.linear(a, b)}


@pytest.mark.parametrize("op", sorted(_PRODUCTS))
def test_complex_products_conjugate_in_backward(op):
    """eig's backward graph multiplies and divides complex matrices: their gradients follow torch's
    convention (grad * conj(derivative)), to second order."""
    def run(m):
        a = m.tensor(_C1, dtype=m.complex128, requires_grad=True)
        b = m.tensor(_C2, dtype=m.complex128, requires_grad=True)
        out = _PRODUCTS[op](m, a, b)
        ga, gb = m.autograd.grad((out.abs() ** 2).sum(), [a, b], create_graph=True)
        return [out, ga, gb] + list(m.autograd.grad((ga.abs() ** 2 + gb.real).sum(), [a, b]))
    same(torch, run)


# ----------------------------------------------------------------------------- 4. grid_sample's double backward
_RNG = np.random.default_rng(4)
_GS = {2: (_RNG.standard_normal((1, 2, 4, 5)), _RNG.uniform(-1.1, 1.1, (1, 3, 3, 2))),
       3: (_RNG.standard_normal((1, 2, 3, 4, 4)), _RNG.uniform(-1.1, 1.1, (1, 2, 2, 2, 3)))}


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("mode, padding, corners", [("bilinear", "zeros", False), ("bilinear", "border", True),
                                                    ("bilinear", "reflection", False), ("nearest", "zeros", True)])
@pytest.mark.parametrize("needs", ["both", "input", "grid"])
def test_grid_sample_double_backward_nodes_and_values(dim, mode, padding, corners, needs):
    def run(m):
        x = m.tensor(_GS[dim][0], requires_grad=needs != "grid")
        grid = m.tensor(_GS[dim][1], requires_grad=needs != "input")
        leaves = [t for t in (x, grid) if t.requires_grad]
        y = m.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=corners)
        firsts = m.autograd.grad((y ** 2).sum(), leaves, create_graph=True)
        node = firsts[0].grad_fn
        out = [y.grad_fn, [f.grad_fn for f in firsts], [nxt for nxt, _ in node.next_functions], firsts]
        out.append(m.autograd.grad(sum((f * f).sum() for f in firsts), leaves, allow_unused=True))
        return out
    same(torch, run)


def test_grid_sample_third_order_as_torch():
    def run(m):
        x = m.tensor(_GS[2][0], requires_grad=True)
        grid = m.tensor(_GS[2][1], requires_grad=True)
        y = m.nn.functional.grid_sample(x, grid, align_corners=False)
        gx, gg = m.autograd.grad((y ** 2).sum(), [x, grid], create_graph=True)
        hx, hg = m.autograd.grad((gx ** 2).sum() + (gg ** 2).sum(), [x, grid], create_graph=True)
        return [hx, hg] + list(m.autograd.grad((hx.sum() + (hg ** 2).sum()), [x, grid]))
    same(torch, run)


# ----------------------------------------------------------------------------- 5. Tensor.grad_dtype
def test_grad_dtype_defaults_and_casts_incoming_gradients():
    def run(m):
        x = m.ones(3, requires_grad=True)
        out = [x.grad_dtype, m.ones(2).grad_dtype, m.nn.Parameter(m.ones(2, dtype=m.float64)).grad_dtype]
        seen = []
        x.register_hook(lambda g: seen.append(g.dtype))  # (registered first: still sees the cast gradient)
        x.grad_dtype = m.float64
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        out += [x.grad_dtype, x.grad, seen]
        h = m.ones(3, dtype=m.float16, requires_grad=True)
        h.grad_dtype = m.float32
        (h * 3).sum().backward()
        q = m.ones(3, requires_grad=True)
        q.grad_dtype = m.float64
        out += [h.grad, m.autograd.grad((q * 2).sum(), q)[0]]
        c = q.clone()
        c.retain_grad()
        (c * 2).sum().backward()
        return out + [c.grad, q.grad]
    same(torch, run)


def test_grad_dtype_none_accepts_any_gradient():
    def run(m):
        y = m.ones(3, requires_grad=True)
        y.grad_dtype = None
        (y.double() * 2).sum().backward()
        u = m.ones(3, requires_grad=True)
        u.grad_dtype = None
        u.grad = m.zeros(3, dtype=m.float64)
        (u * 2).sum().backward()
        return y.grad_dtype, y.grad, u.grad
    same(torch, run)


@pytest.mark.parametrize("case", ["nonleaf_get", "nonleaf_set", "bad_type", "existing_grad", "assign_mismatch",
                                  "default_assign_mismatch"])
def test_grad_dtype_refusals(case):
    def run(m):
        x = m.ones(3, requires_grad=True)
        if case == "nonleaf_get":
            return (x * 2).grad_dtype
        if case == "nonleaf_set":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (torch reads .grad first: the non-leaf warning)
                (x * 2).grad_dtype = m.float64
        if case == "bad_type":
            x.grad_dtype = "float64"
        if case == "existing_grad":
            x.grad = m.zeros(3)
            x.grad_dtype = m.float32  # (the same dtype: allowed)
            x.grad_dtype = m.float64
        if case == "assign_mismatch":
            x.grad_dtype = m.float64
            x.grad = m.zeros(3)
        if case == "default_assign_mismatch":
            x.grad = m.zeros(3, dtype=m.float64)
        return x.grad_dtype
    same(torch, run)


# ----------------------------------------------------------------------------- 6. var/std(_mean) with dim=None
_MOMENT_X = np.random.default_rng(6).standard_normal((3, 4))
_CALLS = [((None,), {}), ((), {"dim": None}), ((None, True), {}), ((None,), {"correction": 0}),
          ((), {"dim": None, "keepdim": True}), ((None,), {"unbiased": False}), ((), {"dim": None, "unbiased": True}),
          ((None, False, True), {}), ((), {}), ((), {"keepdim": True}), ((), {"correction": None}),
          ((), {"dim": None, "correction": None}), ((0,), {"correction": None}), ((True,), {}), ((False,), {}),
          ((0,), {})]


@pytest.mark.parametrize("fn", ["var_mean", "std_mean", "var", "std"])
@pytest.mark.parametrize("args, kwargs", _CALLS)
def test_moments_show_the_correction_of_torchs_overload(fn, args, kwargs):
    """torch's parser picks an overload by what was passed: an explicit dim=None shows correction 1,
    correction= shows what was given (None too), a bare call shows None."""
    def run(m):
        x = m.tensor(_MOMENT_X, requires_grad=True)
        out = getattr(m, fn)(x, *args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        node = outs[0].grad_fn
        res = [node, node._saved_correction, node._saved_dim, node._saved_keepdim, list(outs)]
        if fn in ("var", "std"):
            res.append(getattr(x, fn)(*args, **kwargs))
        return res + _grads(m, sum(o.sum() for o in outs).reshape(1), [x])
    same(torch, run)


# ----------------------------------------------------------------------------- 7. sparse=True embeddings
def _dense(g):
    return g.to_dense() if g.is_sparse else g


@pytest.mark.parametrize("kind", ["embedding", "module", "bag", "bag_module"])
def test_sparse_embedding_gradient_is_dense_with_torchs_values(kind):
    def run(m):
        m.manual_seed(0)
        w = m.tensor(np.arange(15.0).reshape(5, 3), requires_grad=True)
        idx = m.tensor([1, 2, 1, 4])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "embedding":
                out, weight = m.nn.functional.embedding(idx, w, sparse=True, padding_idx=4), w
            elif kind == "module":
                emb = m.nn.Embedding(5, 3, sparse=True)
                out, weight = emb(idx), emb.weight
            elif kind == "bag":
                out, weight = m.nn.functional.embedding_bag(idx, w, m.tensor([0, 2]), mode="sum", sparse=True), w
            else:
                emb = m.nn.EmbeddingBag(5, 3, mode="mean", sparse=True)
                out, weight = emb(idx.reshape(2, 2)), emb.weight
        (out * m.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        return out.grad_fn, getattr(out.grad_fn, "_saved_sparse", True), _dense(weight.grad)
    same(torch, run)


def test_sparse_embedding_warns_once_and_says_why():
    from leafgrad.nn import _sparse_grad
    _sparse_grad._WARNED.discard("embedding")
    w = leafgrad.ones(5, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.nn.functional.embedding(leafgrad.tensor([1, 2]), w, sparse=True).sum().backward()
        leafgrad.nn.functional.embedding(leafgrad.tensor([1]), w, sparse=True)
    msgs = [str(c.message) for c in caught if c.category is UserWarning]
    assert len(msgs) == 1 and msgs[0].startswith("embedding(sparse=True): leafgrad has no sparse tensors")
    assert not w.grad.is_sparse and w.grad.layout == leafgrad.strided


def test_sparse_embedding_gradient_feeds_every_optimizer():
    """torch's Adam refuses a sparse gradient; leafgrad's dense one trains like sparse=False's."""
    def train(sparse):
        leafgrad.manual_seed(3)
        emb = leafgrad.nn.Embedding(6, 2, sparse=sparse)
        opt = leafgrad.optim.Adam(emb.parameters(), lr=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                opt.zero_grad()
                emb(leafgrad.tensor([0, 3, 3])).pow(2).sum().backward()
                opt.step()
        return emb.weight.detach().numpy()
    np.testing.assert_array_equal(train(True), train(False))


@pytest.mark.parametrize("bag", [False, True])
def test_sparse_with_scale_grad_by_freq_refused_at_backward(bag):
    def run(m):
        w = m.ones(5, 3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if bag:
                y = m.nn.functional.embedding_bag(m.tensor([1, 2, 1]), w, m.tensor([0, 2]), sparse=True,
                                                  scale_grad_by_freq=True)
            else:
                y = m.nn.functional.embedding(m.tensor([1, 2]), w, sparse=True, scale_grad_by_freq=True)
        forward_ok = y.grad_fn.name()
        try:
            y.sum().backward()
        except RuntimeError as e:
            return forward_ok, "RuntimeError", str(e).split(";")[0]
        return forward_ok, None
    same(torch, run)
