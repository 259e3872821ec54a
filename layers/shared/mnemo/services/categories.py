"""Custom categories (a platform project's, or an add's own): what the extraction is told of them, and which of
them a memory is filed under."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain.text import keywords
from mnemo.services.commands import Category


def with_categories(instructions: str | None, categories: Sequence[Category]) -> str | None:
    """The extraction instructions, followed by the list of categories when there are any."""
    if not categories:
        return instructions
    listed = "\n".join(f"- {name}: {description}" for name, description in categories)
    return f"{instructions or ''}\nThe project's memory categories:\n{listed}".strip()


def categorize(text: str, categories: Sequence[Category]) -> tuple[str, ...]:
    """The categories whose name or description shares a content word with the text."""
    words = set(keywords(text))
    return tuple(
        name for name, description in categories if words & set(keywords(f"{name.replace('_', ' ')} {description}"))
    )
