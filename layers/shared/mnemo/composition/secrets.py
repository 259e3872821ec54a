"""Secrets on AWS: the settings name SSM Parameter Store parameters (MNEMO_JWT_SECRET_PARAMETER, ...), never
values; their values are read once, at cold start, into the settings."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from mnemo.adapters.aws.parameters import read_parameters
from mnemo.settings import Settings

# setting that names the parameter -> the secret setting it fills, or the provider config that gets `api_key`
SECRET_PARAMETERS = {
    "jwt_secret_parameter": "jwt_secret",
    "admin_api_key_parameter": "admin_api_key",
    "config_encryption_key_parameter": "config_encryption_key",
}
API_KEY_PARAMETERS = {
    "llm_api_key_parameter": "llm_config",
    "embedder_api_key_parameter": "embedder_config",
}


def with_secrets(settings: Settings, client: Any) -> Settings:
    """The settings with every secret whose parameter is named read from SSM (a value already set wins)."""
    named = {
        field: name
        for field, name in ((f, getattr(settings, f)) for f in (*SECRET_PARAMETERS, *API_KEY_PARAMETERS))
        if name
    }
    pending = {
        f: n for f, n in named.items() if f not in SECRET_PARAMETERS or not settings.secret(SECRET_PARAMETERS[f])
    }
    if not pending:
        return settings
    values = read_parameters(client, pending.values())
    update: dict[str, Any] = {}
    for field, name in pending.items():
        if field in SECRET_PARAMETERS:
            update[SECRET_PARAMETERS[field]] = SecretStr(values[name])
        else:
            config_field = API_KEY_PARAMETERS[field]
            update[config_field] = {**getattr(settings, config_field), "api_key": values[name]}
    return settings.model_copy(update=update)
