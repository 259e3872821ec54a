"""The HTTP webhook sender against real receivers on loopback (http.server in a thread; no internet): what it
sends, what it makes of each answer, its deadline, and the address rule at create time and at send time (DNS
rebinding included), over http and https. Names are resolved by fake resolvers: no lookup leaves the machine."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from mnemo.adapters.webhooks.http_sender import USER_AGENT, HttpWebhookSender, address_problem
from tests.support.waits import seconds

PUBLIC_V4 = "93.184.216.34"
PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946"
TIMEOUT = 0.5  # the whole attempt, in the tests of the deadline
MARGIN = 2.0  # a quiet machine's bound on an attempt that must not wait for the receiver (scaled: seconds())


# ---- the receiver -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes
    client_port: int


class _Server(ThreadingHTTPServer):
    # A listen backlog for the concurrent deliveries (the default, 5, drops a burst's connects on a busy machine)
    request_queue_size = 64


class Receiver:
    """An HTTP(S) server on 127.0.0.1 that records each request, then answers as its path says: /ok (200),
    /status/<code>, /redirect/<code> (to /target), /sleep (no answer until released), /trickle-head (the status
    line a byte at a time), /trickle-body (200, then the body a byte at a time), /huge/<code> (10 MB)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        self.server_names: list[str | None] = []
        self.release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver.requests.append(Received(self.path, headers, body, self.client_address[1]))
                receiver.answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    @property
    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        kind, _, code = handler.path.partition("?")[0].strip("/").partition("/")
        if kind in ("ok", "target"):
            self._reply(handler, 200, b"thanks")
        elif kind == "status":
            self._reply(handler, int(code), b'{"detail": "no thank you"}')
        elif kind == "redirect":
            self._reply(handler, int(code), b"", location=self.url("/target"))
        elif kind == "sleep":
            self.release.wait()  # until the test ends: a sender without a deadline of its own would hang
            self._reply(handler, 200, b"late")
        elif kind == "trickle-head":
            self._trickle(handler, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        elif kind == "trickle-body":
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            self._trickle(handler, b"x" * 1000)
        elif kind == "huge":
            self._huge(handler, int(code))

    @staticmethod
    def _reply(handler: BaseHTTPRequestHandler, status: int, body: bytes, location: str | None = None) -> None:
        handler.send_response(status)
        if location:
            handler.send_header("Location", location)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def _trickle(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        handler.close_connection = True
        try:
            for byte in data:
                if self.release.wait(0.05):
                    return
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
        except OSError:
            return

    @staticmethod
    def _huge(handler: BaseHTTPRequestHandler, status: int) -> None:
        handler.close_connection = True
        chunk = b"y" * 65_536
        try:
            handler.send_response(status)
            handler.send_header("Content-Length", str(160 * len(chunk)))
            handler.end_headers()
            for _ in range(160):
                handler.wfile.write(chunk)
        except OSError:
            return


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


def sender(
    allow_private: bool = True, timeout: float = 5.0, connect_timeout: float = 1.0, **options: Any
) -> HttpWebhookSender:
    return HttpWebhookSender(allow_private=allow_private, connect_timeout=connect_timeout, timeout=timeout, **options)


@pytest.fixture
def local() -> Iterator[HttpWebhookSender]:
    """A sender that may reach loopback (a deployment with `webhook_allow_private_urls`), its bounds scaled: what
    it is used for must succeed on a busy machine."""
    running = sender(connect_timeout=seconds(1.0), timeout=seconds(5.0))
    yield running
    running.close()


def resolver(table: dict[str, list[str]]) -> Callable[[str, int], list[str]]:
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ---- what is sent, and what each answer is -------------------------------------------------------------------


def test_a_2xx_is_delivered_with_the_body_and_headers(receiver: Receiver, local: HttpWebhookSender) -> None:
    body = b'{"event_type":"memory_add","memory":"th\xc3\xa9"}'

    result = local.send(receiver.url("/ok"), body, {"webhook-id": "msg_1", "webhook-signature": "v1,abc"})

    assert (result.status_code, result.error, result.delivered) == (200, None, True)
    assert result.latency_ms > 0
    assert result.response == "thanks"  # what the receiver answered, kept for the delivery log
    (got,) = receiver.requests
    assert got.body == body
    assert got.headers["user-agent"] == USER_AGENT
    assert got.headers["content-type"] == "application/json"
    assert got.headers["host"] == f"127.0.0.1:{receiver.port}"
    assert (got.headers["webhook-id"], got.headers["webhook-signature"]) == ("msg_1", "v1,abc")


def test_the_sender_s_own_headers_win(receiver: Receiver, local: HttpWebhookSender) -> None:
    local.send(receiver.url("/ok"), b"{}", {"user-agent": "spoof", "Content-Type": "text/plain"})

    (got,) = receiver.requests
    assert (got.headers["user-agent"], got.headers["content-type"]) == (USER_AGENT, "application/json")


@pytest.mark.parametrize("status", [500, 410, 400, 429])
def test_a_failure_returns_its_code_and_what_the_receiver_said(
    receiver: Receiver, local: HttpWebhookSender, status: int
) -> None:
    result = local.send(receiver.url(f"/status/{status}"), b"{}", {})

    assert result.status_code == status
    assert not result.delivered
    assert result.error is not None
    assert result.error.startswith(f"HTTP {status}")
    assert "no thank you" in result.error
    assert result.response == '{"detail": "no thank you"}'


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_not_followed(receiver: Receiver, local: HttpWebhookSender, status: int) -> None:
    result = local.send(receiver.url(f"/redirect/{status}"), b"{}", {})

    assert (result.status_code, result.error, result.delivered) == (status, "redirect not followed", False)
    assert receiver.paths == [f"/redirect/{status}"]  # the target got nothing


def test_a_large_answer_is_not_read_whole(receiver: Receiver) -> None:
    # the sender's own deadline bounds each attempt: one that read the 10 MB whole would end "timed out"
    bounded = sender(timeout=seconds(MARGIN))

    failed = bounded.send(receiver.url("/huge/500"), b"{}", {})
    delivered = bounded.send(receiver.url("/huge/200"), b"{}", {})

    assert (failed.status_code, delivered.status_code, delivered.error) == (500, 200, None)
    assert failed.error is not None
    assert len(failed.error) < 300
    # the start of each answer is kept, cut to a line of printable text
    assert failed.response is not None and delivered.response is not None
    assert len(failed.response) <= 201 and len(delivered.response) <= 201
    assert failed.response.endswith("…") and delivered.response.endswith("…")
    bounded.close()


def test_a_connection_is_kept_alive_between_deliveries(receiver: Receiver, local: HttpWebhookSender) -> None:
    assert local.send(receiver.url("/ok"), b"{}", {}).delivered
    assert local.send(receiver.url("/ok"), b"{}", {}).delivered

    first, second = receiver.requests
    assert first.client_port == second.client_port


def test_deliveries_may_be_sent_from_many_threads(receiver: Receiver, local: HttpWebhookSender) -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: local.send(receiver.url(f"/ok?n={i}"), b"{}", {}), range(40)))

    assert [r.error for r in results if not r.delivered] == []
    assert len(receiver.requests) == 40


