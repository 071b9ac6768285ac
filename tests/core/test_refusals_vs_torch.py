"""Inputs torch refuses are refused here too, with the same exception type and the same opening words.

Each case runs on torch and on leafgrad. Where torch raises, leafgrad must raise the same
exception class, its message must begin with torch's (up to torch's own end of sentence),
and it must go on to say what to do instead. Where torch accepts, the results must agree.
"""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

CASES = {
    "maximum with a number": lambda L: L.maximum(L.tensor([1.0, 3.0]), 2),
    "minimum with a number": lambda L: L.minimum(L.tensor([1.0, 3.0]), 2.0),
    "fmax with a number": lambda L: L.fmax(L.tensor([1.0]), 2.0),
    "fmin with a number": lambda L: L.fmin(L.tensor([1.0]), 2.0),
    "Tensor.maximum with a number": lambda L: L.tensor([1.0]).maximum(2),
    "maximum with a number first": lambda L: L.maximum(2, L.tensor([1.0])),
    "logical_and with a number": lambda L: L.logical_and(L.tensor([1.0, 0.0]), 1),
    "logical_or with a number": lambda L: L.logical_or(L.tensor([1.0]), 0),
    "Tensor.logical_xor with a number": lambda L: L.tensor([1.0]).logical_xor(0),
    "isclose with a number": lambda L: L.isclose(L.tensor([1.0, 2.0]), 1.0),
    "Tensor.isclose with a number": lambda L: L.tensor([1.0]).isclose(1.0),
    "allclose with a number": lambda L: L.allclose(L.tensor([1.0]), 1.0),
    "where with a float condition": lambda L: L.where(L.tensor([1.0, 0.0]), L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0])),
    "where with an int64 condition": lambda L: L.where(L.tensor([1, 0]), L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0])),
    "Tensor.where with a float condition": lambda L: L.tensor([1.0, 2.0]).where(L.tensor([1.0, 0.0]), 0.0),
    "softmax on int64, last dim": lambda L: L.softmax(L.tensor([[1, 2], [3, 4]]), 1),
    "softmax on int64, dim 0": lambda L: L.softmax(L.tensor([[1, 2], [3, 4]]), 0),
    "log_softmax on int64, last dim": lambda L: L.log_softmax(L.tensor([[1, 2], [3, 4]]), 1),
    "log_softmax on int64, dim 0": lambda L: L.log_softmax(L.tensor([[1, 2], [3, 4]]), 0),
    "softmax on bool": lambda L: L.softmax(L.tensor([[True, False]]), 1),
    "softmax on a 0-dim int64": lambda L: L.softmax(L.tensor(3), 0),
    "abs on bool": lambda L: L.abs(L.tensor([True, False])),
    "abs_ on bool": lambda L: L.tensor([True]).abs_(),
    "gather past the end": lambda L: L.gather(L.tensor([[1.0, 2.0]]), 1, L.tensor([[5]])),
    "gather with a negative index": lambda L: L.gather(L.tensor([[1.0, 2.0]]), 1, L.tensor([[-1]])),
    "gather on a 0-dim tensor past its one element": lambda L: L.gather(L.tensor(5.0), 0, L.tensor(1)),
    "gather with an index larger than the input in another dim": lambda L: L.zeros(6, 6, 4).gather(
        1, L.zeros(4, 2, 6, dtype=L.long)),
    "gather with an index larger in dim 0 and 2": lambda L: L.zeros(6, 6, 4).gather(1, L.zeros(7, 9, 5, dtype=L.long)),
    "scatter with an index larger than self in another dim": lambda L: L.zeros(6, 6, 4).scatter(
        1, L.zeros(4, 1, 6, dtype=L.long), 1.0),
    "scatter with an index larger than src": lambda L: L.zeros(6, 6, 4).scatter(
        1, L.zeros(2, 2, 2, dtype=L.long), L.ones(1, 1, 1)),
    "scatter_add with an index larger than src": lambda L: L.zeros(6, 6, 4).scatter_add(
        1, L.zeros(2, 2, 2, dtype=L.long), L.ones(1, 1, 1)),
    "scatter_ with an index larger than self": lambda L: L.zeros(6, 6, 4).scatter_(1, L.zeros(7, 2, 2, dtype=L.long), 1.0),
    "scatter with a src of fewer dims": lambda L: L.zeros(6, 6, 4).scatter(1, L.zeros(2, 2, 2, dtype=L.long), L.ones(3, 3)),
    "scatter with a src of more dims": lambda L: L.zeros(6, 6, 4).scatter(
        1, L.zeros(2, 2, 2, dtype=L.long), L.ones(2, 2, 2, 2)),
    "scatter_reduce with an index larger than self": lambda L: L.zeros(6, 6, 4).scatter_reduce(
        1, L.zeros(7, 2, 2, dtype=L.long), L.ones(9, 9, 9), "sum"),
    "amax of an empty tensor": lambda L: L.amax(L.zeros(0)),
    "amin of an empty tensor over ()": lambda L: L.amin(L.zeros(0, 3), ()),
    "amax over an empty dim": lambda L: L.amax(L.zeros(0, 3), 0),
    "amin over dims with an empty one": lambda L: L.amin(L.zeros(0, 3), (1, 0)),
    "max of an empty tensor": lambda L: L.zeros(0).max(),
    "min of an empty tensor": lambda L: L.zeros(0).min(),
    "max over an empty dim": lambda L: L.zeros(0, 3).max(0),
    "argmax of an empty tensor": lambda L: L.zeros(0).argmax(),
    "argmin over an empty dim": lambda L: L.zeros(0, 3).argmin(0),
    # accepted by torch: the results must agree
    "where with a uint8 condition (deprecated)": lambda L: L.where(L.tensor([1, 0], dtype=L.uint8),
                                                                   L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0])),
    "softmax on int64 with dtype=float32": lambda L: L.nn.functional.softmax(L.tensor([[1, 2]]), 1, dtype=L.float32),
    "abs on uint8": lambda L: L.abs(L.tensor([1], dtype=L.uint8)),
    "amax over the non-empty dim of an empty tensor": lambda L: L.amax(L.zeros(0, 3), 1),
    "max over the non-empty dim of an empty tensor": lambda L: L.zeros(0, 3).max(1).values,
    "gather in range": lambda L: L.gather(L.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, L.tensor([[1, 1], [0, 1]])),
    "gather on a 0-dim tensor": lambda L: L.gather(L.tensor(5.0), 0, L.tensor(0)),
    "gather from a 0-dim tensor with a 1-d index": lambda L: L.tensor(5.0).gather(0, L.zeros(3, dtype=L.long)),
    "gather with an index longer along dim": lambda L: L.arange(24.0).reshape(6, 4).gather(1, L.zeros(2, 9, dtype=L.long)),
    "scatter with an empty index of another size": lambda L: L.zeros(6, 6, 4).scatter(
        1, L.zeros(0, 2, 2, dtype=L.long), L.ones(1, 1, 1)),
    "scatter with a src larger than the index": lambda L: L.zeros(6, 6, 4).scatter(
        1, L.ones(2, 3, 2, dtype=L.long), L.ones(9, 9, 9)),
    "maximum of two tensors": lambda L: L.maximum(L.tensor([1.0, 3.0]), L.tensor([2.0, 2.0])),
    "logical_and of two tensors": lambda L: L.logical_and(L.tensor([1.0, 0.0]), L.tensor([1.0, 1.0])),
    "isclose of two tensors": lambda L: L.isclose(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.5])),
}


