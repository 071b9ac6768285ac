"""leafgrad.distributions: torch.distributions' families on leafgrad's ops.

Continuous: Normal, Laplace, Exponential, Uniform, Gamma, Chi2, Beta, Dirichlet, Cauchy, StudentT,
FisherSnedecor, VonMises, MultivariateNormal, LowRankMultivariateNormal. Transformed: LogNormal,
HalfNormal, HalfCauchy, Gumbel, Pareto, Weibull, InverseGamma, Kumaraswamy, LogisticNormal,
RelaxedBernoulli, RelaxedOneHotCategorical, and TransformedDistribution with ``transforms``.
Discrete: Bernoulli, ContinuousBernoulli (on [0, 1]), Categorical, OneHotCategorical, Multinomial,
Poisson, Binomial, Geometric, NegativeBinomial. Composite: Independent, MixtureSameFamily. Each has
torch's ``sample``/``rsample``/``log_prob``/``entropy``/``cdf``/``icdf``/moments and argument
validation, and ``kl_divergence`` dispatches through torch's registry. Formulas are the op
compositions torch uses, so values and gradients match torch's (Gamma/Dirichlet draws carry torch's
implicit reparameterisation gradients); draws come from leafgrad's random stream (NumPy's), not
torch's.
"""
from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         LowerCholeskyTransform, PowerTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                         StickBreakingTransform, TanhTransform, Transform, identity_transform)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from . import kl_continuous_bernoulli, kl_families, kl_lowrank, kl_pareto  # noqa: F401,E402  (register the KL pairs of the families above)

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy",
           "Chi2", "ComposeTransform", "ContinuousBernoulli", "Dirichlet", "Distribution", "ExpTransform",
           "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "Geometric", "Gumbel",
           "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform", "InverseGamma", "Kumaraswamy",
           "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "LowerCholeskyTransform",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "PowerTransform",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StickBreakingTransform", "StudentT", "TanhTransform", "Transform",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "biject_to", "constraints",
           "identity_transform", "kl_divergence", "register_kl", "transform_to", "transforms"]
