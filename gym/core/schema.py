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

from gym.core.errors import GymError


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


# -- task knobs ------------------------------------------------------------------------------------
# Each task's top-level knobs (conf/task/<task>.yaml), type-checked before the task runs so that
# `concurrency=lots` fails in one line naming the file, not deep inside the task.


@dataclass
class SearchKnobs:
    query: Any = ""
    domain: Optional[str] = None
    verifier: Optional[str] = None
    language: Optional[str] = None
    gated: Optional[bool] = None
    needs_judge: Optional[bool] = None
    needs_sandbox: Optional[bool] = None
    max_rows: int = 0
    format: str = "table"


@dataclass
class PrepareOptions:
    skip_bad_rows: bool = False
    force: bool = False


@dataclass
class PrepareKnobs:
    benchmarks: Any = None
    limit: Optional[int] = None
    n_jobs: int = 1
    prepare_args: Dict[str, Any] = field(default_factory=dict)
    prepare: PrepareOptions = field(default_factory=PrepareOptions)


@dataclass
class AdaptiveKnobs:
    enabled: bool = False
    min_repeats: int = 4
    max_repeats: Optional[int] = None
    step: int = 2
    confidence: float = 0.95
    split_extremes: bool = False
    hard_max: float = 0.25
    easy_min: float = 0.75


@dataclass
class CacheKnobs:
    dir: Optional[str] = None
    max_mb: float = 10000


@dataclass
class EpisodeKnobs:
    max_steps: int = 200
    max_errors: int = 10
    max_agent_steps: Optional[int] = None
    max_steps_per_turn: Optional[int] = None  # None: the environment's own (BFCL multi-turn: 20)
    timeout: Optional[float] = None
    seed: Optional[int] = 300


@dataclass
class CollectKnobs:
    concurrency: Any = 32  # a number, or "auto"
    limit: Optional[int] = None
    num_repeats: Optional[int] = None
    resume: bool = False
    output: Optional[str] = None
    progress: bool = True
    shard: Optional[str] = None  # i/n: this job's part of the tasks (task_index % n == i)
    adaptive: AdaptiveKnobs = field(default_factory=AdaptiveKnobs)
    cache: CacheKnobs = field(default_factory=CacheKnobs)
    episode: EpisodeKnobs = field(default_factory=EpisodeKnobs)
    prepare_args: Dict[str, Any] = field(default_factory=dict)  # as task=prepare's; collect checks the data has them


@dataclass
class E2EKnobs(CollectKnobs):
    prepare: PrepareOptions = field(default_factory=PrepareOptions)
    aggregate: Dict[str, Any] = field(default_factory=dict)
    profile: Dict[str, Any] = field(default_factory=dict)


VALUE_ONLY = {"subkeys": False}  # a knob of one value (a spec, a list): `compare.test=x` is an unknown key


@dataclass
class AggregateKnobs:
    rollouts: Any = field(default=None, metadata=VALUE_ONLY)
    compare: Any = field(default=None, metadata=VALUE_ONLY)
    k: Any = field(default=None, metadata=VALUE_ONLY)
    format: str = "table"
    allow_partial: bool = False  # merge the shards there are when some are missing or unfinished


@dataclass
class NoiseOptions:
    runs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class NoiseKnobs:
    rollouts: Any = None
    noise: NoiseOptions = field(default_factory=NoiseOptions)
    format: str = "table"


@dataclass
class BucketEdges:
    hard_max: float = 0.25
    easy_min: float = 0.75


@dataclass
class SelectKnobs:
    min_pass_rate: Optional[float] = None
    max_pass_rate: Optional[float] = None
    buckets: Optional[List[str]] = None


@dataclass
class ProfileKnobs:
    rollouts: Any = None
    allow_partial: bool = False
    expected_repeats: Optional[int] = None
    buckets: BucketEdges = field(default_factory=BucketEdges)
    select: SelectKnobs = field(default_factory=SelectKnobs)
    prepared: Any = None
    plots: bool = True
    report: bool = True
    samples_per_bucket: int = 2


