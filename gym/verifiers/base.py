"""What every verifier family shares: the Verdict, the Verifier base class, and (from gym.core.answer_text) the
text extraction helpers.

A family declares its own facts on its Verifier subclass, and the layers above read them through the registry
(gym.verifiers.family_class) instead of keeping tables of family names: whether serve may verify inline, whether
it needs a judge or the reply's tool calls, what a task's requests carry (`request`), the metrics and summary
line aggregate adds (`family_metrics`, `summary_line`), and how gym's reference server writes an answer to one
of its tasks (`mock_answer`).

A verifier turns (prepared task row, model answer text) into a reward in [0, 1], the answer it read
(used for majority voting) and a JSON-serialisable details dict. `verify` is called from many threads
at once, so families keep no per-call state on the instance.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Protocol

from gym.core.answer_text import (answer_payloads, closing_brace, last_boxed, last_nonempty_line,  # noqa: F401
                             nfkc, peel_wrappers, squash_spaces, unbox)
from gym.core.errors import GymError, did_you_mean


@dataclass
class Verdict:
    reward: float  # in [0, 1]
    extracted_answer: str | None  # None when nothing could be extracted
    details: dict = field(default_factory=dict)  # JSON-serialisable, family specific


class VerifierError(Exception):
    """The verifier could not decide (worker crash, output limit, sandbox refused, judge reply unparsable).

    Not a wrong answer: collect records the rollout as status `verifier_error`, excluded from every score
    and redone by task=reverify (or resume). `details` is kept in the rollout.
    """

    def __init__(self, reason: str, details: dict | None = None) -> None:
        super().__init__(reason)
        self.details = details or {}


class JudgeUnavailable(Exception):
    """The judge gave no verdict (judge and pairwise families); the rollout is an infrastructure failure,
    not a wrong answer: status infra_error, redone by resume."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.details = details or {}


class FamilyStats(Protocol):
    """The estimators gym.metrics hands to `Verifier.family_metrics` (verifiers sit below metrics)."""

    def per_task(self, rows: list[dict], key: Callable[[dict], Any] = ...) -> dict[Any, list[float]]:
        """{group: [per-task mean reward]} over scored rows; without `key` the one group is None."""

    def bootstrap_ci(self, values: list[float]) -> dict[str, float | None]:
        """{"value", "ci_low", "ci_high"} in percent, percentile bootstrap over tasks."""

    def mean_ci(self, values: list[float]) -> dict[str, Any]:
        """The mean of per-task values in percent with its 95% interval."""


