"""task=search: ranked fuzzy search over the catalog, or a detailed view of one benchmark.

Reads the option files directly (gym.data.catalog) instead of composing every benchmark, so a search costs
a few milliseconds on top of Hydra's own start-up.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.data.catalog import NEEDS, BenchmarkEntry, active_config_dirs, load_catalog, load_not_run
from gym.core.errors import GymError, did_you_mean

MATCH_THRESHOLD = 75  # thefuzz score (0-100) a field must reach for a benchmark to match
_TOKEN_SPLIT = re.compile(r"[\s_\-/.,:;()\[\]]+")
DESCRIPTION_MIN = 30  # characters a description column needs to be worth a column; else it gets its own line
FILTERS = ("domain", "verifier", "language", "gated", "needs_judge", "needs_sandbox")


def _dataset_names(entry: BenchmarkEntry) -> list[str]:
    """Upstream dataset ids from source URLs, e.g. HuggingFaceH4/aime_2024 or openai/grade-school-math."""
    names = []
    for url in entry.sources:
        parts = url.split("/")
        if "datasets" in parts and len(parts) > parts.index("datasets") + 2:
            i = parts.index("datasets")
            names.append(f"{parts[i + 1]}/{parts[i + 2]}")
        elif len(parts) > 4:
            names.append(f"{parts[3]}/{parts[4]}")
    return names


def language_filter(entries: list[BenchmarkEntry], wanted: str) -> list[BenchmarkEntry]:
    known = {code for e in entries for code in e.languages}
    if wanted.lower() not in {code.lower() for code in known}:
        raise GymError(f"no benchmark has language={wanted}{did_you_mean(wanted, known)}; known: {', '.join(sorted(known))}")
    return [e for e in entries if wanted.lower() in (code.lower() for code in e.languages)]


def score(query: str, entry: BenchmarkEntry) -> int:
    """How well `query` matches the entry: exact substrings score 100, typos still score high (`cut_fuzzy`
    drops near words when some entry holds the query as typed)."""
    from rapidfuzz import fuzz, process  # thefuzz's engine, called directly: one C call per field, not per token

    query = query.lower().strip()
    if not query:
        return 100
    fields = [(entry.name, 1.0), (entry.domain, 0.95), (entry.verifier, 0.95), (" ".join(entry.tags), 0.9),
              (" ".join(_dataset_names(entry)), 0.9), (entry.description, 0.85)]
    best = 0.0
    for text, weight in fields:
        if best >= 100 * weight:
            break  # fields are in falling weight order: nothing later can beat this
        text = text.lower()
        if not text:
            continue
        if query in text:
            value = 100.0
        else:
            tokens = [t for t in _TOKEN_SPLIT.split(text) if t]
            token_best = process.extractOne(query, tokens, scorer=fuzz.ratio) if tokens else None
            value = max(round(fuzz.ratio(query, text)), round(token_best[1]) if token_best else 0)
            if len(query) >= 4 and len(text) <= 3 * len(query):
                value = max(value, round(fuzz.partial_ratio(query, text)))
        best = max(best, value * weight)
    return int(round(best))


def exact(query: str, hit: dict[str, Any]) -> bool:
    """Whether the query appears as typed in one of the hit's searched fields (not only as a near word)."""
    query = query.lower().strip()
    fields = ("name", "domain", "verifier", "tags", "description", "why", "needs")
    return any(query in (" ".join(hit[f]) if isinstance(hit.get(f), list) else str(hit.get(f) or "")).lower()
               for f in fields) or query in " ".join(hit.get("datasets", ())).lower()


def _ranked(hits: list[dict[str, Any]], max_rows: int) -> list[dict[str, Any]]:
    hits.sort(key=lambda h: (not h["exact"], -h["score"], h["name"]))
    return hits[:max_rows] if max_rows > 0 else hits


