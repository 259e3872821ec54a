"""What a delete erases: the deleted memories' ids and every text of theirs, and how records that quote them
elsewhere are scrubbed.

A delete removes a memory for good; whatever else the service wrote that holds its text is rewritten without it:
its history keeps each entry's event, times, actor and role but no text; another memory whose `sources` hold the
same message keeps the message's place (index, role, name) but not its words (`redacted`); a platform event, a
webhook delivery, an export or a profile that names it loses every one of its texts, and the add or import item
that made it loses the metadata it was given. `Erasure` is the value all those places are scrubbed by; `scrubbed`
walks any JSON value and removes the texts from every string in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mnemo.domain.memory import HistoryEntry, MemoryRecord, SourceMessage

if TYPE_CHECKING:  # the platform's records: a self-hosted process that deletes memories never loads them
    from mnemo.domain.profiles import Profile
    from mnemo.domain.tenancy import MemoryExport, PlatformEvent
    from mnemo.domain.webhooks import OutboundEvent

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# Texts shorter than this are not scrubbed out of longer strings (a memory "ok" must not cut every "ok" out of an
# event's messages); a string equal to one of them still goes whole.
MIN_QUOTED_TEXT = 4

# How long the webhook store remembers an erased memory's id (mnemo.ports.webhook_store): longer than an event can
# wait to become a delivery (SQS keeps a message 14 days at most).
ERASED_KEPT = timedelta(days=15)


@dataclass(frozen=True, slots=True)
class Erasure:
    """The memories a delete removed: their ids, and every text of theirs (the current text, the texts their
    history held — an UPDATE's old and new — and the contents of the messages they were drawn from), longest
    first, so that a text containing another is cut out whole."""

    ids: frozenset[str]
    texts: tuple[str, ...]

    @classmethod
    def of(cls, records: Iterable[MemoryRecord], history_texts: Iterable[str] = ()) -> Erasure:
        records = list(records)
        texts = [r.text for r in records]
        texts += [s.content for r in records for s in r.sources]
        texts += list(history_texts)
        return cls(frozenset(r.id for r in records), _longest_first(texts))

    def __bool__(self) -> bool:
        return bool(self.ids)

    def merged(self, other: Erasure) -> Erasure:
        return Erasure(self.ids | other.ids, _longest_first([*self.texts, *other.texts]))

    def names_any(self, value: Any) -> bool:
        """Whether a JSON value holds, anywhere, a string that is one of the erased memories' ids."""
        return any(s in self.ids for s in _strings(value))

    def named_in(self, raw: str) -> bool:
        """Whether JSON text names one of the erased memories (their ids are UUIDs): a cheap look before parsing."""
        return any(found in self.ids for found in _UUID.findall(raw))

    def cut(self, text: str) -> str:
        """The string without any erased text in it (a string that is one of them becomes empty)."""
        if not text:
            return text
        out = text
        for erased in self.texts:
            if out == erased:
                return ""
            if len(erased) >= MIN_QUOTED_TEXT and erased in out:
                out = out.replace(erased, "")
        return out


def _longest_first(texts: Iterable[str]) -> tuple[str, ...]:
    kept = {t for t in texts if t and t.strip()}
    return tuple(sorted(kept, key=lambda t: (-len(t), t)))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def scrubbed(value: Any, erasure: Erasure, *, drop_named: bool = False) -> Any:
    """The JSON value with every erased text cut out of its strings. With `drop_named`, an object of a list that
    names an erased memory by its `id` (an export's entry of that memory) is dropped from the list."""
    if isinstance(value, str):
        return erasure.cut(value)
    if isinstance(value, Mapping):
        return {k: scrubbed(v, erasure, drop_named=drop_named) for k, v in value.items()}
    if isinstance(value, list | tuple):
        kept = [v for v in value if not (drop_named and isinstance(v, Mapping) and v.get("id") in erasure.ids)]
        return [scrubbed(v, erasure, drop_named=drop_named) for v in kept]
    return value


def textless(entry: HistoryEntry) -> HistoryEntry:
    """A history entry as kept once its memory is deleted: its event, times, actor and role, no text."""
    if entry.old_memory is None and entry.new_memory is None:
        return entry
    return replace(entry, old_memory=None, new_memory=None)


def redacted_sources(sources: Sequence[SourceMessage], erasure: Erasure) -> tuple[SourceMessage, ...] | None:
    """A memory's sources with every message that holds an erased text redacted (its content emptied, its index,
    role and name kept, `redacted` set): None when none does. A message the deleted memory was drawn from holds its
    text whole (the LLM path cites the whole conversation), or quotes the deleted sentence."""
    changed = False
    out: list[SourceMessage] = []
    for source in sources:
        if source.content and erasure.cut(source.content) != source.content:
            out.append(replace(source, content="", redacted=True))
            changed = True
        else:
            out.append(source)
    return tuple(out) if changed else None


# ---- the records beside the memories (a platform project's) ---------------------------------------------------


def scrubbed_event(event: PlatformEvent, erasure: Erasure) -> PlatformEvent | None:
    """A platform event whose results name an erased memory (the add or import that made it, the Dream run that
    changed it or drew from it), without the memory's texts in its results and its payload (an add's messages:
    a message the memory was drawn from is emptied, one that quotes it loses the quote), and without the metadata
    the add (or the import's item) that made it was given; None when it needs no change. A DELETE event names
    memories without their texts: it stays as it is."""
    if not erasure.names_any(event.results):
        return None
    payload = scrubbed(_without_metadata(event, erasure), erasure)
    results = scrubbed(event.results, erasure)
    if payload == event.payload and results == event.results:
        return None
    return event.changed(payload=payload, results=results)


def _without_metadata(event: PlatformEvent, erasure: Erasure) -> dict[str, Any]:
    """The event's payload without the metadata of the adds that made an erased memory: an add's own (its results
    are its memories), or those of an import's items whose result names one (the other items keep theirs)."""
    payload = dict(event.payload)
    items = payload.get("items")
    if isinstance(items, list):
        erased = {r.get("index") for r in event.results if isinstance(r, Mapping) and erasure.names_any(r)}
        payload["items"] = [
            _item_without_metadata(item) if isinstance(item, Mapping) and item.get("index") in erased else item
            for item in items
        ]
    else:
        payload.pop("metadata", None)
    return payload


def _item_without_metadata(item: Mapping[str, Any]) -> dict[str, Any]:
    add = item.get("add")
    if not isinstance(add, Mapping) or "metadata" not in add:
        return dict(item)
    return {**item, "add": {k: v for k, v in add.items() if k != "metadata"}}


def scrubbed_export(export: MemoryExport, erasure: Erasure) -> MemoryExport | None:
    """An export without the erased memories: an entry naming one by its `id` is dropped, and their texts are cut
    out of every string (an export whose schema asked for texts only, or joined them into one string)."""
    result = scrubbed(export.result, erasure, drop_named=True)
    return None if result == export.result else replace(export, result=result)


def scrubbed_outbound(event: OutboundEvent, erasure: Erasure) -> OutboundEvent | None:
    """A webhook event (in an outbox, or a delivery) of an erased memory without its texts; None otherwise."""
    if not erasure.names_any(event.payload):
        return None
    payload = scrubbed(dict(event.payload), erasure)
    return None if payload == event.payload else replace(event, payload=payload)


def changed_memory(event: OutboundEvent) -> str | None:
    """The memory whose text a change event carries (its `event_details.id`); None for any other event."""
    details = event.payload.get("event_details")
    memory_id = details.get("id") if isinstance(details, Mapping) else None
    return memory_id if isinstance(memory_id, str) else None


def erased_late(event: OutboundEvent, erased_ids: AbstractSet[str]) -> OutboundEvent | None:
    """A webhook event read before its memory was erased and made into a delivery after (the relay held it, or the
    topic carried it), without the memory's text. Only the ids are remembered of an erasure, so the texts cut are
    the event's own (its `event_details.data`). None: it is no change event of an erased memory."""
    memory_id = changed_memory(event)
    if memory_id is None or memory_id not in erased_ids:
        return None
    erasure = Erasure(frozenset({memory_id}), _longest_first(_strings(event.payload["event_details"].get("data"))))
    return scrubbed_outbound(event, erasure)


def scrubbed_profile(profile: Profile, erasure: Erasure) -> Profile | None:
    """A stored profile without what the erased memories said: a property drawn from one of them goes whole (a value
    made from several memories may quote it), and their texts are cut out of the rest; None when it needs no
    change. The regeneration the delete queued brings back what the other memories say."""
    dropped = {name for name, ids in profile.sources.items() if erasure.ids.intersection(ids)}
    kept = {name: value for name, value in profile.profile.items() if name not in dropped}
    values = scrubbed(kept, erasure)
    sources = {name: ids for name, ids in profile.sources.items() if name not in dropped}
    if values == profile.profile and sources == profile.sources:
        return None
    return replace(profile, profile=values, sources=sources)
