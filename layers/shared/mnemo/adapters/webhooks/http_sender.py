"""The `WebhookSender` over httpx: where a webhook may point, and one POST of a delivery within a deadline.

**The address rule.** Unless the deployment allows private addresses, a webhook's host must resolve only to public
(globally routable) addresses: if ANY of its addresses is loopback, private (RFC 1918, fc00::/7), link-local
(169.254.0.0/16 with the cloud metadata service, fe80::/10), multicast, reserved, unspecified, in the shared
address space (100.64.0.0/10) or otherwise not global, the URL is refused. An IPv6 address that carries an IPv4 one
(IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 address it reaches.

**No DNS rebinding.** The rule is applied where the socket is opened, not beside it: the client's connection
pool opens its connections through `_PinnedBackend`, which resolves the host once, applies the rule to every
address of that answer, and connects to one of those very addresses. A name that answers a public address to
`url_problem` and 127.0.0.1 a moment later is refused at send time, and no second lookup happens between the
check and the connection. The URL itself is not rewritten: httpx still sends `Host: <the URL's host>`, and for
https it still does TLS with SNI and certificate verification for the URL's host name, as for any request. (The
other way, rewriting the URL to the checked IP with `extensions={"sni_hostname": host}`, also verifies the
certificate, but the pool then keys its connections by IP: a TLS connection made and verified for one name
would be reused for another name on the same address, and virtual hosts chosen by SNI would get the wrong one.
Here the pool keys connections by the URL's origin, as usual; a kept-alive connection was checked when it was
opened.) The client never reads proxies from the environment (a proxy would resolve the name itself).

**One deadline.** httpx's timeouts are per phase (connect, each read, each write). The same backend wraps each
connection's stream so that every socket operation waits at most until the attempt's deadline (`timeout` seconds
after `send` began, a per-thread context value): a receiver that trickles its answer a byte at a time cannot hold
an attempt much past it. The name lookup is bounded by it too (run in a small thread pool, abandoned when late).
At most 64 kB of an answer are read (raw, never decompressed); the rest is dropped with the connection.
"""

from __future__ import annotations

import logging
import socket
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import ContextVar
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Any

import httpcore
import httpx

from mnemo.domain.webhooks import MAX_URL
from mnemo.ports.webhook_sender import SendResult

log = logging.getLogger("mnemo.webhooks")

USER_AGENT = "mnemo-webhooks/1"
MAX_ANSWER = 64 * 1024  # bytes of a receiver's answer read at most
MAX_SUMMARY = 200  # characters of an answer's body kept with the attempt (and in a failed one's error)
SCHEMES = ("http", "https")
REDIRECT_NOT_FOLLOWED = "redirect not followed"

Resolver = Callable[[str, int], list[str]]

_SHARED = IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598): not global, not "private" either
_NAT64 = IPv6Network("64:ff9b::/96")  # the well-known NAT64 prefix: the last 32 bits are the IPv4 address reached
_KINDS = (
    ("unspecified", "is_unspecified"),
    ("loopback", "is_loopback"),
    ("link-local", "is_link_local"),
    ("multicast", "is_multicast"),
    ("private", "is_private"),
    ("reserved", "is_reserved"),
)

# The deadline (time.monotonic) of the attempt running in this thread; None outside `send`.
_DEADLINE: ContextVar[float | None] = ContextVar("mnemo_webhook_deadline", default=None)


def resolve_with_getaddrinfo(host: str, port: int) -> list[str]:
    """Every address of the host (IPv4 and IPv6), in the resolver's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_problem(address: str) -> str | None:
    """None when a connection to this address leaves for the public internet, else what kind of address it is
    ("loopback", "private", "link-local", ...)."""
    try:
        ip = ip_address(address)
    except ValueError:
        return "unknown"
    if isinstance(ip, IPv6Address):
        carried = _carried_ipv4(ip)
        if carried is not None:
            return address_problem(str(carried))
        if ip.is_site_local:
            return "site-local"
    for kind, test in _KINDS:
        if getattr(ip, test):
            return kind
    if isinstance(ip, IPv4Address) and ip in _SHARED:
        return "shared (carrier-grade NAT)"
    return None if ip.is_global else "non-global"


def _carried_ipv4(ip: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 one reaches: IPv4-mapped, NAT64 (well-known prefix) or 6to4."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return IPv4Address(int(ip) & 0xFFFF_FFFF)
    return ip.sixtofour


def _is_localhost(host: str) -> bool:
    name = host.rstrip(".").lower()
    return name == "localhost" or name.endswith(".localhost")  # RFC 6761: always loopback


class RefusedError(Exception):
    """No request was sent: the host does not resolve, or resolves to an address the rule refuses."""


def _parse(url: str) -> tuple[httpx.URL | None, str | None]:
    """The URL, or why it cannot be a webhook's (the rules that need no lookup)."""
    if len(url) > MAX_URL:
        return None, f"the URL is longer than {MAX_URL:,} characters"
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return None, "the URL cannot be parsed"
    problem = _shape_problem(parsed)
    return (None, problem) if problem else (parsed, None)


