"""BFCL's MathAPI: stateless arithmetic, statistics and unit conversions.

Results and error texts are upstream's, including its quirks: a bad operand type is reported only where
upstream checks or catches it, `logarithm` answers with an mpmath number at the requested digits and
`square_root` with a Decimal at the requested precision (so the result text shows `mpf(...)`/`Decimal(...)`).
Precision is kept in a private context per call rather than in a process-wide setting.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal, InvalidOperation

import mpmath

from gym.episodes.bfcl.apis import Api

NOT_NUMBERS = "Both inputs must be numbers"
LIST_NOT_NUMBERS = "All elements in the list must be numbers"
METRES_PER = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9}
# unit_in_to_unit_out -> factor; the temperatures also shift by 32 degrees
IMPERIAL_FACTORS = {
    "cm_to_in": 0.393701, "in_to_cm": 2.54, "m_to_ft": 3.28084, "ft_to_m": 0.3048, "m_to_yd": 1.09361,
    "yd_to_m": 0.9144, "km_to_miles": 0.621371, "miles_to_km": 1.60934, "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592, "celsius_to_fahrenheit": 1.8, "fahrenheit_to_celsius": 5 / 9,
}
TOO_LARGE = "Conversion resulted in a value too large to represent"


def _error(text: str) -> dict:
    return {"error": text}


def _is_number(value) -> bool:
    return isinstance(value, (int, float))


def _of_list(numbers, empty: str, reduce) -> dict:
    """A list statistic: upstream's message for an empty list, and for non-numbers where the reduction fails."""
    if not numbers:
        return _error(empty)
    try:
        return {"result": reduce(numbers)}
    except TypeError:
        return _error(LIST_NOT_NUMBERS)


class MathAPI(Api):
    def logarithm(self, value: float, base: float, precision: int) -> dict:
        try:
            digits = mpmath.MPContext()
            digits.dps = precision
            return {"result": digits.log(value) / digits.log(base)}
        except Exception as exc:  # upstream reports any failure as the error text
            return _error(str(exc))

    def mean(self, numbers: list) -> dict:
        return _of_list(numbers, "Cannot calculate mean of an empty list", lambda xs: sum(xs) / len(xs))

    def standard_deviation(self, numbers: list) -> dict:
        def population_sd(xs):
            centre = sum(xs) / len(xs)
            return math.sqrt(sum((x - centre) ** 2 for x in xs) / len(xs))
        return _of_list(numbers, "Cannot calculate standard deviation of an empty list", population_sd)

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        if not _is_number(value):
            return _error("Value must be a number")
        if unit_in not in METRES_PER or unit_out not in METRES_PER:
            return _error(f"Conversion from '{unit_in}' to '{unit_out}' is not supported")
        try:
            return {"result": value * METRES_PER[unit_in] * (1 / METRES_PER[unit_out])}
        except OverflowError:
            return _error(TOO_LARGE)

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        if not _is_number(value):
            return _error("Value must be a number")
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in IMPERIAL_FACTORS:
            return _error(f"Conversion from '{unit_in}' to '{unit_out}' is not supported")
        factor = IMPERIAL_FACTORS[key]
        try:
            if key == "celsius_to_fahrenheit":
                return {"result": value * factor + 32}
            if key == "fahrenheit_to_celsius":
                return {"result": (value - 32) * factor}
            return {"result": value * factor}
        except OverflowError:
            return _error(TOO_LARGE)

    def add(self, a: float, b: float) -> dict:
        try:
            return {"result": a + b}
        except TypeError:
            return _error(NOT_NUMBERS)

    def subtract(self, a: float, b: float) -> dict:
        try:
            return {"result": a - b}
        except TypeError:
            return _error(NOT_NUMBERS)

    def multiply(self, a: float, b: float) -> dict:
        if not (_is_number(a) and _is_number(b)):
            return _error(NOT_NUMBERS)
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict:
        try:
            return _error("Cannot divide by zero") if b == 0 else {"result": a / b}
        except TypeError:
            return _error(NOT_NUMBERS)

    def power(self, base: float, exponent: float) -> dict:
        try:
            return {"result": base ** exponent}
        except TypeError:
            return _error(NOT_NUMBERS)

    def square_root(self, number: float, precision: int) -> dict:
        try:
            if number < 0:
                return _error("Cannot calculate square root of a negative number")
            # a bad precision raises ValueError, which upstream does not catch
            return {"result": Decimal(number).sqrt(context=Context(prec=precision))}
        except (TypeError, InvalidOperation):
            return _error("Input must be a number or computation resulted in an invalid operation")

    def absolute_value(self, number: float) -> dict:
        try:
            return {"result": abs(number)}
        except TypeError:
            return _error("Input must be a number")

    def round_number(self, number: float, decimal_places: int = 0) -> dict:
        try:
            return {"result": round(number, decimal_places)}
        except TypeError:
            return _error("First input must be a number, second input must be an integer")

    def percentage(self, part: float, whole: float) -> dict:
        try:
            return _error("Whole value cannot be zero") if whole == 0 else {"result": part / whole * 100}
        except TypeError:
            return _error(NOT_NUMBERS)

    def min_value(self, numbers: list) -> dict:
        return _of_list(numbers, "Cannot find minimum of an empty list", min)

    def max_value(self, numbers: list) -> dict:
        return _of_list(numbers, "Cannot find maximum of an empty list", max)

    def sum_values(self, numbers: list) -> dict:
        return _of_list(numbers, "Cannot calculate sum of an empty list", sum)
