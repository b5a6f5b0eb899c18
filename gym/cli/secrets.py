"""Recognising secrets where they do not belong: API keys and tokens must come from environment variables.

A command-line override that carries one (by its key's name or by a well-known key shape) is refused
before anything is written, so it never reaches Hydra's saved config, a log or an output file. The
messages never repeat the value.
"""

from __future__ import annotations

import re

# Key names that hold a secret value (a name ending in _env holds the NAME of a variable instead).
SECRET_KEY = re.compile(r"(^|[._])(api_?key|apikey|access_?token|auth_?token|token|secret|secret_?key|client_?secret|"
                        r"password|passwd|credentials?|authorization|bearer)$", re.IGNORECASE)
# Well-known shapes of API keys and tokens (OpenAI, Anthropic, NVIDIA, Hugging Face, GitHub, GitLab, Slack,
# AWS, Google, JWTs, bearer headers), long enough that paths such as /data/hf_cache are not mistaken for one.
SECRET_SHAPE = re.compile(
    r"(?<![A-Za-z0-9])("
    r"sk-[A-Za-z0-9_\-]{20,}|nvapi-[A-Za-z0-9_\-]{20,}|hf_[A-Za-z0-9]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|"
    r"github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_\-]{20,}|xox[abposr]-[A-Za-z0-9\-]{20,}|AKIA[0-9A-Z]{16}|"
    r"AIza[0-9A-Za-z_\-]{20,}|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}|Bearer\s+\S{8,})")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def looks_secret(text: str) -> bool:
    return bool(SECRET_SHAPE.search(text))


def override_secret_problem(key: str, value: str) -> str | None:
    """Why the override `key=value` must be refused (worded without the value), or None if it is fine."""
    key = key.lstrip("+~")
    leaf = key.rsplit(".", 1)[-1]
    scope = key.split(".", 1)[0] if key.startswith(("model.", "judge.")) else "model"
    advice = f"export it in an environment variable and pass {scope}.api_key_env=<VARIABLE_NAME>"
    if leaf.endswith("_env"):
        if value in ("", "null") or (ENV_NAME.fullmatch(value) and not looks_secret(value)):
            return None
        return (f"{key} takes the NAME of an environment variable (such as OPENAI_API_KEY), not the key itself; "
                f"{advice} (the value was not shown or saved)")
    if SECRET_KEY.search(leaf) and value not in ("", "null"):
        return f"{key}=... would put a secret on the command line and into saved configs; {advice}"
    if looks_secret(value):
        return (f"the value given for {key} looks like an API key or token; gym takes secrets only from "
                f"environment variables: {advice} (the value was not shown or saved)")
    return None
