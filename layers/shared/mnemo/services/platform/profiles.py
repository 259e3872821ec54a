"""Per-user profiles of a platform project (issue 14): the project's profile settings, each user's profile, and
the profile jobs that (re)generate them.

A profile is generated from the user's memories (newest first) by a ProfileGenerator
(mnemo.services.platform.profile_generation), following the project's schema and custom instructions; `generator`
gives the generator of the providers active now. Generations run in the background (`run_later`: locally the
profile worker's thread; without one, at once).

A profile goes stale when its user's memories change: each generation keeps a stamp of the memories it read (their
ids and update times). `refresh_stale` (the profile worker calls it once the memory changes have been quiet for a
moment: the debounce) queues one regeneration per user of an enabled project whose memories no longer match the
stamp; a read of a stale profile does the same. Meanwhile the answer is `pending` with the last good profile, and
no second generation is queued for the user — so a burst of adds costs one generation. A profile whose user has
no memories and no entity record left (the user was deleted) is deleted by the next sweep or read (a 404); the
profiles of a deleted project go with it (`drop_project`).
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mnemo.domain.json_shape import json_problem
from mnemo.domain.memory import MemoryRecord, checked_entity_id, now
from mnemo.domain.profiles import (
    ENTITY_USER,
    JobStatus,
    Profile,
    ProfileJob,
    ProfileSettings,
    ProfileStatus,
    request_hash,
)
from mnemo.domain.timefmt import iso
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.tenancy_store import EntityStore
from mnemo.services.commands import json_size
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.entities import entity_condition
from mnemo.services.platform.profile_generation import ProfileDraft, ProfileGenerator

logger = logging.getLogger(__name__)

MAX_INSTRUCTIONS = 20_000  # characters of custom instructions
MAX_SCHEMA_BYTES = 64_000  # of a profile schema, as JSON
MAX_SCHEMA_PROPERTIES = 100  # top-level properties of a profile schema
MAX_SAMPLE = 10  # users of one sample job
DEFAULT_SAMPLE = 5
MAX_MEMORIES = 1_000  # the newest memories a generation reads
JOBS_PATH = "/v2/profiles/jobs/"
UNSUPPORTED = "Unsupported settings"
NOT_ENABLED = "Profiles are not enabled for this project: turn them on with POST /v2/profiles/settings/."
PROFILE_NOT_FOUND = "Entity not found."
JOB_NOT_FOUND = "Profile job not found."
NO_GENERATOR = "No profile generator is configured on this server."
CAPABILITIES = {"jobs": True, "estimates": False, "samples": True, "full_rebuild": False}


@dataclass(frozen=True, slots=True)
class JobAnswer:
    """A job create's answer (the first one, replayed for the same key and body) and whether it is a replay."""

    body: dict[str, Any]
    replayed: bool


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be a profile schema (a JSON Schema object whose every property has a description), or
    None."""
    if not isinstance(schema, Mapping):
        return "The schema must be a JSON Schema object."
    problem = _shape_problem(schema)
    if problem is not None:
        return problem
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping) or not properties:
        return 'The schema must be of type "object", with properties.'
    if len(properties) > MAX_SCHEMA_PROPERTIES:
        return f"The schema has {len(properties):,} properties; at most {MAX_SCHEMA_PROPERTIES}."
    for name, prop in properties.items():
        description = prop.get("description") if isinstance(prop, Mapping) else None
        if not isinstance(description, str) or not description.strip():
            return f"The schema property {name!r} has no description: every property needs one."
    return None


def _shape_problem(schema: Mapping[str, Any]) -> str | None:
    """The size, the bounds of free-form JSON, and what the JSON Schema validator says of it."""
    if json_size(schema) > MAX_SCHEMA_BYTES:
        return f"The schema is larger than {MAX_SCHEMA_BYTES:,} bytes."
    shape = json_problem(schema, "the schema")
    if shape is not None:
        return f"Invalid schema: {shape}."
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"Invalid schema: {error.message}"
    return None


def _stamp(records: Sequence[MemoryRecord]) -> str:
    """What a generation read: the memories' ids and update times."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: r.id):
        digest.update(f"{record.id}|{iso(record.updated_at)}\n".encode())
    return digest.hexdigest()