# ---- no answer: a status of None, never an exception, within the deadline -----------------------------------


def test_a_refused_connection_has_no_status() -> None:
    # the sender's own deadline bounds the attempt: one that kept retrying the connection would end "timed out"
    bounded = sender(timeout=seconds(MARGIN))

    result = bounded.send(f"http://127.0.0.1:{closed_port()}/ok", b"{}", {})

    assert result.status_code is None
    assert result.error is not None
    assert result.error.startswith("connection failed")
    bounded.close()


@pytest.mark.parametrize("path", ["/sleep", "/trickle-head"])
def test_a_receiver_that_does_not_answer_in_time_has_no_status(receiver: Receiver, path: str) -> None:
    quick = sender(timeout=TIMEOUT)
    started = time.monotonic()

    result = quick.send(receiver.url(path), b"{}", {})

    elapsed = time.monotonic() - started
    # the receiver holds its answer until the test ends (/sleep) or for seconds (/trickle-head): no status is the
    # sender's deadline at work; it waited that deadline out, and its latency is the attempt's, within the call's
    # (the latency is rounded to a tenth of a millisecond, so it may pass the call's by half of one)
    assert result.status_code is None
    assert result.error == f"timed out after {TIMEOUT:g} s"
    assert TIMEOUT * 0.8 <= result.latency_ms / 1000 <= elapsed + 0.00005
    quick.close()


