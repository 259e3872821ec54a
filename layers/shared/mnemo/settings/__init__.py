"""Typed settings, read from MNEMO_* environment variables (and overridden by `mnemo serve` flags).

`Settings` is one flat set of fields, each one environment variable, assembled from a class per concern (the server,
the providers, authentication, the AWS backend, the embedded index, the platform's features, the console's
sign-in) so that each concern's settings read together and the configuration reference can be grouped the same
way."""

from __future__ import annotations

from mnemo.settings.auth import AuthSettings
from mnemo.settings.aws import AwsSettings
from mnemo.settings.console import ConsoleSettings
from mnemo.settings.index import IndexSettings
from mnemo.settings.platform import PlatformSettings
from mnemo.settings.providers import ProviderSettings
from mnemo.settings.server import ServerSettings

__all__ = [
    "AuthSettings",
    "AwsSettings",
    "ConsoleSettings",
    "IndexSettings",
    "PlatformSettings",
    "ProviderSettings",
    "ServerSettings",
    "Settings",
]


class Settings(
    ServerSettings, ProviderSettings, AuthSettings, AwsSettings, IndexSettings, PlatformSettings, ConsoleSettings
):
    """Every setting of the service."""
