"""SWE-bench's published instance files as prepared rows (benchmark=swebench_verified, swebench_lite).

Upstream publishes each split as one parquet file on the Hugging Face Hub; `data.mirror=<dir>` reads it
from <dir>/huggingface.co/<path> instead (and the repositories from <dir>/github.com/<owner>/<name>.git
at collect time). Every instance is kept in SWE-bench's layout (gym.swebench.instances) with the plan of
its environment (gym.swebench.specs); one gym cannot build here is kept and marked unscorable with why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gym.swebench.instances import FIELDS, InstanceError, instance_row
from gym.swebench.specs import plan


def convert(item: dict, index: int) -> tuple[dict | None, str | None]:
    try:
        row = instance_row(item)
    except InstanceError as exc:
        return None, str(exc)
    environment = plan(row)
    row["environment"] = environment.to_row()
    return row, None if environment.buildable else "; ".join(environment.notes)


def prepare_instances(ctx: Any, url: str, only: list[str] | None = None) -> Path:
    source = ctx.fetch(url)
    items = ctx.read_parquet(source, required=[name for name in FIELDS if name not in ("hints_text", "created_at")],
                             layout="SWE-bench instance")
    if only:
        wanted = set(only)
        items = ctx.leave_out(items, lambda item: item.get("instance_id") in wanted, "not in prepare_args.only")
    rows = ctx.convert_rows(source, items, convert, label="instance", id_field="instance_id")
    return ctx.write_rows(rows)