def test_a_trickled_body_does_not_hold_the_attempt(receiver: Receiver) -> None:
    """The status line came at once: it is the answer, whatever the body does afterwards (a byte every 50 ms: read
    whole, it would outlast the deadline and end "timed out")."""
    quick = sender(timeout=TIMEOUT)

    result = quick.send(receiver.url("/trickle-body"), b"{}", {})

    assert (result.status_code, result.error) == (200, None)
    quick.close()


def test_a_slow_name_lookup_does_not_hold_the_attempt(receiver: Receiver) -> None:
    returned = threading.Event()

    def slow(host: str, port: int) -> list[str]:
        returned.wait(seconds(60))  # until the attempt has returned: one that waited for the lookup would hang
        return ["127.0.0.1"]

    quick = sender(timeout=TIMEOUT, resolve=slow)

    try:
        result = quick.send(receiver.url("/ok", host="slow.test"), b"{}", {})
    finally:
        returned.set()

    assert result.status_code is None
    assert result.error == "refused: the host's name lookup timed out"
    assert receiver.requests == []
    quick.close()


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("ftp://example.com/x", "the scheme must be http or https"),
        ("http://user:pw@example.com/", "credentials in the URL are not allowed"),
        ("http://nowhere.test/", "refused: the host does not resolve"),
    ],
)
def test_a_url_that_cannot_be_sent_to_is_a_result(url: str, error: str) -> None:
    with_names = sender(resolve=resolver({}))

    result = with_names.send(url, b"{}", {})

    assert (result.status_code, result.error) == (None, error)
    with_names.close()


# ---- the address rule, at create time -------------------------------------------------------------------------

NAMES = {
    "internal.test": ["10.1.2.3"],
    "mixed.test": [PUBLIC_V4, "10.0.0.1"],
    "mixed6.test": [PUBLIC_V6, "fd00::1"],
    "metadata.test": ["169.254.169.254"],
    "public.test": [PUBLIC_V4, PUBLIC_V6],
    "public6.test": [PUBLIC_V6],
}


@pytest.fixture
def strict() -> Iterator[HttpWebhookSender]:
    """A production sender (no private addresses) whose names are those of NAMES."""
    running = sender(allow_private=False, resolve=resolver(NAMES))
    yield running
    running.close()


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "http:///no-host",
        "http://user:pw@public.test/",
        "https://token@public.test/",
        "https://public.test/" + "x" * 2_048,
        "http://127.0.0.1/",
        "http://127.1.2.3:8080/",
        "http://localhost/",
        "http://LOCALHOST./",
        "http://api.localhost/",
        "http://[::1]/",
        "http://10.0.0.5/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[fd12:3456::1]/",
        "http://[fec0::1]/",
        "http://224.0.0.1/",
        "http://[ff02::1]/",
        "http://[ff0e::1]/",
        "http://240.0.0.1/",
        "http://255.255.255.255/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://[::7f00:1]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://100.64.0.1/",
        "http://198.18.0.1/",
        "http://internal.test/hook",
        "https://mixed.test/hook",
        "https://mixed6.test/hook",
        "http://metadata.test/latest/meta-data/",
        "http://nowhere.test/",
    ],
)
def test_a_url_inside_the_deployment_is_refused(strict: HttpWebhookSender, url: str) -> None:
    problem = strict.url_problem(url)

    assert problem is not None
    assert len(problem) < 100


