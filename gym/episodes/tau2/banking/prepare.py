"""Prepare τ²-bench's banking_knowledge domain in one retrieval variant, from the pinned upstream commit.

Like the other τ² domains (gym.episodes.tau2.prepare): tasks as JSONL rows beside one domain file. The
domain file adds the knowledge base (every document of data/tau2/domains/banking_knowledge/documents,
listed by the pinned commit's git tree from GitHub's API, in file-name order) and the discoverable
tools' descriptions, read from upstream's docstrings with upstream's rules. The agent's policy is the
variant's prompt template with its `{{component:NAME}}` parts filled in (upstream's build_policy); its
tools are the bank's plus the variant's retrieval tools.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.episodes.messages import STOP_TOKENS
from gym.episodes.tau2.banking.kb import VARIANT_TOOLS
from gym.episodes.tau2.prepare import COMMIT, REPO, _opening_key, first_agent_message, unique_opening, url
from gym.episodes.tau2.upstream import (literal_aliases, module_constant, nl_judge_prompts, scenario_text,
                                        tool_schemas)

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

DATA = "data/tau2/domains/banking_knowledge"
SRC = "src/tau2/domains/banking_knowledge"
# the git tree of DATA/documents at COMMIT (GitHub's trees API lists it; a tree id pins its content)
DOCUMENTS_TREE = "3b9506137142d433153e001ce9d40c6f7c28a527"
TEMPLATES = {"bm25_grep": "classic_rag_bm25.md", "terminal_use": "agentic_search.md", "alltools": "all_tools.md"}
CLASSES = {"agent": "KnowledgeTools", "user": "KnowledgeUserTools"}
# upstream's format_all_tools_dense_instructions for its alltools variant (OpenAI's text-embedding-3-large)
DENSE_INSTRUCTIONS = ("The `KB_search_dense` tool uses **OpenAI API** with embedding model `text-embedding-3-large` "
                      "for dense retrieval.")


def tree_url(tree: str = DOCUMENTS_TREE) -> str:
    return f"https://api.github.com/repos/{REPO}/git/trees/{tree}"


def _decorated(node: ast.FunctionDef, name: str) -> ast.Call | None:
    return next((d for d in node.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func) == name), None)


def _mutates(decorator: ast.Call) -> bool:
    kind = ast.unparse(decorator.args[0]).split(".")[-1] if decorator.args else "READ"
    for keyword in decorator.keywords:
        if keyword.arg == "mutates_state":
            return bool(ast.literal_eval(keyword.value))
    return kind == "WRITE"


def discoverable_info(node: ast.FunctionDef, decorator: ast.Call) -> dict:
    """Upstream's parse_discoverable_tool_docstring on a method, plus whether it writes and its signature."""
    text = inspect.cleandoc(ast.get_docstring(node, clean=False) or "")
    parts = re.split(r"\n\s*Args:\s*\n", text, maxsplit=1)
    parameters, success = {}, "Action completed successfully."
    if len(parts) > 1:
        sections = re.split(r"\n\s*Returns:\s*\n", parts[1], maxsplit=1)
        if len(sections) > 1:
            success = sections[1].strip().split("\n")[0].strip()
        for match in re.finditer(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", sections[0], re.MULTILINE):
            type_info = match.group(2) or "string"
            kind = re.sub(r",?\s*optional", "", type_info, flags=re.IGNORECASE).strip() or "string"
            parameters[match.group(1)] = {"type": kind, "description": match.group(3).strip(),
                                          "required": "optional" not in type_info.lower()}
    params = node.args.args[1:]
    defaults = [False] * (len(params) - len(node.args.defaults)) + [True] * len(node.args.defaults)
    return {"name": node.name, "description": parts[0].strip(), "parameters": parameters, "success_message": success,
            "mutates": _mutates(decorator), "signature": {p.arg: d for p, d in zip(params, defaults)}}


def read_tools(tools_py: Path, mixins_py: Path, variant: str) -> dict[str, Any]:
    """{agent, user}: tool schemas of each side's class; {discoverable: {agent, user}}: their descriptions."""
    aliases = literal_aliases(tools_py)
    schemas = {s["name"]: s for s in tool_schemas(tools_py, aliases)}
    mixins = {s["name"]: s for s in tool_schemas(mixins_py, aliases)}
    out: dict[str, Any] = {"agent": [], "user": [], "discoverable": {"agent": {}, "user": {}}}
    for node in ast.parse(tools_py.read_text(encoding="utf-8")).body:
        side = next((s for s, name in CLASSES.items() if isinstance(node, ast.ClassDef) and node.name == name), None)
        if side is None:
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            if _decorated(item, "is_tool") is not None:
                out[side].append(schemas[item.name])
            elif (decorator := _decorated(item, "is_discoverable_tool")) is not None:
                out["discoverable"][side][item.name] = discoverable_info(item, decorator)
    missing = [name for name in VARIANT_TOOLS[variant] if name not in mixins]
    if missing:
        raise GymError(f"{mixins_py}: no retrieval tools {missing} (has the upstream layout changed?)")
    out["agent"] += [mixins[name] for name in VARIANT_TOOLS[variant]]
    return out


def build_policy(template: str, component: Any) -> str:
    """The template with each {{component:NAME}} replaced by components/NAME.md (upstream's load_prompt_template)."""
    policy = re.sub(r"\{\{component:(\w+)\}\}", lambda m: component(m.group(1)), template)
    policy = policy.replace("{{all_tools_dense_instructions}}", DENSE_INSTRUCTIONS)  # the alltools template's
    if not policy.strip():
        raise GymError("the banking policy is empty (has the upstream layout changed?)")
    return policy


def documents(ctx: "PrepareContext", commit: str) -> list[dict]:
    listing = json.loads(ctx.fetch(tree_url()).read_text(encoding="utf-8"))
    names = sorted(e["path"] for e in listing.get("tree") or [] if e.get("type") == "blob" and e["path"].endswith(".json"))
    if not names:
        raise GymError(f"{tree_url()}: no documents listed (has the upstream layout changed?)")
    docs = []
    for name in names:
        doc = json.loads(ctx.fetch(url(f"{DATA}/documents/{name}", commit)).read_text(encoding="utf-8"))
        docs.append({"id": doc["id"], "title": doc["title"], "content": doc["content"]})
    return docs


def mock_opening(task: dict, openings: Counter) -> str:
    """What gym's mock user says first: the scenario, without the stop tokens some banking scenarios
    quote (telling the simulator when to end), which would end the episode at its first line."""
    text = unique_opening(task, openings)
    for token in STOP_TOKENS:
        text = text.replace(token, token.strip("#").lower())
    return text


def prepare_banking(ctx: "PrepareContext", variant: str, commit: str = COMMIT) -> Path:
    """Prepare τ² banking_knowledge for one retrieval `variant` (VARIANT_TOOLS) from upstream at `commit`: the
    environment file (policy, database, tools, documents) beside one row per task."""
    if variant not in VARIANT_TOOLS:
        raise GymError(f"banking retrieval variant {variant!r}: gym runs {', '.join(VARIANT_TOOLS)}")
    fetch = lambda path: ctx.fetch(url(path, commit))  # noqa: E731
    fetch("LICENSE")
    tools = read_tools(fetch(f"{SRC}/tools.py"), fetch(f"{SRC}/retrieval_mixins.py"), variant)
    template = fetch(f"{DATA}/prompts/{TEMPLATES[variant]}").read_text(encoding="utf-8")
    policy = build_policy(template, lambda name: fetch(f"{DATA}/prompts/components/{name}.md").read_text(encoding="utf-8"))
    agent_py = fetch("src/tau2/agent/llm_agent.py")
    system_prompt = module_constant(agent_py, "SYSTEM_PROMPT").format(
        agent_instruction=module_constant(agent_py, "AGENT_INSTRUCTION"), domain_policy=policy)
    first_message = first_agent_message(fetch("src/tau2/orchestrator/orchestrator.py"))
    user_template = module_constant(fetch("src/tau2/user/user_simulator.py"), "SYSTEM_PROMPT")
    guidelines = fetch("data/tau2/user_simulator/simulation_guidelines_tools.md").read_text(encoding="utf-8")
    guidelines = guidelines.replace("<PERSONA_GUIDELINES>", "")
    tasks = json.loads(fetch(f"{DATA}/tasks.json").read_text(encoding="utf-8"))
    ctx.count_seen(len(tasks))
    env_name = f"{ctx.name}.env.json"
    write_json_atomic(ctx.output_path.parent / env_name, {
        "domain": "banking_knowledge", "variant": variant, "upstream": {"repo": REPO, "commit": commit},
        "policy": policy, "db": json.loads(fetch(f"{DATA}/db.json").read_text(encoding="utf-8")), "user_db": None,
        "tools": tools["agent"], "user_tools": tools["user"], "discoverable": tools["discoverable"],
        "documents": documents(ctx, commit),
        "nl_judge": nl_judge_prompts(fetch("src/tau2/evaluator/evaluator_nl_assertions.py"))})
    openings = Counter(_opening_key(task) for task in tasks)
    rows = [{
        "task_id": task["id"], "subset": "banking_knowledge", "env_file": env_name, "system_prompt": system_prompt,
        "first_message": first_message, "question": mock_opening(task, openings), "task": task,
        "user_system_prompt": user_template.format(global_user_sim_guidelines_with_persona=guidelines,
                                                   instructions=scenario_text(task["user_scenario"])),
        "metadata": {"task_id": task["id"], "domain": "banking_knowledge", "variant": variant, "upstream_commit": commit},
    } for task in tasks]
    if not rows:
        raise GymError(f"tau2 banking_knowledge: no tasks in {DATA}/tasks.json")
    return ctx.write_rows(rows)
