"""The data layer: the catalog, downloads, and the prepare-script API.

A benchmark's `prepare.py` (gym's own or a user's) imports its tools from here:

    from gym.data import GymError, PrepareContext, math_row, text_row

This package is the face of prepare scripts: what gym's own scripts need from the layers below sits in
`FACE`, and a script imports gym only from here or from one of the benchmark families' faces listed in
`PREPARE_FACES` (tests/project/test_architecture.py holds it; docs/prepare-api.md lists every name). Names are
loaded on first use, so importing gym.data.catalog (search, start-up) stays cheap.
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

_CONVERTERS = ("text_row", "math_row", "instruction_row", "joined_answers", "unboxed", "missing_text",
               "stripped_text", "prepare_math", "prepare_matharena", "prepare_parquet_files", "prepare_evalplus",
               "evalplus_fields", "evalplus_shown_prompt", "sibling_script")

# The prepare-script API: name -> the module that defines it.
FACE = {
    "PrepareContext": "gym.data.prepare_context", "read_manifest": "gym.data.prepare_context",
    **{name: "gym.data.converters" for name in _CONVERTERS},
    **{name: "gym.data.multilingual" for name in ("chosen_languages", "hf_converted_parquet", "math_instruction",
                                                  "prepare_translated_math")},
    "token_cap": "gym.data.tokens", "token_counter": "gym.data.tokens",
    "schema_text": "gym.data.sql_schema",
    "GymError": "gym.core.errors",
    **{name: "gym.core.io" for name in ("atomic_path", "replace_dir", "write_json_atomic", "write_text_atomic")},
    "decode_data_url": "gym.core.images", "save_image": "gym.core.images",
    "ROLES": "gym.core.prompts",
    "number_text": "gym.core.answer_text",
}
__all__ = sorted(FACE)

# The faces a prepare script may import gym from: this package, and the benchmark families' own tools.
PREPARE_FACES = ("gym.data", "gym.data.arena", "gym.data.ruler", "gym.data.ruler2", "gym.swebench", "gym.toolcalls",
                 "gym.episodes.bfcl", "gym.episodes.harbor", "gym.episodes.tau2", "gym.episodes.toolsandbox",
                 "gym.verifiers")

__getattr__ = lazy_getattr(__name__, FACE)
