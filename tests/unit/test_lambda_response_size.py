"""Lambda returns at most 6 MB, counted as its Python runtime sends the response: JSON with every non-ASCII
character escaped. An answer over that is a 413 telling the caller to ask for less, not API Gateway's 502."""

from __future__ import annotations

import json

from mnemo.entrypoints.lambda_http import MAX_RESPONSE_BYTES, response_bytes, too_large


def response(body: str) -> dict[str, object]:
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": body, "isBase64Encoded": False}


def test_a_body_is_counted_as_the_runtime_escapes_it() -> None:
    small = response('{"memory": "I keep bees"}')
    assert response_bytes(small) == len(small["body"])  # type: ignore[arg-type]
    accented = response(json.dumps({"memory": "é" * 1_100_000}, ensure_ascii=False))  # 2.2 MB of UTF-8
    assert response_bytes(accented) > MAX_RESPONSE_BYTES  # 6.6 MB once escaped
    ascii_only = response("x" * 5_000_000)
    assert response_bytes(ascii_only) < MAX_RESPONSE_BYTES


def test_too_large_is_a_413_that_says_how_to_ask_for_less() -> None:
    refused = too_large(response("é" * 1_100_000))
    assert refused["statusCode"] == 413
    assert "smaller page" in json.loads(refused["body"])["detail"]
