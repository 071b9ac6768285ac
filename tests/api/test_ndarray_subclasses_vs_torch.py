"""from_numpy / as_tensor / tensor of ndarray subclasses (np.memmap, np.matrix, a user's) give plain tensors."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


class Tagged(np.ndarray):
    """A user's ndarray subclass."""


def _sources(tmp_path):
    mm = np.memmap(tmp_path / "data.bin", dtype=np.float32, mode="w+", shape=(6, 4))
    mm[:] = np.arange(24, dtype=np.float32).reshape(6, 4) / 7
    tokens = np.memmap(tmp_path / "tokens.bin", dtype=np.uint16, mode="w+", shape=(32,))
    tokens[:] = np.arange(32) * 3 % 17
    return {
        "memmap": mm, "memmap-slice": mm[1:4], "memmap-row": mm[2], "memmap-strided": mm[::2, 1:],
        "memmap-astype": tokens[4:12].astype(np.int64),  # nanoGPT's get_batch: a memmap slice as int64
        "matrix": np.matrix([[1.5, -2.0], [0.25, 3.0]]), "matrix-int": np.matrix([[1, 2, 3]]),
        "user": np.arange(5.0).view(Tagged),
    }


def _ops(m, t):
    """A few ops whose results show whether the subclass leaked (matrix `*` is matmul; its reductions stay 2-d)."""
    x = t.to(m.float64)
    return [x * x, x.sum(0), x.sum(), (x + 1).exp().log(), x[0], x.reshape(-1)[:3], x.t() if x.dim() == 2 else x]


@pytest.mark.parametrize("fn", ["from_numpy", "as_tensor", "tensor", "asarray", "Tensor"])
@pytest.mark.parametrize("name", ["memmap", "memmap-slice", "memmap-row", "memmap-strided", "memmap-astype",
                                  "matrix", "matrix-int", "user"])
def test_plain_tensor_from_subclass(tmp_path, fn, name):
    src = _sources(tmp_path)[name]
    if fn == "Tensor" and src.dtype != np.float32:
        pytest.skip("torch.Tensor(ndarray) converts to the default dtype: covered by the float32 sources")
    t, m = getattr(torch, fn)(src), getattr(lg, fn)(src)
    assert type(m) is lg.Tensor and type(m._data) is np.ndarray
    assert repr(m.dtype) == repr(t.dtype) and tuple(m.shape) == tuple(t.shape)
    for a, b in zip(_ops(lg, m), _ops(torch, t)):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["memmap", "memmap-slice", "matrix", "user"])
def test_from_numpy_shares_memory_and_tensor_copies(tmp_path, name):
    for m in (torch, lg):
        src = _sources(tmp_path)[name]
        before = np.array(src)
        shared, copied = m.from_numpy(src), m.tensor(src)
        shared[0] = 42.0
        assert np.asarray(src)[0].tolist() == np.full_like(np.asarray(before)[0], 42.0).tolist()
        assert copied[0].tolist() == np.asarray(before)[0].tolist()
        np.asarray(src)[0] = 7.0
        assert shared[0].tolist() == np.full_like(np.asarray(before)[0], 7.0).tolist()


def test_gradients_through_a_matrix_and_a_memmap(tmp_path):
    srcs = _sources(tmp_path)
    grads = {}
    for m in (torch, lg):
        w = m.tensor(srcs["matrix"], requires_grad=True)
        x = m.from_numpy(srcs["memmap-slice"]).to(m.float64)
        y = (x[:, :2] @ w).tanh().sum()
        y.backward()
        grads[m] = (y.item(), w.grad.numpy())
    assert grads[lg][0] == pytest.approx(grads[torch][0], rel=1e-12)
    np.testing.assert_allclose(grads[lg][1], grads[torch][1], rtol=1e-12)


def test_loader_over_a_memmap_dataset(tmp_path):
    data = _sources(tmp_path)["memmap"]

    class Rows:
        def __len__(self):
            return len(data)

        def __getitem__(self, i):
            return data[i], np.int64(i)
    for m in (torch, lg):
        batches = list(m.utils.data.DataLoader(Rows(), batch_size=4))
        xb, yb = batches[0]
        assert tuple(xb.shape) == (4, 4) and yb.tolist() == [0, 1, 2, 3]
        assert (xb * 2).sum().item() == pytest.approx(float(np.asarray(data[:4]).sum() * 2), rel=1e-6)
