"""Tokens per role, their cost from a price table, and a run budget that stops collect cleanly.

Roles and where a rollout row keeps their usage: the policy (`usage`; an episode's `episode.agent_usage`),
the judge (`verifier.judge_usage`), the simulated user (`episode.user_usage`). Prices are USD per million
tokens: `model.price.{input,output,cached_input}`, and `judge.price.*`, `user.price.*` for the side
endpoints; cached prompt tokens (`usage.cached_tokens`, from the endpoint's prompt_tokens_details) are billed
at `cached_input` when it is set, else as input. A row's cost goes into it as `cost_usd` when any price is
set, so aggregate sums what the run cost without the price table.

A judge panel (`judges=[...]`) prices each judge at its own `price` (`judges=[{name: a, price: {input: 3}}, b]`),
key by key falling back to `judge.price`: a row's judge cost is the sum over its votes (`verifier.judges[i].usage`
at judge i's price), so a cheap and a dear judge in one panel are not billed alike.

`budget.usd` / `budget.tokens` stop the run: once what this invocation spent reaches either, no new task is
started, the rollouts in flight land and are written, and collect ends with one line naming the budget
and the command that continues the run (a resume spends a fresh budget).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gym.core.errors import GymError

ROLES = ("policy", "judge", "user")
PRICE_KEYS = ("input", "output", "cached_input")


@dataclass(frozen=True)
class Price:
    input: float | None = None  # USD per million prompt tokens
    output: float | None = None  # USD per million completion tokens
    cached_input: float | None = None  # USD per million cached prompt tokens (null: billed as input)

    @property
    def set(self) -> bool:
        return self.input is not None or self.output is not None

    def usd(self, usage: dict[str, Any]) -> float:
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        cached = min(int(usage.get("cached_tokens") or 0), prompt) if self.cached_input is not None else 0
        return ((prompt - cached) * (self.input or 0.0) + cached * (self.cached_input or 0.0)
                + completion * (self.output or 0.0)) / 1e6


def price_of(node: Any, where: str) -> Price:
    """A Price from a `price` mapping (None or {} = no price); a negative or non-number value fails in one line."""
    node = dict(node or {})
    unknown = set(node) - set(PRICE_KEYS)
    if unknown:
        raise GymError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; prices are {', '.join(PRICE_KEYS)} "
                       "(USD per million tokens)")
    for key, value in node.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            raise GymError(f"{where}.{key}={value!r} must be a non-negative number of USD per million tokens")
    return Price(**{key: None if value is None else float(value) for key, value in node.items()})


def panel_prices(run: Any) -> tuple[Price, ...]:
    """Each judge's price of a panel (`judges=[...]`: the typed config's judges, each merged over `judge`, so
    its own price keys over judge.price's); () without a panel."""
    return tuple(price_of(asdict(judge.price), f"judges[{number}].price") for number, judge in enumerate(run.judges))


def role_usage(rollout: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{role: usage} of the roles a row has usage for."""
    out: dict[str, dict[str, Any]] = {}
    episode = rollout.get("episode") if isinstance(rollout.get("episode"), dict) else {}
    policy = rollout.get("usage") or episode.get("agent_usage")
    if isinstance(policy, dict):
        out["policy"] = policy
    verifier = rollout.get("verifier") if isinstance(rollout.get("verifier"), dict) else {}
    if isinstance(verifier.get("judge_usage"), dict):
        out["judge"] = verifier["judge_usage"]
    if isinstance(episode.get("user_usage"), dict):
        out["user"] = episode["user_usage"]
    return out


def tokens(usage: dict[str, Any]) -> int:
    total = usage.get("total_tokens")
    return int(total) if total is not None else int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)


@dataclass
class Budget:
    prices: dict[str, Price] = field(default_factory=dict)
    usd: float | None = None
    max_tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0
    stopped: bool = False  # collect left tasks unstarted because of the budget
    panel: tuple[Price, ...] = ()  # judges=[...]: each judge's own price, in the panel's order (empty: none set)

    @classmethod
    def from_config(cls, run: Any, budget: dict[str, Any]) -> "Budget":
        """From the typed config (gym.core.typed.RunConfig): the endpoints' prices; `budget`: the budget knobs."""
        prices = {role: price_of(asdict(getattr(run, node).price), f"{node}.price")
                  for role, node in (("policy", "model"), ("judge", "judge"), ("user", "user"))}
        usd, max_tokens = budget.get("usd"), budget.get("tokens")
        if usd is not None and (isinstance(usd, bool) or not isinstance(usd, (int, float)) or usd <= 0):
            raise GymError(f"budget.usd={usd!r} must be a positive number of US dollars (or null for none)")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
            raise GymError(f"budget.tokens={max_tokens!r} must be a positive number of tokens (or null for none)")
        priced = {role: price for role, price in prices.items() if price.set}
        if usd is not None and "policy" not in priced:
            raise GymError("budget.usd needs the model's price: model.price.input=<USD per million> "
                           "model.price.output=<USD per million>")
        panel = panel_prices(run)
        if any(price.set for price in panel) and "judge" not in priced:
            priced["judge"] = Price()  # the panel's judges are priced one by one (judge_usd)
        return cls(priced, None if usd is None else float(usd), max_tokens,
                   panel=panel if any(price.set for price in panel) else ())

    def stamp(self, rollout: dict[str, Any]) -> None:
        """Put the row's cost_usd in it (when any price is set)."""
        if self.prices:
            usage = role_usage(rollout)
            rollout["cost_usd"] = round(sum(self.judge_usd(rollout, price, usage[role]) if role == "judge"
                                            else price.usd(usage[role])
                                            for role, price in self.prices.items() if role in usage), 8)

    def judge_usd(self, rollout: dict[str, Any], price: Price, usage: dict[str, Any]) -> float:
        """The judge's part of a row's cost: each panel judge's tokens at its own price, else `usage` at `price`."""
        votes = (rollout.get("verifier") or {}).get("judges")
        if self.panel and isinstance(votes, list) and len(votes) == len(self.panel):
            return sum(judge.usd((vote or {}).get("usage") or {}) for judge, vote in zip(self.panel, votes))
        return price.usd(usage)

    def add(self, rollouts: list[dict[str, Any]]) -> None:
        for rollout in rollouts:
            self.spent_usd += float(rollout.get("cost_usd") or 0.0)
            self.spent_tokens += sum(tokens(usage) for usage in role_usage(rollout).values())

    def stop_reason(self) -> str | None:
        if self.usd is not None and self.spent_usd >= self.usd:
            return f"budget.usd={self.usd:g} reached (${self.spent_usd:.4f} spent)"
        if self.max_tokens is not None and self.spent_tokens >= self.max_tokens:
            return f"budget.tokens={self.max_tokens} reached ({self.spent_tokens} tokens spent)"
        return None

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tokens": self.spent_tokens}
        if self.prices:
            out["usd"] = round(self.spent_usd, 6)
        if self.usd is not None or self.max_tokens is not None:
            out["budget"] = {"usd": self.usd, "tokens": self.max_tokens, "stopped": self.stop_reason() if self.stopped else None}
        return out
