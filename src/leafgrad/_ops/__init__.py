"""Every differentiable op, declared once. Importing this package binds them onto Tensor."""
from . import methods  # noqa: F401  (side effect: Tensor methods and operators)
from . import special_ops  # noqa: F401,E402  (binds Tensor.lgamma, Tensor.digamma, ...)
from . import nn_more_act  # noqa: F401,E402  (binds Tensor.prelu)
