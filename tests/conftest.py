"""Shared test helpers: the torch oracle (optional) and comparisons."""
from __future__ import annotations

import numpy as np
import pytest

try:
    import torch as _torch
except ImportError:  # torch is an optional oracle: tests that need it skip cleanly
    _torch = None


@pytest.fixture
def torch():
    if _torch is None:
        pytest.skip("torch is not installed (pip install torch==2.13.0 for the differential tests)")
    return _torch


def assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    a = np.asarray(actual.detach().numpy() if hasattr(actual, "detach") else actual)
    e = np.asarray(expected.detach().numpy() if hasattr(expected, "detach") else expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
