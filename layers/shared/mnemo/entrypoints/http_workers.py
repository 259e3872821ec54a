"""The HTTP app of `mnemo serve`: built once in the serving process, or once in each of its worker processes
(`--workers N`: `serve_workers` starts them and each calls `app()`; their settings come from the environment the
command set). The processes share the data dir and stay in step through it (mnemo.adapters.sqlite.change_log).

Each worker accepts on a listening socket of its own, all bound to the one port with SO_REUSEPORT: Linux hands each
new connection to one of them by a hash of its addresses, so keep-alive clients spread over the processes. On one
shared socket (uvicorn's own `--workers`), whichever process woke first took every connection waiting: clients
connecting at once landed nearly all on one worker while the other idled. Where the kernel does not balance
SO_REUSEPORT (not Linux), uvicorn's workers serve as before.

With as many workers as CPUs, each worker is kept on a CPU of its own (`worker_cpus`, the setting `pin_workers`), as
nginx's `worker_cpu_affinity auto` does: a process that stays on one core finds its caches (the embedding model's
weights, its index, SQLite's pages) where it left them, and each add and search costs less CPU (the performance log,
docs/benchmarks/log.md, has the figures).
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from typing import Any

import uvicorn
from fastapi import FastAPI

from mnemo.composition.container import Container
from mnemo.entrypoints.http_server import server_config
from mnemo.settings import Settings


def serving_app(settings: Settings) -> tuple[FastAPI, Container]:
    """The app and the container it serves, closed when the app shuts down: a SIGTERM's too, which uvicorn raises
    again once it has stopped, ending the process before any code after `uvicorn.run` (the caller may close it
    there as well: a second close does nothing)."""
    from mnemo.api import inline_work
    from mnemo.api.app import create_app
    from mnemo.composition.container import build_container
    from mnemo.console.app import mount_console
    from mnemo.entrypoints.cli import limit_request_threads

    container = build_container(settings)
    try:
        app = create_app(
            container,
            cors_origins=settings.cors_allowed_origins,
            mcp_default_user_id=settings.mcp_default_user_id,
            inline_work=inline_work.enabled(settings.http_inline, on_one_cpu=len(_allowed_cpus()) == 1),
        )
        mount_console(app, container)  # the web console at /console (mnemo.console)
    except BaseException:
        container.close()
        raise
    app.router.on_startup.append(functools.partial(limit_request_threads, settings.http_threads))
    app.router.on_shutdown.append(container.close)
    return app, container


APP = "mnemo.entrypoints.http_workers:app"  # what uvicorn imports in each worker
_ready: Any = None  # in a worker `serve_workers` started: the event it sets once its app has started


def app() -> FastAPI:
    """A worker process's app: its container closes when the worker shuts down (the index writes its snapshot)."""
    from mnemo.entrypoints.cli import with_jwt_secret

    settings = with_jwt_secret(Settings())
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    served, _container = serving_app(settings)
    if _ready is not None:
        served.router.on_startup.append(_ready.set)
    return served


STOP_WAIT = 30.0  # seconds a stopping worker gets to finish its requests and close its store
INTERRUPT_WAIT = 2.0  # seconds the workers get to stop on the Ctrl-C they got too, before they are told to
_log = logging.getLogger("mnemo.workers")


def balances_reuseport() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux) rather than giving them to one."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _bound(host: str, port: int, *, reuseport: bool) -> socket.socket:
    """A TCP socket bound to host:port (not listening yet: a bound socket gets no connections)."""
    family, kind, proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def worker_cpus(workers: int, available: list[int], pin: str) -> list[int | None]:
    """The CPU each worker is kept on (None: wherever the kernel puts it). `pin`: "auto" pins when there are as many
    workers as `available` CPUs (each gets one of its own, and all are used; with fewer workers, a worker kept on one
    CPU could not run its embedding and its Python at once on two); "true" pins worker i to the i-th CPU, round again
    when there are more workers; "false" never pins."""
    if not available or pin == "false" or (pin == "auto" and (workers < 2 or workers != len(available))):
        return [None] * workers
    return [available[i % len(available)] for i in range(workers)]