def test_the_refusals_say_why(strict: HttpWebhookSender) -> None:
    assert strict.url_problem("ftp://public.test/") == "the scheme must be http or https"
    assert strict.url_problem("http://a:b@public.test/") == "credentials in the URL are not allowed"
    assert strict.url_problem("http://127.0.0.1/") == "127.0.0.1 is a loopback address"
    assert strict.url_problem("http://169.254.169.254/") == "169.254.169.254 is a link-local address"
    assert strict.url_problem("http://100.64.0.1/") == "100.64.0.1 is a shared (carrier-grade NAT) address"
    assert strict.url_problem("http://internal.test/") == "the host resolves to a private address"
    assert strict.url_problem("http://nowhere.test/") == "the host does not resolve"
    assert strict.url_problem("http://public.test/" + "x" * 2_048) == "the URL is longer than 2,048 characters"


@pytest.mark.parametrize(
    "url",
    [
        "https://public.test/hook",
        "http://public.test:8080/hook?team=1",
        "https://public6.test/",
        f"https://{PUBLIC_V4}/hook",
        f"http://[{PUBLIC_V6}]/hook",
        "http://[::ffff:93.184.216.34]/",
        "http://[64:ff9b::5db8:d822]/",  # NAT64 of the public address
    ],
)
def test_a_public_url_is_accepted(strict: HttpWebhookSender, url: str) -> None:
    assert strict.url_problem(url) is None


def test_with_private_addresses_allowed_only_the_url_itself_is_checked() -> None:
    def no_lookup(host: str, port: int) -> list[str]:
        raise AssertionError("url_problem looked the name up")

    lenient = sender(allow_private=True, resolve=no_lookup)

    for url in ("http://127.0.0.1/", "http://localhost:8000/hook", "http://10.0.0.5/", "http://unknown.test/"):
        assert lenient.url_problem(url) is None
    assert lenient.url_problem("ftp://127.0.0.1/") == "the scheme must be http or https"
    assert lenient.url_problem("http://u:p@127.0.0.1/") == "credentials in the URL are not allowed"
    assert lenient.url_problem("http://127.0.0.1/" + "x" * 2_048) is not None
    assert lenient.url_problem("http:///x") == "the URL has no host"
    lenient.close()


