"""leafgrad.distributions: torch.distributions' families that compose leafgrad's existing ops.

Normal, Bernoulli, Categorical, OneHotCategorical (and its straight-through variant), Uniform,
Laplace, Exponential and Independent, with ``sample``/``rsample``/``log_prob``/``entropy``/
``cdf``/``icdf``/moments, argument validation as torch's, and ``kl_divergence`` with torch's
registry. Each formula is the op composition torch uses, so values and gradients match torch's;
draws come from leafgrad's random stream (NumPy's), not torch's.
"""
from __future__ import annotations

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "ExponentialFamily", "Independent", "Laplace",
           "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Uniform", "constraints", "kl_divergence",
           "register_kl"]