class Verifier:
    """Base class: option checking, the verify/close protocol and the facts a family declares."""

    family: ClassVar[str] = ""
    # serve runs /verify on its event loop: verify is pure in-process text work of microseconds (no worker,
    # sandbox, judge or episode)
    inline: ClassVar[bool] = False
    needs_judge: bool = False  # collect attaches a judge endpoint (attach_judge); an option may set it
    takes_panel: ClassVar[bool] = False  # judges=[...] gives it several judges (attach_panel)
    uses_tool_calls: ClassVar[bool] = False  # verify() takes the reply's tool calls beside its text
    # keys of `family_metrics` that aggregate lifts beside pass@k in the metrics entry (headline figures)
    headlines: ClassVar[tuple[str, ...]] = ()
    OPTIONS: ClassVar[dict[str, Any]] = {}  # option name -> default; anything else is a user error
    # option name -> its allowed values, the first the default unless OPTIONS names another; each is
    # checked and set as an attribute of the same name
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __init__(self, **options: Any) -> None:
        defaults = {name: choices[0] for name, choices in self.CHOICES.items()} | self.OPTIONS
        unknown = sorted(set(options) - set(defaults))
        if unknown:
            public = [name for name in defaults if not name.startswith("_")]
            hint = did_you_mean(unknown[0], public)
            raise GymError(f"verifier '{self.family}': unknown option '{unknown[0]}'{hint}; "
                           f"options: {', '.join(public) or '(none)'}")
        self.options: dict[str, Any] = {**defaults, **options}
        for name, choices in self.CHOICES.items():
            setattr(self, name, self.choice_option(name, choices))

    # Training-safe rewards (config `reward.strict`): the final answer must be marked, and a reply cut at the
    # length limit scores 0 (gym.rollouts.row.verify_answer applies both).
    strict: bool = False

    def verify(self, row: dict, response: str) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def marked(self, row: dict, response: str) -> bool:
        """Whether the reply marks its final answer the way this family reads one in strict mode; a family
        without a marker of its own (a judge, a code runner, tool calls) takes any reply."""
        return True

    def request(self, row: dict, messages: list[dict], api: str) -> tuple[list[dict], list[dict] | None, Any]:
        """What collect (and serve) send for a row: (messages, tools or None, tool_choice). The base sends the
        rendered messages alone; a tool-calling family adds the task's tools or rewrites the prompt."""
        return messages, None, None

    def attach_judge(self, client: Any, seed: int | None = None) -> None:
        """Give a family that `needs_judge` its judge client."""
        raise GymError(f"verifier '{self.family}' is not graded by a judge")

    def attach_panel(self, clients: list[tuple[Any, int | None]], rule: str) -> None:
        """Give a family that `takes_panel` its judges and the rule that combines their verdicts."""
        raise GymError(f"verifier '{self.family}' takes no panel of judges")

    @classmethod
    def overrides(cls, hook: str) -> bool:
        """Whether the family defines `hook` (request, family_metrics, mock_answer ...) itself."""
        return inspect.getattr_static(cls, hook) is not inspect.getattr_static(Verifier, hook)

    @property
    def tools_per_task(self) -> bool:
        """Whether a task's requests may carry tools of their own (the family overrides `request`)."""
        return self.overrides("request")

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any] | None:
        """What aggregate adds as a benchmark's `family_metrics` from its scored rollouts; None: the means
        of rewards say it all."""
        return None

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        """The aggregate table's line for a metrics entry with this family's `family_metrics`."""
        return ", ".join(f"{key} {value}" for key, value in entry["family_metrics"].items() if key != "family")

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        """How gym's reference server (gym.mock) writes `final` (the gold answer when `correct`, else a wrong
        one) to a prompt of this family's row; None: its usual reply (a boxed answer)."""
        return None

    def close(self) -> None:
        """Release processes or other resources; safe to call more than once."""

    def __enter__(self) -> "Verifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # option helpers shared by the families
    def choice_option(self, name: str, choices: Iterable[str]) -> str:
        value = self.options[name]
        choices = list(choices)
        if value not in choices:
            raise GymError(f"verifier '{self.family}': option {name}={value!r} is not one of {', '.join(choices)}")
        return str(value)

    def number_option(self, name: str, minimum: float, integer: bool = False) -> float:
        value = self.options[name]
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if isinstance(value, bool) or not number >= minimum or (integer and not number.is_integer()):
            kind = "an integer" if integer else "a number"
            raise GymError(f"verifier '{self.family}': option {name}={value!r} must be {kind} >= {minimum:g}")
        return int(number) if integer else number


def expected_answer(row: dict) -> str:
    """The row's gold answer as text; a row without one is a data error, not a wrong answer."""
    value = row.get("expected_answer")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = "" if value is None or isinstance(value, (dict, list)) else str(value).strip()
    if not text:
        raise missing_answer(value)
    return text


def missing_answer(value: Any) -> GymError:
    return GymError(f"task row has no usable expected_answer (got {value!r}); "
                    f"re-run task=prepare for this benchmark")


# -- shared by the families' `family_metrics` and `summary_line` --------------------------------------------

def details_of(row: dict) -> dict:
    """A rollout's verifier details ({} when it has none)."""
    return row.get("verifier") if isinstance(row.get("verifier"), dict) else {}


def ci_text(metric: dict | None) -> str:
    """A percent figure with its interval for a summary line: "71.20 [65.00, 77.10]", "71.20" or "-"."""
    if not metric or metric.get("value") is None:
        return "-"
    if metric.get("ci_low") is None:
        return f"{metric['value']:.2f}"
    return f"{metric['value']:.2f} [{metric['ci_low']:.2f}, {metric['ci_high']:.2f}]"
