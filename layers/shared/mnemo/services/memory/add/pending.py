"""An add being made: its command and the categories its memories get. Three ways, decided once here: an import's
exact categories; under the platform's policy, the category set every memory is filed under (filing.py chooses);
else the add's custom categories its words match by keyword (mnemo.services.categories)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language import Language
from mnemo.services.categories import categorize
from mnemo.services.commands import AddCommand, Category
from mnemo.services.memory.policy import AddPolicy


@dataclass(frozen=True, slots=True)
class PendingAdd:
    """An add being made: the command, the categories its memories are filed by keyword (without the policy), and
    the category set its memories are filed under (with it)."""

    command: AddCommand
    categories: tuple[str, ...]
    category_set: tuple[Category, ...] = ()

    @property
    def scope(self) -> Scope:
        return self.command.scope

    def record(self, text: str, categories: tuple[str, ...] | None = None, **fields: Any) -> MemoryRecord:
        """A new memory of this add: its scope, time, metadata, expiry and immutability, and `categories` (else the
        add's)."""
        command = self.command
        return MemoryRecord.create(
            text,
            command.scope,
            at=command.timestamp,
            metadata=dict(command.metadata),
            expiration_date=command.expiration_date,
            categories=categories or self.categories,
            immutable=command.immutable,
            **fields,
        )


def pending(command: AddCommand, policy: AddPolicy, language: Language) -> PendingAdd:
    """The add of `command` under `policy`, its words read by `language` (which has the default categories)."""
    if command.categories is not None:  # exactly these (an import's)
        return PendingAdd(command, command.categories)
    if policy.categorize:
        return PendingAdd(command, (), tuple(command.custom_categories) or language.default_categories)
    return PendingAdd(
        command, categorize(language, said(command), command.custom_categories) if command.custom_categories else ()
    )


def said(command: AddCommand) -> str:
    """What the add's messages say (not the system's): what its memories are filed by."""
    return " ".join(m.content for m in command.messages if m.role != "system")
