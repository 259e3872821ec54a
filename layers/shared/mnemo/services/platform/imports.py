"""Imports: many conversations and memories added at once, as one job (an IMPORT event) of the worker that runs
asynchronous adds.

What is imported (`parse_import`) is one of:
- `items`: a list, each item a conversation `{"messages", <ids>, "metadata"?, "infer"?, "timestamp"?}` (added as
  one add is) or a memory `{"memory" (or "text"), <ids>, "metadata"?, "categories"?, "created_at"?}` (stored
  verbatim, as an infer=false add);
- `mnemo`: an export of this server, the object POST /v1/exports/get/ answers: its lists hold the memories
  (objects named like memory fields, or texts), and a property `user_id` (… `run_id`) the export's shared id;
- `mem0`: a Mem0 platform export: the object get_memory_export answers (read as ours), or Mem0's memories as
  get_all answers them (a list, or `{"results": [...]}`).

Every item is checked before anything is queued: one that cannot be added is not queued, and its result says
why (REFUSED); the others are stored in the event's payload as the adds they are (with the project's settings
applied, as an asynchronous add keeps them). The worker then adds them in order, in the project's MemoryService,
and records a result per item (`{"index", "status": "ADDED", "memory_ids"}` or `{"index", "status": "FAILED",
"reason"}`), storing the event every few items: a rerun (a restart, a redelivered message) skips the items
recorded, and an item added but not yet recorded is found again by the add's own deduplication (same scope, same
text) rather than stored twice. Between items it reads the event: one CANCELLED meanwhile stops there, keeping
what it added. A long import runs in parts of PART_SECONDS, each a message of its own (the next queued before
this one returns), so that no worker call outlives its time limit and other jobs run between the parts.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Literal

from mnemo.domain.filters import parse_datetime
from mnemo.domain.json_shape import json_problem
from mnemo.domain.memory import Event, Scope, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.errors import MnemoError, ValidationError
from mnemo.ports.tenancy_store import DirectoryStore, EventStore, ProjectRecordStore
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory import MemoryService
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.add_jobs import (
    Enqueue,
    RetryLaterError,
    count_llm_usage,
    is_transient,
    queue_job,
    with_project_settings,
)
from mnemo.services.platform.events import IMPORT, job_ref, new_event

log = logging.getLogger("mnemo.platform.imports")

MAX_IMPORT_ITEMS = 1_000  # conversations and memories of one import
MAX_ITEM_MESSAGES = 1_000  # messages of one conversation (as of one add)
MAX_ITEM_CATEGORIES = 100
MAX_CATEGORY_NAME = 255
FORMATS = ("auto", "items", "mnemo", "mem0")
Read = Literal["items", "mnemo", "mem0"]  # what an import was read as
ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")
ADDED, REFUSED, FAILED = "ADDED", "REFUSED", "FAILED"

PROGRESS_EVERY_ITEMS = 20  # the event is stored with its results every this many items…
PROGRESS_EVERY_SECONDS = 2.0  # …or this often, whichever comes first
PART_SECONDS = 40.0  # an import runs this long per worker call, then goes on in a message of its own


# ---- what is imported -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportItem:
    """One item of an import, checked: the add it is (`index`: its place in what was sent)."""

    index: int
    command: AddCommand


@dataclass(frozen=True, slots=True)
class ImportRequest:
    format: Read
    items: list[ImportItem]  # the items to add
    refused: list[dict[str, Any]]  # the results of the items that cannot be added

    @property
    def total(self) -> int:
        return len(self.items) + len(self.refused)


def parse_import(
    raw: Any, fmt: str = "auto", ids: Mapping[str, Any] | None = None, *, infer: bool = True
) -> ImportRequest:
    """The import `raw` is (a list of items, or an export: see the module), every item checked. `ids`: the user,
    agent, app and run ids of the items that name none; `infer`: of the conversations that do not say. What is no
    import at all (nothing to import, more than MAX_IMPORT_ITEMS, a format it is not) is a ValidationError; an
    item that cannot be added is REFUSED, with the reason."""
    read, entries, shared = _entries(raw, fmt)
    if not entries:
        raise ValidationError("Nothing to import: items holds no conversation or memory.")
    if len(entries) > MAX_IMPORT_ITEMS:
        raise ValidationError(
            f"An import takes at most {MAX_IMPORT_ITEMS:,} items (conversations and memories); this one has "
            f"{len(entries):,}. Split it into several imports."
        )
    defaults = _scope_ids(ids or {}, "the import's ") or shared
    items: list[ImportItem] = []
    refused: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        try:
            items.append(ImportItem(index, item_command(entry, defaults, infer)))
        except ValidationError as exc:  # a PayloadTooLargeError too: the item's size, over one add's
            refused.append(result(index, REFUSED, reason=exc.message))
    return ImportRequest(read, items, refused)


def _entries(raw: Any, fmt: str) -> tuple[Read, list[Any], dict[str, str]]:
    """What the import holds: the format it was read as, its entries, and the ids an export shares."""
    if fmt not in FORMATS:
        raise ValidationError(f"format must be one of {', '.join(FORMATS)}.")
    if isinstance(raw, list):
        if fmt == "mnemo":
            raise ValidationError(
                "format mnemo is an export of this server: the object POST /v1/exports/get/ answers, not a list."
            )
        return ("mem0" if fmt == "mem0" else "items"), raw, {}
    if not isinstance(raw, Mapping):
        raise ValidationError("items must be a list of conversations and memories, or an export (an object).")
    if fmt == "items":
        raise ValidationError("format items is a list of conversations and memories, not an object.")
    listed = raw.get("results")
    if isinstance(listed, list) and fmt in ("auto", "mem0"):  # Mem0's get_all answer, paginated or not
        return "mem0", listed, {}
    entries: list[Any] = []
    shared: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, list):
            entries.extend(value)
        elif key in ENTITY_KEYS and isinstance(value, str):  # the id every exported memory has
            shared[key] = value
    return ("mem0" if fmt == "mem0" else "mnemo"), entries, _scope_ids(shared, "the export's ")


def item_command(entry: Any, defaults: Mapping[str, str], infer: bool) -> AddCommand:
    """The add one item is: a conversation (`messages`), or a memory (`memory`, `text`, `content` or
    `data.memory`; a bare text too), stored verbatim. ValidationError says what is wrong with it."""
    if isinstance(entry, str):
        entry = {"memory": entry}
    if not isinstance(entry, Mapping):
        raise ValidationError(
            "An item must be an object: a conversation {messages, user_id, …} or a memory {memory, user_id, …}."
        )
    text = memory_text(entry)
    has_messages = entry.get("messages") is not None
    if has_messages == (text is not None):
        raise ValidationError(
            "An item is a conversation (messages) or a memory (memory or text): give one of them."
            if not has_messages
            else "An item is a conversation (messages) or a memory (memory or text), not both."
        )
    scope = Scope(**(_scope_ids(entry, "") or defaults))
    if not scope.has_owner():
        raise ValidationError(
            "At least one of user_id, agent_id, run_id or app_id is required: on the item, or for every item that "
            "names none, on the import."
        )
    common: dict[str, Any] = {
        "scope": scope,
        "metadata": _metadata(entry.get("metadata")),
        "expiration_date": _expiration(entry.get("expiration_date")),
        "timestamp": _moment(entry),
    }
    if text is not None:
        categories = _categories(entry.get("categories"))
        command = AddCommand([Message("user", text)], infer=False, categories=categories, **common)
    else:
        command = AddCommand(messages_of(entry["messages"]), infer=_infer(entry.get("infer"), infer), **common)
    command.check_size()
    return command


def memory_text(entry: Mapping[str, Any]) -> str | None:
    """A memory item's text (None: the item is no memory)."""
    data = entry.get("data")
    found = [entry.get(key) for key in ("memory", "text", "content") if entry.get(key) is not None]
    if isinstance(data, Mapping) and data.get("memory") is not None:
        found.append(data.get("memory"))
    if not found:
        return None
    if not isinstance(found[0], str):
        raise ValidationError("A memory's text (memory or text) must be a string.")
    if not found[0].strip():
        raise ValidationError("A memory's text is empty.")
    return found[0]


