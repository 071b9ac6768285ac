"""The memory layout of a result (``stride()``, ``is_contiguous()``) is torch's for inputs of every
layout: reductions, softmax, cumulative ops, cat/stack, roll, tril/triu and masked_fill return a
contiguous tensor (torch's kernels do), element-wise ops keep their input's layout (TensorIterator
does), so ``.view`` accepts or refuses a result exactly where torch does (see ``_ops/layout.py``)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad as lg
from differential import raises_exactly

torch = pytest.importorskip("torch")

# op(lib, x, d): x is a permuted (non-contiguous) 3-d float tensor, d a dim
_CONTIGUOUS_IN_TORCH = {
    "sum": lambda t, x, d: x.sum(d), "sum_keepdim": lambda t, x, d: x.sum(d, keepdim=True),
    "sum_two_dims": lambda t, x, d: x.sum((d, (d + 1) % 3)), "mean": lambda t, x, d: x.mean(d),
    "prod": lambda t, x, d: x.prod(d), "amax": lambda t, x, d: x.amax(d), "amin": lambda t, x, d: x.amin(d),
    "max_dim": lambda t, x, d: x.max(d)[0], "argmax": lambda t, x, d: x.argmax(d),
    "var": lambda t, x, d: x.var(d), "std": lambda t, x, d: x.std(d, keepdim=True),
    "var_mean": lambda t, x, d: t.var_mean(x, d)[0], "std_mean": lambda t, x, d: t.std_mean(x, d)[1],
    "nansum": lambda t, x, d: x.nansum(d), "logsumexp": lambda t, x, d: x.logsumexp(d),
    "vector_norm": lambda t, x, d: t.linalg.vector_norm(x, dim=d), "norm_p": lambda t, x, d: x.norm(p=3, dim=d),
    "softmax": lambda t, x, d: x.softmax(d), "log_softmax": lambda t, x, d: t.log_softmax(x, d),
    "F_softmax": lambda t, x, d: t.nn.functional.softmax(x, dim=d),
    "cumsum": lambda t, x, d: x.cumsum(d), "cumprod": lambda t, x, d: x.cumprod(d),
    "logcumsumexp": lambda t, x, d: x.logcumsumexp(d), "roll": lambda t, x, d: x.roll(1, d),
    "roll_two": lambda t, x, d: x.roll((1, 2), (d, (d + 1) % 3)),
    "cat": lambda t, x, d: t.cat([x, x], d), "stack": lambda t, x, d: t.stack([x, x], d),
    "tril": lambda t, x, d: x.tril(), "triu": lambda t, x, d: x.triu(1),
    "masked_fill": lambda t, x, d: x.masked_fill(x > 0, 0.5),
    "masked_fill_tensor": lambda t, x, d: x.masked_fill(x > 0, t.tensor(0.5)),
    "median": lambda t, x, d: x.median(d)[0], "nanmedian_indices": lambda t, x, d: x.nanmedian(d)[1],
    "cummax": lambda t, x, d: x.cummax(d)[0], "cummin_indices": lambda t, x, d: x.cummin(d)[1],
    "cdist": lambda t, x, d: t.cdist(x, x), "all": lambda t, x, d: (x > 0).all(d), "any": lambda t, x, d: (x > 0).any(d),
    "count_nonzero": lambda t, x, d: (x > 0).count_nonzero(d),
}
_KEEPS_LAYOUT_IN_TORCH = {
    "exp": lambda t, x, d: x.exp(), "mul_number": lambda t, x, d: x * 2, "add_self": lambda t, x, d: x + x,
    "relu": lambda t, x, d: t.relu(x), "where": lambda t, x, d: t.where(x > 0, x, 0.0),
    "lt": lambda t, x, d: x < 0, "pow": lambda t, x, d: x ** 2, "neg": lambda t, x, d: -x,
}
_A = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32)


def _layouts(make, dtype="float32", requires_grad=False):
    out = []
    for lib in (lg, torch):
        row = []
        for perm in itertools.permutations(range(3)):
            for d in range(3):
                x = lib.tensor(_A).to(getattr(lib, dtype)).permute(*perm).requires_grad_(requires_grad)
                y = make(lib, x, d)
                row.append((perm, d, tuple(y.shape), tuple(y.stride()), y.is_contiguous()))
        out.append(row)
    return out


@pytest.mark.parametrize("name", sorted(_CONTIGUOUS_IN_TORCH))
def test_results_torch_makes_contiguous_are_contiguous(name):
    ours, theirs = _layouts(_CONTIGUOUS_IN_TORCH[name])
    assert ours == theirs
    assert all(c for *_, c in theirs)  # (what this table claims about torch)


@pytest.mark.parametrize("name", ["sum", "softmax", "cumsum", "cat", "masked_fill"])
@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_contiguous_results_in_other_dtypes_and_with_grad(name, dtype):
    ours, theirs = _layouts(_CONTIGUOUS_IN_TORCH[name], dtype, requires_grad=True)
    assert ours == theirs


@pytest.mark.parametrize("name", sorted(_KEEPS_LAYOUT_IN_TORCH))
def test_element_wise_results_keep_the_input_layout(name):
    ours, theirs = _layouts(_KEEPS_LAYOUT_IN_TORCH[name])
    assert ours == theirs
    assert not all(c for *_, c in theirs)


def test_view_of_a_reduced_transpose_works_as_in_torch():
    """The program this is for: ``x.t().sum(0).view(...)`` and ``softmax(s.transpose(1, 2)).view(...)``."""
    for lib in (lg, torch):
        x = lib.tensor(_A, requires_grad=True)
        y = x.permute(2, 1, 0).sum(1).view(-1)
        z = lib.nn.functional.softmax(x.transpose(1, 2), -1).view(4, -1)
        (y.sum() + (z * z).sum()).backward()
        assert tuple(y.shape) == (20,) and tuple(z.shape) == (4, 15)
    # and an element-wise result keeps the transposed layout, so view refuses it in both
    for lib in (lg, torch):
        with raises_exactly(RuntimeError, match="view size is not compatible"):
            (lib.tensor(_A).transpose(0, 2) * 2).view(-1)
