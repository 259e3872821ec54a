"""Reports over a project's memories: exports shaped by a JSON schema, summaries, statistics, feedback."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.json_shape import json_problem
from mnemo.domain.llm_usage import from_counters
from mnemo.domain.memory import MemoryRecord, new_id, now
from mnemo.domain.tenancy import Feedback, MemoryExport, Project
from mnemo.domain.timefmt import iso
from mnemo.errors import NotFoundError, PayloadTooLargeError, ProviderError, ValidationError
from mnemo.ports.llm import LLM
from mnemo.ports.tenancy_store import ProjectRecordStore
from mnemo.services.commands import check_size, json_size
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.memories import filters as pf
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.tenancy.llm_export import export_with_llm

FEEDBACK_VALUES = ("POSITIVE", "NEGATIVE", "VERY_NEGATIVE")
INVALID_MEMORY_ID = "Invalid memory_id"
MAX_PROMPT = 20_000  # characters of a summary prompt
MAX_LLM_SUMMARIES = 100  # entities one request may have the LLM summarize
SUMMARY_PROMPT = (
    "Summarize what is remembered about this person (or agent) in a short paragraph: who they are, what they do and "
    "prefer, and what changed recently. Use only the memories given; do not invent anything."
)
MAX_REASON = 2_000  # characters of a feedback reason
MAX_SCHEMA_DEPTH = 16  # nested objects and lists of an export schema (a JSON Schema nests deeper than metadata)
EXPORT_LIMIT = 10_000
# An export is answered whole by POST /v1/exports/get/: kept well under a Lambda response's 6 MB.
MAX_EXPORT_BYTES = 5_000_000


class ReportService:
    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        store: ProjectRecordStore,
        clock: Callable[[], datetime] = now,
        llm: Callable[[], LLM | None] = lambda: None,
        counts: RetrievalCounts | None = None,
    ) -> None:
        self._namespaces = namespaces
        self._store = store
        self._counts = counts  # retrieval counts that may wait to be written: flushed before the stats read them
        self._clock = clock
        self._llm = llm  # the configured LLM, read at each use (POST /configure may change it)

    # ---- exports ----

    def create_export(self, project: Project, schema: Any, raw_filters: Any, instructions: str | None) -> MemoryExport:
        if not isinstance(schema, dict) or not schema:
            raise ValidationError("Schema is required and must be a valid object")
        if instructions is not None and not isinstance(instructions, str):
            raise ValidationError("export_instructions must be a string.")
        problem = json_problem(schema, "schema", depth=MAX_SCHEMA_DEPTH)
        if problem is not None:
            raise ValidationError(f"{problem}.")
        check_size(
            json_size(schema) + json_size(raw_filters) + json_size(instructions),
            "The export request is {size} bytes of schema, filters and instructions; at most {limit} are accepted.",
        )
        expr = pf.parse(raw_filters)
        if not _names_entity(raw_filters):
            raise ValidationError(
                "One of the filters: app_id, user_id, agent_id, run_id, memory_export_id is required!"
            )
        records = self._namespaces.memory_service(project.id).get_all(expr, top_k=EXPORT_LIMIT)
        result = self._shaped(schema, instructions, records)
        size = len(json.dumps(result, separators=(",", ":")))  # escaped to ASCII, as Lambda's runtime sends it
        if size > MAX_EXPORT_BYTES:
            raise _too_large(f"{size:,}")
        export = MemoryExport(
            id=new_id(),
            project_id=project.id,
            schema=schema,
            filters=raw_filters if isinstance(raw_filters, dict) else {},
            instructions=instructions,
            result=result,
            created_at=self._clock(),
        )
        self._store.save_export(export)
        return export

    def _shaped(self, schema: dict[str, Any], instructions: str | None, records: list[MemoryRecord]) -> Any:
        """The export: filled by the LLM when the request gives instructions (tenancy/llm_export.py),
        else shaped from the memories by the schema's property names; instructions without an LLM are a 400."""
        if not instructions or not instructions.strip():
            return shape(schema, records)
        llm = self._llm()
        if llm is None:
            raise ValidationError(
                "export_instructions are followed by an LLM, and none is configured: configure one, or leave them "
                "out for an export shaped by the schema's property names."
            )
        return export_with_llm(llm, schema, instructions, records)

    def get_export(self, project: Project, export_id: str | None, raw_filters: Any) -> MemoryExport:
        if raw_filters is not None:
            pf.parse(raw_filters)  # a 400 for filters no export could be made with, even beside an id
        if export_id:
            found = self._store.get_export(project.id, str(export_id))
        else:
            found = self._store.latest_export(project.id, raw_filters if isinstance(raw_filters, dict) else None)
        if found is None:
            raise NotFoundError("No memory export request found")
        return found

    # ---- summary, stats ----

    def summary(self, project: Project, raw_filters: Any, prompt: Any = None) -> list[dict[str, Any]]:
        """One entry per entity the filter selects (its user, else agent, run or app): its memory count and a
        summary — written by the LLM when one is configured (with `prompt` as its instructions, else
        SUMMARY_PROMPT; at most MAX_LLM_SUMMARIES entities per request), else its memories as a bullet list.
        A prompt without an LLM is a 400."""
        if prompt is not None and (not isinstance(prompt, str) or len(prompt) > MAX_PROMPT):
            raise ValidationError(f"prompt must be a string of at most {MAX_PROMPT:,} characters.")
        llm = self._llm()
        if prompt and llm is None:
            raise ValidationError("A summary prompt is followed by an LLM, and none is configured: configure one.")
        expr = pf.parse(raw_filters)
        records = self._namespaces.memory_service(project.id).get_all(expr, top_k=EXPORT_LIMIT)
        groups: dict[tuple[str, str], list[MemoryRecord]] = {}
        for record in records:
            for name in ("user_id", "agent_id", "run_id", "app_id"):
                value = getattr(record.scope, name)
                if value is not None:
                    groups.setdefault((name, value), []).append(record)
                    break
        if llm is not None and len(groups) > MAX_LLM_SUMMARIES:
            raise ValidationError(
                f"The filters select {len(groups):,} entities; the LLM summarizes at most {MAX_LLM_SUMMARIES} per "
                "request: narrow them."
            )
        return [
            {
                name: value,
                "total_memories": len(group),
                "summary": _summarized(llm, prompt or SUMMARY_PROMPT, list(reversed(group)))
                if llm is not None
                else "\n".join(f"- {r.text}" for r in reversed(group)),
                "updated_at": iso(max(r.updated_at for r in group)),
            }
            for (name, value), group in sorted(groups.items())
        ]

    def stats(self, project: Project) -> dict[str, Any]:
        service = self._namespaces.memory_service(project.id)
        entities = service.entity_counts()
        if self._counts is not None:
            self._counts.flush()
        counters = self._store.counters(project.id)
        per: dict[str, dict[str, int]] = {"user": {}, "agent": {}, "run": {}}
        for entity in entities:
            if entity.type.value in per:  # the reference's stats count users, agents and runs (no apps)
                per[entity.type.value][entity.id] = entity.total_memories
        retrievals = counters.get("search_events", 0) + counters.get("get_events", 0)
        return {
            "total_memories": service.count(f.And(()), show_expired=True),
            "total_retrieval_events": retrievals,
            "total_add_events": counters.get("add_events", 0),
            "total_api_retrieval_events": retrievals,
            "total_retrieval_events_limit": None,
            "total_users_with_memories": len(per["user"]),
            "total_agents_with_memories": len(per["agent"]),
            "total_runs_with_memories": len(per["run"]),
            "memories_per_user": per["user"],
            "memories_per_agent": per["agent"],
            "memories_per_run": per["run"],
            "llm_usage": from_counters(counters).to_json(),
        }

    # ---- feedback ----

    def feedback(self, project: Project, memory_id: Any, value: Any, reason: Any) -> Feedback:
        if not isinstance(memory_id, str) or not _is_uuid(memory_id):
            raise ValidationError(INVALID_MEMORY_ID)  # the reference's answer to an id that is no UUID
        self._namespaces.memory_service(project.id).get(memory_id)  # NotFoundError for another project's memory
        if value is not None and (not isinstance(value, str) or value.upper() not in FEEDBACK_VALUES):
            raise ValidationError(f"feedback must be one of {', '.join(FEEDBACK_VALUES)} or null.")
        if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON):
            raise ValidationError(f"feedback_reason must be a string of at most {MAX_REASON:,} characters.")
        saved = Feedback(
            memory_id=memory_id,
            project_id=project.id,
            feedback=value.upper() if isinstance(value, str) else None,
            reason=reason if isinstance(reason, str) else None,
            updated_at=self._clock(),
        )
        self._store.save_feedback(saved)
        return saved


