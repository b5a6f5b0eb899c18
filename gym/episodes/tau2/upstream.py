"""Reading τ²-bench's own files at prepare time: tool schemas from the tool classes' signatures and
docstrings, the fixed agent instruction and prompt templates from module constants, and the user
scenario's text. Everything is parsed with `ast` from the fetched sources (never imported or executed),
so the exact upstream text reaches the model without being copied into gym.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path
from typing import Any

from gym.core.errors import GymError

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns?|Raises|Yields|Examples?|Notes?):\s*$", re.MULTILINE)
_SIMPLE = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_WRITE_TYPES = ("WRITE",)  # tool types whose calls change the database when mutates_state is not given


def module_constant(path: Path, name: str) -> str:
    """A module-level string constant (e.g. AGENT_INSTRUCTION), with `.strip()` applied when the source does."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
            stripped = (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                        and value.func.attr == "strip" and not value.args)
            if stripped:
                value = value.func.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value.strip() if stripped else value.value
    raise GymError(f"{path}: no string constant {name} (has the upstream layout changed?)")


def literal_aliases(path: Path) -> dict[str, Any]:
    """The named types of a data-model module that type tool parameters: `Name = Literal[...]` aliases and
    Enum classes (name -> allowed values), and record classes (name -> an object schema of their fields)."""
    out: dict[str, Any] = {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Subscript) and ast.unparse(node.value.value) == "Literal"):
            inner = node.value.slice
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            out[node.targets[0].id] = [ast.literal_eval(item) for item in items]
        elif isinstance(node, ast.ClassDef) and any(ast.unparse(base) == "Enum" for base in node.bases):
            out[node.name] = [ast.literal_eval(item.value) for item in node.body
                              if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)]
    for node in tree.body:  # records after enums: their fields may be typed by an enum of the module
        if isinstance(node, ast.ClassDef) and node.name not in out:
            fields = [item for item in node.body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)]
            if fields:
                out[node.name] = {"additionalProperties": False, "properties": {
                    f.target.id: {**_field_schema(f.annotation, out), "title": f.target.id.replace("_", " ").title()}
                    for f in fields},
                    "title": node.name, "type": "object"}
    return out


def _field_schema(annotation: ast.expr, aliases: dict[str, Any]) -> dict:
    """A record field's schema; {} (any value) for a type gym does not map (dates, lists of records)."""
    try:
        return _type_schema(annotation, aliases, "")
    except GymError:
        return {}


def _docstring(text: str) -> tuple[str, dict[str, str]]:
    """(description, {argument: description}) of a Google-style docstring, split as docstring_parser does."""
    text = inspect.cleandoc(text or "")
    match = _SECTION.search(text)
    head, sections = (text[:match.start()], text[match.start():]) if match else (text, "")
    short, _, long = head.partition("\n")
    description = short.strip() + ("\n\n" + long.strip() if long.strip() else "")
    args: dict[str, str] = {}
    block = re.search(r"^(?:Args|Arguments|Parameters):\s*\n((?:[ \t]+.*\n?|\s*\n)*)", sections, re.MULTILINE)
    if block:
        current = None
        for line in textwrap.dedent(block.group(1)).splitlines():
            entry = re.match(r"^(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
            if entry and not line.startswith((" ", "\t")):
                current = entry.group(1)
                args[current] = entry.group(2).strip()
            elif current and line.strip():
                args[current] = (args[current] + "\n" + line.strip()).strip()
    return description, args


def model_classes(path: Path) -> dict[str, dict]:
    """The JSON schemas of a data-model module's pydantic classes whose fields are all simple types
    (name -> schema as pydantic writes it: properties with description and title, required, title, type)."""
    out: dict[str, dict] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ClassDef):
            continue
        properties, required = {}, []
        for stmt in node.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            kind = _SIMPLE.get(ast.unparse(stmt.annotation))
            if kind is None:
                break
            prop = {"type": kind, "title": stmt.target.id.replace("_", " ").title()}
            call = stmt.value if isinstance(stmt.value, ast.Call) else None
            for keyword in (call.keywords if call is not None else []):
                if keyword.arg == "description":
                    prop["description"] = ast.literal_eval(keyword.value)
            has_default = stmt.value is not None and not (call is not None and ast.unparse(call.func) == "Field"
                                                           and not call.args and "default" not in
                                                           {k.arg for k in call.keywords})
            properties[stmt.target.id] = dict(sorted(prop.items()))
            if not has_default:
                required.append(stmt.target.id)
        else:
            if properties:
                out[node.name] = {"properties": properties, "required": required, "title": node.name,
                                  "type": "object"}
    return out


