"""The one default TLS context of the test process (tests/support/http_clients.py): every httpx client that asks for
the default shares it, any other `verify` gets a context of its own, as httpx makes it."""

from __future__ import annotations

import ssl

import httpx

from tests.support.http_clients import share_the_default_tls_context


def context_of(client: httpx.Client) -> ssl.SSLContext:
    pool = client._transport._pool  # type: ignore[attr-defined]
    context: ssl.SSLContext = pool._ssl_context
    return context


def test_default_clients_share_one_context_and_others_get_their_own() -> None:
    share_the_default_tls_context()
    share_the_default_tls_context()  # installed twice: still httpx's own underneath
    with httpx.Client() as one, httpx.Client(timeout=3) as two, httpx.Client(verify=False) as unverified:
        assert context_of(one) is context_of(two)
        assert context_of(one).verify_mode == ssl.CERT_REQUIRED and context_of(one).check_hostname
        assert context_of(unverified) is not context_of(one)
        assert context_of(unverified).verify_mode == ssl.CERT_NONE
    given = ssl.create_default_context()
    with httpx.Client(verify=given) as own:
        assert context_of(own) is given