def _shape_problem(url: httpx.URL) -> str | None:
    if url.scheme not in SCHEMES:
        return "the scheme must be http or https"
    if url.userinfo:
        return "credentials in the URL are not allowed"
    if not url.raw_host:
        return "the URL has no host"
    if url.port is not None and not 0 < url.port < 65_536:
        return "the port is not valid"
    return None


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _left(timeout: float | None, late: type[Exception]) -> float | None:
    """The phase's timeout cut to what is left of the attempt's deadline; raises `late` when nothing is."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise late("the delivery's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read, write and TLS handshake ends by the running attempt's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        secured = self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(secured)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedBackend(httpcore.NetworkBackend):
    """Opens the pool's connections: resolves the host once, applies the address rule to every address of the
    answer, and connects to one of those checked addresses (never to the name, which could resolve again)."""

    def __init__(self, addresses: Callable[[str, int], list[str]], connect_timeout: float) -> None:
        self._addresses = addresses
        self._connect_timeout = connect_timeout
        self._sockets = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        failure: Exception | None = None
        for address in self._addresses(host, port):
            wait = _left(self._connect_timeout if timeout is None else timeout, httpcore.ConnectTimeout)
            try:
                stream = self._sockets.connect_tcp(address, port, wait, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
                continue
            return _DeadlineStream(stream)
        raise failure or httpcore.ConnectError("no address to connect to")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks are sent over TCP only")


class _PinnedTransport(httpx.HTTPTransport):
    """httpx's transport over a connection pool that opens its connections through `_PinnedBackend`. (httpx
    offers no parameter for a pool's network backend: the pool it builds is replaced, before any use.)"""

    def __init__(self, backend: _PinnedBackend, ssl_context: ssl.SSLContext, limits: httpx.Limits) -> None:
        super().__init__(verify=ssl_context, limits=limits, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )


