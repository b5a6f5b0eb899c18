"""Family `tool_call`: grade the calls a model made against a row's allowed answers, by BFCL's AST rules.

A row carries `functions` (the function docs as the benchmark wrote them, which the rules read),
`ground_truth` ([{name: {param: [allowed values]}}], absent on irrelevance/relevance rows), the docs as
sent (`tools`, chat shape, for native calls; `prompt_functions` for prompt mode) and its `category` in
`metadata`. The rules live in gym.verifiers.bfcl_ast.

How the calls are read (`verify(row, text, tool_calls)`):
* native (`tool_calls` is a list: tools went out in the request): the calls as the server returned them;
  one call whose arguments are not a JSON object, or a reply with text and no calls, is a failed decode.
* prompt (`tool_calls` is None: the function docs went into the system prompt): the reply text in
  `options.format` (`python_list`, BFCL's prompting format, or `hermes`); text that does not decode is a
  failed decode. Java and JavaScript rows in `python_list` are read as BFCL reads them: one call whose
  values are source text (gym.toolcalls.source_calls).
A failed decode is wrong on call rows, right on irrelevance rows (no valid call), wrong on relevance rows.

Options: `mode` auto | native | prompt (auto: native on chat and Responses, prompt on completions) picks
what collect sends (`request`); `format` the prompt-mode text format.
"""

from __future__ import annotations

from typing import Any, ClassVar

from gym.toolcalls import DecodeError, ToolCall, decode_python_calls, parse_calls, render_calls, tools_prompt
from gym.toolcalls.gold import language_of
from gym.toolcalls.source_calls import decode_source_call
from gym.verifiers import bfcl_ast
from gym.verifiers.base import FamilyStats, Verdict, Verifier, VerifierError
from gym.verifiers.tool_call_types import Unconvertible


NO_CALL = "(no call)"  # the extracted answer of a reply without a valid call on an (ir)relevance row


def category_of(row: dict) -> str:
    metadata = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    category = metadata.get("category") or row.get("category")
    if not isinstance(category, str) or not category:
        raise VerifierError("the row has no tool-call category (metadata.category)")
    return category


def jsonable(value: Any) -> Any:
    """Decoded values as JSON can hold them (tuples as lists, bytes and odd keys as text)."""
    if isinstance(value, dict):
        return {key if isinstance(key, str) else repr(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, (bytes, complex)):
        return repr(value)
    return value


class ToolCallVerifier(Verifier):
    family = "tool_call"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    CHOICES = {"mode": ("auto", "native", "prompt"), "format": ("python_list", "hermes")}
    uses_tool_calls: ClassVar[bool] = True  # verify() takes the reply's tool calls beside its text

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        """Per-category accuracy, BFCL's summary figures and the tool-call trouble counts."""
        from gym.verifiers.tool_call_metrics import tool_call

        return tool_call(rows, stats.per_task, stats.bootstrap_ci)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        from gym.verifiers.tool_call_metrics import summary_line

        return summary_line(entry["family_metrics"])

    def native(self, api: str) -> bool:
        return self.mode == "native" or (self.mode == "auto" and api != "completions")

    def request(self, row: dict, messages: list[dict], api: str) -> tuple[list[dict], list[dict] | None, Any]:
        """What collect sends for this row: (messages, tools or None, tool_choice or None)."""
        if self.native(api):
            return messages, list(row.get("tools") or []), row.get("tool_choice")
        prompt = tools_prompt(list(row.get("prompt_functions") or row.get("functions") or []), self.format)
        if messages and messages[0].get("role") == "system":  # BFCL puts its prompt before the row's own
            return [{"role": "system", "content": prompt + "\n\n" + messages[0]["content"]}, *messages[1:]], None, None
        return [{"role": "system", "content": prompt}, *messages], None, None

    def verify(self, row: dict, response: str, tool_calls: list | None = None) -> Verdict:
        category = category_of(row)
        native = tool_calls is not None
        decoded, decode_error = self._decode(response, tool_calls, language_of(category))
        details: dict[str, Any] = {"family": self.family, "category": category,
                                   "mode": "native" if native else "prompt",
                                   "decoded": jsonable(decoded) if decoded is not None else None}
        extracted = None if decoded is None else render_calls(
            [ToolCall(name, args) for call in decoded for name, args in call.items()], "python_list")
        has_call = decoded is not None and bool(decoded) and decoded != [{}]
        if "irrelevance" in category or "relevance" in category:  # not calling is an answer here
            extracted = extracted if has_call else NO_CALL
            passed = not has_call if "irrelevance" in category else has_call
            if not passed:
                details["error_type"] = ("irrelevance_error:decoder_success" if "irrelevance" in category
                                         else "relevance_error:decoder_failed")
            return Verdict(float(passed), extracted, details)
        if decoded is None:
            return Verdict(0.0, None, {**details, "error_type": "ast_decoder:decoder_failed", "error": decode_error})
        try:
            bfcl_ast.check(list(row["functions"]), decoded, list(row["ground_truth"]), category,
                           language_of(category), underscore_names=native)
        except bfcl_ast.Failure as failure:
            return Verdict(0.0, extracted, {**details, "error_type": failure.kind, "error": str(failure)})
        except (KeyError, TypeError, Unconvertible) as exc:  # the row's docs or answers cannot be checked
            raise VerifierError(f"cannot check this row: {exc.__class__.__name__}: {exc}", details) from None
        return Verdict(1.0, extracted, details)

    def _decode(self, text: str, tool_calls: list | None, language: str = "python"
                ) -> tuple[list[dict] | None, str | None]:
        """[{name: {param: value}}] as BFCL decodes the reply, or (None, why) when it does not decode."""
        if tool_calls is None:
            try:
                if self.format == "python_list" and language != "python":  # values as source text
                    return decode_source_call(text or "", language), None
                if self.format == "python_list":
                    return decode_python_calls(text or ""), None
                calls = parse_calls(text or "", self.format)
            except DecodeError as exc:
                return None, str(exc)
        else:
            calls = [call if isinstance(call, ToolCall) else ToolCall.from_row(call) for call in tool_calls]
            if not calls and (text or "").strip():
                return None, "a text reply and no tool call"
        if any(call.arguments is None for call in calls):
            return None, "tool-call arguments that are not a JSON object"
        return [{call.name: dict(call.arguments or {})} for call in calls], None