def _user_settings(entities: Any, schema: Any, instructions: Any) -> tuple[Any, Any]:
    """The schema and custom instructions after `entities` (`{user: {schema?, custom_instructions?}}`)."""
    if not isinstance(entities, Mapping) or set(entities) - {ENTITY_USER}:
        raise ValidationError(f"{UNSUPPORTED}: entities holds only user.")
    user = entities.get(ENTITY_USER, {})
    if not isinstance(user, Mapping) or set(user) - {"schema", "custom_instructions"}:
        raise ValidationError(f"{UNSUPPORTED}: entities.user holds only schema and custom_instructions.")
    if "schema" in user:
        schema = user["schema"]
        problem = schema_problem(schema) if schema is not None else None
        if problem is not None:
            raise ValidationError(problem)
    if "custom_instructions" in user:
        instructions = user["custom_instructions"]
        if instructions is not None and not isinstance(instructions, str):
            raise ValidationError("custom_instructions must be a string or null.")
        if instructions is not None and len(instructions) > MAX_INSTRUCTIONS:
            raise ValidationError(f"custom_instructions is longer than {MAX_INSTRUCTIONS:,} characters.")
    return schema, instructions


def _sample_limit(body: Mapping[str, Any]) -> int:
    limit = body.get("limit")
    if limit is None:
        return DEFAULT_SAMPLE
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_SAMPLE:
        raise ValidationError(f"limit must be an integer from 1 to {MAX_SAMPLE}.")
    return limit


