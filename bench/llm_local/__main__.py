"""`python -m bench.llm_local {install,serve,replay,status,check}`: the local LLM from the command line.

- install: the runtime and the model into the cache (idempotent), nothing started;
- serve: install, then run the server in the foreground (what `make llm-local` does); LLM_PORT (8766),
  LLM_CONTEXT (tokens per slot, 16384) and LLM_SLOTS (4) set it up;
- replay: a recording proxy in front of a running server (replay.py): LLM_REPLAY_PORT (8767) forwards to LLM_PORT,
  and a request asked before is answered from the cache without the model;
- status: whether it is installed (exit 0) or what is missing (exit 1);
- check: start it in the background (or use the one running), run the end-to-end check of `check.py`, stop it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from bench.llm_local.install import install, say
from bench.llm_local.model import ModelInstallError
from bench.llm_local.process import LocalLLM, ServerError
from bench.llm_local.runtime import RuntimeInstallError


def serve() -> int:
    install()
    server = LocalLLM()
    say(f"starting the server (one thread; Ctrl-C stops it); the base URL for OpenAI clients: {server.base_url}")
    server.serve_foreground()


def replay() -> int:
    from bench.llm_local.pins import CacheLayout
    from bench.llm_local.process import HOST, from_environment
    from bench.llm_local.replay import DEFAULT_REPLAY_PORT, ReplayProxy

    upstream = f"http://{HOST}:{LocalLLM().port}"
    answers = CacheLayout.from_environment().root / "answers"
    proxy = ReplayProxy(upstream, answers)
    server = proxy.server(from_environment("LLM_REPLAY_PORT", DEFAULT_REPLAY_PORT))
    say(f"replaying {upstream} from {answers}; the base URL for OpenAI clients: http://{HOST}:{server.server_port}/v1")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    say(f"asked the model {proxy.asked} times, replayed {proxy.replayed}")
    return 0


def status() -> int:
    current = LocalLLM().status()
    print(f"local LLM: {current.describe()}")
    return 0 if current.ready else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_local", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("install", "serve", "replay", "status", "check"))
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            say(f"installed: {install()}")
            return 0
        if args.command == "serve":
            return serve()
        if args.command == "replay":
            return replay()
        if args.command == "status":
            return status()
        from bench.llm_local import check  # imports mnemo: only this command needs the package

        return check.main()
    except (ModelInstallError, RuntimeInstallError, ServerError) as exc:
        say(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
