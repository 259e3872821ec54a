"""Secrets from SSM Parameter Store: SecureString parameters read by name (decrypted) once, at cold start.

The deployment passes parameter NAMES in the environment (MNEMO_JWT_SECRET_PARAMETER, ...), never values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import SecretStr

from mnemo.errors import ConfigurationError
from mnemo.settings import Settings

MAX_NAMES_PER_CALL = 10  # GetParameters takes at most ten names

# setting that names the parameter -> the secret setting it fills, or the provider config that gets `api_key`
SECRET_PARAMETERS = {
    "jwt_secret_parameter": "jwt_secret",
    "admin_api_key_parameter": "admin_api_key",
}
API_KEY_PARAMETERS = {
    "llm_api_key_parameter": "llm_config",
    "embedder_api_key_parameter": "embedder_config",
}


def read_parameters(client: Any, names: Iterable[str]) -> dict[str, str]:
    """Each parameter's decrypted value by name. ConfigurationError names any parameter that does not exist."""
    wanted = list(dict.fromkeys(names))
    values: dict[str, str] = {}
    missing: list[str] = []
    for start in range(0, len(wanted), MAX_NAMES_PER_CALL):
        reply = client.get_parameters(Names=wanted[start : start + MAX_NAMES_PER_CALL], WithDecryption=True)
        values.update({p["Name"]: p["Value"] for p in reply.get("Parameters", [])})
        missing.extend(reply.get("InvalidParameters", []))
    if missing:
        raise ConfigurationError(f"SSM parameters not found (create them first): {', '.join(sorted(missing))}.")
    return values


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