class HttpWebhookSender:
    """POSTs deliveries with one shared, thread-safe httpx client (a pool of kept-alive connections)."""

    def __init__(
        self,
        *,
        allow_private: bool,
        connect_timeout: float,
        timeout: float,
        resolve: Resolver | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = 64,
    ) -> None:
        """`resolve(host, port)` lists a name's addresses (default: getaddrinfo); `ssl_context` verifies the
        receivers' certificates (default: httpx's, the certifi bundle)."""
        self._allow_private = allow_private
        self._connect_timeout = min(connect_timeout, timeout)
        self._timeout = timeout
        self._resolve = resolve or resolve_with_getaddrinfo
        self._lookups = ThreadPoolExecutor(max_workers=8, thread_name_prefix="mnemo-webhook-dns")
        limits = httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections // 2, keepalive_expiry=30.0
        )
        backend = _PinnedBackend(self._checked_addresses, self._connect_timeout)
        self._client = httpx.Client(
            transport=_PinnedTransport(backend, ssl_context or httpx.create_ssl_context(), limits),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(timeout, connect=self._connect_timeout),
            headers={"User-Agent": USER_AGENT, "Accept": "*/*", "Accept-Encoding": "identity"},
        )

    # ---- the address rule ---------------------------------------------------------------------------------

    def url_problem(self, url: str) -> str | None:
        parsed, problem = _parse(url)
        if parsed is None or self._allow_private:
            return problem
        token = _DEADLINE.set(time.monotonic() + self._timeout)
        try:
            self._checked_addresses(parsed.raw_host.decode("ascii"), _port(parsed))
        except RefusedError as refused:
            return str(refused)
        finally:
            _DEADLINE.reset(token)
        return None

    def _checked_addresses(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for the host: all of them allowed, or `RefusedError`."""
        literal = _literal(host)
        if literal is not None:
            kind = None if self._allow_private else address_problem(literal)
            if kind is not None:
                raise RefusedError(f"{literal} is a {kind} address")
            return [literal]
        if not self._allow_private and _is_localhost(host):
            raise RefusedError("the host is a loopback name")
        addresses = self._lookup(host, port)
        if self._allow_private:
            return addresses
        for address in addresses:
            kind = address_problem(address)
            if kind is not None:
                raise RefusedError(f"the host resolves to a {kind} address")
        return addresses

    def _lookup(self, host: str, port: int) -> list[str]:
        """The host's addresses, looked up within the running attempt's deadline."""
        deadline = _DEADLINE.get()
        lookup = self._lookups.submit(self._resolve, host, port)
        try:
            found = lookup.result(None if deadline is None else max(deadline - time.monotonic(), 0.0))
        except FutureTimeout:
            lookup.cancel()
            raise RefusedError("the host's name lookup timed out") from None
        except (OSError, ValueError, UnicodeError):
            raise RefusedError("the host does not resolve") from None
        addresses = [a for a in dict.fromkeys(found) if _literal(a) is not None]
        if not addresses:
            raise RefusedError("the host does not resolve")
        return addresses

    # ---- sending ------------------------------------------------------------------------------------------

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        started = time.monotonic()
        parsed, problem = _parse(url)
        if parsed is None:
            return SendResult(None, problem, _ms_since(started))
        token = _DEADLINE.set(started + self._timeout)
        answer: str | None = None
        try:
            status, error, answer = self._post(parsed, body, headers)
        except RefusedError as refused:
            status, error = None, f"refused: {refused}"
        except httpx.TimeoutException:
            status, error = None, f"timed out after {self._timeout:g} s"
        except httpx.HTTPError as exc:
            status, error = None, _failure(exc)
        except Exception as exc:  # a delivery attempt never raises: what went wrong is its result
            log.exception("webhook delivery to %s failed unexpectedly", parsed.host)
            status, error = None, f"unexpected error: {type(exc).__name__}"
        finally:
            _DEADLINE.reset(token)
        return SendResult(status, error, _ms_since(started), answer)

    def _post(self, url: httpx.URL, body: bytes, headers: Mapping[str, str]) -> tuple[int, str | None, str | None]:
        """The status, the error it makes (None for a success) and the start of the answer's body."""
        sent = httpx.Headers(dict(headers))
        sent["User-Agent"] = USER_AGENT
        sent["Content-Type"] = "application/json"
        with self._client.stream("POST", url, content=body, headers=sent) as response:
            status = response.status_code
            try:
                answer = _read_at_most(response, MAX_ANSWER)
            except httpx.HTTPError:  # the status line and headers came: they are the answer
                answer = b""
        text = _printable(answer)
        start = (text[:MAX_SUMMARY] + ("…" if len(text) > MAX_SUMMARY else "")) or None
        if 200 <= status < 300:
            return status, None, start
        if 300 <= status < 400:
            return status, REDIRECT_NOT_FOLLOWED, start
        return status, _summary(status, response.reason_phrase, start), start

    def close(self) -> None:
        self._client.close()
        self._lookups.shutdown(wait=False, cancel_futures=True)


def _literal(host: str) -> str | None:
    """The host as an IP address (its canonical text), or None for a name."""
    try:
        return str(ip_address(host))
    except ValueError:
        return None


def _read_at_most(response: httpx.Response, limit: int) -> bytes:
    kept = bytearray()
    for chunk in response.iter_raw():
        kept += chunk[: limit - len(kept)]
        if len(kept) >= limit:
            break
    return bytes(kept)


def _printable(answer: bytes) -> str:
    """The start of an answer's body as one line of printable text (whitespace runs made one space)."""
    text = " ".join(answer[: MAX_SUMMARY * 4].decode("utf-8", "replace").split())
    return "".join(c for c in text if c.isprintable())


def _summary(status: int, reason: str, start: str | None) -> str:
    """An answer that is not a success, as the attempt's error: its status and the start of its body."""
    head = f"HTTP {status} {reason}".rstrip()
    return f"{head}: {start}" if start else head


def _failure(exc: httpx.HTTPError) -> str:
    kind = "connection failed" if isinstance(exc, httpx.ConnectError) else "transport error"
    detail = " ".join(str(exc).split())[:MAX_SUMMARY]
    return f"{kind}: {detail}" if detail else kind


def _ms_since(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
