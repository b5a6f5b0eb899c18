"""Upstream's tool-trace extractors (common/tool_trace_extractors.py): values read from a tool call's
trace (its name, arguments and result) that tool_trace_dependant_similarity fills into a milestone's
target before comparing. Each returns the possible normal forms of what it extracts."""

from __future__ import annotations

from typing import Any, Callable


def _surface_forms(value: Any) -> list[str]:
    if isinstance(value, float):
        return [f"{value:.0f}", f"{value:.1f}", f"{value:.2f}", f"{value:.3f}"]
    return [str(value)]


def _weather_temperature(trace: dict) -> list[dict]:
    try:
        temperature = float(trace["result"]["current_temperature"])
    except (KeyError, TypeError):
        return []
    return [{"temperature": form} for form in _surface_forms(temperature)]


EXTRACTORS: dict[str, Callable[[dict], list[dict]]] = {
    "search_weather_around_lat_lon_temperature_extractor": _weather_temperature,
    "result_to_timestamp0_extractor": lambda t: [{"timestamp_0": float(t["result"])}],
    "result_to_timestamp1_extractor": lambda t: [{"timestamp_1": float(t["result"])}],
    "days_extractor": lambda t: [{"days": int(t["result"]["days"])}],
    "lat_lon_dict_extractor": lambda t: [{k: t["result"][k] for k in ["latitude", "longitude"]}],
    "current_temperature_extractor": lambda t: [{"amount": float(t["result"]["current_temperature"])}],
    "result_to_temperature_extractor": lambda t: [{"temperature": x} for x in _surface_forms(float(t["result"]))],
    "result_to_reminder_timestamp_lowerbound_extractor":
        lambda t: [{"reminder_timestamp_lowerbound": float(t["result"])}],
    "min_temperature_amount_extractor": lambda t: [{"amount": float(t["result"]["min_temperature"])}],
    "min_temperature_extractor": lambda t: [{"min_temperature": x} for x in _surface_forms(float(t["result"]))],
}
