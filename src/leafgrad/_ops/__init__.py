"""Every differentiable op, declared once. Importing this package binds the common ones onto Tensor;
the rare families (lazy.py's FAMILIES) load on first use."""
from . import methods  # noqa: F401  (side effect: Tensor methods and operators)
from . import lazy  # noqa: E402

lazy.install()  # (Tensor.lgamma, Tensor.index_add, ...: stand-ins that load their family on first use)
