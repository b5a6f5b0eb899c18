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
    image_detail: Optional[str] = None  # rows with images: auto | low | high, sent with each image (null: server's default)


@dataclass
class VerifierConfig:
    family: str = MISSING  # math | mcq | exact | ...
    options: Dict[str, Any] = field(default_factory=dict)  # family-specific knobs


@dataclass
class LocalColumns:
    question: Optional[str] = None  # column with the question; null = question, problem, prompt, input or instruction
    answer: Optional[str] = None  # column with the gold answer; null = expected_answer, answer, solution, target or label
    messages: Optional[str] = None  # column with a chat conversation sent as it is; null = messages (without a question column)


@dataclass
class DatasetConfig:
    path: str = MISSING  # prepared JSONL
    prepare_script: str = MISSING  # benchmarks/<name>/prepare.py (relative to the install root)
    sources: List[str] = field(default_factory=list)  # upstream URLs the prepare script reads
    num_repeats: int = 1  # rollouts per task by default
    prepare_args: Dict[str, Any] = field(default_factory=dict)  # keyword args for prepare()
    token_env: Optional[str] = None  # env var holding an access token for gated data
    columns: Optional[LocalColumns] = None  # your own file (benchmark=local): which column holds what
    checked_dir: Optional[str] = None  # your own file: where its checked copy in prepared-row shape goes
    tasks: Optional[str] = None  # benchmark=harbor: your folder of Harbor-format task folders
    answer_format: Optional[str] = None  # your own file: auto (#### N, last \boxed{}, else as is) | gsm8k | boxed | bare


@dataclass
class EmbeddingsConfig:
    """An OpenAI-compatible /v1/embeddings endpoint a benchmark's tools use (τ² banking's KB_search_dense)."""

    kind: str = "auto"  # auto (mock with model=mock, else openai_compatible) | mock | openai_compatible
    base_url: Optional[str] = None  # e.g. https://api.openai.com/v1
    name: str = "text-embedding-3-large"  # embedding model id
    api_key_env: Optional[str] = None  # NAME of the env var holding the key (never the key itself)
    dimensions: Optional[int] = None  # vector length every answer must have (null: any)
    encoding_format: str = "base64"  # base64 (float32 values) | float
    batch_size: int = 64  # texts per request
    timeout: float = 120.0  # seconds per request
    max_retries: int = 5  # attempts after the first


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
    subsets: List[str] = field(default_factory=lambda: ["subset"])  # grouping columns for per-subset metrics
    cluster_by: Optional[str] = None  # column tasks share (passage, repository, domain): clustered standard errors
    languages: List[str] = field(default_factory=lambda: ["en"])  # languages of the tasks (search facet)
    max_tokens: Optional[int] = None  # default output cap; model.sampling.max_tokens overrides it
    kind: str = "answer"  # answer (one reply per rollout) | episode (a multi-turn episode, gym.episodes)
    environment: Optional[str] = None  # episode benchmarks: the gym.episodes environment (tau2, bfcl)
    default_user: Optional[str] = None  # episode benchmarks: the user when user=none (mock | scripted; bfcl_multi_turn: scripted)
    embeddings: Optional[EmbeddingsConfig] = None  # an embeddings endpoint the benchmark's tools use (banking_alltools)
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
    task_accuracy: Optional[str] = None  # "beta:A:B": per-task accuracies drawn from Beta(A, B)
    rate_limit: Optional[int] = None  # 429 + Retry-After above this many requests in flight
    max_n: int = 128  # largest n (samples per request) accepted; 1 = a server that refuses n > 1
    ignore_n: bool = False  # accept n but answer one choice (as some servers and proxies do)
    tool_parser: bool = True  # false = native tool calls come back as <tool_call> text (no tool parser)


