"""leafgrad.utils: torch.utils look-alikes (``data`` for datasets and loaders, ``hooks``, ``tensorboard``,
``checkpoint``)."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks", "tensorboard"]


def __getattr__(name: str):
    # SummaryWriter needs the optional tensorboard package, so its module is imported on first use
    if name == "tensorboard":
        import importlib
        return importlib.import_module(".tensorboard", __name__)
    raise AttributeError(f"module 'leafgrad.utils' has no attribute '{name}'")
