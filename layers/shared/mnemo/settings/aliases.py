"""The environment names a setting is read from besides its own `MNEMO_` one."""

from __future__ import annotations

from pydantic import AliasChoices


def mem0_name(name: str) -> AliasChoices:
    """Read from MNEMO_<NAME>, or from <NAME> as Mem0's server names it."""
    return AliasChoices(f"MNEMO_{name}", name)