def cut_fuzzy(hits: list[dict[str, Any]], not_run: list[dict[str, Any]]) -> tuple[list, list]:
    """When some hit holds the query as typed, the near-word ones (math ~ match) go: a plain word finds what
    it says, while a typo (mathh, aime42) matches nothing exactly and keeps its near matches."""
    if not any(h["exact"] for h in hits + not_run):
        return hits, not_run
    return [h for h in hits if h["exact"]], [h for h in not_run if h["exact"]]


def is_prepared(entry: BenchmarkEntry, data_root: Path) -> bool:
    return entry.data_path(data_root).is_file()


def find(cfg: DictConfig) -> list[dict[str, Any]]:
    entries = load_catalog(active_config_dirs())
    for key in FILTERS:
        wanted = cfg.get(key)
        if wanted is None:
            continue
        if key == "language":  # a benchmark matches when any of its languages is the one asked for
            entries = language_filter(entries, str(wanted))
        elif key in ("domain", "verifier"):
            values = {getattr(e, key) for e in entries}
            if str(wanted) not in values:
                raise GymError(f"no benchmark has {key}={wanted}{did_you_mean(str(wanted), values)}; "
                               f"known: {', '.join(sorted(values))}")
            entries = [e for e in entries if getattr(e, key) == str(wanted)]
        else:
            entries = [e for e in entries if getattr(e, key) == bool(wanted)]
    query = str(cfg.get("query") or "")
    data_root = Path(cfg.data.root)
    hits = []
    for entry in entries:
        match = score(query, entry)
        if match >= MATCH_THRESHOLD:
            hit = {**entry.to_dict(), "score": match, "prepared": is_prepared(entry, data_root),
                   "data_path": str(entry.data_path(data_root))}
            hits.append({**hit, "exact": exact(query, {**hit, "datasets": _dataset_names(entry)})})
    return _ranked(hits, int(cfg.get("max_rows") or 0))


def find_not_run(cfg: DictConfig) -> list[dict[str, Any]]:
    """The reference benchmarks gym does not run that match the query (none when a facet filter is set:
    they have no domain, verifier or language to filter on)."""
    if any(cfg.get(key) is not None for key in FILTERS):
        return []
    query = str(cfg.get("query") or "")
    hits = []
    for entry in load_not_run():
        # the needs key goes into the long description: as a short field it would fuzzy-match any query
        facets = BenchmarkEntry(name=entry.name, description=f"{entry.needs}, {NEEDS[entry.needs]}: {entry.why}")
        match = score(query, facets)
        if match >= MATCH_THRESHOLD:
            hit = {"name": entry.name, "needs": entry.needs, "why": entry.why, "runs": False, "score": match,
                   "line": entry.line()}
            hits.append({**hit, "exact": exact(query, {**hit, "description": NEEDS[entry.needs]})})
    return _ranked(hits, int(cfg.get("max_rows") or 0))


def fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def format_hits(hits: list[dict[str, Any]], width: int) -> str:
    """The hits as a table no wider than `width`: descriptions are cut to the room left, or, in a terminal too
    narrow for a useful cut, go on a line of their own under their row (the full text: format=json)."""
    from gym.metrics.table import format_table

    columns = [("name", "name"), ("domain", "domain"), ("verifier", "verifier"), ("repeats", "num_repeats"),
               ("prepared", "prepared")]
    cells = [[str(h[key]) if key != "prepared" else ("yes" if h[key] else "no") for _, key in columns] for h in hits]
    heads = [title for title, _ in columns]
    table = format_table(heads, cells).splitlines()
    if width - len(table[1]) - 2 >= DESCRIPTION_MIN:  # description as the last column, cut to fit
        return format_table([*heads, "description"], [[*row, h["description"]] for row, h in zip(cells, hits)],
                            width=width)
    lines = [fit(table[0], width), fit(table[1], width)]
    for row, hit in zip(table[2:], hits):
        lines += [fit(row, width), fit("    " + hit["description"], width)]
    return "\n".join(lines)


