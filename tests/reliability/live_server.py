"""A real `mnemo serve` process for the reliability suites: authentication on (a known JWT secret and admin key), a
free loopback port, a data dir of the test's own. It can be killed with SIGKILL or stopped, and is always reaped:
`serving` kills it whatever happens in its block."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.waits import seconds

MNEMO = Path(sys.executable).with_name("mnemo")
JWT_SECRET = "reliability-suite-jwt-secret-" + "k7" * 16
ADMIN_API_KEY = "reliability-suite-admin-key-0123456789"
ADMIN = {"X-API-Key": ADMIN_API_KEY}
READY_SECONDS = seconds(120)  # a loaded two-core machine loads the model and the index slowly; nothing here measures it
_OUTER = ("JWT_SECRET", "ADMIN_API_KEY", "AUTH_DISABLED", "REQUEST_LOG_RETENTION_DAYS")


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a served process: the caller's, without its mnemo settings, authentication on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_") and k not in _OUTER}
    env.update(
        JWT_SECRET=JWT_SECRET,
        ADMIN_API_KEY=ADMIN_API_KEY,
        AUTH_DISABLED="false",
        MNEMO_LOG_LEVEL="warning",
        OPENBLAS_NUM_THREADS="1",
    )
    env.update(extra)
    return env


@dataclass(frozen=True)
class Tenant:
    """A platform tenant made by `mnemo platform bootstrap --json`."""

    api_key: str
    org_id: str
    project_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.api_key}"}


def bootstrap(data_dir: Path, email: str, org: str) -> Tenant:
    """A new tenant in the data dir's SQLite file (the command writes tenancy records only; it works whether or not
    a server runs on the same data dir)."""
    command = [str(MNEMO), "platform", "bootstrap", "--json", "--email", email, "--org", org]
    result = subprocess.run(
        [*command, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=seconds(120),
        check=False,
        env=server_env(),
    )
    assert result.returncode == 0, result.stderr
    made = json.loads(result.stdout)
    return Tenant(made["api_key"], made["org_id"], made["project_id"])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    base: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: no shutdown code runs."""
        if self.alive():
            self.process.kill()
        self.process.wait(timeout=seconds(60))

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down, the container closes its files); SIGKILL if that takes too long."""
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=seconds(60))
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.wait(timeout=seconds(60))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-5_000:]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start(data_dir: Path, log: Path, **extra_env: str) -> Server:
    """`mnemo serve` on a free loopback port, once it answers; a port taken meanwhile by another process is
    tried again on another one."""
    for _attempt in range(3):
        port = free_port()
        with log.open("ab") as out:
            process = subprocess.Popen(
                [str(MNEMO), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=server_env(**extra_env),
            )
        server = Server(process, f"http://127.0.0.1:{port}", log)
        try:
            if _wait_ready(server):
                return server
        except BaseException:
            server.kill()
            raise
        if "address already in use" not in server.log_text().lower():
            raise AssertionError(f"mnemo serve exited with {process.returncode}:\n{server.log_text()}")
    raise AssertionError(f"mnemo serve found no free port:\n{log.read_text(errors='replace')[-5_000:]}")


def _wait_ready(server: Server) -> bool:
    """True once the server answers; False if it exited first."""
    deadline = time.monotonic() + READY_SECONDS
    while server.alive():
        try:
            if httpx.get(f"{server.base}/auth/setup-status", timeout=seconds(5)).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"mnemo serve did not answer in {READY_SECONDS:.0f} s:\n{server.log_text()}"
        time.sleep(0.1)  # polling: the condition is the answer above
    return False


@contextmanager
def serving(data_dir: Path, log: Path, **extra_env: str) -> Iterator[Server]:
    """A served process for the block; stopped at its end, killed if it will not stop (or was killed already)."""
    server = start(data_dir, log, **extra_env)
    try:
        yield server
    finally:
        server.stop()


def memory_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process, in kB, from /proc/<pid>/status."""
    found: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found
