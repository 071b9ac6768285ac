"""nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence, PackedSequence)
against torch: values, batch_sizes and index fields, gradients through packing and padding, errors."""
from __future__ import annotations

import numpy as np
import pytest
from differential import raises_exactly

torch = pytest.importorskip("torch")

import leafgrad as lg  # noqa: E402
from leafgrad.nn.utils import rnn as R  # noqa: E402
from torch.nn.utils import rnn as TR  # noqa: E402


def _np(t):
    return np.asarray(t.detach().numpy())


def _same(a, b):
    assert _np(a).dtype == _np(b).dtype and np.array_equal(_np(a), _np(b)), (a, b)


def _same_packed(p, q):
    _same(p.data, q.data)
    _same(p.batch_sizes, q.batch_sizes)
    for f in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(p, f), getattr(q, f)
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b)


def _same_grads(out_l, out_t, ls, ts):
    """Backward one random cotangent through both outputs; the inputs' gradients must be equal."""
    w = np.random.default_rng(1).standard_normal(tuple(out_t.shape))
    (out_l * lg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for x, y in zip(ls, ts):
        _same(x.grad, y.grad)


def _seqs(lengths, feat=(2,), seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n,) + feat) for n in lengths]
    return ([lg.tensor(a, requires_grad=True) for a in arrs], [torch.tensor(a, requires_grad=True) for a in arrs])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("value", [0.0, -1.5])
def test_pad_sequence_values_and_grads(batch_first, side, value):
    ls, ts = _seqs([3, 5, 1], feat=(2, 2))
    a = R.pad_sequence(ls, batch_first=batch_first, padding_value=value, padding_side=side)
    b = TR.pad_sequence(ts, batch_first=batch_first, padding_value=value, padding_side=side)
    _same(a, b)
    _same_grads(a, b, ls, ts)


def test_pad_sequence_keeps_first_dtype_and_accepts_a_generator():
    a = R.pad_sequence(iter([lg.ones(2), lg.ones(3, dtype=lg.float64)]))
    b = TR.pad_sequence(iter([torch.ones(2), torch.ones(3, dtype=torch.float64)]))
    _same(a, b)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,sorted_", [([4, 2, 2, 1], True), ([1, 4, 2, 3], False), ([3], True)])
def test_pack_and_unpack_round_trip(batch_first, lengths, sorted_):
    ls, ts = _seqs(lengths, seed=2)
    pl = R.pad_sequence(ls, batch_first=batch_first)
    pt = TR.pad_sequence(ts, batch_first=batch_first)
    for lens in (lengths, torch.tensor(lengths), torch.tensor(lengths, dtype=torch.int32)):
        lens_l = lg.tensor(lens.numpy()) if isinstance(lens, torch.Tensor) else lens
        a = R.pack_padded_sequence(pl, lens_l, batch_first=batch_first, enforce_sorted=sorted_)
        b = TR.pack_padded_sequence(pt, lens, batch_first=batch_first, enforce_sorted=sorted_)
        _same_packed(a, b)
        assert type(a).__name__ == "PackedSequence" and isinstance(a, tuple) and a._fields == b._fields
        assert a.data.grad_fn.name() == b.data.grad_fn.name() == "PackPaddedSequenceBackward0"
    for total in (None, max(lengths) + 2):
        ol, ll = R.pad_packed_sequence(a, batch_first=batch_first, padding_value=-7.0, total_length=total)
        ot, lt = TR.pad_packed_sequence(b, batch_first=batch_first, padding_value=-7.0, total_length=total)
        _same(ol, ot)
        _same(ll, lt)
    _same_grads(ol, ot, ls, ts)


def test_pack_padded_second_order():
    x = lg.tensor(np.random.default_rng(4).standard_normal((3, 2)), requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    outs = []
    for lib, mod, v in ((lg, R, x), (torch, TR, xt)):
        p = mod.pack_padded_sequence(v, [3, 1])
        (g,) = lib.autograd.grad((p.data ** 3).sum(), v, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), v)
        outs.append((g, gg))
    _same(outs[0][0], outs[1][0])
    _same(outs[0][1], outs[1][1])


