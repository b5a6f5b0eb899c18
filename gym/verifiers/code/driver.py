"""The program that calls a function under test inside the sandbox, and the JSON encoding of values
across the sandbox boundary (the encoding's source is part of that program)."""

from __future__ import annotations

import inspect
import json


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


def value_digest(value, big: int = 1 << 20, dumps=None):
    """None for a value small enough to send whole; else the SHA-256 of a canonical form, so that
    outputs of any size are compared without holding them (equal digests <=> equal values, with ints
    and floats of the same value alike, as == has them)."""
    if value is None or isinstance(value, (bool, float)) or (isinstance(value, int) and value.bit_length() < 4000):
        return None
    if isinstance(value, str):
        if len(value) <= big // 6:
            return None
        import hashlib
        return hashlib.sha256(b"str:" + value.encode("utf-8", "surrogatepass")).hexdigest()
    if type(value) in (list, tuple) and len(value) > big // 32:
        kinds = set(map(type, value))
        if kinds and kinds <= {int, float, bool}:
            import operator
            floats = list(map(float, value))
            if all(map(operator.eq, floats, value)):  # every number survives as a float: hash the doubles
                import array
                import hashlib
                return hashlib.sha256(type(value).__name__.encode() + array.array("d", floats).tobytes()).hexdigest()
    if dumps is None:
        import json
        dumps = json.dumps
    encoded = encode_value(value)
    if len(dumps(encoded)) <= big:
        return None

    def canonical(item):  # sets and dicts in a fixed order
        if isinstance(item, list):
            return [canonical(x) for x in item]
        if isinstance(item, dict):
            if "$set" in item:
                return {**item, "$set": sorted((canonical(x) for x in item["$set"]), key=dumps)}
            if "$dict" in item:
                return {"$dict": sorted(([canonical(k), canonical(v)] for k, v in item["$dict"]), key=dumps)}
            return {key: canonical(x) for key, x in item.items()}
        return item

    import hashlib
    return hashlib.sha256(b"any:" + dumps(canonical(encoded)).encode("utf-8", "surrogatepass")).hexdigest()


class Digest:
    """An output sent as its digest (see value_digest): equal only to the same digest."""

    def __init__(self, hexdigest: str) -> None:
        self.hexdigest = hexdigest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Digest) and other.hexdigest == self.hexdigest

    def __hash__(self) -> int:
        return hash(self.hexdigest)

    def __repr__(self) -> str:
        return f"<output with sha256 {self.hexdigest[:16]}>"


def wire_value(message: dict):
    """The value of a driver message: decoded, or a Digest."""
    return Digest(message["digest"]) if "digest" in message else decode_value(message["value"])


# JSON through the C accelerator alone: importing the json package (and re with it) would cost more CPU
# than the rest of a small program's run. Same output as json.dumps; falls back to json where _json differs.
_JSON = r"""
try:
    import _json as _cjson

    class _JsonContext:
        strict, object_hook, object_pairs_hook, parse_float, parse_int, memo = True, None, None, float, int, {}
        parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__

    _scan = _cjson.make_scanner(_JsonContext())
    _encode = _cjson.make_encoder(None, None, _cjson.encode_basestring_ascii, None, ": ", ", ", False, False, True)

    def _dumps(value):
        return "".join(_encode(value, 0))

    def _loads(text):
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8", "surrogatepass")
        text = text.strip()
        try:
            value, end = _scan(text, 0)
        except StopIteration:
            raise ValueError("not JSON") from None
        if end != len(text):
            raise ValueError("extra data after JSON")
        return value

    if _loads(_dumps({"a": [1, 2.5, "\\u00e9", None, True]})) != {"a": [1, 2.5, "\\u00e9", None, True]}:
        raise ImportError("unexpected _json")
except Exception:
    import json as _json_module
    _dumps, _loads = _json_module.dumps, _json_module.loads
"""

# The program that calls the function under test inside the sandbox. Its job (stdin) carries the code,
# the function name and the encoded arguments, never the expected values, so code under test has
# nothing to copy them from. It serves a judge (gym.sandbox.inside): one JSON line per call goes back on the
# pipe to the judge; the code's own stdin and stdout are /dev/null.
_DRIVER = r"""
import os, sys, time
import _signal as signal  # not `signal`, which imports enum: start-up time counts here
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
_job = _loads(sys.stdin.read())
_out, _null = 4, os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)


def _emit(message):
    data = (_dumps(message) + "\n").encode("utf-8", "surrogatepass")
    while data:
        data = data[os.write(_out, data):]


class _TimeLimit(BaseException):
    pass


def _ring(signum, frame):
    raise _TimeLimit()


def _timed(function, args, limit, kwargs=None):
    signal.signal(signal.SIGALRM, _ring)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        started = time.perf_counter()
        value = function(*args, **(kwargs or {}))
        return value, time.perf_counter() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _describe(exc):
    return "time limit exceeded" if isinstance(exc, _TimeLimit) else f"{type(exc).__name__}: {exc}"[:500]


def _wire(value):
    digest = value_digest(value, dumps=_dumps)
    return {"value": encode_value(value)} if digest is None else {"digest": digest}


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
_emit({"ready": True})
for _line in os.fdopen(3, "rb"):  # answer the judge's calls one by one until it hangs up
    _call = _loads(_line)
    try:
        _value, _spent = _timed(_target, decode_value(_call["args"]), _call.get("limit") or _job["call_limit"],
                                decode_value(_call["kwargs"]))
        _message = {**(_wire(_value) if _job.get("digests") else {"value": encode_value(_value)}), "time": _spent}
    except BaseException as exc:
        _message = {"error": _describe(exc)}
    _emit(_message)
"""
_SHARED = "\n".join(inspect.getsource(part) for part in (Opaque, encode_value, decode_value))
DRIVER = _JSON + _SHARED + "\n" + inspect.getsource(value_digest) + _DRIVER

