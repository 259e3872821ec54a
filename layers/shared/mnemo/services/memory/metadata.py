"""A memory's metadata as a caller may set it: the identity fields (user_id, agent_id, …) belong to its scope, so an
add or an update never stores them as metadata."""

from __future__ import annotations

from typing import Any

from mnemo.domain.memory import IDENTITY_FIELDS


def strip_identity(metadata: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (metadata or {}).items() if k not in IDENTITY_FIELDS}
