"""Dataclass schemas for the config groups that users extend (benchmark, model).

Registered in Hydra's ConfigStore under `schema/`; every benchmark pulls `/schema/benchmark@_here_` in
through its base's defaults list, so a typo or a wrong type in any benchmark file fails at compose time
naming the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class PromptConfig:
    system: Optional[str] = None  # system message template ({field} placeholders from the row)
    user: str = "{question}"  # user message template


@dataclass
class VerifierConfig:
    family: str = MISSING  # math | mcq | exact | ...
    options: Dict[str, Any] = field(default_factory=dict)  # family-specific knobs


@dataclass
class DatasetConfig:
    path: str = MISSING  # prepared JSONL
    prepare_script: str = MISSING  # benchmarks/<name>/prepare.py (relative to the install root)
    sources: List[str] = field(default_factory=list)  # upstream URLs the prepare script reads
    num_repeats: int = 1  # rollouts per task by default
    prepare_args: Dict[str, Any] = field(default_factory=dict)  # keyword args for prepare()
    token_env: Optional[str] = None  # env var holding an access token for gated data


@dataclass
class BenchmarkConfig:
    name: str = MISSING
    description: str = ""
    domain: str = MISSING  # math | knowledge | instruction_following | coding | qa | ...
    tags: List[str] = field(default_factory=list)
    license: str = ""
    size: Optional[int] = None  # number of tasks upstream
    gated: bool = False
    needs_judge: bool = False
    needs_sandbox: bool = False
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    prompt: PromptConfig = field(default_factory=PromptConfig)
    verifier: VerifierConfig = field(default_factory=VerifierConfig)


@dataclass
class SamplingConfig:
    temperature: Optional[float] = None
    top_p: Optional[float] = None
    max_tokens: Optional[int] = None
    seed: Optional[int] = None  # base seed; each rollout gets seed + rollout_index
    stop: Optional[List[str]] = None
    extra_body: Dict[str, Any] = field(default_factory=dict)  # passed through to the endpoint


@dataclass
class MockServerConfig:
    accuracy: float = 0.7  # probability of answering with the gold answer
    seed: int = 0
    latency: Any = 0.0  # seconds per request, or {dist: uniform, low, high} / {dist: lognormal, median, sigma}
    faults: Dict[str, float] = field(default_factory=dict)  # fault name -> rate
    reasoning: str = "none"  # none | think_tags | reasoning_content
    max_context_tokens: int = 1_000_000  # longer prompts get HTTP 400 context_length_exceeded
    retry_after: float = 1.0  # Retry-After seconds sent with injected 429s
    hang_seconds: float = 3600.0  # how long an injected hang lasts


@dataclass
class ModelConfig:
    kind: str = "openai_compatible"  # openai_compatible | mock
    base_url: Optional[str] = MISSING
    name: Optional[str] = None  # served model id; discovered from /v1/models when null
    api: str = "chat"  # chat | responses | completions
    api_key_env: Optional[str] = None  # NAME of the env var holding the key (never the key itself)
    timeout: float = 600.0  # seconds per request
    max_retries: int = 5  # attempts after the first
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    mock: MockServerConfig = field(default_factory=MockServerConfig)


@dataclass
class JudgeConfig:
    kind: str = "none"  # none | mock | openai_compatible
    base_url: Optional[str] = None
    name: Optional[str] = None  # judge model id; discovered from /v1/models when null
    api: str = "chat"  # chat | responses | completions
    api_key_env: Optional[str] = None  # NAME of the env var holding the key (never the key itself)
    timeout: float = 300.0  # seconds per judge request
    max_retries: int = 5  # attempts after the first
    sampling: SamplingConfig = field(default_factory=lambda: SamplingConfig(temperature=0.0, max_tokens=2048))


def register() -> None:
    store = ConfigStore.instance()
    store.store(group="schema", name="benchmark", node=BenchmarkConfig)
    store.store(group="schema", name="model", node=ModelConfig)
    store.store(group="schema", name="judge", node=JudgeConfig)


register()
