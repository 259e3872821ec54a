"""Parsing helpers shared by the self-hosted and the platform routes: entity ids and expiration dates as sent."""

from __future__ import annotations

from datetime import date

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
    if value is None:
        return None
    value = str(value).strip()
    if not value or any(c.isspace() for c in value):
        raise ValidationError(f"{name} must be a non-empty string without whitespace.")
    return value