def test_pack_sequence_and_unpack_sequence():
    ls, ts = _seqs([2, 4, 3], seed=5)
    a, b = R.pack_sequence(ls, enforce_sorted=False), TR.pack_sequence(ts, enforce_sorted=False)
    _same_packed(a, b)
    for x, y in zip(R.unpack_sequence(a), TR.unpack_sequence(b)):
        _same(x, y)
    padded_l, padded_t = R.pad_sequence(ls), TR.pad_sequence(ts)
    for x, y in zip(R.unpad_sequence(padded_l, lg.tensor([2, 4, 3])), TR.unpad_sequence(padded_t, torch.tensor([2, 4, 3]))):
        _same(x, y)


def test_packed_sequence_fields_and_to():
    ls, _ = _seqs([3, 1, 2], seed=6)
    p = R.pack_sequence(ls, enforce_sorted=False)
    assert p.to(lg.float64) is p
    q = p.to(lg.float32)
    assert q.data.dtype == lg.float32 and q.batch_sizes is p.batch_sizes and q.sorted_indices is not None
    assert p.float().data.dtype == lg.float32 and p.double().data.dtype == lg.float64 and not p.is_cuda
    again = R.PackedSequence(p.data, p.batch_sizes, p.sorted_indices)
    _same(again.unsorted_indices, p.unsorted_indices)
    pair = R.PackedSequence((p.data, p.batch_sizes))
    assert pair.sorted_indices is None and pair.unsorted_indices is None
    _same(R.invert_permutation(lg.tensor([2, 0, 1])), TR.invert_permutation(torch.tensor([2, 0, 1])))
    assert R.invert_permutation(None) is None
    with raises_exactly(AssertionError):
        R.PackedSequence(p.data)
    with raises_exactly(AssertionError):
        TR.PackedSequence(torch.zeros(2))


def _both_raise(cls, fl, ft, match):
    with raises_exactly(cls, match=match):
        fl()
    with raises_exactly(cls, match=match):
        ft()


def test_errors_as_torch():
    x, xt = lg.zeros(4, 3, 2), torch.zeros(4, 3, 2)
    _both_raise(RuntimeError, lambda: R.pack_padded_sequence(x, [1, 2, 3]), lambda: TR.pack_padded_sequence(xt, [1, 2, 3]),
                "must be sorted in decreasing order")
    _both_raise(RuntimeError, lambda: R.pack_padded_sequence(x, [4, 2, 0]), lambda: TR.pack_padded_sequence(xt, [4, 2, 0]),
                "Length of all samples has to be greater than 0")
    _both_raise(RuntimeError, lambda: R.pack_padded_sequence(x, [4, 2]), lambda: TR.pack_padded_sequence(xt, [4, 2]),
                r"Expected `len\(lengths\)` to be equal to batch_size, but got 2 \(batch_size=3\)")
    _both_raise(RuntimeError, lambda: R.pack_padded_sequence(x, lg.tensor([[4, 2, 1]])),
                lambda: TR.pack_padded_sequence(xt, torch.tensor([[4, 2, 1]])), "'lengths' argument should be a 1D")
    _both_raise(RuntimeError, lambda: R.pad_sequence(3), lambda: TR.pad_sequence(3),
                "pad_sequence: Expected iterable for input sequences")
    _both_raise(RuntimeError, lambda: R.pad_sequence([]), lambda: TR.pad_sequence([]), "received an empty list")
    _both_raise(RuntimeError, lambda: R.pad_sequence([lg.ones(2)], padding_side="mid"),
                lambda: TR.pad_sequence([torch.ones(2)], padding_side="mid"), "Expected padding_side to be one of")
    _both_raise(RuntimeError, lambda: R.pad_sequence([lg.ones(2, 3), lg.ones(3, 2)]),
                lambda: TR.pad_sequence([torch.ones(2, 3), torch.ones(3, 2)]), "must match")
    p, pt = R.pack_padded_sequence(x, [4, 2, 1]), TR.pack_padded_sequence(xt, [4, 2, 1])
    _both_raise(ValueError, lambda: R.pad_packed_sequence(p, total_length=2),
                lambda: TR.pad_packed_sequence(pt, total_length=2), "Expected total_length to be at least")
    with raises_exactly(RuntimeError, match="longer than the input"):  # torch reads out of bounds here
        R.pack_padded_sequence(x, [5, 2, 1])