def messages_of(raw: Any) -> list[Message]:
    """A conversation as an add takes it: a list of {role, content, name?}, one message object, or a string (a
    user message). Content is text: multimodal content is refused."""
    items: Any = [{"role": "user", "content": raw}] if isinstance(raw, str) else [raw] if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise ValidationError("messages must be a list of {role, content} objects, one such object, or a string.")
    if len(items) > MAX_ITEM_MESSAGES:
        raise ValidationError(f"A conversation has at most {MAX_ITEM_MESSAGES:,} messages; this one {len(items):,}.")
    out: list[Message] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("role"), str):
            raise ValidationError(f"messages[{i}] must be an object with a role and a content.")
        content = item.get("content")
        if not isinstance(content, str):
            raise ValidationError(
                f"messages[{i}].content must be text: multimodal content is not supported by this server."
            )
        name = item.get("name")
        out.append(Message(item["role"], content, name if isinstance(name, str) else None))
    if not out:
        raise ValidationError("messages must not be empty.")
    return out


def _scope_ids(raw: Mapping[str, Any], where: str) -> dict[str, str]:
    """The user, agent, app and run ids `raw` names, each checked (a ValidationError names the field)."""
    out: dict[str, str] = {}
    for name in ENTITY_KEYS:
        value = raw.get(name)
        if value is None:
            continue
        text = value.strip() if isinstance(value, str) else ""
        if not text or any(c.isspace() for c in text):
            raise ValidationError(f"{where}{name} must be a non-empty string without whitespace.")
        out[name] = text
    Scope(**out)  # too long, or a control character: a ValidationError naming the field
    return out


