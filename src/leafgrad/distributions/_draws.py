"""Non-differentiable integer draws (Poisson, binomial) from leafgrad's random stream, as float tensors."""
from __future__ import annotations

import numpy as np

import leafgrad
from .._creation import _rng

__all__ = ["poisson", "binomial"]


def poisson(rate):
    """torch.poisson: one Poisson(rate) count per entry, in rate's dtype."""
    counts = _rng(None).poisson(np.asarray(rate.detach().numpy(), dtype=np.float64))
    return leafgrad.tensor(counts.astype(np.float64), dtype=rate.dtype)


def binomial(count, prob):
    """torch.binomial: Binomial(count, prob) draws per entry, in prob's dtype."""
    n = np.asarray(count.detach().numpy(), dtype=np.float64).astype(np.int64)
    p = np.clip(np.asarray(prob.detach().numpy(), dtype=np.float64), 0.0, 1.0)
    return leafgrad.tensor(_rng(None).binomial(n, p).astype(np.float64), dtype=prob.dtype)