class ProfileService:
    def __init__(
        self,
        store: ProfileStore,
        namespaces: NamespaceMemoryServices,
        entities: EntityStore,
        generator: Callable[[], ProfileGenerator | None],
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._store = store
        self._namespaces = namespaces
        self._entities = entities
        self.generator = generator
        self._clock = clock
        self.run_later: Callable[[Callable[[], None]], None] = lambda task: task()
        self._queued: set[tuple[str, str]] = set()  # the users of a queued or running generation
        self._lock = threading.Lock()

    # ---- settings ----

    def settings(self, project_id: str) -> ProfileSettings:
        return self._store.get_settings(project_id) or ProfileSettings(project_id)

    def update_settings(self, project_id: str, body: Mapping[str, Any]) -> ProfileSettings:
        """POST semantics: `{enabled?, entities: {user: {schema?, custom_instructions?}}}`; what is not sent is
        kept, an explicit null clears."""
        unknown = sorted(set(body) - {"enabled", "entities"})
        if unknown:
            raise ValidationError(
                f"{UNSUPPORTED}: {', '.join(unknown)} (schema and custom_instructions go under entities.user)."
            )
        current = self.settings(project_id)
        enabled = body.get("enabled", current.enabled)
        if not isinstance(enabled, bool):
            raise ValidationError("enabled must be true or false.")
        schema, instructions = current.schema, current.custom_instructions
        if "entities" in body:
            schema, instructions = _user_settings(body["entities"], schema, instructions)
        updated = ProfileSettings(project_id, enabled, dict(schema) if schema is not None else None, instructions)
        self._store.save_settings(updated)
        return updated

    # ---- profiles ----

    def profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile:
        """The user's profile (400: not a user; 404: a user the project has never seen). A stale one is
        regenerated: the answer is `pending` with the last good profile."""
        user_id = self._user(entity_type, entity_id)
        records = self._memories(project_id, user_id)
        if not records and not self._known(project_id, user_id):
            self._store.delete_profile(project_id, ENTITY_USER, user_id)  # the user is gone: their profile too
            raise NotFoundError(PROFILE_NOT_FOUND)
        stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
        if not self.settings(project_id).enabled:
            return Profile(
                project_id,
                ENTITY_USER,
                user_id,
                ProfileStatus.NOT_ENABLED,
                updated_at=stored.updated_at if stored else None,
                generation_count=stored.generation_count if stored else 0,
                reason=NOT_ENABLED,
            )
        stale = stored is None or stored.stamp != _stamp(records) or stored.status == ProfileStatus.PENDING
        if stale and self._queue_generation(project_id, user_id, stored):
            stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
        assert stored is not None
        return stored

    def refresh_stale(self) -> int:
        """Queue a regeneration of every profile of an enabled project whose user's memories changed since it was
        generated (and a first generation for each user who has memories but no profile), and delete the profiles
        of users who are gone (no memories, no entity record); how many generations were queued."""
        queued = 0
        for project_id in self._store.enabled_projects():
            users = self._users(project_id)
            for gone in set(self._store.profiled_users(project_id)) - set(users):
                self._store.delete_profile(project_id, ENTITY_USER, gone)  # the user was deleted
            for user_id in users:
                records = self._memories(project_id, user_id)
                if not records:
                    continue
                stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
                if stored is not None and stored.stamp == _stamp(records) and stored.status != ProfileStatus.PENDING:
                    continue
                queued += self._queue_generation(project_id, user_id, stored)
        return queued

    def _queue_generation(self, project_id: str, user_id: str, stored: Profile | None) -> bool:
        """Queue one generation of the user's profile, unless one is queued or running already (the debounce);
        whether one was queued."""
        with self._lock:
            if (project_id, user_id) in self._queued:
                return False
            self._queued.add((project_id, user_id))
        self._mark_pending(project_id, user_id, stored)
        self.run_later(lambda: self._generate_logged(project_id, user_id))
        return True

    def _generate_logged(self, project_id: str, user_id: str) -> None:
        try:
            self.generate(project_id, user_id)
        except Exception:
            logger.exception("profile generation of %s in %s failed", user_id, project_id)

    def _mark_pending(self, project_id: str, user_id: str, stored: Profile | None) -> None:
        if stored is None:
            stored = Profile(project_id, ENTITY_USER, user_id, ProfileStatus.PENDING)
        self._store.save_profile(replace(stored, status=ProfileStatus.PENDING))

    def generate(self, project_id: str, user_id: str) -> ProfileStatus:
        """One generation of the user's profile, stored; its status (`not_enabled`: nothing done)."""
        with self._lock:
            self._queued.add((project_id, user_id))
        try:
            return self._generate(project_id, user_id)
        finally:
            with self._lock:
                self._queued.discard((project_id, user_id))

    def _generate(self, project_id: str, user_id: str) -> ProfileStatus:
        settings = self.settings(project_id)
        stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
        if not settings.enabled:
            if stored is not None and stored.status == ProfileStatus.PENDING:  # regenerated when turned on again
                self._store.save_profile(replace(stored, status=ProfileStatus.NOT_ENABLED, stamp=None))
            return ProfileStatus.NOT_ENABLED
        records = self._memories(project_id, user_id)
        generator = self.generator()
        if generator is None:
            draft = ProfileDraft("failed", reason=NO_GENERATOR)
        else:
            try:
                newest = records[:MAX_MEMORIES]
                draft = generator.generate(settings.effective_schema, settings.custom_instructions, newest)
            except Exception as error:  # a provider that is down: this generation failed, the next may not
                draft = ProfileDraft("failed", reason=f"The profile generator failed: {error}")
        status = ProfileStatus(draft.status)
        count = (stored.generation_count if stored else 0) + 1
        if status == ProfileStatus.SUCCEEDED:
            profile, sources = dict(draft.profile), {k: list(v) for k, v in draft.sources.items()}
        else:
            profile, sources = {}, {}
        self._store.save_profile(
            Profile(
                project_id,
                ENTITY_USER,
                user_id,
                status,
                profile,
                sources,
                draft.reason,
                self._clock(),
                count,
                _stamp(records),
            )
        )
        return status

    # ---- jobs ----

    def create_job(self, project_id: str, body: Mapping[str, Any], idempotency_key: str | None) -> JobAnswer:
        """A trigger (one user) or sample (a few users) job, queued. The same Idempotency-Key with the same body
        replays the first answer; with another body it is a 409."""
        digest = request_hash(dict(body))
        if idempotency_key is not None:
            earlier = self._store.job_by_key(project_id, idempotency_key)
            if earlier is not None:
                return self._replay(earlier, digest)
        users = self._job_users(project_id, body)
        operation = str(body["operation"])
        moment = self._clock()
        job_id = str(uuid.uuid4())
        answer: dict[str, Any] = {
            "job_id": job_id,
            "status": JobStatus.QUEUED.value,
            "status_url": f"{JOBS_PATH}{job_id}/",
            "operation": operation,
            "entity_type": ENTITY_USER,
            "entity_count_reserved": len(users),
            "event_id": job_id,
        }
        if operation == "sample":
            answer |= {"sampled": len(users), "entity_ids": users}
        job = ProfileJob(
            job_id,
            project_id,
            operation,
            ENTITY_USER,
            tuple(users),
            JobStatus.QUEUED,
            moment,
            moment,
            idempotency_key,
            digest,
            answer,
        )
        stored = self._store.add_job(job)
        if stored.id != job.id:  # another request of this key was stored meanwhile
            return self._replay(stored, digest)
        with self._lock:
            self._queued.update((project_id, user_id) for user_id in users)
        for user_id in users:
            self._mark_pending(project_id, user_id, self._store.get_profile(project_id, ENTITY_USER, user_id))
        self.run_later(lambda: self.run_job(project_id, job_id))
        return JobAnswer(answer, False)

    def _job_users(self, project_id: str, body: Mapping[str, Any]) -> list[str]:
        """The users a job request names (trigger) or picks (sample), the request checked."""
        operation = body.get("operation")
        if operation not in ("trigger", "sample"):
            raise ValidationError('operation must be "trigger" or "sample".')
        if body.get("entity_type", ENTITY_USER) != ENTITY_USER:
            raise ValidationError("Profiles are generated for users only: entity_type must be user.")
        unknown = sorted(set(body) - {"operation", "entity_type", "entity_id", "limit"})
        if unknown:
            raise ValidationError(f"Unknown fields: {', '.join(unknown)}.")
        if not self.settings(project_id).enabled:
            raise ValidationError(NOT_ENABLED)
        if operation == "sample":
            limit = _sample_limit(body)
            known = self._users(project_id)
            return sorted(random.sample(known, min(limit, len(known))))
        entity_id = body.get("entity_id")
        if not isinstance(entity_id, str) or not entity_id.strip():
            raise ValidationError("entity_id is required.")
        user_id = self._user(ENTITY_USER, entity_id)
        if not self._known(project_id, user_id):
            raise NotFoundError(PROFILE_NOT_FOUND)
        return [user_id]

    def _replay(self, earlier: ProfileJob, digest: str) -> JobAnswer:
        if earlier.request_hash != digest:
            raise ConflictError("This Idempotency-Key was used with another request body.")
        return JobAnswer(dict(earlier.answer), True)

    def run_job(self, project_id: str, job_id: str) -> None:
        job = self._store.get_job(project_id, job_id)
        if job is None or job.status in (JobStatus.SUCCEEDED, JobStatus.FAILED):
            return
        job = replace(
            job,
            status=JobStatus.RUNNING,
            total=len(job.entity_ids),
            completed=0,
            succeeded=0,
            failed=0,
            skipped=0,
            updated_at=self._clock(),
        )
        self._store.save_job(job)
        for user_id in job.entity_ids:
            try:
                status = self.generate(project_id, user_id)
            except Exception as error:
                logger.exception("profile generation of %s in %s failed", user_id, project_id)
                status, job = ProfileStatus.FAILED, replace(job, error=str(error))
            job = replace(
                job,
                completed=job.completed + 1,
                succeeded=job.succeeded + (status == ProfileStatus.SUCCEEDED),
                failed=job.failed + (status == ProfileStatus.FAILED),
                skipped=job.skipped + (status in (ProfileStatus.INSUFFICIENT_DATA, ProfileStatus.NOT_ENABLED)),
                updated_at=self._clock(),
            )
            self._store.save_job(job)
        self._store.save_job(replace(job, status=JobStatus.SUCCEEDED, updated_at=self._clock()))

    def resume_jobs(self) -> int:
        """Queue every job a stop left queued or running again (at the worker's start); how many."""
        unfinished = self._store.unfinished_jobs()
        for job in unfinished:
            self.run_later(lambda job=job: self.run_job(job.project_id, job.id))  # type: ignore[misc]
        return len(unfinished)

    def job(self, project_id: str, job_id: str) -> ProfileJob:
        job = self._store.get_job(project_id, job_id)
        if job is None:
            raise NotFoundError(JOB_NOT_FOUND)
        return job

    def drop_project(self, project_id: str) -> None:
        self._store.delete_project(project_id)

    # ---- the project's users and their memories ----

    def _user(self, entity_type: str, entity_id: str) -> str:
        if entity_type != ENTITY_USER:
            raise ValidationError("Unsupported entity type: profiles are for users only.")
        return checked_entity_id(entity_id, "user_id")

    def _memories(self, project_id: str, user_id: str) -> list[MemoryRecord]:
        """The user's memories (not expired), newest first."""
        service = self._namespaces.memory_service(project_id)
        records = service.get_all(entity_condition(ENTITY_USER, user_id), top_k=None)
        records.sort(key=lambda r: r.created_at, reverse=True)
        return records

    def _known(self, project_id: str, user_id: str) -> bool:
        """Whether the project has seen the user: a memory of theirs (expired ones too), or an entity record."""
        service = self._namespaces.memory_service(project_id)
        found = service.get_all(entity_condition(ENTITY_USER, user_id), top_k=1, show_expired=True)
        return bool(found) or self._explicit(project_id, user_id)

    def _explicit(self, project_id: str, user_id: str) -> bool:
        return any(
            (e.type, e.entity_id) == (ENTITY_USER, user_id) for e in self._entities.entities_of_project(project_id)
        )

    def _users(self, project_id: str) -> list[str]:
        counted = {
            c.id for c in self._namespaces.memory_service(project_id).entity_counts() if c.type.value == ENTITY_USER
        }
        explicit = {e.entity_id for e in self._entities.entities_of_project(project_id) if e.type == ENTITY_USER}
        return sorted(counted | explicit)
