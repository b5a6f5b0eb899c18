"""Token counting for prepare scripts that size or filter prompts by a model's tokenizer (RULER's generated
lengths, the 128k / 1M caps of the long-context variants).

A tokenizer is named by `prepare_args.tokenizer`:
  - a local `tokenizer.json` file (or a folder holding one): read with the `tokenizers` library;
  - a Hugging Face model name such as `nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16`: its `tokenizer.json`
    is fetched like any upstream file (data.mirror and offline work; HF_TOKEN for gated models);
  - `words`: whitespace-separated words, gym's fallback when no tokenizer is at hand. It is not a model's
    tokenizer (English text runs about 1.3 tokens per word), so lengths made with it are approximate.
Tokens are counted without special tokens, as the reference counts them (add_special_tokens=False).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from gym.core.errors import GymError

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

WORDS = "words"
HF_TOKENIZER = "https://huggingface.co/{name}/resolve/main/tokenizer.json"

TokenCounter = Callable[[str], int]


def word_count(text: str) -> int:
    return len(text.split())


def tokenizer_file(ctx: PrepareContext, spec: str) -> Path:
    """The tokenizer.json that `spec` (a path, a folder or a Hugging Face model name) names."""
    path = Path(spec).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
    if path.is_file():
        return path
    if spec.startswith((".", "/", "~")) or spec.endswith(".json") or spec.count("/") != 1:
        raise GymError(f"tokenizer {spec!r}: no such tokenizer.json file (give a tokenizer.json path, a folder "
                       f"holding one, a Hugging Face model name such as org/model, or {WORDS})")
    return ctx.fetch(HF_TOKENIZER.format(name=spec), token_env="HF_TOKEN")


def token_counter(ctx: PrepareContext, spec: str | None) -> TokenCounter:
    """A text -> token count function for the tokenizer `spec` names (see the module docstring)."""
    if not isinstance(spec, str) or not spec.strip():
        raise GymError("set the tokenizer: +prepare_args.tokenizer=<tokenizer.json path | org/model | words>")
    if spec == WORDS:
        return word_count
    path = tokenizer_file(ctx, spec)
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise GymError("counting tokens with a tokenizer.json needs the tokenizers library: "
                       "pip install 'gym-eval-harness[longctx]'") from None
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # the library raises a bare Exception for a file it cannot read
        raise GymError(f"{path}: not a tokenizer.json the tokenizers library reads ({exc})") from None
    tokenizer.no_truncation()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def token_cap(ctx: PrepareContext, tokenizer: str | None, max_context_tokens: int | None,
              parts_of: Callable[[dict], list[str]]) -> Callable[[dict], bool] | None:
    """For the variants that drop prompts over a token cap (the reference's `max_context_tokens`): None when
    neither is set (no count, no filter); else row -> keep it? A kept row gets metadata.n_tokens (the sum of
    the token counts of parts_of(row), each part tokenized alone as the reference does); a dropped one is
    counted as left out in the manifest."""
    if tokenizer is None and max_context_tokens is None:
        return None
    if max_context_tokens is not None and (isinstance(max_context_tokens, bool) or not isinstance(max_context_tokens, int)
                                           or max_context_tokens <= 0):
        raise GymError(f"max_context_tokens must be a positive number of tokens, got {max_context_tokens!r}")
    count = token_counter(ctx, tokenizer)
    reason = f"over {max_context_tokens} tokens ({tokenizer})"

    def keep(row: dict) -> bool:
        tokens = sum(count(part) for part in parts_of(row))
        if max_context_tokens is not None and tokens > max_context_tokens:
            ctx.leave_out_row(reason, seen_before=True)
            return False
        row.setdefault("metadata", {})["n_tokens"] = tokens
        return True
    return keep
