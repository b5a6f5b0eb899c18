"""Prepare a τ²-bench domain from the pinned upstream commit: tasks as JSONL rows plus the domain file.

Each row keeps the upstream task verbatim (`task`, its id also in `metadata.task_id`), the agent's system
prompt (upstream's fixed instruction and the domain policy in its template), the opening agent message,
and the user simulator's system prompt (upstream's guidelines and the task's scenario). In a domain with a
solo policy, a task upstream's solo agent accepts also gets `solo_system_prompt` (the solo instruction, the
solo policy and the task's ticket), used when the run has no user (user=none). The domain file
`<benchmark>.env.json` holds the databases, the tool schemas read from upstream's docstrings and the
policy; it is written before the rows, so a prepared JSONL always has its domain file.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from gym.episodes.tau2.upstream import (literal_aliases, model_classes, module_constant, nl_judge_prompts,
                                        opening_line, scenario_text, tool_schemas)
from gym.core.errors import GymError
from gym.episodes.base import DONE_TOOL
from gym.episodes.messages import STOP_TOKENS
from gym.core.io import write_json_atomic

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

REPO = "sierra-research/tau2-bench"
COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"  # v1.0.1 data (2026), MIT


@dataclass(frozen=True)
class DomainFiles:
    """Where a domain's pieces live in the upstream repository."""

    domain: str
    db: str
    tasks: str = "tasks.json"
    policy: str = "policy.md"
    user_db: str | None = None
    tools: tuple[str, ...] = ("tools.py",)
    user_tools: tuple[str, ...] = ()
    models: tuple[str, ...] = ("data_model.py",)  # modules whose Literal aliases and classes type tool parameters
    policy_sections: tuple[tuple[str, str], ...] = ()  # (tag, file): a policy assembled from tagged files
    # solo mode's policy: a file, or tagged (tag, file) sections like policy_sections; None: no solo mode
    solo_policy: str | tuple[tuple[str, str], ...] | None = None


DOMAINS: dict[str, DomainFiles] = {
    "mock": DomainFiles(domain="mock", db="db.json", user_db="user_db.json", user_tools=("user_tools.py",),
                        models=("data_model.py", "user_data_model.py"), solo_policy="policy_solo.md"),
    "retail": DomainFiles(domain="retail", db="db.json"),
    # upstream's registry default: the manual policy (the workflow one is a separate domain, telecom-workflow)
    "telecom": DomainFiles(domain="telecom", db="db.toml", user_db="user_db.toml", user_tools=("user_tools.py",),
                           models=("data_model.py", "user_data_model.py"),
                           policy_sections=(("main_policy", "main_policy.md"),
                                            ("tech_support_policy", "tech_support_manual.md")),
                           solo_policy=(("main_policy", "main_policy_solo.md"),
                                        ("tech_support_policy", "tech_support_manual.md"))),
    "airline": DomainFiles(domain="airline", db="db.json"),
}
# upstream's telecom-workflow: the same domain and tasks, the tech-support manual replaced by a workflow
DOMAINS["telecom-workflow"] = replace(
    DOMAINS["telecom"], policy_sections=(("main_policy", "main_policy.md"), ("tech_support_policy", "tech_support_workflow.md")),
    solo_policy=(("main_policy", "main_policy_solo.md"), ("tech_support_policy", "tech_support_workflow_solo.md")))


def url(path: str, commit: str = COMMIT) -> str:
    return f"https://raw.githubusercontent.com/{REPO}/{commit}/{path}"


def _load(path: Path) -> Any:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))
    return json.loads(path.read_text(encoding="utf-8"))


def first_agent_message(orchestrator_py: Path) -> str:
    """The `content` of upstream's DEFAULT_FIRST_AGENT_MESSAGE."""
    for node in ast.parse(orchestrator_py.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "DEFAULT_FIRST_AGENT_MESSAGE"
                                                 for t in node.targets) and isinstance(node.value, ast.Call)):
            for keyword in node.value.keywords:
                if keyword.arg == "content":
                    return ast.literal_eval(keyword.value)
    raise GymError(f"{orchestrator_py}: no DEFAULT_FIRST_AGENT_MESSAGE (has the upstream layout changed?)")


def _opening_key(task: dict) -> str:
    history = (task.get("initial_state") or {}).get("message_history")
    return json.dumps([opening_line(task["user_scenario"]), history], sort_keys=True)


def unique_opening(task: dict, openings: Counter) -> str:
    """What gym's mock user says first. Tasks that open alike with the same earlier messages (telecom's
    variants of one issue) name their id too, so the reference server (model=mock) can tell which task's
    gold actions to play; tasks with their own history are told apart by it."""
    opening = opening_line(task["user_scenario"])
    return opening if openings[_opening_key(task)] == 1 else f"{opening} (task {task['id']})"


def assemble_policy(spec: str | tuple[tuple[str, str], ...], read: Callable[[str], str]) -> str:
    """The policy text: one file, or tagged sections joined as upstream's telecom environment joins them."""
    if isinstance(spec, str):
        return read(spec)
    return "\n".join(f"<{tag}>\n{read(name)}\n</{tag}>" for tag, name in spec)


def domain_policy(files: DomainFiles, read: Callable[[str], str]) -> str:
    return assemble_policy(files.policy_sections or files.policy, read)


