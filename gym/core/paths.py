"""Where gym finds its configs, prepare scripts and prepared data.

A source checkout keeps `conf/` and `benchmarks/` beside the package; a wheel carries them inside it
(`gym/conf`, `gym/benchmarks`). Prepared data never lives inside the installed package.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
_CHECKOUT_ROOT = PACKAGE_DIR.parent
IS_CHECKOUT = (_CHECKOUT_ROOT / "conf" / "config.yaml").is_file() and (_CHECKOUT_ROOT / "pyproject.toml").is_file()
INSTALL_ROOT = _CHECKOUT_ROOT if IS_CHECKOUT else PACKAGE_DIR
CONF_DIR = INSTALL_ROOT / "conf"
BENCHMARKS_DIR = INSTALL_ROOT / "benchmarks"
JOB_STATUS_FILE = "job_status.json"  # in each sweep job's dir: how the job ended (the sweep summary reads them)


def default_data_root() -> Path:
    """`GYM_DATA_DIR`, else `<checkout>/data` in a source checkout, else the per-user cache."""
    env = os.environ.get("GYM_DATA_DIR")
    if env:
        return Path(env).expanduser().resolve()
    if IS_CHECKOUT:
        return _CHECKOUT_ROOT / "data"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gym" / "data"


def resolve_script(path: str, config_dirs: list[Path] | None = None) -> Path:
    """A prepare script path: absolute as is; relative to the install root, a user config dir, or cwd."""
    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        return candidate
    for base in [INSTALL_ROOT, *(config_dirs or []), Path.cwd()]:
        if (base / candidate).is_file():
            return (base / candidate).resolve()
    return (INSTALL_ROOT / candidate).resolve()
