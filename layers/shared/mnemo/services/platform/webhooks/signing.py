"""The signature of a webhook delivery, as Standard Webhooks defines it (https://www.standardwebhooks.com/).

A delivery carries three headers: `webhook-id` (the delivery's id, the same on every retry), `webhook-timestamp`
(the attempt's time, integer Unix seconds) and `webhook-signature`: `v1,` and the base64 of the HMAC-SHA256 of
`{id}.{timestamp}.{body}`, keyed by the secret's bytes (the base64 after `whsec_`). During a rotation the
delivery is signed by each secret, the signatures separated by a space, the current secret's first: a receiver
holding either secret verifies it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from mnemo.domain.webhooks import SECRET_PREFIX

SIGNATURE_VERSION = "v1"


def encode_body(body: Mapping[str, Any]) -> bytes:
    """A delivery's body: compact JSON in UTF-8 (the exact bytes that are signed and sent)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signed_headers(message_id: str, timestamp: datetime, body: bytes, secrets: Sequence[str]) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt: its id, its time and the body's signature by each secret
    (the current one first). A naive `timestamp` is taken as UTC."""
    if not secrets:
        raise ValueError("a delivery is signed by at least one secret")
    seconds = unix_seconds(timestamp)
    signed = f"{message_id}.{seconds}.".encode() + body
    signatures = " ".join(_signature(secret_key(secret), signed) for secret in secrets)
    return {"webhook-id": message_id, "webhook-timestamp": str(seconds), "webhook-signature": signatures}


def secret_key(secret: str) -> bytes:
    """The HMAC key of a `whsec_…` secret: the bytes its base64 encodes (padding optional)."""
    encoded = secret.removeprefix(SECRET_PREFIX)
    key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    if not key:
        raise ValueError("a signing secret may not be empty")
    return key


def unix_seconds(at: datetime) -> int:
    return math.floor((at if at.tzinfo is not None else at.replace(tzinfo=UTC)).timestamp())


def _signature(key: bytes, signed: bytes) -> str:
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode('ascii')}"
