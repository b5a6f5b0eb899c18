"""Episodes: multi-turn, tool-using environments with a simulated user (τ²-bench, BFCL multi-turn).

An environment (gym.episodes.base.Environment) per benchmark family, registered here by name; the loop
(gym.episodes.loop) drives the agent, the user (gym.episodes.users) and the environment until a stop;
the environment's scorer grades the finished trajectory; pass^k (gym.episodes.passk) measures reliability.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from gym.core.errors import GymError, did_you_mean

# name -> "module:class"; imported on first use
ENVIRONMENTS: dict[str, str] = {"tau2": "gym.episodes.tau2.env:Tau2Environment",
                                 "bfcl": "gym.episodes.bfcl.env:BfclEnvironment",
                                 "scicode": "gym.episodes.scicode.env:SciCodeEnvironment",
                                 "toolsandbox": "gym.episodes.toolsandbox.env:ToolSandboxEnvironment",
                                 "harbor": "gym.episodes.harbor.env:HarborEnvironment",
                                 "swebench": "gym.episodes.swebench.env:SweBenchEnvironment"}


def make_environment(name: str, data_path: Any, **options: Any) -> Any:
    if name not in ENVIRONMENTS:
        raise GymError(f"unknown episode environment {name!r}{did_you_mean(name, ENVIRONMENTS)}")
    module, cls = ENVIRONMENTS[name].split(":")
    return getattr(import_module(module), cls)(data_path, **options)