def _type_schema(annotation: ast.expr | None, aliases: dict[str, Any], where: str,
                 models: dict[str, dict] | None = None, defs: dict | None = None) -> dict:
    text = ast.unparse(annotation) if annotation is not None else "Any"
    text = re.sub(r"^Optional\[(.*)\]$", r"\1", text)
    text = re.sub(r"\s*\|\s*None$", "", text)
    if text in _SIMPLE:
        return {"type": _SIMPLE[text]}
    if isinstance(aliases.get(text), list):
        return {"enum": aliases[text], "type": "string"}
    if isinstance(aliases.get(text), dict):
        return dict(aliases[text])
    if text in ("dict", "Dict") or text.startswith(("dict[", "Dict[")):
        return {"additionalProperties": True, "type": "object"}
    union = annotation.slice if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Union" else None
    if isinstance(union, ast.Tuple):
        options = [_type_schema(item, aliases, where) for item in union.elts if ast.unparse(item) != "None"]
        return options[0] if len(options) == 1 else {"anyOf": options}
    listed = re.match(r"^(?:list|List)\[(\w+)\]$", text)
    if listed and listed.group(1) in _SIMPLE:
        return {"items": {"type": _SIMPLE[listed.group(1)]}, "type": "array"}
    modelled = re.match(r"^(?:list|List)\[(\w+) \| dict\]$", text)  # a list of models or plain objects
    if modelled and models and modelled.group(1) in models and defs is not None:
        defs[modelled.group(1)] = models[modelled.group(1)]
        return {"items": {"anyOf": [{"$ref": f"#/$defs/{modelled.group(1)}"},
                                    {"additionalProperties": True, "type": "object"}]}, "type": "array"}
    if text == "Any":
        return {}
    if text == "Literal" or text.startswith("Literal["):
        node = ast.parse(text, mode="eval").body  # the Literal itself, an Optional[...] around it removed above
        inner = getattr(node, "slice", None)
        return {"enum": [ast.literal_eval(item) for item in getattr(inner, "elts", [inner])] if inner else [],
                "type": "string"}
    raise GymError(f"{where}: parameter type {text!r} has no JSON schema mapping in gym")


def _tool_decorator(node: ast.FunctionDef) -> tuple[str, bool] | None:
    """(tool type, mutates) of an `@is_tool(...)` method, None for other methods."""
    for deco in node.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "is_tool":
            kind = ast.unparse(deco.args[0]).split(".")[-1] if deco.args else "READ"
            mutates = kind in _WRITE_TYPES
            for keyword in deco.keywords:
                if keyword.arg == "tool_type":
                    kind = ast.unparse(keyword.value).split(".")[-1]
                    mutates = kind in _WRITE_TYPES
            for keyword in deco.keywords:
                if keyword.arg == "mutates_state":
                    mutates = bool(ast.literal_eval(keyword.value))
            return kind, mutates
    return None


def tool_schemas(tools_py: Path, aliases: dict[str, list], models: dict[str, dict] | None = None) -> list[dict]:
    """Function schemas {name, description, parameters, x-tau2: {type, mutates}} of the tool methods."""
    out = []
    for node in ast.walk(ast.parse(tools_py.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef):
            continue
        marked = _tool_decorator(node)
        if marked is None:
            continue
        description, arg_docs = _docstring(ast.get_docstring(node, clean=False) or "")
        params = node.args.args[1:]  # drop self
        defaults = [None] * (len(params) - len(node.args.defaults)) + list(node.args.defaults)
        properties, required, defs = {}, [], {}
        for param, default in zip(params, defaults):
            prop = _type_schema(param.annotation, aliases, f"{tools_py.name} {node.name}({param.arg})", models, defs)
            if default is not None:
                prop["default"] = ast.literal_eval(default)
            if param.arg in arg_docs:
                prop["description"] = arg_docs[param.arg]
            prop["title"] = param.arg.replace("_", " ").title()
            properties[param.arg] = prop
            if default is None:
                required.append(param.arg)
        parameters: dict[str, Any] = {"$defs": dict(sorted(defs.items()))} if defs else {}
        parameters.update({"properties": properties, "title": "parameters", "type": "object"})
        if required:
            parameters["required"] = required
        out.append({"name": node.name, "description": description or node.name, "parameters": parameters,
                    "x-tau2": {"type": marked[0].lower(), "mutates": marked[1]}})
    return out


def _indent(text: str) -> str:
    return textwrap.indent(text, "\t")


def scenario_text(scenario: dict) -> str:
    """The user scenario as upstream renders it for the simulator (UserScenario's text form)."""
    lines = []
    if scenario.get("persona") is not None:
        lines += ["Persona:", _indent(scenario["persona"])]
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        parts = [f"Domain: {instructions['domain']}", f"Reason for call:\n{_indent(instructions['reason_for_call'])}"]
        for key, label in (("known_info", "Known info"), ("unknown_info", "Unknown info")):
            if instructions.get(key) is not None:
                parts.append(f"{label}:\n{_indent(instructions[key])}")
        parts.append(f"Task instructions:\n{_indent(instructions['task_instructions'])}")
        instructions = "\n".join(parts)
    lines += ["Instructions:", _indent(str(instructions))]
    return "\n".join(lines)


def opening_line(scenario: dict) -> str:
    """What gym's deterministic user (user=mock) says first: the reason for the call."""
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        return " ".join(filter(None, [instructions.get("reason_for_call"), instructions.get("known_info")])).strip()
    return str(instructions).strip()


def nl_judge_prompts(evaluator_py: Path) -> dict:
    """The NL-assertion judge's prompts in upstream's evaluator: the system prompt text and the user
    prompt as parts ({"text"} or {"field": trajectory_str | nl_assertions}), read from its source."""
    found: dict = {}
    for node in ast.walk(ast.parse(evaluator_py.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.FunctionDef) and node.name == "evaluate_nl_assertions"):
            continue
        for stmt in ast.walk(node):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            name, value = stmt.targets[0].id, stmt.value
            if name == "system_prompt" and isinstance(value, ast.Constant) and "system" not in found:
                found["system"] = value.value
            elif name == "user_prompt" and isinstance(value, ast.JoinedStr) and "user" not in found:
                found["user"] = [{"text": part.value} if isinstance(part, ast.Constant)
                                 else {"field": ast.unparse(part.value)} for part in value.values]
        break
    if set(found) != {"system", "user"}:
        raise GymError(f"{evaluator_py}: no NL-assertion judge prompts found (has the upstream layout changed?)")
    return found