@dataclass
class ServeConfig:
    port: Optional[int] = None  # null = a free loopback port
    threads: Optional[int] = None  # llama.cpp inference threads; null = 1 on <= 2 cores, else half the cores
    ctx_size: int = 4096  # llama.cpp context tokens per slot (slots = concurrency)
    startup_timeout: float = 120.0  # seconds to wait for /v1/models to answer
    jinja: bool = False  # local: llama.cpp's --jinja (the model's chat template; needed for native tool calls)
    executable: str = "vllm"  # vllm_local: the vLLM command
    args: List[str] = field(default_factory=list)  # vllm_local: extra `vllm serve` arguments
    tensor_parallel_size: Any = "auto"  # vllm_local: auto = every visible GPU (a SLURM job's own), a number, null


@dataclass
class PriceConfig:
    input: Optional[float] = None  # USD per million prompt tokens
    output: Optional[float] = None  # USD per million completion tokens
    cached_input: Optional[float] = None  # USD per million cached prompt tokens (null: billed as input)


@dataclass
class ModelConfig:
    kind: str = "openai_compatible"  # openai_compatible | mock | local | vllm_local
    base_url: Any = MISSING  # one URL, or a list of replicas of the same model
    name: Optional[str] = None  # served model id; discovered from /v1/models when null
    api: str = "chat"  # chat | responses | completions
    api_key_env: Optional[str] = None  # NAME of the env var holding the key (never the key itself)
    timeout: float = 600.0  # seconds per request
    rollout_timeout: Optional[float] = 1200.0  # seconds per rollout over all its attempts; null = no budget
    max_retries: int = 5  # attempts after the first
    max_concurrency: int = 256  # ceiling for concurrency=auto
    n_per_request: bool = False  # a task's repeats as one request with n=k
    response_cache: Optional[str] = None  # this model's default cache.dir (model=local sets one)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    path: Optional[str] = None  # local: GGUF file (null = packaged SmolLM2); vllm_local: model to serve
    serve: ServeConfig = field(default_factory=ServeConfig)  # local / vllm_local server settings
    mock: MockServerConfig = field(default_factory=MockServerConfig)
    price: PriceConfig = field(default_factory=PriceConfig)  # cost in the summary, metrics.json; budget.usd


@dataclass
class SideEndpointConfig:
    """An endpoint beside the policy's: the judge, the simulated user."""

    kind: str = "none"
    base_url: Optional[str] = None
    name: Optional[str] = None  # model id; discovered from /v1/models when null
    api: str = "chat"  # chat | responses | completions
    api_key_env: Optional[str] = None  # NAME of the env var holding the key (never the key itself)
    timeout: float = 300.0  # seconds per request
    max_retries: int = 5  # attempts after the first
    sampling: SamplingConfig = field(default_factory=lambda: SamplingConfig(temperature=0.0, max_tokens=2048))
    price: PriceConfig = field(default_factory=PriceConfig)  # USD per million tokens, for the run's cost


@dataclass
class JudgeConfig(SideEndpointConfig):
    kind: str = "none"  # none | mock | openai_compatible


@dataclass
class UserConfig(SideEndpointConfig):
    kind: str = "none"  # none | mock | scripted | openai_compatible


@dataclass
class TrackerConfig:
    kind: str = "none"  # none | wandb | mlflow
    project: str = "gym"  # wandb: project
    entity: Optional[str] = None  # wandb: team or user
    mode: str = "online"  # wandb: online | offline
    experiment: str = "gym"  # mlflow: experiment name
    tracking_uri: Optional[str] = None  # mlflow: store URI; null = $MLFLOW_TRACKING_URI, else <run dir>/mlruns
    tags: Any = None  # wandb: list of tags; mlflow: mapping of tags


from gym.core.schema_runtime import AgentConfig, RuntimeConfig  # noqa: E402  (container tasks' groups)


def register() -> None:
    store = ConfigStore.instance()
    store.store(group="schema", name="benchmark", node=BenchmarkConfig)
    store.store(group="schema", name="model", node=ModelConfig)
    store.store(group="schema", name="judge", node=JudgeConfig)
    store.store(group="schema", name="user", node=UserConfig)
    store.store(group="schema", name="tracker", node=TrackerConfig)
    store.store(group="schema", name="runtime", node=RuntimeConfig)
    store.store(group="schema", name="agent", node=AgentConfig)


register()
