"""An update of one memory by its caller: its text, metadata, expiry or time changed, its history keeping the old
text. An immutable memory is never updated (a 409); a new text is embedded again and, under the platform's policy,
filed anew."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord
from mnemo.errors import ConflictError, ValidationError
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import UNSET, UpdateCommand, check_memory_size
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.metadata import strip_identity
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.reads import stored


class Updating:
    def __init__(self, parts: MemoryParts, categorizing: Categorizing) -> None:
        self._parts = parts
        self._categorizing = categorizing

    def update(self, command: UpdateCommand) -> MemoryRecord:
        _check(command)
        with self._parts.write_lock:
            current = stored(self._parts.store, command.memory_id)
            if current.immutable:
                raise ConflictError(
                    f"Memory {current.id} is immutable: it cannot be updated. Delete it and add the new text instead."
                )
            updated = current.changed(**_changes(command, current))
            check_memory_size(updated.text if command.text is None else command.text.strip(), updated.metadata)
            updated, vector = self._retexted(command, current, updated)
            history = HistoryEntry.of(Event.UPDATE, updated, current.text, updated.text)
            self._parts.store.replace(updated, None if vector is None else vector[0], history)
            self._parts.index.upsert([updated], vector if vector is not None else self._parts.embed([updated.text]))
            return updated

    def _retexted(
        self, command: UpdateCommand, current: MemoryRecord, updated: MemoryRecord
    ) -> tuple[MemoryRecord, Vectors | None]:
        """The memory with the command's new text and its embedding (filed anew under the policy), or as it is and
        None when the text does not change."""
        if command.text is None or command.text.strip() == current.text:
            return updated, None
        updated = updated.with_text(command.text.strip())
        vector = self._parts.embed([updated.text])
        if self._parts.policy.categorize:  # a new text is filed anew
            category_set = tuple(command.custom_categories) or self._parts.language.default_categories
            (updated,) = self._categorizing.filed([replace(updated, categories=())], vector, category_set)
        return updated, vector


def _check(command: UpdateCommand) -> None:
    if (
        command.text is None
        and command.metadata is None
        and command.expiration_date is UNSET
        and command.created_at is None
    ):
        raise ValidationError("At least one of text, metadata, or expiration_date must be provided.")
    if command.text is not None and not command.text.strip():
        raise ValidationError("text must not be empty.")


def _changes(command: UpdateCommand, current: MemoryRecord) -> dict[str, Any]:
    """The fields the command sets besides the text: metadata (merged into the memory's), expiry, time."""
    changes: dict[str, Any] = {}
    if command.metadata is not None:
        changes["metadata"] = {**current.metadata, **strip_identity(command.metadata)}
    if command.expiration_date is not UNSET:
        changes["expiration_date"] = command.expiration_date
    if command.created_at is not None:
        changes["created_at"] = command.created_at
    return changes
