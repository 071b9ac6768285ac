"""Every differentiable op, declared once. Importing this package binds them onto Tensor."""
from . import methods  # noqa: F401  (side effect: Tensor methods and operators)
from . import special_ops  # noqa: F401,E402  (binds Tensor.lgamma, Tensor.digamma, ...)
from . import blas_extra, index_extra, strided_extra  # noqa: F401,E402  (tops1: Tensor.addbmm, .index_add, ...)
