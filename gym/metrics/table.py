"""Plain-text tables for every task's summary output."""

from __future__ import annotations

from typing import Any, Iterable


def format_table(headers: list[str], rows: Iterable[Iterable[Any]], right: Iterable[int] = (),
                 width: int | None = None) -> str:
    """Columns sized to their content, two spaces apart; `right` lists right-aligned columns. With
    `width` (a terminal's), the last column is cut to fit; piped output keeps every cell whole."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    if width:
        fixed = sum(widths[:-1]) + 2 * (len(headers) - 1)
        widths[-1] = max(20, min(widths[-1], width - fixed))
    right = set(right)

    def line(values: list[str]) -> str:
        out = []
        for i, (value, w) in enumerate(zip(values, widths)):
            value = value if len(value) <= w else value[: w - 1] + "…"
            out.append(value.rjust(w) if i in right else value.ljust(w))
        return "  ".join(out).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def fmt_ci(metric: dict[str, Any] | None) -> str:
    """A metric as text: value [ci_low, ci_high], the value alone without a CI, "-" without a value."""
    if not metric or metric.get("value") is None:
        return "-"
    if metric.get("ci_low") is None:
        return f"{metric['value']:.2f}"
    return f"{metric['value']:.2f} [{metric['ci_low']:.2f}, {metric['ci_high']:.2f}]"


def display_name(model_id: Any, limit: int = 40) -> str:
    """A short name for a model id in tables: a file path becomes its file name without the extension
    (`/models/x/SmolLM2.Q4_1.gguf` -> `SmolLM2.Q4_1`), and anything still too long is cut. Files keep the
    full id."""
    text = str(model_id)
    if text.startswith(("/", "./", "../", "~")) or text.count("/") >= 2 or text.endswith((".gguf", ".bin")):
        text = text.rstrip("/").rsplit("/", 1)[-1]
        for suffix in (".gguf", ".bin", ".safetensors"):
            text = text[: -len(suffix)] if text.endswith(suffix) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
