"""Secrets from SSM Parameter Store: SecureString parameters read by name (decrypted) once, at cold start.

The deployment passes parameter NAMES in the environment (MNEMO_JWT_SECRET_PARAMETER, ...), never values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mnemo.errors import ConfigurationError

MAX_NAMES_PER_CALL = 10  # GetParameters takes at most ten names


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