def test_the_address_rule_by_address() -> None:
    assert address_problem(PUBLIC_V4) is None
    assert address_problem(PUBLIC_V6) is None
    for address, kind in [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("fc00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.251", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:192.168.0.1", "private"),
        ("100.127.255.254", "shared (carrier-grade NAT)"),
    ]:
        assert address_problem(address) == kind, address
    # whatever this Python's ipaddress tables say, nothing it holds not global gets through
    for network in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"):
        assert address_problem(str(ipaddress.ip_network(network)[1])) is not None


# ---- the address rule, at send time ----------------------------------------------------------------------------


def test_a_loopback_receiver_is_refused_at_send_time(receiver: Receiver) -> None:
    """url_problem bypassed (an old webhook, a changed rule): the send itself refuses."""
    production = sender(allow_private=False, resolve=resolver({"hooks.test": ["127.0.0.1"]}))

    for url in (receiver.url("/ok"), receiver.url("/ok", host="hooks.test"), receiver.url("/ok", host="[::1]")):
        result = production.send(url, b"{}", {})
        assert result.status_code is None, url
        assert result.error is not None
        assert result.error.startswith("refused: "), result.error

    assert receiver.requests == []
    production.close()


def test_dns_rebinding_is_refused_at_send_time(receiver: Receiver) -> None:
    """The name answers a public address when the webhook is saved, then 127.0.0.1 when it is sent."""
    answers = iter([[PUBLIC_V4], ["127.0.0.1"], ["127.0.0.1"]])
    asked: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    production = sender(allow_private=False, resolve=rebinding)
    url = receiver.url("/ok", host="rebind.test")

    assert production.url_problem(url) is None
    result = production.send(url, b"{}", {})

    assert (result.status_code, result.error) == (None, "refused: the host resolves to a loopback address")
    assert asked == ["rebind.test", "rebind.test"]  # once at the check, once at the connection: the same answer
    assert receiver.requests == []
    production.close()


def test_a_name_with_one_private_address_is_refused_at_send_time(receiver: Receiver) -> None:
    production = sender(allow_private=False, resolve=resolver({"mixed.test": [PUBLIC_V4, "127.0.0.1"]}))

    result = production.send(receiver.url("/ok", host="mixed.test"), b"{}", {})

    assert (result.status_code, result.error) == (None, "refused: the host resolves to a loopback address")
    assert receiver.requests == []
    production.close()


def test_with_private_addresses_allowed_a_name_reaches_its_resolved_address(receiver: Receiver) -> None:
    """The connection goes to the address the resolver gave (the name exists nowhere else), and the request
    still names the URL's host."""
    lenient = sender(allow_private=True, resolve=resolver({"hooks.test": ["127.0.0.1"]}))

    result = lenient.send(receiver.url("/ok", host="hooks.test"), b"{}", {})

    assert result.delivered
    (got,) = receiver.requests
    assert got.headers["host"] == f"hooks.test:{receiver.port}"
    lenient.close()


def test_the_next_address_is_tried_when_one_refuses(receiver: Receiver) -> None:
    lenient = sender(allow_private=True, resolve=resolver({"hooks.test": ["127.0.0.2", "127.0.0.1"]}))

    assert lenient.send(receiver.url("/ok", host="hooks.test"), b"{}", {}).delivered
    lenient.close()


# ---- https: the connection goes to the checked address, TLS still verifies the URL's name ----------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for hooks.test (its own trust anchor), and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hooks.test")])
    start = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return folder / "cert.pem", folder / "key.pem"


@pytest.fixture
def tls_receiver(certificate: tuple[Path, Path]) -> Iterator[Receiver]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    with Receiver(tls=context) as running:
        yield running


@pytest.fixture
def tls_sender(certificate: tuple[Path, Path]) -> Iterator[HttpWebhookSender]:
    """Trusts the test certificate; hooks.test and other.test both resolve to 127.0.0.1."""
    trust = ssl.create_default_context(cafile=str(certificate[0]))
    names = {"hooks.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]}
    running = sender(allow_private=True, resolve=resolver(names), ssl_context=trust)
    yield running
    running.close()


def test_https_is_sent_to_the_resolved_address_with_the_url_s_name(
    tls_receiver: Receiver, tls_sender: HttpWebhookSender
) -> None:
    result = tls_sender.send(tls_receiver.url("/ok", host="hooks.test", scheme="https"), b"{}", {})

    assert (result.status_code, result.error) == (200, None)
    assert tls_receiver.server_names == ["hooks.test"]  # SNI
    (got,) = tls_receiver.requests
    assert got.headers["host"] == f"hooks.test:{tls_receiver.port}"


def test_https_verifies_the_certificate_against_the_url_s_name(
    tls_receiver: Receiver, tls_sender: HttpWebhookSender
) -> None:
    """other.test resolves to the same address as hooks.test: its request must not ride on (or be verified by)
    the connection made for hooks.test."""
    assert tls_sender.send(tls_receiver.url("/ok", host="hooks.test", scheme="https"), b"{}", {}).delivered

    for host in ("other.test", "127.0.0.1"):
        result = tls_sender.send(tls_receiver.url("/ok", host=host, scheme="https"), b"{}", {})
        assert result.status_code is None, host
        assert result.error is not None
        assert "CERTIFICATE_VERIFY_FAILED" in result.error, result.error

    assert [r.headers["host"] for r in tls_receiver.requests] == [f"hooks.test:{tls_receiver.port}"]
