"""The server as a process: started in the background (or in the foreground for `make llm-local`), waited for
until it answers `/health`, and stopped.

A benchmark writes `with LocalLLM() as llm:` and points its OpenAI client at `llm.base_url`. When a server of
this model already answers on the port (someone left `make llm-local` running), it is used as it is and left
running; only a server this object started is stopped. The model runs under `nice` with one thread: the machine's
two cores are shared, and a second thread only contends with whatever else runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO, Any, NoReturn

from bench.llm_local.pins import DEFAULT_PORT, QWEN_CODER_1_5B, SERVER_SCRIPT, CacheLayout, ModelPins
from bench.llm_local.status import Status, installation_status

HOST = "127.0.0.1"


class ServerError(RuntimeError):
    """The server is not installed, did not start, or did not become ready in time."""


def from_environment(name: str, default: int) -> int:
    """An integer setting from the environment (LLM_PORT, LLM_CONTEXT, LLM_SLOTS), else its default."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ServerError(f"{name} must be an integer, not {raw!r}") from None


class LocalLLM:
    def __init__(
        self,
        layout: CacheLayout | None = None,
        pins: ModelPins = QWEN_CODER_1_5B,
        *,
        port: int | None = None,
        threads: int = 1,
        context_size: int | None = None,
        slots: int | None = None,
        niceness: int = 10,
    ) -> None:
        """`port`, `context_size` (tokens per slot) and `slots` default to LLM_PORT, LLM_CONTEXT and LLM_SLOTS,
        else 8766, 16384 and 4 (mem0's extraction prompt and a conversation pass 8,192)."""
        self.layout = layout or CacheLayout.from_environment()
        self.pins = pins
        self.port = port if port is not None else from_environment("LLM_PORT", DEFAULT_PORT)
        self.threads = threads
        self.context_size = context_size if context_size is not None else from_environment("LLM_CONTEXT", 16384)
        self.slots = slots if slots is not None else from_environment("LLM_SLOTS", 4)
        self.niceness = niceness
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """What an OpenAI client is given as its base URL."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server's process id, when this object started it."""
        return self._process.pid if self._process is not None else None

    @property
    def model_id(self) -> str:
        return self.pins.file_name.removesuffix(".gguf")

    def status(self) -> Status:
        return installation_status(self.layout, self.pins)

    def command(self) -> list[str]:
        node = shutil.which("node") or "node"
        return ["nice", "-n", str(self.niceness), node, str(SERVER_SCRIPT)]

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "LLM_MODEL_PATH": str(self.layout.model_file(self.pins)),
            "LLM_RUNTIME_DIR": str(self.layout.runtime),
            "LLM_MODEL_ID": self.model_id,
            "LLM_PORT": str(self.port),
            "LLM_THREADS": str(self.threads),
            "LLM_CONTEXT": str(self.context_size),
            "LLM_SLOTS": str(self.slots),
        }

    def health(self) -> dict[str, Any] | None:
        """What `/health` answers, or None when nothing answers on the port."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.port}/health", timeout=2) as response:
                body = json.loads(response.read())
        except (OSError, urllib.error.URLError, ValueError):
            return None
        return body if isinstance(body, dict) else None

    def serving(self) -> bool:
        """Whether this model's server answers on the port."""
        answer = self.health()
        return answer is not None and answer.get("status") == "ok" and answer.get("model") == self.model_id

    def _require_installed(self) -> None:
        status = self.status()
        if not status.ready:
            raise ServerError(f"the local LLM is {status.describe()}")

    def serve_foreground(self) -> NoReturn:
        """Replace this process with the server (Ctrl-C stops it)."""
        self._require_installed()
        command = self.command()
        os.execvpe(command[0], command, self.environment())

    def start(self, timeout: float = 300.0) -> None:
        """Start the server in the background (its output goes to the cache's server.log) and wait until it
        answers; use the one already serving this model on the port, if any."""
        if self._process is not None or self.serving():
            return
        self._require_installed()
        self.layout.server_log.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.layout.server_log.open("ab")
        self._process = subprocess.Popen(
            self.command(), env=self.environment(), stdout=self._log, stderr=subprocess.STDOUT
        )
        try:
            self._wait_ready(self._process, timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, process: subprocess.Popen[bytes], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.serving():
            if process.poll() is not None:
                raise ServerError(
                    f"the server exited ({process.returncode}) before it was ready: {tail(self.layout.server_log)}"
                )
            if time.monotonic() > deadline:
                raise ServerError(f"the server was not ready after {timeout:.0f} s: {tail(self.layout.server_log)}")
            time.sleep(0.5)

    def stop(self, grace: float = 15.0) -> None:
        """Stop the server this object started (one it found running is left alone)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LocalLLM:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


def tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
