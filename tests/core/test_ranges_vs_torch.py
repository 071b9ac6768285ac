"""arange and linspace give torch's float32/float64 values bit for bit (torch's kernels round
differently from NumPy's arange/linspace: see leafgrad/_ranges.py)."""
from __future__ import annotations

import numpy as np
import pytest

import leafgrad

ARANGE = [(0, 1, 0.1), (0, 10, 0.3), (-3.7, 2.2, 0.013), (1e-3, 5, 0.0071), (0, 100, 0.7), (5, -5, -0.37),
          (0.1, 1000.3, 0.77), (0, 1, 1 / 3), (2.5, 2.5e4, 1.3), (0, 10000, 0.1), (-1, 1, 1e-5), (3, 4, 2)]
LINSPACE = [(0, 1, 10), (0, 1, 7), (-3.3, 7.1, 100), (0, 1, 1000), (1e-3, 3.3, 33), (5, -2, 41), (0, 1, 2),
            (0, 1, 1), (2, 1, 100000), (0.1, 0.7, 40000), (0, 1, 12345), (3, 3, 5), (0, 1, 0)]


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request, torch):
    """Both libraries on the same number of threads (torch splits long ranges per thread)."""
    before_t, before_l = torch.get_num_threads(), leafgrad.get_num_threads()
    torch.set_num_threads(request.param)
    leafgrad.set_num_threads(request.param)
    yield
    torch.set_num_threads(before_t)
    leafgrad.set_num_threads(before_l)


def _bits(t) -> bytes:
    return t.numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args", ARANGE, ids=str)
def test_arange_bit_for_bit(torch, threads, args, dtype):
    t = torch.arange(*args, dtype=getattr(torch, dtype))
    lg = leafgrad.arange(*args, dtype=getattr(leafgrad, dtype))
    assert tuple(lg.shape) == tuple(t.shape) and str(lg.dtype) == str(t.dtype)
    assert _bits(lg) == _bits(t), np.nonzero(lg.numpy() != t.numpy())[0][:10]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args", LINSPACE, ids=str)
def test_linspace_bit_for_bit(torch, args, dtype):
    t = torch.linspace(*args, dtype=getattr(torch, dtype))
    lg = leafgrad.linspace(*args, dtype=getattr(leafgrad, dtype))
    assert tuple(lg.shape) == tuple(t.shape)
    assert _bits(lg) == _bits(t), np.nonzero(lg.numpy() != t.numpy())[0][:10]


def test_default_dtype_and_integer_ranges(torch):
    for args in [(5,), (1, 7), (0, 10, 3), (10, 0, -3), (0.5, 4), (0, 5, 0.5)]:
        t, lg = torch.arange(*args), leafgrad.arange(*args)
        assert str(lg.dtype) == str(t.dtype) and _bits(lg) == _bits(t), args
    assert _bits(leafgrad.linspace(0, 1, 9)) == _bits(torch.linspace(0, 1, 9))
