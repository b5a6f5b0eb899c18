"""What an image costs a request: building the task's messages (the file's content hash, cached by size
and mtime) and the wire payload (the file read and base64-encoded when the request is made; the last 16 kept, so
a task's repeats, asked back to back, encode it once), for a
text prompt, HLE's small fixture image and a 1 MB image, on the chat and Responses APIs. Also the size
of a rollout row's prompt, which holds the image's name and hash, not its bytes.

    .venv/bin/python perf/vision_payload.py [--repeats 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gym.core.images import _data_url  # noqa: E402
from gym.core.prompts import build_messages  # noqa: E402
from gym.model.client import ModelClient  # noqa: E402


def per_call(fn, repeats: int) -> float:
    started = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - started) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "images").mkdir()
        (root / "images/small.png").write_bytes(b"\x89PNG" + b"\0" * 1279)  # the fixture image's 1,283 bytes
        (root / "images/large.png").write_bytes(os.urandom(1 << 20))
        cases = {"text": {"question": "q" * 200}, "1.3 KB image": {"question": "q" * 200, "images": ["images/small.png"]},
                 "1 MB image": {"question": "q" * 200, "images": ["images/large.png"]}}
        print(f"{'prompt':<14} {'messages µs':>12} {'chat payload µs':>16} {'first send µs':>14} {'responses µs':>13} "
              f"{'prompt in row':>14}")
        for name, row in cases.items():
            messages = build_messages("system", "{question}", row, data_dir=root)
            build = per_call(lambda: build_messages("system", "{question}", row, data_dir=root), args.repeats)
            timings = []
            for api in ("chat", "responses"):
                client = ModelClient("http://127.0.0.1:9/v1", model="m", api=api)
                client.image_root = root
                timings.append(per_call(lambda: client._payload(messages, None), max(50, args.repeats // 10)))
                if api == "chat":  # the file read and encoded again: a task's first request
                    timings.append(per_call(lambda: (_data_url.cache_clear(), client._payload(messages, None)),
                                            max(50, args.repeats // 10)))
            print(f"{name:<14} {build:>12.1f} {timings[0]:>16.1f} {timings[1]:>14.1f} {timings[2]:>13.1f} "
                  f"{len(json.dumps(messages)):>12} B")


if __name__ == "__main__":
    main()
