"""leafgrad.cuda: no GPU backend is installed, so every query answers 'not available'."""
from __future__ import annotations


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Nothing to seed without a GPU backend; accepted so seeding code runs unchanged."""


manual_seed_all = manual_seed


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on the CPU backend."""