def _metadata(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValidationError("metadata must be an object.")
    problem = json_problem(raw, "metadata")
    if problem is not None:
        raise ValidationError(f"{problem[0].upper()}{problem[1:]}.")
    return dict(raw)


def _categories(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(c, str) and 0 < len(c) <= MAX_CATEGORY_NAME for c in raw):
        raise ValidationError(f"categories must be a list of names (1 to {MAX_CATEGORY_NAME} characters each).")
    if len(raw) > MAX_ITEM_CATEGORIES:
        raise ValidationError(f"A memory has at most {MAX_ITEM_CATEGORIES} categories; this one {len(raw):,}.")
    return tuple(dict.fromkeys(raw))


def _expiration(raw: Any) -> date | None:
    if raw is None:
        return None
    try:
        return date.fromisoformat(raw) if isinstance(raw, str) and len(raw) == 10 else _bad_expiration()
    except ValueError:
        return _bad_expiration()


def _bad_expiration() -> date:
    raise ValidationError("expiration_date must be a valid date in YYYY-MM-DD format.")


def _moment(entry: Mapping[str, Any]) -> datetime | None:
    """When it happened: `timestamp` (an add's), else `created_at` (an exported memory's)."""
    name = "timestamp" if entry.get("timestamp") is not None else "created_at"
    raw = entry.get(name)
    return None if raw is None else parse_datetime(raw, name)


def _infer(raw: Any, default: bool) -> bool:
    if raw is None:
        return default
    if not isinstance(raw, bool):
        raise ValidationError("infer must be true or false.")
    return raw


# ---- what is stored: the payload, the results ---------------------------------------------------------------


def result(
    index: int, status: str, *, reason: str | None = None, memory_ids: list[str] | None = None
) -> dict[str, Any]:
    """One item's result: its index, its status (ADDED, REFUSED, FAILED), why (not ADDED), its memories (ADDED)."""
    out: dict[str, Any] = {"index": index, "status": status}
    if reason is not None:
        out["reason"] = reason
    if memory_ids is not None:
        out["memory_ids"] = memory_ids
    return out


def added(index: int, results: Iterable[AddResult]) -> dict[str, Any]:
    """An item added: the ids of the memories it stored, changed or found already stored (not those it deleted)."""
    ids = list(dict.fromkeys(r.record.id for r in results if r.event is not Event.DELETE))
    return result(index, ADDED, memory_ids=ids)


def import_payload(fmt: str, total: int, items: Sequence[ImportItem]) -> dict[str, Any]:
    """The event's payload: what was read, how many items were sent, and the adds of those to run."""
    return {
        "format": fmt,
        "total": total,
        "items": [{"index": item.index, "add": _compact(item.command.to_json())} for item in items],
    }


def items_of(payload: Mapping[str, Any]) -> list[ImportItem]:
    """The adds an import's payload holds (ValidationError for a payload this version cannot read)."""
    raw = payload.get("items")
    if not isinstance(raw, list):
        raise ValidationError("Not an import: its payload holds no items.")
    out: list[ImportItem] = []
    for item in raw:
        index = item.get("index") if isinstance(item, Mapping) else None
        if not isinstance(index, int) or not isinstance(item.get("add"), Mapping):
            raise ValidationError("Not an import: an item of its payload has no index or add.")
        out.append(ImportItem(index, AddCommand.from_json(item["add"])))
    return out


def progress(event: PlatformEvent) -> tuple[int, int] | None:
    """An import's items done (added, refused or failed) and its items in all; None for another event."""
    total = event.payload.get("total")
    if event.event_type != IMPORT or not isinstance(total, int):
        return None
    return len(event.results), total


def outcome(results: Sequence[Mapping[str, Any]], total: int) -> tuple[EventStatus, str | None]:
    """How an import that ran to its end ended: SUCCEEDED (every item added), PARTIALLY_COMPLETED (some were
    not), FAILED (none was)."""
    done = sum(1 for r in results if r.get("status") == ADDED)
    if done == total:
        return EventStatus.SUCCEEDED, None
    refused = sum(1 for r in results if r.get("status") == REFUSED)
    missed = f"{refused:,} refused, {total - done - refused:,} failed; the results say why"
    if done == 0:
        return EventStatus.FAILED, f"No item was imported ({missed})."
    return EventStatus.PARTIALLY_COMPLETED, f"{total - done:,} of {total:,} items were not imported ({missed})."


def merged(stored: Iterable[Mapping[str, Any]], ours: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The results stored and this run's, one per item (this run's win), in the items' order."""
    by_index = {r.get("index"): dict(r) for r in stored}
    by_index.update({r.get("index"): dict(r) for r in ours})
    return sorted(by_index.values(), key=_index)


def _index(result: Mapping[str, Any]) -> int:
    index = result.get("index")
    return index if isinstance(index, int) else -1


def _compact(add: dict[str, Any]) -> dict[str, Any]:
    """An add's JSON without the keys left empty (AddCommand.from_json reads them as their defaults): an import
    holds up to a thousand of them. `categories` stays even when empty: a memory imported without categories keeps
    none (absent, the add would file it)."""
    out = {k: v for k, v in add.items() if (v is not None and v not in ([], {})) or k == "categories"}
    out["messages"] = [{k: v for k, v in m.items() if v is not None} for m in add["messages"]]
    return out


def owner_of(event_id: str) -> str:
    """The queue's owner of an import (its message group on AWS): the import itself, beside other jobs."""
    return f"import:{event_id}"


# ---- the job ----------------------------------------------------------------------------------------------------


@dataclass
class _Run:
    """One worker call's run of an import: the results so far, and when they were last stored."""

    results: list[dict[str, Any]]
    first: int  # the results there were when this call began
    stored: int
    stored_at: float
    deadline: float
    service: MemoryService
    retry: bool
    total: int = 0
    ended: PlatformEvent | None = field(default=None)


class ImportJobs:
    """Submits imports (stored PENDING, then queued) and runs them, a part at a time (AddJobs.process hands it the
    IMPORT events it is given)."""

    part_seconds = PART_SECONDS

    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        directory: DirectoryStore,
        events: EventStore,
        records: ProjectRecordStore,
        enqueue: Enqueue,
        *,
        clock: Callable[[], datetime] = now,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self._namespaces = namespaces
        self._directory = directory
        self._events = events
        self._records = records
        self._enqueue = enqueue
        self._clock = clock
        self._timer = timer

    def submit(self, project: Project, request: ImportRequest) -> PlatformEvent:
        """Store the PENDING event (the items with the project's settings applied, and the results of those
        refused), then queue it: an acknowledged import is never lost."""
        items = [replace(item, command=with_project_settings(item.command, project)) for item in request.items]
        payload = import_payload(request.format, request.total, items)
        event = new_event(project.id, IMPORT, payload, self._clock()).changed(results=list(request.refused))
        queue_job(
            self._events,
            event,
            lambda: self._enqueue(project.id, event.id, owner_of(event.id)),
            self._clock,
            failed="The import could not be queued; nothing was added. Send it again.",
            unavailable="The job queue is unavailable; nothing was imported. Retry shortly.",
        )
        return event

    def process(self, project_id: str, event: PlatformEvent, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run an unfinished import of an existing project, from its first item without a result, for at most
        `part_seconds` (then the rest is queued as a part of its own). An error that passes (a provider throttled
        or down) puts the import back to PENDING and raises RetryLaterError, before its `max_attempts`-th attempt;
        on that one the item fails and the import goes on. None when the project is gone."""
        if event.status is EventStatus.PENDING:
            moment = self._clock()
            event = event.changed(
                status=EventStatus.RUNNING,
                started_at=event.started_at or moment,
                updated_at=moment,
                attempts=event.attempts + 1,
            )
            if not self._events.update_event(event):
                return None
        try:
            items = items_of(event.payload)
        except ValidationError as exc:
            moment = self._clock()
            failed = event.changed(status=EventStatus.FAILED, error=exc.message, completed_at=moment, updated_at=moment)
            return failed if self._events.update_event(failed) else self._gone(project_id, event)
        done = {r.get("index") for r in event.results}
        started = self._timer()
        run = _Run(
            results=list(event.results),
            first=len(event.results),
            stored=len(event.results),
            stored_at=started,
            deadline=started + self.part_seconds,
            service=self._namespaces.memory_service(project_id),
            retry=event.attempts < max_attempts,
            total=int(event.payload.get("total") or len(items)),
        )
        for item in (i for i in items if i.index not in done):
            if not self._before_item(project_id, event, run):
                return run.ended
            try:
                run.results.append(self._add(project_id, run, item))
            except Exception as exc:  # an error that passes, with attempts left: the import is retried later
                return self._retry_later(project_id, event, run, exc)
        return self._finish(project_id, event, run)

    def _before_item(self, project_id: str, event: PlatformEvent, run: _Run) -> bool:
        """Whether to go on with the next item: not when the import was cancelled (or ended elsewhere), its project
        deleted, or its part's time is up (the rest is then queued). Stores the progress when it is due."""
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            run.ended = self._stopped(project_id, event, latest, run)
            return False
        due = len(run.results) > run.stored and (
            len(run.results) - run.stored >= PROGRESS_EVERY_ITEMS
            or self._timer() - run.stored_at >= PROGRESS_EVERY_SECONDS
        )
        part_over = len(run.results) > run.first and self._timer() >= run.deadline  # one item at least per part
        if (due or part_over) and not self._store_progress(latest, run):
            run.ended = self._gone(project_id, event)
            return False
        if part_over and self._queue_next_part(project_id, event, run):
            run.ended = latest.changed(results=merged(latest.results, run.results))
            return False
        return True

    def _store_progress(self, latest: PlatformEvent, run: _Run) -> bool:
        stored = latest.changed(results=merged(latest.results, run.results), updated_at=self._clock())
        if not self._events.update_event(stored):
            return False
        run.stored, run.stored_at = len(run.results), self._timer()
        return True

    def _queue_next_part(self, project_id: str, event: PlatformEvent, run: _Run) -> bool:
        """Queue the rest of the import as its next part; should the queue refuse it, this call goes on."""
        try:
            self._enqueue(project_id, job_ref(event.id, len(run.results)), owner_of(event.id))
        except Exception:
            log.exception("the next part of import %s of project %s could not be queued", event.id, project_id)
            run.deadline = math.inf
            return False
        return True

    def _add(self, project_id: str, run: _Run, item: ImportItem) -> dict[str, Any]:
        """Add one item; its result. An error that passes, with attempts left, is raised. The LLM calls of an
        inferred item count in the project's statistics (an import's event keeps no usage of its own)."""
        meter = UsageMeter()
        try:
            return added(item.index, run.service.add(item.command, meter=meter))
        except Exception as exc:
            if run.retry and is_transient(exc):
                raise
            if not isinstance(exc, MnemoError):
                log.exception("item %d of an import failed", item.index)
            reason = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
            return result(item.index, FAILED, reason=reason)
        finally:
            count_llm_usage(self._records, project_id, meter.usage)

    def _retry_later(self, project_id: str, event: PlatformEvent, run: _Run, exc: Exception) -> PlatformEvent | None:
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            return self._stopped(project_id, event, latest, run)
        log.warning("import %s of project %s will be retried: %s", event.id, project_id, exc)
        pending = latest.changed(
            status=EventStatus.PENDING, results=merged(latest.results, run.results), updated_at=self._clock()
        )
        if not self._events.update_event(pending):
            return self._gone(project_id, event)
        raise RetryLaterError(event.id, str(exc)) from exc

    def _finish(self, project_id: str, event: PlatformEvent, run: _Run) -> PlatformEvent | None:
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            return self._stopped(project_id, event, latest, run)
        results = merged(latest.results, run.results)
        status, error = outcome(results, run.total)
        moment = self._clock()
        ended = latest.changed(status=status, results=results, error=error, completed_at=moment, updated_at=moment)
        if not self._events.update_event(ended):
            return self._gone(project_id, event)
        if status is not EventStatus.FAILED:
            self._records.bump_counter(project_id, "add_events")
        return ended

    def _stopped(
        self, project_id: str, event: PlatformEvent, latest: PlatformEvent | None, run: _Run
    ) -> PlatformEvent | None:
        """The import was cancelled (its end is stored with what this run added), ended elsewhere (left as it is),
        or its project deleted (None)."""
        if latest is None:
            return self._gone(project_id, event)
        if latest.status is not EventStatus.CANCELLED:
            return latest
        results = merged(latest.results, run.results)
        count = sum(1 for r in results if r.get("status") == ADDED)
        error = (
            f"Cancelled while running: {count:,} of {run.total:,} items had been imported, and are kept; the "
            "results say which."
        )
        ended = latest.changed(
            results=results, error=error, started_at=latest.started_at or event.started_at, updated_at=self._clock()
        )
        return ended if self._events.update_event(ended) else self._gone(project_id, event)

    def _gone(self, project_id: str, event: PlatformEvent) -> PlatformEvent | None:
        """The event is no longer stored: should its project have been deleted meanwhile, what the import added goes
        too."""
        if self._directory.get_project(project_id) is None:
            log.warning("project %s was deleted while its import %s ran; dropping what it wrote", project_id, event.id)
            self._namespaces.drop(project_id)
        return None
