"""Lines for the run's gym.log only (not the console): summaries and errors already printed to the user."""

from __future__ import annotations

import logging


def to_file(level: int, message: str, name: str = "gym") -> None:
    """Write `message` to every file handler of the root logger (Hydra's <run dir>/gym.log)."""
    record = logging.LogRecord(name, level, __file__, 0, message, None, None)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler) and level >= handler.level:
            handler.handle(record)
