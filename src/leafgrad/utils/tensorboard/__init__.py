"""torch.utils.tensorboard: ``SummaryWriter`` writing real TensorBoard event files.

The files are written by the ``tensorboard`` package's own event writer (an optional extra:
``pip install leafgrad[tensorboard]``), so ``tensorboard --logdir runs`` shows what a torch
program logs: scalars, scalar groups, histograms, text and hyperparameters. Without the
package, importing this module fails as torch's does (ModuleNotFoundError).
"""
from __future__ import annotations

try:
    import tensorboard  # noqa: F401
except ModuleNotFoundError:  # (torch's class and first words when the package is absent)
    raise ModuleNotFoundError(
        "No module named 'tensorboard': SummaryWriter writes through the tensorboard package; "
        "pip install tensorboard (or leafgrad[tensorboard])", name="tensorboard") from None

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
