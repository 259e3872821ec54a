"""One timestamp format everywhere: ISO 8601 in UTC with microseconds and an explicit offset.

A fixed width keeps stored timestamps sortable as text.
"""

from __future__ import annotations

from datetime import UTC, date, datetime


def iso(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    if utc.year < 1000:  # strftime's %Y does not pad the year to four digits (glibc), isoformat does
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
    # The same text as the strftime above, in half its time: a search's answer writes two per memory.
    return utc.isoformat(timespec="microseconds")


def iso_z(moment: datetime) -> str:
    """ISO 8601 in UTC as pydantic writes an aware datetime: a `Z` suffix, the fraction only when not zero."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def from_iso(text: str) -> datetime:
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def date_or_none(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None