def solo_ready(task: dict) -> bool:
    """Whether upstream's solo agent takes the task (LLMSoloAgent.check_valid_task): a task with an initial
    state qualifies when its history holds no user message and only tool-calling agent messages; any
    other needs a ticket and gold actions."""
    initial = task.get("initial_state")
    if initial is not None:
        return all(m.get("role") != "user" and (m.get("role") != "assistant" or m.get("tool_calls"))
                   for m in initial.get("message_history") or [])
    criteria = task.get("evaluation_criteria")
    return task.get("ticket") is not None and criteria is not None and bool(criteria.get("actions"))


def solo_prompt_maker(fetch: Any, agent_py: Path, files: DomainFiles) -> Any:
    """task -> its solo system prompt (None when the domain or the task has no solo mode)."""
    if files.solo_policy is None:
        return lambda task: None
    policy = assemble_policy(files.solo_policy, lambda name: fetch(f"data/tau2/domains/{files.domain}/{name}")
                             .read_text(encoding="utf-8"))
    instruction = module_constant(agent_py, "AGENT_SOLO_INSTRUCTION").format(
        stop_function_name=DONE_TOOL, stop_token=STOP_TOKENS[0])
    template = module_constant(agent_py, "SYSTEM_PROMPT_SOLO")
    return lambda task: (template.format(agent_instruction=instruction, domain_policy=policy, ticket=task.get("ticket"))
                         if solo_ready(task) else None)


def prepare_domain(ctx: "PrepareContext", files: DomainFiles, split: str | None = None,
                   commit: str = COMMIT) -> Path:
    """Prepare a τ² domain (DOMAINS) from upstream at `commit`: the environment file (policy, databases, tool
    schemas) beside one row per task, only `split`'s tasks when given."""
    data_dir, src_dir = f"data/tau2/domains/{files.domain}", f"src/tau2/domains/{files.domain}"
    fetch = lambda path: ctx.fetch(url(path, commit))  # noqa: E731
    fetch("LICENSE")
    aliases: dict[str, list] = {}
    models: dict[str, dict] = {}
    for module in files.models:
        aliases.update(literal_aliases(fetch(f"{src_dir}/{module}")))
        models.update(model_classes(fetch(f"{src_dir}/{module}")))
    tools = [s for name in files.tools for s in tool_schemas(fetch(f"{src_dir}/{name}"), aliases, models)]
    user_tools = [s for name in files.user_tools for s in tool_schemas(fetch(f"{src_dir}/{name}"), aliases, models)]
    policy = domain_policy(files, lambda name: fetch(f"{data_dir}/{name}").read_text(encoding="utf-8"))
    agent_py = fetch("src/tau2/agent/llm_agent.py")
    system_prompt = module_constant(agent_py, "SYSTEM_PROMPT").format(
        agent_instruction=module_constant(agent_py, "AGENT_INSTRUCTION"), domain_policy=policy)
    solo_prompt = solo_prompt_maker(fetch, agent_py, files)
    first_message = first_agent_message(fetch("src/tau2/orchestrator/orchestrator.py"))
    user_template = module_constant(fetch("src/tau2/user/user_simulator.py"), "SYSTEM_PROMPT")
    guidelines = fetch("data/tau2/user_simulator/simulation_guidelines"
                       + ("_tools.md" if user_tools else ".md")).read_text(encoding="utf-8")
    guidelines = guidelines.replace("<PERSONA_GUIDELINES>", "")
    tasks_path = fetch(f"{data_dir}/{files.tasks}")
    tasks = _load(tasks_path)
    ctx.count_seen(len(tasks))  # every task of the file, whichever split is kept
    if split is not None:
        splits = _load(fetch(f"{data_dir}/split_{Path(files.tasks).stem}.json"))
        if split not in splits:
            raise GymError(f"unknown split {split!r} for tau2 {files.domain} (upstream has {', '.join(splits)})")
        wanted = set(splits[split])
        tasks = ctx.leave_out(tasks, lambda task: task["id"] in wanted, f"not in split {split}", seen_before=True)
    env_name = f"{ctx.name}.env.json"
    write_json_atomic(ctx.output_path.parent / env_name, {
        "domain": files.domain, "upstream": {"repo": REPO, "commit": commit}, "policy": policy,
        "db": _load(fetch(f"{data_dir}/{files.db}")),
        "user_db": _load(fetch(f"{data_dir}/{files.user_db}")) if files.user_db else None,
        "tools": tools, "user_tools": user_tools,
        "nl_judge": nl_judge_prompts(fetch("src/tau2/evaluator/evaluator_nl_assertions.py"))})
    rows = []
    openings = Counter(_opening_key(task) for task in tasks)
    for task in tasks:
        scenario = task["user_scenario"]
        rows.append({
            "task_id": task["id"], "subset": files.domain, "env_file": env_name,
            "system_prompt": system_prompt, "first_message": first_message,
            "user_system_prompt": user_template.format(global_user_sim_guidelines_with_persona=guidelines,
                                                       instructions=scenario_text(scenario)),
            "question": unique_opening(task, openings), "task": task,
            **({"solo_system_prompt": solo} if (solo := solo_prompt(task)) else {}),
            "metadata": {"task_id": task["id"], "domain": files.domain, "upstream_commit": commit},
        })
    if not rows:
        raise GymError(f"tau2 {files.domain}: no tasks selected from {tasks_path}")
    return ctx.write_rows(rows)
