"""BFCL's multi-turn checker (upstream's multi_turn_checker and eval_runner rules), in gym's words.

An entry passes only if every turn does. The model's calls of each turn and the turn's gold calls run on
two fresh sets of the entry's API instances, turn after turn; after every turn whose gold is not empty:

* the model must have made at least one call in that turn (`multi_turn:empty_turn_model_response`);
* every class's state must equal the gold run's (`multi_turn:instance_state_mismatch`);
* every gold result text of the turn must be among the model's result texts so far, this turn and the
  earlier ones, each counted once (`multi_turn:execution_response_mismatch`).

A turn whose gold is empty (the function it needs is not offered yet, or a parameter is missing) is not
checked, but the model's calls in it still run, so they shape the state the next turns are checked on
(upstream's irrelevance check for such turns is not applied by its evaluation runner at the pinned commit).
An episode that did not play every turn (the per-turn step limit, or any other early end) fails as
`multi_turn:force_terminated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gym.episodes.bfcl.calls import execute, method_owners

Call = tuple[str, dict]  # (function name, keyword arguments)


@dataclass
class GoldRun:
    """The gold calls' results per turn and every class's state after each turn."""

    results: list[list[str]] = field(default_factory=list)
    states: list[dict[str, dict]] = field(default_factory=list)


def play_gold(gold_turns: list[list[Call]], build: Callable[[], dict]) -> GoldRun:
    instances = build()
    owners = method_owners(instances)
    run = GoldRun()
    for calls in gold_turns:
        run.results.append([execute(instances, owners, name, arguments) for name, arguments in calls])
        run.states.append({name: instance.state() for name, instance in instances.items()})
    return run


def _failure(error_type: str, message: str, turn: int | None = None, **details: Any) -> dict:
    return {"valid": False, "error_type": error_type, "error_message": message, "turn": turn, **details}


def _missing(wanted: list[str], have: list[str]) -> list[str]:
    """The wanted items not found in `have`, each item of `have` matched at most once."""
    pool = list(have)
    missing = []
    for item in wanted:
        if item in pool:
            pool.remove(item)
        else:
            missing.append(item)
    return missing


def _state_differences(model: dict, gold: dict) -> dict:
    return {attribute: {"model": model.get(attribute), "ground_truth": value}
            for attribute, value in gold.items() if model.get(attribute) != value}


def check_entry(model_turns: list[list[list[Call]]], gold_turns: list[list[Call]], gold: GoldRun,
                build: Callable[[], dict]) -> dict:
    """upstream's verdict for the model's calls (per turn, per step): {"valid": True} or the first failure."""
    if len(model_turns) != len(gold_turns):
        return _failure("multi_turn:force_terminated",
                        f"Model was force-terminated during inference phase. The length of the model result turns "
                        f"({len(model_turns)}) does not match the length of the ground truth turns ({len(gold_turns)}).")
    instances = build()
    owners = method_owners(instances)
    results_so_far: list[str] = []
    for turn, (steps, gold_calls) in enumerate(zip(model_turns, gold_turns)):
        results_so_far += [execute(instances, owners, name, arguments) for step in steps for name, arguments in step]
        if not gold_calls:
            continue
        if not steps:
            return _failure("multi_turn:empty_turn_model_response", f"Model response list is empty for turn {turn}", turn)
        for class_name, gold_state in gold.states[turn].items():
            differences = _state_differences(instances[class_name].state(), gold_state)
            if differences:
                return _failure("multi_turn:instance_state_mismatch",
                                f"Model instance for {class_name} does not match the state with ground truth instance.",
                                turn, class_name=class_name, differences=differences)
        missing = _missing(gold.results[turn], results_so_far)
        if missing:
            return _failure("multi_turn:execution_response_mismatch",
                            f"Model response execution results so far does not contain all the ground truth "
                            f"response execution results for turn {turn}.", turn, missing_items=missing)
    return {"valid": True}
