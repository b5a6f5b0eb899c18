"""The program that calls a function under test inside the sandbox, and the JSON encoding of values
across the sandbox boundary (the encoding's source is part of that program)."""

from __future__ import annotations

import inspect


# -- values across the sandbox boundary (this code also runs inside the sandbox) -------------------
class Opaque:
    """A value with no JSON form (an object of a custom class): equal when type name and repr match."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and (self.type_name, self.text) == (other.type_name, other.text)

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))

    def __repr__(self) -> str:
        return self.text


def encode_value(value):
    """A Python value as JSON, keeping tuples, sets, dict keys, complex, bytes and huge ints apart."""
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, int):
        return int(value) if value.bit_length() < 4000 else {"$int": format(value, "x")}
    if isinstance(value, list):
        return [encode_value(item) for item in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode_value(item) for item in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode_value(item) for item in value], "$frozen": isinstance(value, frozenset)}
    if isinstance(value, dict):
        return {"$dict": [[encode_value(key), encode_value(item)] for key, item in value.items()]}
    if isinstance(value, complex):
        return {"$complex": [value.real, value.imag]}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return encode_value(value.tolist())
    return {"$repr": repr(value)[:10000], "$type": type(value).__name__}


def decode_value(value):
    if isinstance(value, list):
        return [decode_value(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(decode_value(item) for item in value["$tuple"])
    if "$set" in value:
        items = [decode_value(item) for item in value["$set"]]
        return frozenset(items) if value.get("$frozen") else set(items)
    if "$dict" in value:
        return {decode_value(key): decode_value(item) for key, item in value["$dict"]}
    if "$complex" in value:
        return complex(*value["$complex"])
    if "$bytes" in value:
        return bytes.fromhex(value["$bytes"])
    if "$int" in value:
        return int(value["$int"], 16)
    if "$repr" in value:
        return Opaque(value.get("$type", ""), value["$repr"])
    return {key: decode_value(item) for key, item in value.items()}


# The program that calls the function under test inside the sandbox. Its job (stdin) carries the code,
# the function name and the encoded arguments, never the expected values, so code under test has
# nothing to copy them from. One JSON line per test goes to the saved stdout; the code's own stdin
# and stdout are /dev/null.
_DRIVER = r'''
import json, os, signal, sys, time
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
_job = json.loads(sys.stdin.read())
_out, _null = os.dup(1), os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)


def _emit(message):
    data = (json.dumps(message) + "\n").encode("utf-8", "surrogatepass")
    while data:
        data = data[os.write(_out, data):]


class _TimeLimit(BaseException):
    pass


def _ring(signum, frame):
    raise _TimeLimit()


def _timed(function, args, limit):
    signal.signal(signal.SIGALRM, _ring)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        started = time.perf_counter()
        value = function(*args)
        return value, time.perf_counter() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _describe(exc):
    return "time limit exceeded" if isinstance(exc, _TimeLimit) else f"{type(exc).__name__}: {exc}"[:500]


_scope = {"__name__": "solution", "__builtins__": __builtins__}
try:
    _timed(exec, (compile(_job["code"], "solution.py", "exec"), _scope), _job["load_limit"])
    if _job["method"] and isinstance(_scope.get("Solution"), type):
        _target = getattr(_scope["Solution"](), _job["function"])
    else:
        _target = _scope[_job["function"]]
except BaseException as exc:
    _emit({"load_error": _describe(exc) if not isinstance(exc, KeyError) else f"no function {_job['function']}"})
    sys.exit(0)
for _phase in _job["phases"]:
    for _index, (_args, _limit) in enumerate(zip(_phase["inputs"], _phase["limits"])):
        try:
            _value, _spent = _timed(_target, decode_value(_args), _limit)  # fresh objects per call
            _message = {"phase": _phase["name"], "index": _index, "value": encode_value(_value), "time": _spent}
        except BaseException as exc:
            _message = {"phase": _phase["name"], "index": _index, "error": _describe(exc)}
        _emit(_message)
        if "error" in _message:
            break
'''
DRIVER = "\n".join(inspect.getsource(part) for part in (Opaque, encode_value, decode_value)) + _DRIVER
