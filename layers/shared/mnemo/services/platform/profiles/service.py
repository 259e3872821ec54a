"""Per-user profiles of a platform project: the project's profile settings, each user's profile, and
the profile jobs that (re)generate them.

A profile is generated from the user's memories (newest first) by a ProfileGenerator
(mnemo.services.platform.profiles.generation), following the project's schema and custom instructions; `generator`
gives the generator of the providers active now. Generations and jobs are ProfileTasks on a ProfileTaskQueue
(`tasks`: locally the profile worker's thread, on AWS the profile SQS queue that the ingest worker reads; without
one, a task runs at once).

**Staleness.** A profile goes stale when its user's memories change. `note_changes` takes the outbound events of
memory changes (locally from the webhook relay, on AWS from the delivery function that receives every event of the
topic) and, per user of an enabled project, claims a generation in the store (ProfileStore.claim_generation): the
profile becomes `pending` (reads keep serving the last good profile) and one generation is queued, `debounce`
seconds later. Further changes meanwhile only record their time: the generation, when due, waits until the
changes have been quiet for `debounce` seconds (at most `max_wait` after it was queued), then reads the memories
once; a change that came after that read keeps the profile claimed for one more generation. So a burst of adds
costs one generation, from any number of processes. A read compares what the last generation read (a stamp of
the memories' ids and update times) with the memories now, and queues a generation on a mismatch (a change whose
event has not arrived yet, profiles just turned on).

**Erasure.** A profile never shows what its user's deleted memories said: a read drops every property drawn from
a memory that is gone (at once, before the regeneration that the delete queued), a generation of a user
with no memories left erases the profile's content, and a user who is gone (no memory, no entity record) loses
the profile (a 404). The profiles of a deleted project go with it (`drop_project`).
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from mnemo.domain.memory import MemoryRecord, now
from mnemo.domain.profiles import (
    ENTITY_USER,
    JobStatus,
    Profile,
    ProfileJob,
    ProfileSettings,
    ProfileStatus,
    ProfileTask,
    request_hash,
)
from mnemo.domain.timefmt import iso
from mnemo.domain.webhooks import OutboundEvent
from mnemo.errors import NotFoundError
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.profile_tasks import ProfileTaskQueue
from mnemo.ports.tenancy_store import EntityStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.profiles.changes import RECLAIM_AFTER, ProfileChanges, claim
from mnemo.services.platform.profiles.generation import ProfileDraft, ProfileGenerator
from mnemo.services.platform.profiles.job_requests import (
    NOT_ENABLED,
    PROFILE_NOT_FOUND,
    JobAnswer,
    job_users,
    replayed,
)
from mnemo.services.platform.profiles.settings import updated_settings
from mnemo.services.platform.profiles.users import ProjectUsers, profile_user

logger = logging.getLogger(__name__)

MAX_MEMORIES = 1_000  # the newest memories a generation reads
JOBS_PATH = "/v2/profiles/jobs/"
JOB_NOT_FOUND = "Profile job not found."
NO_GENERATOR = "No profile generator is configured on this server."
NO_MEMORIES = "The user has no memories left."
CAPABILITIES = {"jobs": True, "estimates": False, "samples": True, "full_rebuild": False}


def _stamp(records: Sequence[MemoryRecord]) -> str:
    """What a generation read: the memories' ids and update times."""
    digest = hashlib.sha256()
    for record in sorted(records, key=lambda r: r.id):
        digest.update(f"{record.id}|{iso(record.updated_at)}\n".encode())
    return digest.hexdigest()


def served(profile: Profile, records: Sequence[MemoryRecord]) -> Profile:
    """The profile as a read shows it: without the properties drawn from a memory that is gone (a value made of
    several memories may quote the deleted one; the regeneration the delete queued brings back what the others
    say)."""
    alive = {r.id for r in records}
    erased = {name for name, ids in profile.sources.items() if any(i not in alive for i in ids)}
    if not erased:
        return profile
    return replace(
        profile,
        profile={k: v for k, v in profile.profile.items() if k not in erased},
        sources={k: v for k, v in profile.sources.items() if k not in erased},
    )


