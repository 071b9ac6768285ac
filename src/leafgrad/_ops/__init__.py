"""Every differentiable op, declared once. Importing this package binds them onto Tensor."""
from . import methods  # noqa: F401  (side effect: Tensor methods and operators)
from . import special_ops  # noqa: F401,E402  (binds Tensor.lgamma, Tensor.digamma, ...)
from . import extra_bindings  # noqa: F401,E402  (binds Tensor.copysign, Tensor.aminmax, Tensor.lu, ...)
from . import methods_extra  # noqa: F401,E402  (binds in-place variants, aliases and attributes: methods_extra.py)
from . import blas_extra, index_extra, strided_extra  # noqa: F401,E402  (tops1: Tensor.addbmm, .index_add, ...)
from . import nn_more_act  # noqa: F401,E402  (binds Tensor.prelu)
from . import complex_views  # noqa: F401,E402  (binds Tensor.real, Tensor.imag: views, settable)