@dataclass
class ReverifyKnobs:
    rollouts: Any = None
    concurrency: int = 16
    examples: int = 3
    k: Any = None
    cache: CacheKnobs = field(default_factory=CacheKnobs)


@dataclass
class ExportKnobs:
    rollouts: Any = None
    format: str = "nemo_gym"
    output_dir: Optional[str] = None
    select: SelectKnobs = field(default_factory=SelectKnobs)
    buckets: BucketEdges = field(default_factory=BucketEdges)


@dataclass
class ViewOptions:
    host: str = "127.0.0.1"
    port: Optional[int] = None
    export: Optional[str] = None
    token_env: str = "GYM_VIEW_TOKEN"
    progress: bool = True


@dataclass
class ViewKnobs:
    rollouts: Any = None
    view: ViewOptions = field(default_factory=ViewOptions)


@dataclass
class ServerKnobs:
    host: str = "127.0.0.1"
    port: int = 0
    url_file: Optional[str] = None
    max_sessions: int = 4096
    session_ttl: float = 600.0
    max_body_bytes: int = 16 * 1024 * 1024
    token_env: Optional[str] = None
    allow_unauthenticated: bool = False
    on_verifier_error: Optional[float] = 0.0
    threads: int = 64
    rollout_threads: int = 4096


@dataclass
class ServeKnobs:
    benchmarks: Any = None
    serve: ServerKnobs = field(default_factory=ServerKnobs)
    episode: EpisodeKnobs = field(default_factory=EpisodeKnobs)


TASK_KNOBS = {"search": SearchKnobs, "prepare": PrepareKnobs, "collect": CollectKnobs, "e2e": E2EKnobs,
              "aggregate": AggregateKnobs, "noise": NoiseKnobs, "profile": ProfileKnobs, "reverify": ReverifyKnobs, "export": ExportKnobs,
              "serve": ServeKnobs, "view": ViewKnobs}


def check_task_knobs(cfg: Any) -> None:
    """Type-check the chosen task's knobs; a bad value raises GymError naming conf/task/<task>.yaml."""
    from dataclasses import fields

    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    task = cfg.task.name
    schema = TASK_KNOBS.get(task)
    if schema is None:
        return
    names = [f.name for f in fields(schema) if f.name in cfg]
    try:
        OmegaConf.merge(OmegaConf.structured(schema), OmegaConf.masked_copy(cfg, names))
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None) or "?"
        message = str(exc).splitlines()[0]
        raise GymError(f"conf/task/{task}.yaml: bad value for '{key}': {message}") from None
    if "concurrency" in names:  # a number or "auto": a union the dataclass schema cannot express

        try:
            parse_concurrency(cfg.concurrency, 1)
        except GymError as exc:
            raise GymError(f"conf/task/{task}.yaml: bad value for 'concurrency': {exc}") from None
    for key in AT_LEAST_ONE:  # 0 would silently mean "the default" or "nothing"
        value = cfg.get(key) if key in names else None
        if value is not None and int(value) < 1:
            raise GymError(f"{key}={value} must be at least 1 (or null for the default)")


AT_LEAST_ONE = ("num_repeats", "limit")


def parse_concurrency(value: Any, max_concurrency: Any) -> tuple[str, int]:
    """("fixed", n) or ("auto", cap) from the `concurrency` and `model.max_concurrency` knobs."""
    try:
        cap = int(max_concurrency)
    except (TypeError, ValueError):
        raise GymError(f"model.max_concurrency={max_concurrency!r} must be a positive integer") from None
    if cap < 1:
        raise GymError(f"model.max_concurrency={cap} must be at least 1")
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto", cap
    try:
        fixed = int(value) if not isinstance(value, bool) and value is not None else None
    except (TypeError, ValueError):
        fixed = None
    if fixed is None or str(fixed) != str(value).strip():
        raise GymError(f"concurrency={value!r} must be a number of requests in flight or 'auto'")
    if fixed < 1:
        raise GymError(f"concurrency={fixed} must be at least 1 (or 'auto')")
    return "fixed", fixed
