"""Basic keys (ints, slices of ints, None, one Ellipsis) skip the key normalising, and give what it gives.

``getitem`` takes a tuple of plain ints, int-bounded slices with a positive step, None and at most
one Ellipsis straight to the view steps (``indexing._plain_basic``). Each key below is read on
torch and on leafgrad (values, shape, strides, view-ness, the recorded node, the gradient, the
exception class and message opening), and on leafgrad through both routes.
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import same

import leafgrad as lg
from leafgrad._ops import indexing

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) / 7

KEYS = [
    (slice(None), -1, slice(None)), (0, 1), (-1, -2, -3, -4), (slice(None), slice(None), slice(None, 2), slice(None, 2)),
    (slice(1, None), slice(None, None, 2)), (Ellipsis, 0), (0, Ellipsis), (None, 0), (0, None, slice(None), None),
    (Ellipsis,), (), (slice(-2, None), Ellipsis, slice(1, -1, 3)), (slice(5, 1),), (slice(None), None, 2, Ellipsis),
    (1, 2, 3, 4), (slice(0, 100), slice(-100, 2)),
    # refused: an int past its dim, too many indices, two Ellipsis (torch reads the second as none), steps
    (2,), (0, 3), (0, 0, 0, 5), (0, 0, 0, 0, 0), (Ellipsis, 0, Ellipsis), (slice(None, None, -1),),
    (slice(None, None, 0),),
    # not plain (the normalising route): bools, NumPy integers, tensors in slices
    (True, 0), (np.int64(1), slice(None)), (slice(np.int64(1), None),),
]


def _read(m, key, x):
    t = m.tensor(x, requires_grad=True)
    y = t[key]
    y.sum().backward() if y.requires_grad and y.numel() else None
    return y.detach(), tuple(y.shape), tuple(y.stride()), y._base is not None, type(y.grad_fn).__name__, t.grad


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_key_as_torch(torch, key):
    same(torch, lambda m: _read(m, key, X), exact=True)  # (indexing copies no arithmetic: bit for bit)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_key_through_both_routes(monkeypatch, key):
    def observe():
        try:
            y, shape, strides, is_view, fn, grad = _read(lg, key, X)
        except Exception as e:  # noqa: BLE001 - the error itself is the observation
            return type(e), str(e)
        return y.numpy().tobytes(), shape, strides, is_view, fn, None if grad is None else grad.numpy().tobytes()

    fast = observe()
    monkeypatch.setattr(indexing, "_plain_basic", lambda key: False)
    assert observe() == fast


def test_plain_keys_take_the_short_route():
    assert indexing._plain_basic((slice(None), -1, slice(None)))
    assert indexing._plain_basic((Ellipsis, None, slice(1, None, 2)))
    assert not indexing._plain_basic((Ellipsis, 0, Ellipsis))
    assert not indexing._plain_basic((True,))
    assert not indexing._plain_basic((slice(None, None, -1),))
    assert not indexing._plain_basic((slice(np.int64(0), None),))
