"""Re-exports leafgrad.utils.data.collate (torch keeps it at torch.utils.data._utils.collate)."""
from ..collate import *  # noqa: F401,F403
from ..collate import collate, default_collate, default_collate_fn_map, default_convert  # noqa: F401
