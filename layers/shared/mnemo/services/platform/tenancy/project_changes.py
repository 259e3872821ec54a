"""What a project patch changes (the values it may set or clear, its categories parsed), and the checks of a
member's email and role."""

from __future__ import annotations

from typing import Any

from mnemo.domain.tenancy import (
    Role,
)
from mnemo.errors import ValidationError
from mnemo.services.categories import parse_categories


def required_email(email: Any) -> str:
    if not email:
        raise ValidationError("email is required.")
    return email if isinstance(email, str) else str(email)


def required_role(role: Any) -> Any:
    if not role:
        raise ValidationError("role is required (READER or OWNER).")
    return role


# What a project patch may set (besides custom_categories and enable_graph): the values it stores as they are.
PATCHED = (
    "name",
    "description",
    "custom_instructions",
    "multilingual",
    "decay",
    "agent_custom_instructions",
    "memory_depth",
    "usecase_setting",
    "version",
)
CLEARABLE = ("custom_instructions", "agent_custom_instructions", "memory_depth", "usecase_setting", "version")
NO_GRAPH = "enable_graph: mnemo has no graph store, so graph memory cannot be turned on (false is accepted)."


def project_changes(patch: dict[str, Any]) -> dict[str, Any]:
    """The changes a project patch makes: set values, cleared texts (null, or "" for agent_custom_instructions as
    the reference clears it), the categories parsed; `enable_graph: true` is a 400 (no graph store here)."""
    if patch.get("enable_graph"):
        raise ValidationError(NO_GRAPH)
    changes = {name: value for name, value in patch.items() if name in PATCHED and value is not None}
    for name in CLEARABLE:
        if name in patch and patch[name] is None:
            changes[name] = None
    if changes.get("agent_custom_instructions") == "":
        changes["agent_custom_instructions"] = None
    if "custom_categories" in patch:
        changes["custom_categories"] = tuple(
            {name: text} for name, text in parse_categories(patch["custom_categories"])
        )
    return changes


def parse_role(role: Any) -> Role:
    try:
        return Role(str(role).upper())
    except ValueError:
        raise ValidationError("role must be READER or OWNER.") from None
