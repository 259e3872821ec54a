"""One default TLS context for every httpx client of the test process (installed by tests/conftest.py).

httpx builds a new SSL context for each client it makes (`httpx.get(...)` makes one per call), loading a whole CA
bundle each time: tens of milliseconds of CPU for a request that then goes over plain HTTP to a loopback
server. The tests make thousands of them, many in polling loops (waiting for an event, a delivery), where that CPU
is taken from the server the test waits for. So the default context (verify on, no client certificate) is made
once, for each SSL_CERT_FILE and SSL_CERT_DIR the environment names, and given to every client that asks for the
default; any other `verify` or `cert` gets httpx's own as before. No test speaks TLS or HTTP/2 to a client with the
default context (httpcore sets the ALPN protocols of the context it connects with, which a shared context would
carry from one client to the next)."""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Callable
from typing import Any

from httpx._transports import default as transports

_httpx_own: Callable[..., ssl.SSLContext] = getattr(transports, "_create_ssl_context_of_httpx", None) or (
    transports.create_ssl_context  # type: ignore[attr-defined]
)


@functools.cache
def _default_context(trust_env: bool, cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's default context for these SSL_CERT_FILE and SSL_CERT_DIR (read by httpx itself when `trust_env`)."""
    return _httpx_own(verify=True, cert=None, trust_env=trust_env)


def _create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is True and cert is None:
        return _default_context(trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    return _httpx_own(verify=verify, cert=cert, trust_env=trust_env)


def share_the_default_tls_context() -> None:
    """Make httpx's transports take the one default context (idempotent)."""
    transports._create_ssl_context_of_httpx = _httpx_own  # type: ignore[attr-defined]
    transports.create_ssl_context = _create_ssl_context  # type: ignore[attr-defined]
