"""Write tests/fixtures/toolsandbox/scenarios.json.gz: a few scenarios of the shipped scenario file
(benchmarks/toolsandbox/scenarios.json.gz, written by tools/toolsandbox_scenarios.py from Apple's code;
Apple's LICENSE beside the fixture), for the suite's every-benchmark run: five base scenarios the
reference agent's gold-ish play solves (the RapidAPI ones are tested on the whole file)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["add_contact_with_name_and_phone_number", "cellular_off", "get_cellular", "get_wifi", "wifi_off"]


def main() -> None:
    document = json.loads(gzip.decompress((ROOT / "benchmarks" / "toolsandbox" / "scenarios.json.gz").read_bytes()))
    worlds, tools, scenarios = [], [], {}
    for name in NAMES:
        spec = dict(document["scenarios"][name])
        worlds.append(document["worlds"][spec["world"]])
        spec["world"] = len(worlds) - 1
        for key in ("tools", "user_tools"):
            ids = []
            for index in spec[key]:
                tools.append(document["tools"][index])
                ids.append(len(tools) - 1)
            spec[key] = ids
        scenarios[name] = spec
    out = dict(document, scenarios=scenarios, worlds=worlds, tools=tools)
    data = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()
    (ROOT / "tests" / "fixtures" / "toolsandbox" / "scenarios.json.gz").write_bytes(gzip.compress(data, mtime=0))


if __name__ == "__main__":
    main()
