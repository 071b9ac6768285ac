"""torch.utils.tensorboard: ``SummaryWriter`` writing real TensorBoard event files.

The files are written by the ``tensorboard`` package's own event writer (an optional extra:
``pip install leafgrad[tensorboard]``), so ``tensorboard --logdir runs`` shows what a torch
program logs: scalars, scalar groups, histograms, text and hyperparameters. Without the
package, importing this module fails as torch's does.
"""
from __future__ import annotations

try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above: pip install tensorboard "
                      "(or leafgrad[tensorboard])") from None

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
