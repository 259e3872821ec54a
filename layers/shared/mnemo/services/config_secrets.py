"""The secrets of the provider configuration: which fields hold one, how they are shown (never in full) and how they
are kept (sealed by a SecretBox before the configuration is stored, opened when it is read back).

A field holds a secret by its name, at any depth of a provider section: the names of SECRET_NAMES, and any name
ending like one (`*_key`, `*_token`, `*_secret`, `*_password`). A value stored in clear by an older version is read as
it is and sealed with the rest at the next write."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo.ports.secret_box import SecretBox

SECRET_NAMES = frozenset(
    {
        "admin_api_key",
        "api_key",
        "apikey",
        "authorization",
        "jwt_secret",
        "password",
        "password_hash",
        "secret",
        "token",
        "aws_secret_access_key",
        "aws_session_token",
        "azure_ad_token",
    }
)
SECRET_SUFFIXES = ("_key", "_token", "_secret", "_password")
REDACTED = "[redacted]"
PROVIDER_SECTIONS = ("llm", "embedder")


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_NAMES or lowered.endswith(SECRET_SUFFIXES)


def redact(value: Any) -> Any:
    """`value` with every secret-named field that holds something replaced by REDACTED."""
    if isinstance(value, dict):
        return {k: (REDACTED if is_secret_name(k) and v else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def seal_secrets(config: dict[str, Any], box: SecretBox) -> dict[str, Any]:
    """The configuration to store (given as `open_secrets` answers it): every secret-named string of its provider
    sections sealed, one that merely looks sealed too (a caller's value is never taken for a sealed one)."""
    return _each_section(config, lambda section: _secrets_mapped(section, box.seal))


def open_secrets(config: dict[str, Any], box: SecretBox) -> dict[str, Any]:
    """The stored configuration as it was given: every sealed secret of its provider sections opened (one stored in
    clear kept as it is). Raises ConfigurationError when one cannot be opened."""
    return _each_section(
        config, lambda section: _secrets_mapped(section, lambda v: box.open(v) if box.sealed(v) else v)
    )


def _each_section(config: dict[str, Any], change: Callable[[Any], Any]) -> dict[str, Any]:
    return {k: (change(v) if k in PROVIDER_SECTIONS else v) for k, v in config.items()}


def _secrets_mapped(value: Any, secret: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {
            k: (secret(v) if is_secret_name(k) and isinstance(v, str) and v else _secrets_mapped(v, secret))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_secrets_mapped(v, secret) for v in value]
    return value
