"""Progress of long work: a tqdm bar in a terminal; in a piped log (a file, CI, a SLURM job's output) no
bar, whose carriage returns would join its updates into one long line, but a plain line per step of 10%."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

STEP_PERCENT = 10


class LineProgress:
    """tqdm's interface as the rollouts runner uses it (update, set_postfix, a growing total), written as
    `<desc>: 30% (12/40 <unit>s, 2.1 s) acc=...` lines each time another 10% is done."""

    def __init__(self, total: int, desc: str, unit: str, stream: TextIO | None = None):
        self.total, self.desc, self.unit = total, desc, unit
        self.n, self.postfix, self.said, self.pending = 0, "", 0, False
        self.stream = stream or sys.stderr
        self.started = time.monotonic()

    def update(self, count: int = 1) -> None:
        self._say()  # a step reached before, whose postfix never came
        self.n += count
        step = min(100, int(100 * self.n / self.total)) // STEP_PERCENT * STEP_PERCENT if self.total else 0
        if step > self.said:
            self.said, self.pending = step, True

    def set_postfix(self, refresh: bool = True, **values: Any) -> None:
        """Figures for the line (tqdm's call, made after update: the line waits for them)."""
        self.postfix = " ".join(f"{key}={value}" for key, value in values.items())
        self._say()

    def close(self) -> None:
        self._say()

    def _say(self) -> None:
        if not self.pending:
            return
        self.pending = False
        tail = f" {self.postfix}" if self.postfix else ""
        self.stream.write(f"{self.desc}: {self.said}% ({self.n}/{self.total} {self.unit}s, "
                          f"{time.monotonic() - self.started:.1f} s){tail}\n")
        self.stream.flush()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_bar(total: int, desc: str, unit: str, enabled: bool = True, **tqdm_args: Any) -> Any:
    """A tqdm bar on a terminal's stderr, else lines per 10% (LineProgress); nothing when not `enabled`."""
    from tqdm import tqdm

    if enabled and not sys.stderr.isatty():
        return LineProgress(total, desc, unit)
    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, **tqdm_args)
