"""The DynamoDB store of platform profiles (mnemo.ports.profile_store), in the accounts table beside the tenancy
items (every partition key under `T#`; no secondary index: every read is a strongly consistent read of the base
table). All of a project's profile items are one partition (profile_items.py), so deleting a project is one Query
and batch deletes.

**Claims.** A generation is claimed with two single-item writes, each atomic on the item: the change is recorded
(`changed_at` moved forward on condition that it is later than the stored one), then one conditional UpdateItem
makes the profile `pending` and sets `queued_at`, creating the item when there is none, on the condition the port
states (no claim, or a claim older than `reclaim_before`; and the last generation did not read at or after the
change). Of any number of concurrent claims, from any number of processes, one meets the condition: the others
find the item pending with a fresh `queued_at`. `finish_generation` is a conditional UpdateItem that never writes
`changed_at`: it ends the claim when no change later than the read is stored, else it keeps the profile pending,
claimed anew (the two conditions are complementary; a loop retries the other when the stored change moves between
them). Moments are compared as text in these conditions: a moment is written as fixed-width UTC ISO 8601
(`%Y-%m-%dT%H:%M:%S.%f+00:00`, attributes.value), so the text sorts as the moments do.

`pending_profiles` and `unfinished_jobs` are a paginated, consistent Scan of the table filtered to the profile
items: only the local worker's restart and tools call them, never a Lambda function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from mnemo.adapters.dynamodb.attributes import AttributeValue, Item, attributes, placeholders, text, value
from mnemo.adapters.dynamodb.operations import TransactionCancelledError, fitting
from mnemo.adapters.dynamodb.profile_items import (
    JOB,
    PROFILE,
    PROFILES,
    job_item,
    job_key,
    job_key_claim,
    job_of,
    profile_attributes,
    profile_item,
    profile_key,
    profile_of,
    profiles_pk,
    settings_item,
    settings_key,
    settings_of,
)
from mnemo.adapters.dynamodb.table_store import TableStore
from mnemo.adapters.dynamodb.update_expression import UpdateExpression
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus

MAX_ROUNDS = 100  # finish_generation: writes lost to a stored change moving back and forth before giving up
_PENDING = ProfileStatus.PENDING.value
_UNFINISHED = (JobStatus.QUEUED.value, JobStatus.RUNNING.value)
# Every attribute a profile item's whole write sets or removes (all but the keys and changed_at).
_PROFILE_ATTRIBUTES = (
    "project_id",
    "entity_type",
    "entity_id",
    "status",
    "profile",
    "profile_z",
    "sources",
    "sources_z",
    "reason",
    "updated_at",
    "generation_count",
    "stamp",
    "read_at",
    "queued_at",
)


def _whole_profile(profile: Profile) -> UpdateExpression:
    """SET every attribute of the profile but changed_at, REMOVE the others (None, or JSON stored the other way)."""
    attributes = profile_attributes(profile)
    fitting({**profile_key(profile.project_id, profile.entity_type, profile.entity_id), **attributes})
    return _writing(attributes, _PROFILE_ATTRIBUTES)


def _writing(attributes: Item, names: Sequence[str]) -> UpdateExpression:
    """SET each of `names` that `attributes` has, REMOVE the others."""
    update = UpdateExpression()
    for name in names:
        if name in attributes:
            update.set(name, attributes[name])
        else:
            update.remove(name)
    return update


# ---- the store ----------------------------------------------------------------------------------------------


class DynamoProfileStore(TableStore):
    # ---- settings ----

    def get_settings(self, project_id: str) -> ProfileSettings | None:
        item = self._ops.get(settings_key(project_id))
        return None if item is None else settings_of(item)

    def save_settings(self, settings: ProfileSettings) -> None:
        self._put(settings_item(settings))

    # ---- profiles ----

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None:
        item = self._ops.get(profile_key(project_id, entity_type, entity_id))
        return None if item is None else profile_of(item)

    def save_profile(self, profile: Profile) -> None:
        self._put(profile_item(profile))

    def save_content(self, profile: Profile) -> bool:
        # The content's JSON, stored one way or the other.
        update = _writing(profile_attributes(profile), ("profile", "profile_z", "sources", "sources_z"))
        updated_at = update.name("updated_at")
        same = (
            f"attribute_not_exists({updated_at})"
            if profile.updated_at is None
            else f"{updated_at} = {update.value(value(profile.updated_at))}"
        )
        item_key = profile_key(profile.project_id, profile.entity_type, profile.entity_id)
        return update.run(self._ops, item_key, f"attribute_exists(pk) AND {same}")

    def delete_profile(self, project_id: str, entity_type: str, entity_id: str) -> None:
        self._ops.delete(profile_key(project_id, entity_type, entity_id))

    def claim_generation(
        self,
        project_id: str,
        entity_type: str,
        entity_id: str,
        *,
        at: datetime,
        reclaim_before: datetime,
        changed_at: datetime | None = None,
    ) -> bool:
        item_key = profile_key(project_id, entity_type, entity_id)
        if changed_at is not None:
            # The change, recorded on a stored profile when later than the one it holds (an older one, or no
            # profile yet, fails the condition: the claim below records it on the profile it creates).
            record = UpdateExpression().set("changed_at", value(changed_at))
            record.run(
                self._ops,
                item_key,
                f"attribute_exists(pk) AND (attribute_not_exists({record.name('changed_at')}) "
                f"OR {record.name('changed_at')} < {record.value(value(changed_at))})",
            )
        claim = (
            UpdateExpression()
            .set("status", value(_PENDING))
            .set("queued_at", value(at))
            .set("project_id", value(project_id))
            .set("entity_type", value(entity_type))
            .set("entity_id", value(entity_id))
            .set_if_absent("generation_count", value(0))
        )
        # `profile` and `sources` are not written: a created profile has none (read as empty), a stored one keeps
        # its own — which may be stored compressed as `profile_z`, where if_not_exists(profile, ...) would add a
        # second, empty `profile` beside it.
        if changed_at is not None:
            claim.set_if_absent("changed_at", value(changed_at))
        status, queued_at = claim.name("status"), claim.name("queued_at")
        # Not claimed (no profile, or not pending, or pending without a claim or with one older than reclaim_before;
        # ISO text compares as the moments do) ...
        unclaimed = (
            f"attribute_not_exists({status}) OR {status} <> {claim.value(value(_PENDING))} "
            f"OR attribute_not_exists({queued_at}) OR {queued_at} < {claim.value(value(reclaim_before))}"
        )
        condition = f"({unclaimed})"
        if changed_at is not None:
            # ... and the last generation read the memories before this change (else it saw it).
            read_at = claim.name("read_at")
            unseen = f"attribute_not_exists({read_at}) OR {read_at} < {claim.value(value(changed_at))}"
            condition += f" AND ({unseen})"
        return claim.run(self._ops, item_key, condition)

    def finish_generation(self, profile: Profile, read_at: datetime) -> bool:
        """Two complementary conditional updates, neither of which writes changed_at: the claim ends when no change
        later than `read_at` is stored; else the profile stays pending, claimed anew. A claim that comes between
        the two finds the profile pending (its change is then read by the next generation, which the caller
        queues on True) or, after the first, not pending and claims itself; none is lost. Both require the item:
        a profile deleted while its generation ran (its user's erasure) stays deleted."""
        item_key = profile_key(profile.project_id, profile.entity_type, profile.entity_id)
        finished = replace(profile, read_at=read_at, queued_at=None)
        claimed_anew = replace(finished, status=ProfileStatus.PENDING, queued_at=profile.updated_at)
        for _ in range(MAX_ROUNDS):
            done = _whole_profile(finished)
            changed = done.name("changed_at")
            unchanged = f"attribute_not_exists({changed}) OR {changed} <= {done.value(value(read_at))}"
            if done.run(self._ops, item_key, f"attribute_exists(pk) AND ({unchanged})"):
                return False
            again = _whole_profile(claimed_anew)
            changed = again.name("changed_at")
            if again.run(self._ops, item_key, f"attribute_exists(pk) AND {changed} > {again.value(value(read_at))}"):
                return True
            if self._ops.get(item_key) is None:
                return False  # deleted: nothing to store, nothing to queue
            # The stored change moved back between the two (a whole save): try again.
        raise RuntimeError(f"The generation of a profile could not be stored after {MAX_ROUNDS} rounds.")

    def pending_profiles(self) -> list[Profile]:
        """A Scan of the table (the local worker's restart and tools only)."""
        return [profile_of(i) for i in self._scan(PROFILE, "#s = :pending", placeholders(pending=_PENDING))]

    # ---- jobs ----

    def add_job(self, job: ProfileJob) -> ProfileJob:
        if job.idempotency_key is None:
            self._put(job_item(job))
            return job
        claim_key = job_key_claim(job.project_id, job.idempotency_key)
        claim = {**claim_key, **attributes(job_id=job.id)}
        for _ in range(MAX_ROUNDS):
            try:
                self._ops.transact([self._ops.put_new(claim), self._ops.put(job_item(job))])
                return job
            except TransactionCancelledError as exc:
                if not exc.failed(0):
                    raise
            existing = self.job_by_key(job.project_id, job.idempotency_key)
            if existing is not None:
                return existing
            # A claim without its job (left by a project deleted halfway): cleared, then the job stored.
            stale = self._ops.get(claim_key)
            if stale is not None:
                self._delete_stale_claim(claim_key, stale["job_id"])
        raise RuntimeError(f"The job of Idempotency-Key {job.idempotency_key!r} could not be stored.")

    def job_by_key(self, project_id: str, idempotency_key: str) -> ProfileJob | None:
        claim = self._ops.get(job_key_claim(project_id, idempotency_key))
        return None if claim is None else self.get_job(project_id, text(claim, "job_id"))

    def get_job(self, project_id: str, job_id: str) -> ProfileJob | None:
        item = self._ops.get(job_key(project_id, job_id))
        return None if item is None else job_of(item)

    def save_job(self, job: ProfileJob) -> None:
        """The job replaced (nothing when it is not stored)."""
        self._ops.conditionally("put_item", Item=fitting(job_item(job)), ConditionExpression="attribute_exists(pk)")

    def unfinished_jobs(self) -> list[ProfileJob]:
        """A Scan of the table (the local worker's restart and tools only), oldest first."""
        values = placeholders(queued=_UNFINISHED[0], running=_UNFINISHED[1])
        jobs = [job_of(i) for i in self._scan(JOB, "#s IN (:queued, :running)", values)]
        return sorted(jobs, key=lambda j: (j.created_at, j.id))

    # ---- projects ----

    def delete_project(self, project_id: str) -> None:
        self._ops.delete_as_found(self._ops.partition_keys(profiles_pk(project_id), consistent=True))

    # ---- helpers ----

    def _delete_stale_claim(self, claim_key: Item, job_id: AttributeValue) -> None:
        """Delete the key claim while it still names this job (a claim taken anew meanwhile stays)."""
        self._ops.conditionally(
            "delete_item", Key=claim_key, ConditionExpression="job_id = :j", ExpressionAttributeValues={":j": job_id}
        )

    def _put(self, item: Item) -> None:
        self._ops.client.put_item(TableName=self._ops.table, Item=fitting(item))

    def _scan(self, sk_prefix: str, status_filter: str, values: Item) -> Sequence[Item]:
        """The profile items of every project whose sort key starts with `sk_prefix` and whose status (`#s`)
        passes the filter: a consistent, paginated Scan of the whole accounts table."""
        return list(
            self._ops.items(
                "scan",
                ConsistentRead=True,
                FilterExpression=f"begins_with(pk, :pk) AND begins_with(sk, :sk) AND ({status_filter})",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={**placeholders(pk=PROFILES, sk=sk_prefix), **values},
            )
        )