def _allowed_cpus() -> list[int]:
    """The CPUs this process may run on, where the platform tells (Linux); none elsewhere."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return []


def serve_workers(host: str, port: int, workers: int, log_level: str, *, pin: str = "auto") -> int:
    """Serve `app()` from `workers` processes until SIGINT or SIGTERM (each worker then finishes its requests and
    closes its store); a worker that dies later is replaced (on the same CPU, when they are pinned: `worker_cpus`).
    The exit status: 0, or 1 when a worker failed to start."""
    if not balances_reuseport():
        from uvicorn.supervisors import Multiprocess

        options = {"host": host, "port": port, "workers": workers, "log_level": log_level}
        config = server_config(APP, Settings(), factory=True, **options)
        Multiprocess(config, sockets=[config.bind_socket()]).run()
        return 0
    try:
        # A plain bind first: it fails on a port anything holds, another server's group of SO_REUSEPORT sockets
        # included (which a socket with SO_REUSEPORT would join, sharing its connections); port 0 becomes one port.
        with _bound(host, port, reuseport=False) as probe:
            port = probe.getsockname()[1]
        held = _bound(host, port, reuseport=True)  # held until the end: the port stays this group's
    except OSError as exc:
        _log.error("cannot serve on %s:%s: %s", host, port, exc)
        return 1
    supervisor = _Supervisor(host, held.getsockname()[1], log_level, worker_cpus(workers, _allowed_cpus(), pin))
    previous = {sig: signal.signal(sig, supervisor.stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return supervisor.run()
    finally:
        held.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Supervisor:
    """Starts the workers, replaces one that dies, and stops them all at a signal."""

    def __init__(self, host: str, port: int, log_level: str, cpus: list[int | None]) -> None:
        self._args = (host, port, log_level)
        self._cpus = cpus  # the CPU of each worker (by its place), or None
        self._context = multiprocessing.get_context("spawn")
        self._running: list[tuple[Any, Any]] = []  # each worker and the event it sets once it serves
        self.stopping = False
        # SIGINT: a terminal's Ctrl-C, which every process of the group got (a second signal would make uvicorn drop
        # the requests under way): the workers get a moment to stop on their own
        self.interrupted = False

    def stop(self, signum: int, _frame: Any) -> None:
        self.stopping = True
        self.interrupted = self.interrupted or signum == signal.SIGINT

    def run(self) -> int:
        self._running = [self._start(cpu) for cpu in self._cpus]
        failed = False
        try:
            while not self.stopping:
                time.sleep(0.2)
                failed = not self._replace_the_dead()
        finally:
            self._stop_all()
        return 1 if failed else 0

    def _start(self, cpu: int | None) -> tuple[Any, Any]:
        ready = self._context.Event()
        process = self._context.Process(target=_worker, args=(*self._args, ready, cpu), name="mnemo-http-worker")
        process.start()
        return process, ready

    def _replace_the_dead(self) -> bool:
        """False (and stopping) when a worker died before it served: a crash at start would only repeat."""
        for at, (process, ready) in enumerate(self._running):
            if process.is_alive() or self.stopping:
                continue
            if not ready.is_set():
                _log.error("worker %s exited with %s before it served: stopping", process.pid, process.exitcode)
                self.stopping = True
                return False
            _log.warning("worker %s exited with %s: starting another", process.pid, process.exitcode)
            self._running[at] = self._start(self._cpus[at])
        return True

    def _stop_all(self) -> None:
        if self.interrupted:
            for process, _ready_event in self._running:
                process.join(INTERRUPT_WAIT)
        for process, _ready_event in self._running:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes the requests under way, then the app's shutdown
        deadline = time.monotonic() + STOP_WAIT
        for process, _ready_event in self._running:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()


def _worker(host: str, port: int, log_level: str, ready: Any, cpu: int | None = None) -> None:
    """One worker process: `app()` served on a listening socket of its own; `ready` set once it serves. Kept on `cpu`
    when one is given, from before its first thread (every thread it starts inherits that)."""
    global _ready
    _ready = ready
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError as exc:  # the CPU was taken away since the supervisor looked (a cgroup's cpuset changed)
            _log.warning(
                "worker %s cannot be kept on CPU %s (%s): it runs where the kernel puts it", os.getpid(), cpu, exc
            )
    sock = _bound(host, port, reuseport=True)
    config = server_config(APP, Settings(), factory=True, log_level=log_level)
    uvicorn.Server(config).run(sockets=[sock])
