"""Experiment trackers: `tracker=wandb|mlflow` logs each finished job to Weights & Biases or MLflow.

A Hydra callback (conf/config.yaml) runs after every job of collect, aggregate, profile, e2e and
reverify, single runs and every job of a sweep alike, and logs what the job left in its run dir:

* the resolved config, without the `hydra` node and without any key that looks like a secret
  (api_key/token/secret/password; the `*_env` names of variables are kept, never their values);
* headline metrics per benchmark from metrics.json with their 95% CIs (`<label>/pass@1`,
  `<label>/pass@1_ci_low`, ...: pass@1, the largest pass@k and majority@k, no_answer, secondary scores),
  status counts, collect's throughput (run.json), the profile's completion and buckets;
* the per-subset table (metrics.csv's `subset/...` rows) as a table;
* metrics.json/csv, profile_summary.json, reverify.json, the plots and report.html as artifacts.

A sweep's jobs are grouped: the W&B group / the MLflow tag `gym.sweep` is the sweep dir. W&B reads its
key from WANDB_API_KEY itself (`tracker.mode=offline` writes under the run dir for `wandb sync`).
MLflow logs to `tracker.tracking_uri`, else $MLFLOW_TRACKING_URI, else a file store in the run dir (the
sweep dir for a sweep), which MLflow 3 keeps behind MLFLOW_ALLOW_FILE_STORE: gym sets it for its own store.
Both libraries are optional extras (`pip install 'gym-eval-harness[wandb]'` / `[mlflow]`), imported only here.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger("gym.metrics.trackers")

KINDS = ("none", "wandb", "mlflow")
TRACKED_TASKS = ("collect", "aggregate", "profile", "e2e", "reverify")  # the tasks that produce results
EXTRAS = {"wandb": "wandb", "mlflow": "mlflow"}  # kind -> module (and extra of the same name)
SECRET = re.compile(r"(api_?key|token|secret|password)", re.IGNORECASE)
ARTIFACTS = ("metrics.json", "metrics.csv", "compare.json", "profile_summary.json", "reverify.json", "run.json",
             "pass_rate_hist.png", "pass_at_k.png", "report.html")


# -- what is logged ------------------------------------------------------------------------------------
def public_config(cfg: DictConfig) -> dict[str, Any]:
    """The resolved config minus `hydra` and any secret-looking key (names of env vars stay)."""
    own = OmegaConf.masked_copy(cfg, [key for key in cfg if key != "hydra"])  # hydra's node resolves only in a job
    plain = OmegaConf.to_container(own, resolve=True, throw_on_missing=False)

    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: clean(v) for k, v in node.items()
                    if k != "hydra" and not (SECRET.search(str(k)) and not str(k).endswith("_env"))}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node
    return clean(plain)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _with_ci(out: dict[str, float], name: str, metric: dict | None) -> None:
    if metric and metric.get("value") is not None:
        out[name] = float(metric["value"])
        for side in ("ci_low", "ci_high"):
            if metric.get(side) is not None:
                out[f"{name}_{side}"] = float(metric[side])  # not name/side: a file store keeps name as a file


def headline(run_dir: Path) -> dict[str, float]:
    """Flat numbers worth a chart, from the files the task wrote."""
    from gym.metrics.estimators import metric_name

    out: dict[str, float] = {}
    metrics = _read_json(run_dir / "metrics.json") or {}
    for label, entry in (metrics.get("benchmarks") or {}).items():
        _with_ci(out, f"{label}/pass@1", entry.get("pass@1"))
        ks = entry.get("k_values") or []
        if ks:
            for family in ("pass@k", "majority@k"):
                _with_ci(out, f"{label}/{metric_name(family, ks[-1])}", (entry.get(family) or {}).get(str(ks[-1])))
        _with_ci(out, f"{label}/no_answer", entry.get("no_answer"))
        for name, metric in (entry.get("scores") or {}).items():
            _with_ci(out, f"{label}/scores/{name}", metric)
        for status, count in (entry.get("counts") or {}).items():
            out[f"{label}/count/{status}"] = float(count)
        cost = entry.get("cost") or {}
        for role, count in (cost.get("tokens") or {}).items():
            out[f"{label}/tokens/{role}"] = float(count)
        for name in ("usd", "usd_per_task"):
            if isinstance(cost.get(name), (int, float)):
                out[f"{label}/cost/{name}"] = float(cost[name])
        if isinstance((entry.get("clustering") or {}).get("design_effect"), (int, float)):
            out[f"{label}/design_effect"] = float(entry["clustering"]["design_effect"])
    run = _read_json(run_dir / "run.json") or {}
    for name in ("rollouts_per_s", "accuracy_percent_this_run", "seconds"):
        if isinstance(run.get(name), (int, float)):
            out[f"collect/{name}"] = float(run[name])
    profile = _read_json(run_dir / "profile_summary.json") or {}
    total = (profile.get("completion") or {}).get("total") or {}
    if isinstance(total.get("completion_pct"), (int, float)):
        out["profile/completion_pct"] = float(total["completion_pct"])
    for label, entry in (profile.get("benchmarks") or {}).items():
        for bucket, count in (entry.get("buckets") or {}).items():
            out[f"{label}/profile/bucket/{bucket}"] = float(count)
    reverified = _read_json(run_dir / "reverify.json") or {}
    for name in ("reverified", "changed"):
        if isinstance(reverified.get(name), int):
            out[f"reverify/{name}"] = float(reverified[name])
    return out


def subset_table(run_dir: Path) -> tuple[list[str], list[list[Any]]]:
    from gym.metrics.subsets import csv_rows

    metrics = _read_json(run_dir / "metrics.json") or {}
    columns = ["benchmark", "model", "metric", "value", "ci_low", "ci_high", "unit"]
    return columns, [[row[c] for c in columns] for row in csv_rows(metrics)] if metrics.get("benchmarks") else []


def artifacts(run_dir: Path) -> list[Path]:
    return [run_dir / name for name in ARTIFACTS if (run_dir / name).is_file()]


# -- backends ------------------------------------------------------------------------------------------
def _wandb(options: dict[str, Any], run_dir: Path, name: str, group: str | None, payload: dict[str, Any]) -> str:
    import wandb

    run = wandb.init(project=options.get("project") or "gym", entity=options.get("entity"),
                     mode=options.get("mode") or "online", dir=str(run_dir), name=name, group=group,
                     tags=list(options.get("tags") or []), config=payload["config"], reinit="create_new",
                     # No command line, environment or code capture: a key passed on the command line stays local.
                     settings=wandb.Settings(x_disable_meta=True, x_disable_stats=True, disable_code=True,
                                             save_code=False, console="off"))
    try:
        run.summary.update(payload["metrics"])
        columns, rows = payload["subsets"]
        if rows:
            run.log({"per_subset": wandb.Table(columns=columns, data=rows)})
        if payload["artifacts"]:
            artifact = wandb.Artifact(re.sub(r"[^\w.-]+", "-", f"gym-{name}"), type="gym-results")
            for path in payload["artifacts"]:
                artifact.add_file(str(path))
            run.log_artifact(artifact)
        return f"W&B run {run.id} ({'offline, under ' + str(run_dir / 'wandb') if run.settings.mode == 'offline' else run.url})"
    finally:
        run.finish()


def _mlflow_name(name: str) -> str:
    """MLflow names allow letters, digits and _-. /: only."""
    return re.sub(r"[^\w\-. /:]", "_", name.replace("@", "_at_"))


def mlflow_uri(options: dict[str, Any], store_dir: Path) -> str:
    uri = options.get("tracking_uri") or os.environ.get("MLFLOW_TRACKING_URI")
    if uri:
        return str(uri)
    if not os.environ.get("MLFLOW_ALLOW_FILE_STORE"):  # gym's default: a plain file store, no server
        os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    return (store_dir / "mlruns").resolve().as_uri()


def _mlflow(options: dict[str, Any], run_dir: Path, name: str, group: str | None, payload: dict[str, Any],
            store_dir: Path) -> str:
    import mlflow

    client_uri = mlflow_uri(options, store_dir)
    mlflow.set_tracking_uri(client_uri)
    mlflow.set_experiment(options.get("experiment") or "gym")
    tags = {"gym.task": str(payload["config"].get("task", {}).get("name")), **(options.get("tags") or {})}
    if group:
        tags["gym.sweep"] = group
    with mlflow.start_run(run_name=name, tags=tags) as run:
        mlflow.log_dict(payload["config"], "config.json")
        mlflow.log_metrics({_mlflow_name(k): v for k, v in payload["metrics"].items()})
        columns, rows = payload["subsets"]
        if rows:
            mlflow.log_dict({"columns": columns, "rows": rows}, "per_subset.json")
        for path in payload["artifacts"]:
            mlflow.log_artifact(str(path))
        return f"MLflow run {run.info.run_id} in {client_uri}"


# -- the callback ----------------------------------------------------------------------------------------
def _options(config: DictConfig) -> dict[str, Any]:
    node = config.get("tracker")
    return OmegaConf.to_container(node, resolve=True) if node is not None else {"kind": "none"}


class TrackerCallback(Callback):
    """Checks the extra is installed before a job starts; logs the job when it ends."""

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        kind = _options(config).get("kind", "none")
        if kind not in KINDS:
            self._fail(f"tracker.kind={kind} is not one of {', '.join(KINDS)}")
        if kind in EXTRAS:
            import importlib.util

            if importlib.util.find_spec(EXTRAS[kind]) is None:
                self._fail(f"tracker={kind} needs the '{kind}' extra: pip install 'gym-eval-harness[{kind}]' "
                           f"(or '.[{kind}]' in a checkout)")

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        from hydra.core.hydra_config import HydraConfig
        from hydra.types import RunMode

        options = _options(config)
        if options.get("kind", "none") == "none" or config.task.name not in TRACKED_TASKS:
            return
        hydra_cfg = HydraConfig.get()
        run_dir = Path(hydra_cfg.runtime.output_dir)
        sweep = hydra_cfg.mode == RunMode.MULTIRUN
        group = str(Path(hydra_cfg.sweep.dir).resolve()) if sweep else None
        name = f"{config.task.name}/{run_dir.name}" if not sweep else f"{Path(hydra_cfg.sweep.dir).name}/{run_dir.name}"
        try:
            payload = {"config": public_config(config), "metrics": headline(run_dir),
                       "subsets": subset_table(run_dir), "artifacts": artifacts(run_dir)}
            if options["kind"] == "wandb":
                where = _wandb(options, run_dir, name, group, payload)
            else:
                where = _mlflow(options, run_dir, name, group, payload, Path(group) if group else run_dir)
        except Exception as exc:  # the job's results are on disk already: a tracker failure must not hide them
            log.error("tracker=%s could not log this run (%s: %s); the results are in %s",
                      options["kind"], exc.__class__.__name__, exc, run_dir)
            return
        log.info("logged to %s: %d metric(s), %d file(s)", where, len(payload["metrics"]), len(payload["artifacts"]))

    @staticmethod
    def _fail(message: str) -> None:
        print(f"gym: error: {message}", file=sys.stderr, flush=True)
        sys.exit(2)
