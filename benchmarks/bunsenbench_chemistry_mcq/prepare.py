"""BunsenBench Chemistry MCQ (nvidia/bunsen-bench, config chemistry_mcq, tag v0.1.4, split test; gated):
5,100 chemistry multiple-choice questions drawn from MMLU-Redux, MMLU-Pro, GPQA-Diamond, SuperGPQA and
ChemBench.

Upstream is a manifest: one row per question with its source locator and hashes, and no question text:

    bunsen_id, source, source_dataset, source_config, source_split, source_revision, source_record_id,
    source_row_index, source_record_sha256, canonical_problem_sha256, bct_field, bct_subfield

The dataset's own helper (tools/reconstitute.py at the same tag) fetches each row from its pinned source,
checks both hashes and adds the payload: question, choices (list of texts), answer (the correct text),
answer_index and source_meta. gym reads the manifest file; when its rows carry that payload (the helper's
output saved in the manifest's place, see docs/benchmarks/bunsenbench.md) they are converted as the
reference does. A manifest of locators only is rebuilt with prepare_args.rebuild_rows=true: as the reference,
gym loads the manifest's builder (`datasets.load_dataset_builder`), fetches the helper at the same tag and
runs its reconstitute(builder, token=..., limit=None, verify_hashes=True, include_raw_row=False), then saves
the rows in the manifest's place; without it, prepare stops in one line saying so.

Conversion, as the reference: a row must have every locator and payload field above (and none else
besides the three config fields and source_meta), at least two choices, its answer among them at
answer_index, and unique bunsen_id and (source, source_record_id). The choices are shuffled by
random.Random(first 8 bytes, big-endian, of sha256("<bunsen_id>:<prompt version>")), shown as
<choices><choice>…</choice>…</choices> (HTML-escaped, quotes kept), and the correct one's letter is the
gold answer. Prepared rows:

    {"question": ..., "options_text": "<choices>\\n<choice>H2O</choice>\\n...</choices>",
     "options": {"A": ..., "B": ...}, "expected_answer": "B", "uuid": <bunsen_id>,
     "metadata": {<locators, with source, bct_field, bct_subfield>, <config fields>,
                  "prompt_version": "bunsen_chem_mcq_xml_choice_v1"}}
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import os
import random
import string
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, atomic_path

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "https://huggingface.co/datasets/nvidia/bunsen-bench"
VERSION = "0.1.4"
REVISION = f"v{VERSION}"
CONFIG = "chemistry_mcq"
SPLIT = "test"
# the file `datasets` writes for one config and split (push_to_hub: <config>/<split>-<shard>-of-<n>.parquet)
URL = f"{REPO}/resolve/{REVISION}/{CONFIG}/{SPLIT}-00000-of-00001.parquet"
HELPER = f"{REPO}/blob/{REVISION}/tools/reconstitute.py"
HELPER_URL = f"{REPO}/resolve/{REVISION}/tools/reconstitute.py"
REPO_ID = "nvidia/bunsen-bench"
TOKEN_ENV = "HF_TOKEN"
PROMPT_VERSION = "bunsen_chem_mcq_xml_choice_v1"
LETTERS = string.ascii_uppercase
CONFIG_FIELDS = {"bunsen_bench_revision": REVISION, "bunsen_bench_config": CONFIG,
                 "bunsen_bench_config_version": VERSION}
LOCATOR_FIELDS = ("bunsen_id", "source", "source_dataset", "source_config", "source_split", "source_revision",
                  "source_record_id", "source_row_index", "source_record_sha256", "canonical_problem_sha256",
                  "bct_field", "bct_subfield")
PAYLOAD_FIELDS = ("question", "choices", "answer", "answer_index")
ALLOWED_FIELDS = set(LOCATOR_FIELDS) | set(PAYLOAD_FIELDS) | set(CONFIG_FIELDS) | {"source_meta"}


def shuffled_choices(choices: list[str], bunsen_id: str) -> list[str]:
    """The reference's deterministic order of a row's choices."""
    seed_text = f"{bunsen_id}:{PROMPT_VERSION}"
    seed = int.from_bytes(hashlib.sha256(seed_text.encode("utf-8")).digest()[:8], byteorder="big")
    order = list(choices)
    random.Random(seed).shuffle(order)
    return order


def choices_xml(choices: list[str]) -> str:
    lines = ["<choices>", *(f"<choice>{html.escape(text, quote=False)}</choice>" for text in choices), "</choices>"]
    return "\n".join(lines)


def check(item: dict[str, Any]) -> str | None:
    """Why a rebuilt row is not in the layout the reference converts, or None."""
    missing = [name for name in (*LOCATOR_FIELDS, *PAYLOAD_FIELDS) if name not in item]
    if missing:
        return f"missing field(s): {', '.join(missing)}"
    unexpected = sorted(set(item) - ALLOWED_FIELDS)
    if unexpected:
        return f"unexpected field(s): {', '.join(unexpected)}"
    for name, expected in CONFIG_FIELDS.items():
        if item.get(name) is not None and item[name] != expected:
            return f"{name}={item[name]!r}, expected {expected!r}"
    choices = item["choices"]
    if not isinstance(choices, list) or len(choices) < 2 or not all(isinstance(c, str) for c in choices):
        return "'choices' must be a list of at least two texts"
    if len(choices) > len(LETTERS):
        return f"{len(choices)} choices, more than there are letters"
    if item["answer"] not in choices:
        return "'answer' is not among the choices"
    if item["answer_index"] != choices.index(item["answer"]):
        return f"answer_index {item['answer_index']!r} does not point at the answer"
    return None


def convert(item: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    problem = check(item)
    if problem:
        return None, problem
    order = shuffled_choices(item["choices"], item["bunsen_id"])
    golds = [position for position, text in enumerate(order) if text == item["answer"]]
    if len(golds) != 1:
        return None, "the answer text appears more than once among the choices"
    metadata = {name: item[name] for name in LOCATOR_FIELDS} | CONFIG_FIELDS | {"prompt_version": PROMPT_VERSION}
    return {
        "question": item["question"],
        "options_text": choices_xml(order),
        "options": {LETTERS[position]: text for position, text in enumerate(order)},
        "expected_answer": LETTERS[golds[0]],
        "uuid": item["bunsen_id"],
        "metadata": metadata,
    }, None


def check_builder(builder: Any) -> None:
    """The reference's checks of the manifest config: its name and version, and a test split."""
    config = getattr(builder, "config", None)
    found = (str(getattr(config, "name", "") or ""), str(getattr(config, "version", "") or ""))
    if found != (CONFIG, VERSION):
        raise ValueError(f"the manifest config is {found[0]!r} version {found[1]!r}, expected {CONFIG!r} {VERSION!r}")
    splits = getattr(getattr(builder, "info", None), "splits", None)
    if splits and SPLIT not in set(splits):
        raise ValueError(f"the manifest's splits are {sorted(splits)}, expected {SPLIT!r}")