# What both judges start with: their spec (`_spec`) and the descriptor the driver's replies come in on.
_PEER = r"""
import os, sys
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
_spec = _loads(SPEC)
_replies = os.fdopen(PEER_IN, "rb")
"""


def _peer_source(body: str, spec: dict) -> str:
    return _PEER.replace("SPEC", repr(json.dumps(spec)), 1) + body


# The judge of a HumanEval-style row: runs the prompt (helpers the tests use) and the test code with a
# stand-in for the function under test that forwards each call to the driver serving the program, and
# reports {"passed": true} only after check() returned. It runs in a process the program cannot reach
# (gym.sandbox.inside), so no exit, signal or patched builtin of the program's can make up a pass.
_JUDGE = r"""
class ProgramFailed(Exception):
    pass


def _report(passed, error=None):
    sys.stdout.write(_dumps({"passed": passed, "error": error}) + "\n")
    sys.stdout.flush()


def _receive():
    line = _replies.readline()
    if not line.endswith(b"\n"):
        raise ProgramFailed("the program ended")
    return _loads(line)


def candidate(*args, **kwargs):
    data = (_dumps({"args": encode_value(list(args)), "kwargs": encode_value(kwargs)}) + "\n").encode()
    try:
        while data:
            data = data[os.write(PEER_OUT, data):]
    except OSError:
        raise ProgramFailed("the program ended") from None
    reply = _receive()
    if "value" not in reply:
        raise ProgramFailed(reply.get("error") or "no value")
    return decode_value(reply["value"])


try:
    _hello = _receive()
    if "ready" not in _hello:
        raise ProgramFailed(_hello.get("load_error") or "the program did not load")
    candidate.__name__ = _spec["entry_point"]
    _scope = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(_spec["prompt"], "prompt.py", "exec"), _scope)
    except Exception:
        pass  # the tests may not need what failed
    _scope[_spec["entry_point"]] = candidate
    exec(compile(_spec["test"], "test.py", "exec"), _scope)
    _scope["check"](candidate)
except BaseException as exc:
    import traceback
    _lines = _spec["test"].splitlines()
    _where = [f" (test line {frame.lineno}: {_lines[frame.lineno - 1].strip()})"
              for frame in traceback.extract_tb(exc.__traceback__)
              if frame.filename == "test.py" and 0 < frame.lineno <= len(_lines)]
    _report(False, f"{type(exc).__name__}: {exc}"[:800] + "".join(_where[-1:])[:400])
else:
    _report(True)
"""


def judge_source(prompt: str, test: str, entry_point: str) -> str:
    spec = {"prompt": prompt, "test": test, "entry_point": entry_point}
    return _JSON + _SHARED + "\n" + _peer_source(_JUDGE, spec)


# The judge of function-call tests (LiveCodeBench fn_name, EvalPlus): calls the program once per input
# through the driver serving it, enforces each time limit on its own clock as well (the program could
# silence the driver's alarm), and writes one report per test, in order, to the descriptor only it holds:
# {"phase", "index", "value" | "digest", "time"} or {"phase", "index", "error"}; {"load_error"} first if
# the program did not load. The comparison with the expected values happens in gym, which alone has them.
_RELAY = r"""
import select, time


def _report(message):
    sys.stdout.write(_dumps(message) + "\n")


def _receive(limit):
    if not select.select([_replies], [], [], limit)[0]:
        return None
    line = _replies.readline()
    return _loads(line) if line.endswith(b"\n") else {"error": "the program ended"}


def _send(message):
    data = (_dumps(message) + "\n").encode()
    while data:
        data = data[os.write(PEER_OUT, data):]


def _run():
    hello = _receive(_spec["load_limit"] + 5)
    if hello is None or "ready" not in hello:
        _report({"load_error": "time limit exceeded" if hello is None else hello.get("load_error") or "no function"})
        return
    for phase in _spec["phases"]:
        for index, (args, limit) in enumerate(zip(phase["inputs"], phase["limits"])):
            try:
                _send({"args": args, "kwargs": {"$dict": []}, "limit": limit})
            except OSError:
                _report({"phase": phase["name"], "index": index, "error": "the program ended"})
                return
            reply = _receive(limit * 1.5 + 1)
            if reply is None:  # the driver's own alarm did not stop it: nothing after this can run
                _report({"phase": phase["name"], "index": index, "error": "time limit exceeded"})
                return
            if "value" in reply:
                wire = {"value": reply["value"]}
            elif isinstance(reply.get("digest"), str):  # the driver hashed a large value (see value_digest)
                wire = {"digest": reply["digest"][:64]}
            else:
                _report({"phase": phase["name"], "index": index, "error": str(reply.get("error"))[:500]})
                break
            spent = reply.get("time")
            _report({"phase": phase["name"], "index": index, **wire,
                     "time": float(spent) if isinstance(spent, (int, float)) else 0.0})


_run()
sys.stdout.flush()
"""


def relay_source(phases: list[dict], load_limit: float) -> str:
    """The judge for `phases` ({"name", "inputs" (encoded), "limits"}) of function calls."""
    return _JSON + _peer_source(_RELAY, {"phases": phases, "load_limit": load_limit})
