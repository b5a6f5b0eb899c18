"""The benchmark catalog, read straight from the option files (no Hydra composition: ~1 ms a file).

Used by `task=search`, by the did-you-mean check on the command line and by `benchmarks=all`.
Values a benchmark inherits from `_base/*` files through its defaults list are followed here too.
The reference benchmarks gym does not run yet are listed in not_run.yaml beside this module (load_not_run).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml

from gym.core.paths import CONF_DIR, default_data_root

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # libyaml missing
    _Loader = yaml.SafeLoader


@dataclass
class BenchmarkEntry:
    name: str
    description: str = ""
    domain: str = ""
    verifier: str = ""
    tags: list[str] = field(default_factory=list)
    num_repeats: int = 1
    size: int | None = None
    license: str = ""
    gated: bool = False
    needs_judge: bool = False
    needs_sandbox: bool = False
    languages: list[str] = field(default_factory=lambda: ["en"])  # language codes of the tasks
    subsets: list[str] = field(default_factory=list)  # grouping columns of the per-subset metrics
    sources: list[str] = field(default_factory=list)
    config_path: str = ""

    def data_path(self, data_root: Path | None = None) -> Path:
        root = data_root or default_data_root()
        return Path(root) / self.name / f"{self.name}.jsonl"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def config_dirs(extra: Iterable[str | Path] = ()) -> list[Path]:
    """gym's own config dir first, then user dirs (from --config-dir or hydra.searchpath)."""
    return [CONF_DIR, *(Path(d).expanduser().resolve() for d in extra)]


def active_config_dirs() -> list[Path]:
    """config_dirs() of the running app: gym's own plus the user dirs on Hydra's search path."""
    from hydra.core.hydra_config import HydraConfig

    extra = []
    if HydraConfig.initialized():
        for source in HydraConfig.get().runtime.config_sources:
            if source.provider in ("command-line", "hydra.searchpath in command-line") and source.schema == "file":
                extra.append(source.path)
    return config_dirs(extra)


# benchmark options over the user's own file (gym/data/local.py): chosen like benchmarks, but not in the
# catalog (nothing to search, download or prepare from upstream)
OWN_DATA_OPTIONS = ("harbor", "local")  # read the user's own file or folder: not in the catalog


def benchmark_files(dirs: Iterable[Path] | None = None) -> dict[str, Path]:
    """Option name -> file, for every option of the `benchmark` group (sub-folders are bases)."""
    found: dict[str, Path] = {}
    for conf_dir in dirs or config_dirs():
        group = Path(conf_dir) / "benchmark"
        if not group.is_dir():
            continue
        for path in sorted(group.glob("*.yaml")):
            if path.stem not in OWN_DATA_OPTIONS:
                found.setdefault(path.stem, path)
    return found


@lru_cache(maxsize=512)
def _load(path: Path) -> dict:
    with open(path, encoding="utf-8") as handle:
        data = yaml.load(handle, Loader=_Loader) or {}
    return data if isinstance(data, dict) else {}


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


@lru_cache(maxsize=512)
def _resolved(path: Path, group_roots: tuple[Path, ...], depth: int = 0) -> dict:
    """The file's values over those of the bases in its defaults list (cached: every benchmark shares a
    few bases; callers must not mutate the result).

    Like Hydra, a base name is relative to the including file's folder within the group, looked up in
    every config dir's `benchmark/` folder (so a user's option can inherit gym's `_base/math`)."""
    raw = _load(path)
    merged: dict = {}
    folder = next((path.parent.relative_to(r) for r in group_roots if path.parent.is_relative_to(r)), Path())
    for item in raw.get("defaults", []) if depth < 8 else []:
        if not isinstance(item, str) or item == "_self_" or item.startswith("/"):
            continue
        base_name = item.split("@", 1)[0]
        for root in group_roots:
            base_path = root / folder / f"{base_name}.yaml"
            if base_path.is_file():
                merged = _merge(merged, _resolved(base_path, group_roots, depth + 1))
                break
    own = {k: v for k, v in raw.items() if k != "defaults"}
    return _merge(merged, own)


def read_entry(name: str, path: Path) -> BenchmarkEntry:
    values = _resolved(path, tuple(dict.fromkeys([path.parent, CONF_DIR / "benchmark"])))
    dataset = values.get("dataset") or {}
    verifier = values.get("verifier") or {}

    def flag(key: str) -> bool:
        return bool(values.get(key, False))

    return BenchmarkEntry(
        name=str(values.get("name") or name),
        description=str(values.get("description") or ""),
        domain=str(values.get("domain") or ""),
        verifier=str(verifier.get("family") or ""),
        tags=[str(t) for t in values.get("tags") or []],
        num_repeats=int(dataset.get("num_repeats") or 1),
        size=values.get("size"),
        license=str(values.get("license") or ""),
        gated=flag("gated"),
        needs_judge=flag("needs_judge"),
        needs_sandbox=flag("needs_sandbox"),
        languages=[str(code) for code in values.get("languages") or ["en"]],
        subsets=[str(column) for column in values.get("subsets") or []],
        sources=[str(s) for s in dataset.get("sources") or []],
        config_path=str(path),
    )


def load_catalog(dirs: Iterable[Path] | None = None) -> list[BenchmarkEntry]:
    return [read_entry(name, path) for name, path in benchmark_files(dirs).items()]


NOT_RUN_FILE = Path(__file__).with_name("not_run.yaml")
NEEDS = {"audio": "an audio-input model", "gpu_metric": "a GPU-run metric", "web": "the open web or an external API",
         "containers": "containers or a VM", "lean": "a Lean sandbox", "gated_vision": "gated vision data"}


@dataclass(frozen=True)
class NotRunEntry:
    """A reference benchmark gym does not run yet: its folder name, what it needs (a NEEDS key) and why."""

    name: str
    needs: str
    why: str

    def line(self) -> str:
        return f"{self.name}: gym does not run it yet; it needs {self.why}"


@lru_cache(maxsize=1)
def load_not_run() -> tuple[NotRunEntry, ...]:
    """The entries of not_run.yaml, each checked: a name, a known `needs` and a one-line `why`."""
    entries = []
    for item in yaml.load(NOT_RUN_FILE.read_text(encoding="utf-8"), Loader=_Loader) or []:
        entry = NotRunEntry(**item)
        if entry.needs not in NEEDS or not entry.name or not entry.why or "\n" in entry.why:
            raise ValueError(f"{NOT_RUN_FILE}: bad entry {item!r}")
        entries.append(entry)
    return tuple(entries)


def not_run_entry(name: str) -> NotRunEntry | None:
    return next((entry for entry in load_not_run() if entry.name == name), None)
