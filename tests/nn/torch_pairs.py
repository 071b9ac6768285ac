"""Twin inputs for the tests against torch: the same float64 values as a torch and a leafgrad tensor."""
from __future__ import annotations

import numpy as np

import leafgrad as lg


def pair(torch, rng, *shape):
    """(torch tensor, leafgrad tensor) of the same random float64 values, both requiring grad."""
    a = rng.standard_normal(shape)
    return torch.tensor(a, requires_grad=True), lg.tensor(a, requires_grad=True)


def close(t, l, rtol: float = 1e-9) -> None:
    np.testing.assert_allclose(t.detach().numpy(), l.detach().numpy(), rtol=rtol, atol=1e-11)


def same_error(run, torch, tf, lf, prefix: int = 40) -> None:
    """``run(module, functional)`` raises exactly torch's class on both, and a message that starts as torch's."""
    import pytest
    with pytest.raises(Exception) as te:
        run(torch, tf)
    with pytest.raises(Exception) as le:
        run(lg, lf)
    assert type(le.value) is type(te.value)
    assert str(le.value)[:prefix] == str(te.value)[:prefix]
