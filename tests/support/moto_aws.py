"""moto helpers: boto3 clients made once per test session (making one is the slow part) and used inside each
test's own `mock_aws()`, which starts empty; and a wrapper for moto's backends, which are not thread-safe."""

from __future__ import annotations

import functools
import threading
from typing import Any

import boto3

REGION = "us-east-1"


@functools.cache
def client(service: str) -> Any:
    """A client with fake credentials: only ever used while a mock_aws() is active."""
    return boto3.client(service, region_name=REGION, aws_access_key_id="moto", aws_secret_access_key="moto")


def aws_cli_environment(monkeypatch: Any, **variables: str) -> None:
    """The environment a `mnemo` command sees on the AWS backend under moto (fake credentials, the test region),
    with the stack's `variables` (MNEMO_ACCOUNTS_TABLE=..., ...)."""
    base = {
        "MNEMO_BACKEND": "aws",
        "MNEMO_AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "moto",
        "AWS_SECRET_ACCESS_KEY": "moto",
    }
    for name, value in {**base, **variables}.items():
        monkeypatch.setenv(name, value)


class OneCallAtATime:
    """moto's in-memory services are not thread-safe (AWS is): calls from many threads take turns."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._wrapped, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return method(*args, **kwargs)

        return call