def rebuild(ctx: PrepareContext, manifest: Path) -> None:
    """The manifest's rows with their payload, made by the dataset's own helper as the reference runs it, saved
    over `manifest` (the helper fetches every pinned source and checks its hashes)."""
    try:
        from datasets import load_dataset_builder
    except ImportError:
        raise GymError("prepare_args.rebuild_rows=true runs the dataset's helper, which needs the datasets "
                       "library: pip install datasets huggingface_hub") from None
    import pyarrow as pa
    import pyarrow.parquet as pq

    token = os.environ.get(TOKEN_ENV) or None
    module_spec = importlib.util.spec_from_file_location("bunsen_bench_reconstitute", ctx.fetch(HELPER_URL,
                                                                                                  token_env=TOKEN_ENV))
    helper = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = helper  # as the reference imports it (dataclasses in it look the module up)
    try:
        module_spec.loader.exec_module(helper)
        builder = load_dataset_builder(REPO_ID, CONFIG, revision=REVISION, token=token)
        check_builder(builder)
        rows = [dict(row) for row in helper.reconstitute(builder, token=token, limit=None, verify_hashes=True,
                                                         include_raw_row=False, verbose=ctx.progress)]
    except Exception as exc:  # the helper's and the hub's errors, in one line
        raise GymError(f"{HELPER}: rebuilding the rows failed ({type(exc).__name__}: {exc})") from None
    with atomic_path(manifest) as tmp:
        pq.write_table(pa.Table.from_pylist(rows), tmp)


def prepare(ctx: PrepareContext, rebuild_rows: bool = False) -> Path:
    raw = ctx.fetch(URL, token_env=TOKEN_ENV)
    items = ctx.read_parquet(raw, required=LOCATOR_FIELDS, layout="bunsen-bench chemistry_mcq manifest")
    if items and not set(PAYLOAD_FIELDS) & set(items[0]):
        if not rebuild_rows:
            raise GymError(f"{raw}: the manifest holds source locators only; +prepare_args.rebuild_rows=true "
                           f"rebuilds its {len(items)} rows with the dataset's helper ({HELPER}; needs the "
                           f"datasets library and HF_TOKEN; docs/benchmarks/bunsenbench.md)")
        rebuild(ctx, raw)
        items = ctx.read_parquet(raw, required=LOCATOR_FIELDS + PAYLOAD_FIELDS, layout="rebuilt manifest")
    rows: list[dict] = []
    ids: set[str] = set()
    locators: set[tuple[str, str]] = set()
    for index, item in enumerate(items):
        row, problem = convert(item)
        if row is not None:
            locator = (str(item["source"]), str(item["source_record_id"]))
            if item["bunsen_id"] in ids or locator in locators:
                row, problem = None, f"duplicate bunsen_id or source locator {locator}"
            ids.add(item["bunsen_id"])
            locators.add(locator)
        ctx.keep(rows, (row, problem), f"{raw}: row {index} (bunsen_id {item.get('bunsen_id')})")
    return ctx.write_rows(rows)
