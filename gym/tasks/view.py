"""task=view: look inside runs in a browser (gym.view): a local web server until Ctrl-C, or with
view.export=<dir> the same pages as a static site."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.core.config import to_plain
from gym.core.errors import GymError
from gym.core.typed import typed


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.view.export import export
    from gym.view.runs import Runs
    from gym.view.server import serve
    from gym.view.task_rows import task_row_finder

    if OmegaConf.is_missing(cfg, "rollouts") or cfg.get("rollouts") is None:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required: the runs to view")
    options = cfg.view
    runs = Runs(to_plain(cfg.rollouts))
    task_row_of = task_row_finder(typed(cfg))
    if options.export:
        count = export(runs, Path(str(options.export)), task_row_of, progress=bool(options.progress))
        index = Path(str(options.export)).expanduser().resolve() / "index.html"
        print(f"gym view: wrote {count} page(s); open {index}", flush=True)
        return {"export": str(index), "pages": count}
    serve(runs, str(options.host), options.port, options.token_env, task_row_of)
    return {"served": True}
