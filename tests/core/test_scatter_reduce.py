"""scatter(..., reduce='add' | 'multiply') as torch: values, dtypes, its NotImplemented node, its errors."""
from __future__ import annotations

import pytest
from differential import raises_exactly

import leafgrad as lg

INDEX = [[0, 1, 0], [1, 0, 0]]


def _cases(L):
    idx = L.tensor(INDEX)
    return {
        "add src": lambda x: L.scatter(x, 1, idx, L.full((2, 3), 2.0), reduce="add"),
        "multiply src": lambda x: L.scatter(x, 1, idx, L.full((2, 3), 2.0), reduce="multiply"),
        "add value": lambda x: L.scatter(x, 1, idx, 3.0, reduce="add"),
        "multiply value": lambda x: L.scatter(x, 1, idx, 3.0, reduce="multiply"),
        "method, add value": lambda x: x.scatter(1, idx, 3.0, reduce="add"),
    }


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
@pytest.mark.parametrize("name", ["add src", "multiply src", "add value", "multiply value", "method, add value"])
def test_scatter_reduce_matches_torch(torch, name):
    out = []
    for lib in (torch, lg):
        x = lib.ones(2, 3, requires_grad=True)
        y = _cases(lib)[name](x)
        with raises_exactly(RuntimeError, match="derivative for aten::scatter is not implemented"):
            y.sum().backward()
        yi = _cases(lib)[name](lib.ones(2, 3, dtype=lib.int64) if "value" in name else lib.ones(2, 3))
        out.append((y.tolist(), y.grad_fn.name(), yi.tolist(), str(yi.dtype)))
    assert out[1] == out[0]


def test_tensor_src_with_reduce_warns_as_torch():
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
        lg.scatter(lg.ones(2, 3), 1, lg.tensor(INDEX), lg.ones(2, 3), reduce="add")


def test_unknown_reduce_is_refused_as_torch(torch):
    for lib in (torch, lg):
        with raises_exactly(RuntimeError, match="reduce argument must be either add or multiply"):
            lib.scatter(lib.ones(2, 3), 1, lib.tensor(INDEX), lib.ones(2, 3), reduce="mean")