def _outcome(lib, case):
    try:
        return None, case(lib)
    except Exception as e:  # noqa: BLE001 (the exception is the result under test)
        return e, None


def _opening(message: str) -> str:
    """torch's message up to its first sentence end: the words users search for."""
    head = message.split("\n")[0]
    for stop in (". ", ": "):
        if stop in head:
            head = head.split(stop)[0]
    return head.rstrip(".")


@pytest.mark.filterwarnings("ignore:where received a uint8 condition tensor")
@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_as_torch_refuses(torch, name):
    case = CASES[name]
    t_err, t_out = _outcome(torch, case)
    l_err, l_out = _outcome(lg, case)
    if t_err is None:
        assert l_err is None, f"torch accepts {name}; leafgrad raised {l_err!r}"
        expected = t_out.numpy()
        if expected.dtype.kind == "f":  # (softmax may differ from torch's in the last bit)
            np.testing.assert_allclose(np.asarray(l_out), expected, rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(np.asarray(l_out), expected)
        assert str(l_out.dtype) == str(t_out.dtype)
        return
    assert l_err is not None, f"torch refuses {name} with {t_err!r}; leafgrad returned {l_out!r}"
    assert type(l_err) is type(t_err), f"{name}: torch raises {type(t_err).__name__}, leafgrad {l_err!r}"
    assert str(l_err).startswith(_opening(str(t_err))), f"{name}:\n torch:    {t_err}\n leafgrad: {l_err}"
    assert len(str(l_err)) > len(_opening(str(t_err))) + 10  # and says more: what to do instead


def test_where_uint8_condition_warns_as_torch():
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        lg.where(lg.tensor([1, 0], dtype=lg.uint8), lg.tensor([1.0, 2.0]), lg.tensor([3.0, 4.0]))


def test_gather_0dim_gradient_matches_torch(torch):
    grads = []
    for lib in (torch, lg):
        x = lib.tensor(5.0, requires_grad=True)
        y = lib.gather(x, 0, lib.tensor(0))
        assert y.grad_fn.name() == "GatherBackward0"
        (y * 3).backward()
        grads.append(float(x.grad))
    assert grads[0] == grads[1] == 3.0
