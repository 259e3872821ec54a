"""Parsing helpers shared by the self-hosted and the platform routes: entity ids and expiration dates as sent."""

from __future__ import annotations

from datetime import date

from mnemo.domain.entity_ids import checked_entity_id
from mnemo.errors import ValidationError


def parse_expiration(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value) if len(value) == 10 else _invalid_date()
    except ValueError:
        return _invalid_date()


def _invalid_date() -> date:
    raise ValidationError("expiration_date must be a valid date in YYYY-MM-DD format.")


def clean_id(name: str, value: str | None) -> str | None:
    """An id a request names, held to the whole rule of mnemo.domain.entity_ids (nothing is stripped)."""
    return None if value is None else checked_entity_id(str(value), name)
