"""``leafgrad.nn``: torch.nn's modules, functional API, initialisers and utilities.

``import leafgrad.nn as nn`` / ``from leafgrad import nn`` and ``import leafgrad.nn.functional as F``
work as with torch.
"""
from .parameter import Buffer, Parameter
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401  (DistributedDataParallel; MPI is imported only when a group starts)

__all__ = ["Parameter", "Buffer", "functional", "init", "parallel", "utils"] + list(_modules_all)


def __getattr__(name: str):
    # a torch name leafgrad lacks says so, rather than a bare AttributeError (leafgrad/coverage.py)
    from ..coverage import missing
    raise missing("torch.nn", name)
