"""The AWS backend's OpenSearch transport makes its HTTP client on the first request, never before, once."""

from __future__ import annotations

from collections.abc import Mapping

from mnemo.adapters.opensearch.transport import Response
from mnemo.composition.lazy_transport import LazyTransport


class RecordingTransport:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes | None, Mapping[str, str] | None, str]] = []
        self.closed = 0

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Response:
        self.requests.append((method, path, body, params, content_type))
        return Response(200, {"path": path})

    def close(self) -> None:
        self.closed += 1


class Builder:
    def __init__(self) -> None:
        self.built: list[RecordingTransport] = []

    def __call__(self) -> RecordingTransport:
        self.built.append(RecordingTransport())
        return self.built[-1]


def test_nothing_is_built_until_the_first_request() -> None:
    # Given a lazy transport
    build = Builder()
    transport = LazyTransport(build)

    # Then no real transport exists yet
    assert build.built == []
    assert transport.built is False


def test_every_request_goes_to_one_transport_built_on_the_first() -> None:
    # Given a lazy transport
    build = Builder()
    transport = LazyTransport(build)

    # When two requests are made, with every argument
    first = transport.request("PUT", "/idx/_doc/1", b"{}", params={"refresh": "false"}, content_type="application/x")
    second = transport.request("GET", "/idx")

    # Then one transport was built and it received both requests as given, answering them
    assert len(build.built) == 1
    assert transport.built is True
    assert build.built[0].requests == [
        ("PUT", "/idx/_doc/1", b"{}", {"refresh": "false"}, "application/x"),
        ("GET", "/idx", None, None, "application/json"),
    ]
    assert (first.status, first.body, second.body) == (200, {"path": "/idx/_doc/1"}, {"path": "/idx"})


def test_closing_closes_only_a_built_transport_and_only_once() -> None:
    # Given a lazy transport never used, and one used
    unused_build, used_build = Builder(), Builder()
    unused, used = LazyTransport(unused_build), LazyTransport(used_build)
    used.request("GET", "/")

    # When both are closed, the used one twice
    unused.close()
    used.close()
    used.close()

    # Then nothing was built for the unused one, and the built transport was closed once
    assert unused_build.built == []
    assert used_build.built[0].closed == 1
    assert used.built is False
