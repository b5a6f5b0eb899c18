"""ToolSandbox's utility tools (upstream's tools/utilities.py): clock, date arithmetic, unit conversion
(pint), distances (geopy), US holidays (holidays). The clock is the world's frozen `now`, and dates are
read in UTC (upstream reads the machine's local zone; its scenarios were written out under TZ=UTC)."""

from __future__ import annotations

import datetime
import warnings
from typing import Optional

from rapidfuzz import fuzz, utils

from gym.episodes.toolsandbox import checks as c
from gym.episodes.toolsandbox.checks import typechecked
from gym.episodes.toolsandbox.tools_device import _get_boolean, world

UTC = datetime.timezone.utc


def _at(timestamp: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(timestamp, UTC)


@typechecked()
def get_current_timestamp() -> float:
    return world().now


@typechecked(timestamp=c.FLOAT)
def timestamp_to_datetime_info(timestamp: float) -> dict:
    c.validate_timestamp(timestamp, "timestamp", c.FLOAT)
    at = _at(timestamp)
    return {"year": at.year, "month": at.month, "day": at.day, "hour": at.hour, "minute": at.minute,
            "second": at.second, "isoweekday": at.isoweekday()}


@typechecked(year=c.INT, month=c.INT, day=c.INT, hour=c.INT, minute=c.INT, second=c.INT)
def datetime_info_to_timestamp(year: int, month: int, day: int, hour: int, minute: int, second: int) -> float:
    return datetime.datetime(year=year, month=month, day=day, hour=hour, minute=minute, second=second,
                             tzinfo=UTC).timestamp()


@typechecked(timestamp=c.FLOAT, weeks=c.INT, days=c.INT, hours=c.INT, minutes=c.INT, seconds=c.INT)
def shift_timestamp(timestamp: float, weeks: int = 0, days: int = 0, hours: int = 0, minutes: int = 0,
                    seconds: int = 0) -> float:
    c.validate_timestamp(timestamp, "timestamp", c.FLOAT)
    delta = datetime.timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes, seconds=seconds)
    return (_at(timestamp) + delta).timestamp()


@typechecked(timestamp_0=c.FLOAT, timestamp_1=c.FLOAT)
def timestamp_diff(timestamp_0: float, timestamp_1: float) -> dict:
    c.validate_timestamp(timestamp_0, "timestamp_0", c.FLOAT)
    c.validate_timestamp(timestamp_1, "timestamp_1", c.FLOAT)
    delta = _at(timestamp_1) - _at(timestamp_0)
    return {"days": delta.days, "seconds": delta.seconds}


@typechecked(seconds=c.FLOAT)
def seconds_to_hours_minutes_seconds(seconds: float) -> dict:
    at = _at(seconds)
    return {"hour": at.hour, "minute": at.minute, "second": at.second}


@typechecked(amount=c.FLOAT, from_unit=c.STR, to_unit=c.STR)
def unit_conversion(amount: float, from_unit: str, to_unit: str) -> float:
    import pint

    try:
        return pint.Quantity(amount, from_unit).to(to_unit).magnitude
    except pint.UndefinedUnitError:
        return pint.Quantity(amount, from_unit.lower()).to(to_unit.lower()).magnitude


@typechecked(latitude_0=c.FLOAT, longitude_0=c.FLOAT, latitude_1=c.FLOAT, longitude_1=c.FLOAT)
def calculate_lat_lon_distance(latitude_0: float, longitude_0: float, latitude_1: float,
                               longitude_1: float) -> float:
    import geopy.distance

    c.validate_latitude(latitude_0, "latitude_0", c.FLOAT)
    c.validate_latitude(latitude_1, "latitude_1", c.FLOAT)
    c.validate_longitude(longitude_0, "longitude_0", c.FLOAT)
    c.validate_longitude(longitude_1, "longitude_1", c.FLOAT)
    return geopy.distance.distance((latitude_0, longitude_0), (latitude_1, longitude_1)).kilometers


@typechecked(holiday_name=c.STR, year=c.OPT_INT)
def search_holiday(holiday_name: str, year: Optional[int] = None) -> Optional[float]:
    with warnings.catch_warnings():  # holidays 0.51 warns about its next versions on import
        warnings.simplefilter("ignore")
        import holidays

    if not _get_boolean("wifi"):
        raise ConnectionError("Wifi is not enabled")
    if year is None:
        year = _at(world().now).year
    matches = sorted(((fuzz.partial_ratio(holiday_name, name, processor=utils.default_process), date, name)
                      for date, name in holidays.country_holidays(country="US", years=year).items()), reverse=True)
    if matches and matches[0][0] > 90:
        return datetime.datetime.combine(matches[0][1], datetime.time.min, tzinfo=UTC).timestamp()
    return None


UTILITY_TOOLS = {f.__name__: f for f in [
    get_current_timestamp, timestamp_to_datetime_info, datetime_info_to_timestamp, shift_timestamp,
    timestamp_diff, seconds_to_hours_minutes_seconds, unit_conversion, calculate_lat_lon_distance, search_holiday]}