def _summarized(llm: LLM, prompt: str, records: list[MemoryRecord]) -> str:
    """The LLM's summary of one entity's memories (oldest first, each with the day it was stored)."""
    listing = "\n".join(f"- [{r.created_at.date().isoformat()}] {r.text}" for r in records)
    reply = llm.complete([{"role": "system", "content": prompt}, {"role": "user", "content": listing}]).text.strip()
    if not reply:
        raise ProviderError("The LLM answered an empty summary.", code="provider_bad_response")
    return reply


def _is_uuid(text: str) -> bool:
    """Whether the text is a UUID, as every memory id is."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _names_entity(raw: Any) -> bool:
    if not isinstance(raw, dict):
        return False
    for key, value in raw.items():
        if key in pf.ENTITY_KEYS:
            return True
        if key in ("AND", "OR") and isinstance(value, list) and any(_names_entity(v) for v in value):
            return True
    return False


_FIELDS: dict[str, Callable[[MemoryRecord], Any]] = {
    "id": lambda r: r.id,
    "memory_id": lambda r: r.id,
    "memory": lambda r: r.text,
    "text": lambda r: r.text,
    "content": lambda r: r.text,
    "user_id": lambda r: r.scope.user_id,
    "agent_id": lambda r: r.scope.agent_id,
    "app_id": lambda r: r.scope.app_id,
    "run_id": lambda r: r.scope.run_id,
    "categories": lambda r: list(r.categories),
    "metadata": lambda r: r.metadata,
    "created_at": lambda r: iso(r.created_at),
    "updated_at": lambda r: iso(r.updated_at),
}


def shape(schema: dict[str, Any], records: list[MemoryRecord]) -> dict[str, Any]:
    """The memories laid out by the schema's top-level properties, without an LLM: an array of objects gets
    one object per memory (properties named like memory fields are filled, others null); an array of
    strings gets the memory texts; a string gets the texts joined; a number gets the count.

    A schema of a few kB may name the memories hundreds of times over (each property an array of objects naming
    `metadata`, `memory`, ...): the result's size is counted while it is built, and past MAX_EXPORT_BYTES the
    export is refused at once (413), before the result is whole."""
    size = _SizeBound()
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return {"memories": size.listed(r.text for r in reversed(records))}
    ordered = list(reversed(records))  # oldest first
    out: dict[str, Any] = {}
    for name, spec in properties.items():
        size.grow(len(name))
        out[name] = _shaped(name, spec, ordered, size)
    return out


def _shaped(name: str, spec: Any, ordered: list[MemoryRecord], size: _SizeBound) -> Any:
    """The value of one top-level property of an export."""
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        item_props = items.get("properties") if isinstance(items.get("properties"), dict) else None
        if items.get("type") == "object" or item_props:
            keys = list(item_props or {"id": {}, "memory": {}})
            return size.listed({k: _FIELDS[k](r) if k in _FIELDS else None for k in keys} for r in ordered)
        return size.listed(r.text for r in ordered)
    if kind in ("integer", "number"):
        return len(ordered)
    if name in _FIELDS:
        return size.counted(_single(name, ordered))
    if kind == "string":
        size.grow(sum(len(r.text) + 1 for r in ordered))  # the joined texts, counted before they are joined
        return "\n".join(r.text for r in ordered)
    return None


class _SizeBound:
    """A lower bound of an export's size as compact ASCII JSON (its values, without separators), counted as it is
    built: past MAX_EXPORT_BYTES, a 413."""

    def __init__(self) -> None:
        self.total = 0

    def grow(self, size: int) -> None:
        self.total += size
        if self.total > MAX_EXPORT_BYTES:
            raise _too_large(f"more than {MAX_EXPORT_BYTES:,}")

    def counted(self, value: Any) -> Any:
        self.grow(len(json.dumps(value, separators=(",", ":"))))
        return value

    def listed(self, values: Iterable[Any]) -> list[Any]:
        return [self.counted(value) for value in values]


def _too_large(size: str) -> PayloadTooLargeError:
    return PayloadTooLargeError(
        f"The export would be {size} bytes; at most {MAX_EXPORT_BYTES:,} are kept. "
        "Narrow the filters (one user, agent or run, or a date range)."
    )


def _single(name: str, records: list[MemoryRecord]) -> Any:
    """The field's value (as text) when every memory has the same, else None (stopping at the first that differs:
    no set of every memory's value is made)."""
    first: str | None = None
    for record in records:
        value = str(_FIELDS[name](record))
        if first is None:
            first = value
        elif value != first:
            return None
    return first
