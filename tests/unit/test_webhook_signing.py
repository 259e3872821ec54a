"""Webhook signatures, checked by the reference verifier of Standard Webhooks (the `standardwebhooks` package)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook as Verifier
from standardwebhooks.webhooks import WebhookVerificationError

from mnemo.domain.memory import now
from mnemo.domain.webhooks import new_secret
from mnemo.services.platform.webhooks.signing import encode_body, secret_key, signed_headers

BODY = {"event_type": "memory_add", "event_details": {"id": "m1", "data": {"memory": "Aimée aime le thé ☕"}}}


def test_a_signature_verifies_and_carries_the_given_id_and_time() -> None:
    secret = new_secret()
    at = now()
    body = encode_body(BODY)

    headers = signed_headers("msg_123", at, body, [secret])

    assert headers["webhook-id"] == "msg_123"
    assert headers["webhook-timestamp"] == str(int(at.timestamp()))
    assert headers["webhook-signature"].startswith("v1,")
    assert Verifier(secret).verify(body, headers) == BODY


def test_the_signature_is_the_hmac_of_id_timestamp_and_body() -> None:
    key = bytes(range(32))
    secret = "whsec_" + base64.b64encode(key).decode()
    at = datetime(2025, 1, 2, 3, 4, 5, 900_000, tzinfo=UTC)
    body = b'{"a":1}'

    headers = signed_headers("msg_1", at, body, [secret])

    digest = hmac.new(key, b'msg_1.1735787045.{"a":1}', hashlib.sha256).digest()
    assert headers == {
        "webhook-id": "msg_1",
        "webhook-timestamp": "1735787045",
        "webhook-signature": "v1," + base64.b64encode(digest).decode(),
    }


def test_the_timestamp_is_unix_seconds_whatever_the_time_zone() -> None:
    at = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    elsewhere = at.astimezone(timezone(timedelta(hours=-7)))
    naive = at.replace(tzinfo=None)  # taken as UTC

    stamps = {signed_headers("m", t, b"{}", [new_secret()])["webhook-timestamp"] for t in (at, elsewhere, naive)}

    assert stamps == {"1735787045"}


def test_during_a_rotation_either_secret_verifies() -> None:
    current, previous = new_secret(), new_secret()
    body = encode_body(BODY)
    at = now()

    headers = signed_headers("msg_rot", at, body, [current, previous])

    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 2
    assert all(s.startswith("v1,") for s in signatures)
    assert signatures[0] == signed_headers("msg_rot", at, body, [current])["webhook-signature"]
    assert Verifier(current).verify(body, headers) == BODY
    assert Verifier(previous).verify(body, headers) == BODY
    with pytest.raises(WebhookVerificationError):
        Verifier(new_secret()).verify(body, headers)


def test_a_tampered_body_id_or_timestamp_fails() -> None:
    secret = new_secret()
    body = encode_body(BODY)
    headers = signed_headers("msg_t", now(), body, [secret])
    verifier = Verifier(secret)

    with pytest.raises(WebhookVerificationError):
        verifier.verify(body.replace("thé".encode(), b"the"), headers)
    with pytest.raises(WebhookVerificationError):
        verifier.verify(body, {**headers, "webhook-id": "msg_other"})
    later = str(int(headers["webhook-timestamp"]) + 1)
    with pytest.raises(WebhookVerificationError):
        verifier.verify(body, {**headers, "webhook-timestamp": later})


def test_the_body_is_compact_utf8_json() -> None:
    body = encode_body(BODY)

    assert b" " not in body.replace("Aimée aime le thé ☕".encode(), b"")
    assert "☕".encode() in body
    assert json.loads(body) == BODY


def test_secrets_are_checked() -> None:
    assert len(secret_key(new_secret())) == 32
    assert secret_key("whsec_" + base64.b64encode(b"k" * 32).decode().rstrip("=")) == b"k" * 32
    with pytest.raises(ValueError, match="at least one"):
        signed_headers("m", now(), b"{}", [])
    with pytest.raises(ValueError):
        secret_key("whsec_not base64!")
    with pytest.raises(ValueError):
        secret_key("whsec_")
