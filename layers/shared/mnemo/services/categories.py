"""Custom categories (a platform project's, or an add's own): what the extraction is told of them, and which of
them a memory is filed under."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mnemo.errors import ValidationError
from mnemo.language import KeywordWords
from mnemo.services.commands import Category

MAX_CATEGORY_NAME = 255
MAX_CATEGORY_DESCRIPTION = 2_000


def parse_categories(raw: Any) -> tuple[Category, ...]:
    """Custom categories as clients send them: a list of single-entry {name: description} objects (a bare name, as
    a project's settings may list it, has an empty description)."""
    out: list[Category] = []
    for item in raw or []:
        entry = {item: ""} if isinstance(item, str) else item
        if not isinstance(entry, Mapping) or not all(isinstance(v, str) for v in entry.values()):
            raise ValidationError("custom_categories must be a list of {name: description} objects.")
        out.extend((str(k), v) for k, v in entry.items())
    for name, description in out:
        if not 0 < len(name) <= MAX_CATEGORY_NAME or len(description) > MAX_CATEGORY_DESCRIPTION:
            raise ValidationError(
                f"A custom category's name takes 1 to {MAX_CATEGORY_NAME} characters and its description at most "
                f"{MAX_CATEGORY_DESCRIPTION:,} (got {len(name):,} and {len(description):,})."
            )
    return tuple(out)


def with_categories(instructions: str | None, categories: Sequence[Category]) -> str | None:
    """The extraction instructions, followed by the list of categories when there are any."""
    if not categories:
        return instructions
    listed = "\n".join(f"- {name}: {description}" for name, description in categories)
    return f"{instructions or ''}\nThe project's memory categories:\n{listed}".strip()


def categorize(words: KeywordWords, text: str, categories: Sequence[Category]) -> tuple[str, ...]:
    """The categories whose name or description shares a content word (`words`: a language pack's) with the text."""
    said = set(words.keywords(text))
    return tuple(
        name
        for name, description in categories
        if said & set(words.keywords(f"{name.replace('_', ' ')} {description}"))
    )
