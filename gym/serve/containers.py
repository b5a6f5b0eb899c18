"""Container benchmarks (SWE-bench; any environment that builds a world per episode) behind task=serve.

A trainer's `/run` on such a benchmark plays one whole episode in a container of its own, made for the
request and removed when the episode is graded, fails or its client leaves (gym.rollouts.episodes.play
releases it). With a CLI agent (`agent=mini_swe_agent`, `opencode`, `codex`, ...) the agent runs in that
container and every model call it makes goes through a model proxy in front of the request's policy
(its `policy`, else the server's `model.*`): the proxy's record of each call (NeMo Gym's
`responses_create_params` + `response`, with `prompt_token_ids`, `generation_token_ids` and
`generation_log_probs` on the reply when the policy returns them) is in the rollout, and the agent's own
conversation, token ids on the policy's turns, is the rollout's `response.output`. A listing of the
benchmark (gym.serve.catalog's tool names) never resets such an environment: no container for a GET.
"""

from __future__ import annotations

from typing import Any

from gym.serve.catalog import RequestError, Served


def bind_policy(served: Served, client: Any) -> None:
    """Give the episodes this request thread plays a CLI agent runner over this request's policy client
    (each /run may name its own policy; a server's threads play one request at a time)."""
    env = served.env
    if served.kind != "episode" or not getattr(env, "cli_agent", None):
        return
    from gym.cliagents import attach
    from gym.core.errors import GymError

    try:
        attach(env, client, this_thread=True)
    except GymError as exc:  # an agent config the server was started with cannot run
        raise RequestError(f"{served.name}: {exc}", 422) from None