class RunAtOnce:
    """The task queue of a service without a worker: each task runs as it is dispatched (its delay ignored)."""

    def __init__(self, run: Callable[[ProfileTask], None]) -> None:
        self._run = run

    def dispatch(self, task: ProfileTask, delay: float = 0.0) -> None:
        self._run(task)


class ProfileService:
    def __init__(
        self,
        store: ProfileStore,
        namespaces: NamespaceMemoryServices,
        entities: EntityStore,
        generator: Callable[[], ProfileGenerator | None],
        clock: Callable[[], datetime] = now,
        *,
        tasks: ProfileTaskQueue | None = None,
        debounce: float = 2.0,
        max_wait: float = 30.0,
    ) -> None:
        """`tasks`: where generations and jobs wait (the local worker's queue, the profile SQS queue); without one
        each task runs as it is dispatched."""
        self._store = store
        self.generator = generator
        self._clock = clock
        self.max_wait = max_wait
        self.tasks: ProfileTaskQueue = tasks or RunAtOnce(self.run_task)
        self.changes = ProfileChanges(store, self._dispatch, debounce, clock)
        self._users = ProjectUsers(namespaces, entities)

    @property
    def store(self) -> ProfileStore:
        """Where the settings, profiles and jobs are kept (a delete scrubs the profiles there)."""
        return self._store

    def _dispatch(self, task: ProfileTask, delay: float) -> None:
        self.tasks.dispatch(task, delay)

    # ---- settings ----

    def settings(self, project_id: str) -> ProfileSettings:
        return self._store.get_settings(project_id) or ProfileSettings(project_id)

    def update_settings(self, project_id: str, body: Mapping[str, Any]) -> ProfileSettings:
        """POST semantics: `{enabled?, entities: {user: {schema?, custom_instructions?, min_memories?}}}`; what is
        not sent is kept, an explicit null clears (mnemo.services.platform.profiles.settings)."""
        updated = updated_settings(self.settings(project_id), body)
        self._store.save_settings(updated)
        return updated

    # ---- profiles ----

    def profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile:
        """The user's profile (400: not a user; 404: a user the project has never seen). A stale one is
        regenerated: the answer is `pending` with the last good profile."""
        user_id = profile_user(entity_type, entity_id)
        records = self._users.memories(project_id, user_id)
        if not records and not self._users.known(project_id, user_id):
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
        if stored is None or stored.status == ProfileStatus.PENDING or stored.stamp != _stamp(records):
            # Never generated, stale, or pending (a generation lost long ago is claimed anew).
            at = self._clock()
            if claim(self._store, project_id, user_id, at):
                self.tasks.dispatch(ProfileTask("generate", project_id, user_id, at))
            stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
        assert stored is not None
        return served(stored, records)

    def note_changes(self, events: Sequence[OutboundEvent]) -> int:
        """Memory changes happened (their outbound events): a debounced generation of each changed user's profile
        in an enabled project (mnemo.services.platform.profiles.changes); how many were queued."""
        return self.changes.note(events)

    @property
    def debounce(self) -> float:
        return self.changes.debounce

    @debounce.setter
    def debounce(self, seconds: float) -> None:
        self.changes.debounce = seconds

    def run_task(self, task: ProfileTask) -> None:
        """What a worker does with a task: run the job, or generate the profile if it is still pending (once the
        changes have been quiet for `debounce` seconds, or `max_wait` after the generation was queued)."""
        if task.task == "job":
            self.run_job(task.project_id, task.target)
            return
        stored = self._store.get_profile(task.project_id, ENTITY_USER, task.target)
        if stored is None or stored.status != ProfileStatus.PENDING:
            return  # generated meanwhile (a job, another task) or deleted
        if task.claimed_at is not None and stored.queued_at != task.claimed_at:
            return  # claimed again since (a job generates it, or the claim was lost and made anew)
        wait = self._wait(stored)
        if wait > 0:
            self.tasks.dispatch(task, delay=wait)
            return
        self.generate(task.project_id, task.target)

    def _wait(self, stored: Profile) -> float:
        """Seconds until a pending profile's generation is due: `debounce` after its last change, and at most
        `max_wait` after it was queued."""
        if stored.changed_at is None or stored.queued_at is None:
            return 0.0
        moment = self._clock()
        quiet = self.debounce - (moment - stored.changed_at).total_seconds()
        latest = self.max_wait - (moment - stored.queued_at).total_seconds()
        return max(0.0, min(quiet, latest))

    def generate(self, project_id: str, user_id: str) -> ProfileStatus:
        """One generation of the user's profile, stored; its status (`not_enabled`: nothing done). A change that
        came after it read the memories queues the next one."""
        settings = self.settings(project_id)
        stored = self._store.get_profile(project_id, ENTITY_USER, user_id)
        if not settings.enabled:
            if stored is not None and stored.status == ProfileStatus.PENDING:  # regenerated when turned on again
                self._store.save_profile(replace(stored, status=ProfileStatus.NOT_ENABLED, stamp=None, queued_at=None))
            return ProfileStatus.NOT_ENABLED
        read_at = self._clock()
        records = self._users.memories(project_id, user_id)
        if not records and not self._users.known(project_id, user_id):
            self._store.delete_profile(project_id, ENTITY_USER, user_id)  # the user is gone
            return ProfileStatus.INSUFFICIENT_DATA
        draft = self._draft(settings, records)
        status = ProfileStatus(draft.status)
        succeeded = status == ProfileStatus.SUCCEEDED
        made = Profile(
            project_id,
            ENTITY_USER,
            user_id,
            status,
            dict(draft.profile) if succeeded else {},
            {k: list(v) for k, v in draft.sources.items()} if succeeded else {},
            draft.reason,
            self._clock(),
            (stored.generation_count if stored else 0) + 1,
            _stamp(records),
        )
        if self._store.finish_generation(made, read_at):  # claimed anew at made.updated_at
            self.tasks.dispatch(ProfileTask("generate", project_id, user_id, made.updated_at), delay=self.debounce)
        return status

    def _draft(self, settings: ProfileSettings, records: Sequence[MemoryRecord]) -> ProfileDraft:
        if not records:
            return ProfileDraft("insufficient_data", reason=NO_MEMORIES)
        if len(records) < settings.min_memories:
            return ProfileDraft(
                "insufficient_data",
                reason=f"{len(records)} of the {settings.min_memories} memories a profile needs (min_memories).",
            )
        generator = self.generator()
        if generator is None:
            return ProfileDraft("failed", reason=NO_GENERATOR)
        try:
            return generator.generate(settings.effective_schema, settings.custom_instructions, records[:MAX_MEMORIES])
        except Exception as error:  # a provider that is down: this generation failed, the next may not
            logger.warning("profile generation failed: %s", type(error).__name__)
            return ProfileDraft("failed", reason=f"The profile generator failed: {error}")

    # ---- jobs ----

    def create_job(self, project_id: str, body: Mapping[str, Any], idempotency_key: str | None) -> JobAnswer:
        """A trigger (one user) or sample (a few users) job, queued. The same Idempotency-Key with the same body
        replays the first answer; with another body it is a 409."""
        digest = request_hash(dict(body))
        if idempotency_key is not None:
            earlier = self._store.job_by_key(project_id, idempotency_key)
            if earlier is not None:
                return replayed(earlier, digest)
        users = job_users(self._users, project_id, body, enabled=self.settings(project_id).enabled)
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
            return replayed(stored, digest)
        at = self._clock()
        for user_id in users:  # pending until the job has generated them (a claim of now: a job always generates)
            self._store.claim_generation(project_id, ENTITY_USER, user_id, at=at, reclaim_before=at + RECLAIM_AFTER)
        self.tasks.dispatch(ProfileTask("job", project_id, job_id))
        return JobAnswer(answer, False)

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

    def resume(self) -> int:
        """Queue again what a stop left: every job queued or running, every pending profile (the local worker's
        start; on AWS the queue keeps them). How many tasks were queued."""
        tasks = [ProfileTask("job", j.project_id, j.id) for j in self._store.unfinished_jobs()]
        tasks += [
            ProfileTask("generate", p.project_id, p.entity_id, p.queued_at) for p in self._store.pending_profiles()
        ]
        for task in tasks:
            self.tasks.dispatch(task)
        return len(tasks)

    def job(self, project_id: str, job_id: str) -> ProfileJob:
        job = self._store.get_job(project_id, job_id)
        if job is None:
            raise NotFoundError(JOB_NOT_FOUND)
        return job

    def drop_project(self, project_id: str) -> None:
        self._store.delete_project(project_id)
