"""`/aggregate_metrics`: NeMo Gym's AggregateMetrics from a list of verify responses.

The request is `{"verify_responses": [...]}` (each with `reward` and a task index: NeMo Gym's
`_ng_task_index`, or gym's `task_index`); the answer has NeMo Gym's three fields: `group_level_metrics`
(one dict per task: its rollouts, mean reward, pass@1), `agent_metrics` (over every rollout: mean reward,
pass@k for k up to the smallest group, gym's status counts) and `key_metrics` (the headline numbers,
flat keys ready for a tracker). pass@k is gym's estimator (gym.metrics.estimators: the expected best
reward of k rollouts drawn from a task's n), as in task=aggregate.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from gym.serve.catalog import RequestError


def _index(response: dict, position: int) -> Any:
    for key in ("_ng_task_index", "task_index"):
        if key in response:
            return response[key]
    return position


def aggregate_metrics(body: dict) -> dict[str, Any]:
    responses = body.get("verify_responses")
    if not isinstance(responses, list):
        raise RequestError("missing field: verify_responses (a list of /verify responses)", 422)
    groups: dict[Any, list[float]] = defaultdict(list)
    statuses: Counter = Counter()
    for position, response in enumerate(responses):
        if not isinstance(response, dict):
            raise RequestError(f"verify_responses[{position}] is not an object", 422)
        statuses[str(response.get("status") or "ok")] += 1
        reward = response.get("reward")
        if isinstance(reward, bool) or not isinstance(reward, (int, float)):
            continue  # unscored: counted in statuses, not in the means
        groups[_index(response, position)].append(float(reward))
    group_level = [{"task_index": task, "rollouts": len(rewards), "mean/reward": sum(rewards) / len(rewards),
                    "pass@1": sum(r >= 1.0 for r in rewards) / len(rewards)} for task, rewards in groups.items()]
    rewards = [r for values in groups.values() for r in values]
    agent: dict[str, Any] = {"rollouts": len(responses), "scored": len(rewards), "tasks": len(groups),
                             "mean/reward": sum(rewards) / len(rewards) if rewards else None,
                             **{f"status/{name}": n for name, n in sorted(statuses.items())}}
    smallest = min((len(v) for v in groups.values()), default=0)
    ks = sorted(k for k in {1, 2, 4, 8, 16, 32, smallest} if 0 < k <= smallest)
    if ks:
        import numpy as np

        from gym.metrics.estimators import pass_at_k_per_task

        task = np.repeat(np.arange(len(groups)), [len(v) for v in groups.values()])
        table = pass_at_k_per_task(task, np.array(rewards), len(groups), ks)
        agent.update({f"pass@{k}": float(table[:, col].mean()) for col, k in enumerate(ks)})
    key = {name: agent[name] for name in ("mean/reward", f"pass@{smallest}") if name in agent}
    return {"group_level_metrics": group_level, "agent_metrics": agent, "key_metrics": key}

