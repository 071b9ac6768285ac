"""torch.load's environment switches TORCH_FORCE_WEIGHTS_ONLY_LOAD / TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD.

Why: programs written before torch 2.6 made ``weights_only=True`` the default (pytorch/examples'
time_sequence_prediction saves a NumPy array with torch.save) can be run unchanged by setting
TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1, which only changes loads that did not pass ``weights_only``;
TORCH_FORCE_WEIGHTS_ONLY_LOAD=1 makes every load restricted. Setting both is an error, as in torch.
"""
from __future__ import annotations

import os
import warnings
from typing import Any

_TRUE = ("1", "y", "yes", "true")


def _flag(name: str) -> bool:
    return os.getenv(name, "0").lower() in _TRUE


def resolve_weights_only(weights_only: bool | None, pickle_module: Any) -> bool:
    """The weights_only a load runs with: the argument, its default, then the environment's say."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force, force_no = _flag("TORCH_FORCE_WEIGHTS_ONLY_LOAD"), _flag("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set: unset one of them.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected: torch.load was called "
                      "without weights_only, so it runs with weights_only=False (full unpickling; trusted "
                      "files only).", UserWarning, stacklevel=3)
        return False
    return bool(weights_only)
