"""`python -m bench.llm_local {install,serve,status,check}`: the local LLM from the command line.

- install: the runtime and the model into the cache (idempotent), nothing started;
- serve: install, then run the server in the foreground (what `make llm-local` does); LLM_PORT (8766),
  LLM_CONTEXT (tokens per slot, 16384) and LLM_SLOTS (4) set it up;
- status: whether it is installed (exit 0) or what is missing (exit 1);
- check: start it in the background (or use the one running), run the end-to-end check of `check.py`, stop it.
"""

from __future__ import annotations

import argparse
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


def status() -> int:
    current = LocalLLM().status()
    print(f"local LLM: {current.describe()}")
    return 0 if current.ready else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_local", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("install", "serve", "status", "check"))
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            say(f"installed: {install()}")
            return 0
        if args.command == "serve":
            return serve()
        if args.command == "status":
            return status()
        from bench.llm_local import check  # imports mnemo: only this command needs the package

        return check.main()
    except (ModelInstallError, RuntimeInstallError, ServerError) as exc:
        say(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
