"""Child process for `model=local`: llama.cpp's HTTP server from the xllamacpp wheel.

python -m gym.model.llamacpp_serve --model FILE.gguf --port N [--alias NAME --threads T --parallel P --ctx-size C --jinja
                                                                --chat-template-file FILE.jinja]

--jinja renders prompts with the model's own Jinja chat template, which is what turns `tools` into the
prompt and the reply back into `tool_calls` (llama.cpp's --jinja).

It serves until SIGTERM/SIGINT or until its stdin closes (gym keeps a pipe to it open, so a gym that
dies without cleaning up still takes its server down).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

MAX_TOTAL_CONTEXT = 32768  # tokens of KV cache shared by all slots (~0.75 GB for SmolLM2-135M)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gym.model.llamacpp_serve")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--ctx-size", type=int, default=4096)
    parser.add_argument("--jinja", action="store_true")
    parser.add_argument("--chat-template-file", default=None, help="a Jinja chat template to use instead of the model's")
    args = parser.parse_args(argv)

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_parallel = args.parallel
    params.kv_unified = True  # one KV cache shared by the slots: short prompts leave room for long replies
    params.n_ctx = min(args.ctx_size, MAX_TOTAL_CONTEXT)
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.warmup = False
    params.use_jinja = args.jinja
    if args.chat_template_file:
        with open(args.chat_template_file, encoding="utf-8") as handle:
            params.chat_template = handle.read()
    if args.alias:
        params.model_alias = {args.alias}
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: stop.set())

    def watch_stdin() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server = xllamacpp.Server(params)
    print(f"listening at {server.listening_address}", flush=True)
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