def show(cfg: DictConfig) -> dict[str, Any]:
    """The detailed view of the selected benchmark."""
    from gym.data.prepare_context import read_manifest
    from gym.core.io import sha256_file

    bench = cfg.benchmark
    name = bench.name
    data_path = Path(bench.dataset.path)
    info: dict[str, Any] = {"name": name, "data_path": str(data_path), "prepared": data_path.is_file(), "sha256": None}
    if info["prepared"]:
        manifest = read_manifest(data_path) or {}
        info["rows"] = manifest.get("rows")
        info["sha256"] = manifest.get("sha256") or sha256_file(data_path)
        if info["rows"] is None:
            with open(data_path, "rb") as handle:
                info["rows"] = sum(1 for line in handle if line.strip())
    info["prepare_command"] = f"python -m gym task=prepare benchmark={name}"
    info["run_command"] = f"python -m gym task=e2e benchmark={name} model=vllm model.base_url=http://127.0.0.1:8000/v1"
    info["config"] = OmegaConf.to_container(bench, resolve=True)
    if cfg.get("format") == "json":
        print(json.dumps(info, indent=2))
        return info
    text = [f"{name}: {bench.description}", ""]
    text.append(OmegaConf.to_yaml(bench, resolve=True).rstrip())
    text.append("")
    text.append(f"data:      {data_path}")
    if info["prepared"]:
        text += [f"prepared:  yes, {info['rows']} rows", f"sha256:    {info['sha256']}"]
    else:  # the hash is of the prepared file: there is none before prepare
        text += ["prepared:  no", "sha256:    none yet: the prepared file's hash shows here once prepare has run"]
    text += _runnable_lines(data_path, info)
    text += ["", "prepare:   " + info["prepare_command"], "run:       " + info["run_command"]]
    print("\n".join(text))
    return info


def _runnable_lines(data_path: Path, info: dict[str, Any]) -> list[str]:
    """Container benchmarks: per task, whether it can run here and why not (runnable.json from prepare)."""
    from gym.metrics.table import format_table

    try:
        listing = json.loads((data_path.parent / "runnable.json").read_text())
    except (OSError, json.JSONDecodeError):
        return []
    info["runnable"] = listing
    runs = sum(1 for item in listing if item.get("runs_here"))
    cells = [[item["task"], "yes" if item.get("runs_here") else "no", item.get("why_not") or ""] for item in listing]
    return ["", f"tasks that can run here: {runs} of {len(listing)}",
            format_table(["task", "runs here", "why not"], cells, width=None)]


def run(cfg: DictConfig) -> dict[str, Any]:
    if cfg.get("format") not in ("table", "json"):
        raise GymError(f"format={cfg.get('format')} is not one of: table, json")
    if cfg.get("benchmark") is not None:
        return show(cfg)
    hits, not_run = cut_fuzzy(find(cfg), find_not_run(cfg))
    if cfg.format == "json":  # runnable hits first (runs: true), then those gym does not run (runs: false)
        print(json.dumps([{**hit, "runs": True} for hit in hits] + not_run, indent=2))
        return {"matches": len(hits), "not_run": len(not_run)}
    query = cfg.get("query") or ""
    width = shutil.get_terminal_size().columns  # COLUMNS, else the terminal's, else 80 (piped)
    if hits:
        title = f"Benchmarks matching '{query}' ({len(hits)})" if query else f"Benchmarks ({len(hits)})"
        print(title + "\n" + format_hits(hits, width))
    elif not not_run:
        print(f"No benchmarks match '{query}'." if query else "No benchmarks found.")
    if not_run:
        print(("\n" if hits else "") + f"Reference benchmarks gym does not run yet ({len(not_run)}):")
        print("\n".join(fit(f"  {hit['line']}", width) for hit in not_run))
    return {"matches": len(hits), "not_run": len(not_run)}
