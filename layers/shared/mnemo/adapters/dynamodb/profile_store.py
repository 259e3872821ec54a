"""The DynamoDB store of platform profiles (mnemo.ports.profile_store), in the accounts table beside the tenancy
items (every partition key under `T#`; no secondary index: every read is a strongly consistent read of the base
table). All of a project's profile items are one partition, so deleting a project is one Query and batch deletes.

| item | `pk` | `sk` | attributes |
|---|---|---|---|
| settings | `T#PROFILES#<project id>` | `SETTINGS` | the settings (`schema` as JSON text, absent: None) |
| profile | `T#PROFILES#<project id>` | `P#<entity type>#<entity id>` | the profile (below) |
| job | `T#PROFILES#<project id>` | `J#<job id>` | the job (`entity_ids`, `answer` as JSON text) |
| job key claim | `T#PROFILES#<project id>` | `K#<Idempotency-Key>` | job_id: the one job of this key |

A profile item holds `profile` and `sources` as JSON text (over 16 KB compressed, `profile_z`/`sources_z`), status,
reason, updated_at, generation_count, stamp and the claim's moments: changed_at, read_at, queued_at.
An absent attribute stands for None (a moment is fixed-width ISO text, see codec.moment); a profile item without
`profile` or `sources` has empty ones (a claim creates the item without them: see claim_generation).

**Claims.** A generation is claimed with two single-item writes, each atomic on the item: the change is recorded
(`changed_at` moved forward on condition that it is later than the stored one), then one conditional UpdateItem
makes the profile `pending` and sets `queued_at`, creating the item when there is none, on the condition the port
states (no claim, or a claim older than `reclaim_before`; and the last generation did not read at or after the
change). Of any number of concurrent claims, from any number of processes, one meets the condition: the others
find the item pending with a fresh `queued_at`. `finish_generation` is a conditional UpdateItem that never writes
`changed_at`: it ends the claim when no change later than the read is stored, else it keeps the profile pending,
claimed anew (the two conditions are complementary; a loop retries the other when the stored change moves between
them). Moments are compared as text in these conditions: `moment` writes fixed-width UTC ISO 8601
(`%Y-%m-%dT%H:%M:%S.%f+00:00`, mnemo.domain.timefmt.iso), so the text sorts as the moments do.

`pending_profiles` and `unfinished_jobs` are a paginated, consistent Scan of the table filtered to the profile
items: only the local worker's restart and tools call them, never a Lambda function.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.codec import (
    Item,
    json_attribute,
    json_value,
    key,
    moment,
    moment_of,
    moment_or_none,
    number,
    optional,
    string,
    text_or_none,
)
from mnemo.adapters.dynamodb.operations import (
    Operations,
    TransactionCancelledError,
    condition_failed,
    fitting,
    projection,
)
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus

PROFILES = "T#PROFILES#"
SETTINGS = "SETTINGS"
PROFILE = "P#"
JOB = "J#"
JOB_KEY = "K#"
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


# ---- keys ---------------------------------------------------------------------------------------------------


def profiles_pk(project_id: str) -> str:
    return f"{PROFILES}{project_id}"


def settings_key(project_id: str) -> Item:
    return key(profiles_pk(project_id), SETTINGS)


def profile_key(project_id: str, entity_type: str, entity_id: str) -> Item:
    return key(profiles_pk(project_id), f"{PROFILE}{entity_type}#{entity_id}")


def job_key(project_id: str, job_id: str) -> Item:
    return key(profiles_pk(project_id), f"{JOB}{job_id}")


def job_key_claim(project_id: str, idempotency_key: str) -> Item:
    return key(profiles_pk(project_id), f"{JOB_KEY}{idempotency_key}")


# ---- items --------------------------------------------------------------------------------------------------


def settings_item(s: ProfileSettings) -> Item:
    return {
        **settings_key(s.project_id),
        "project_id": string(s.project_id),
        "enabled": {"BOOL": s.enabled},
        "min_memories": number(s.min_memories),
        **({} if s.schema is None else json_attribute("schema", s.schema)),
        **optional(custom_instructions=s.custom_instructions),
    }


def settings_of(item: Item) -> ProfileSettings:
    schema = json_value(item, "schema") if "schema" in item or "schema_z" in item else None
    return ProfileSettings(
        project_id=item["project_id"]["S"],
        enabled=bool(item["enabled"]["BOOL"]),
        schema=schema,
        custom_instructions=text_or_none(item, "custom_instructions"),
        min_memories=int(item["min_memories"]["N"]),
    )


def profile_attributes(p: Profile) -> Item:
    """The profile's attributes but its key and changed_at (which only a claim and a whole save write)."""
    return {
        "project_id": string(p.project_id),
        "entity_type": string(p.entity_type),
        "entity_id": string(p.entity_id),
        "status": string(p.status.value),
        "generation_count": number(p.generation_count),
        **json_attribute("profile", p.profile),
        **json_attribute("sources", p.sources),
        **optional(reason=p.reason, updated_at=p.updated_at, stamp=p.stamp, read_at=p.read_at, queued_at=p.queued_at),
    }


def profile_item(p: Profile) -> Item:
    return {
        **profile_key(p.project_id, p.entity_type, p.entity_id),
        **profile_attributes(p),
        **optional(changed_at=p.changed_at),
    }


def _json_or_empty(item: Item, name: str) -> Any:
    return json_value(item, name) if name in item or f"{name}_z" in item else {}


def profile_of(item: Item) -> Profile:
    return Profile(
        project_id=item["project_id"]["S"],
        entity_type=item["entity_type"]["S"],
        entity_id=item["entity_id"]["S"],
        status=ProfileStatus(item["status"]["S"]),
        profile=_json_or_empty(item, "profile"),
        sources=_json_or_empty(item, "sources"),
        reason=text_or_none(item, "reason"),
        updated_at=moment_or_none(item, "updated_at"),
        generation_count=int(item["generation_count"]["N"]) if "generation_count" in item else 0,
        stamp=text_or_none(item, "stamp"),
        changed_at=moment_or_none(item, "changed_at"),
        read_at=moment_or_none(item, "read_at"),
        queued_at=moment_or_none(item, "queued_at"),
    )


def job_item(j: ProfileJob) -> Item:
    return {
        **job_key(j.project_id, j.id),
        "id": string(j.id),
        "project_id": string(j.project_id),
        "operation": string(j.operation),
        "entity_type": string(j.entity_type),
        "entity_ids": string(json.dumps(list(j.entity_ids), ensure_ascii=False)),
        "status": string(j.status.value),
        "created_at": moment(j.created_at),
        "updated_at": moment(j.updated_at),
        "completed": number(j.completed),
        "succeeded": number(j.succeeded),
        "failed": number(j.failed),
        "skipped": number(j.skipped),
        **json_attribute("answer", j.answer),
        **({} if j.total is None else {"total": number(j.total)}),
        **optional(idempotency_key=j.idempotency_key, request_hash=j.request_hash, error=j.error),
    }


def job_of(item: Item) -> ProfileJob:
    return ProfileJob(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        operation=item["operation"]["S"],
        entity_type=item["entity_type"]["S"],
        entity_ids=tuple(json.loads(item["entity_ids"]["S"])),
        status=JobStatus(item["status"]["S"]),
        created_at=moment_of(item, "created_at"),
        updated_at=moment_of(item, "updated_at"),
        idempotency_key=text_or_none(item, "idempotency_key"),
        request_hash=text_or_none(item, "request_hash"),
        answer=json_value(item, "answer"),
        total=int(item["total"]["N"]) if "total" in item else None,
        completed=int(item["completed"]["N"]),
        succeeded=int(item["succeeded"]["N"]),
        failed=int(item["failed"]["N"]),
        skipped=int(item["skipped"]["N"]),
        error=text_or_none(item, "error"),
    )


# ---- conditional updates ------------------------------------------------------------------------------------


class _Update:
    """An UpdateItem request built up: every attribute name aliased (`status` and others are reserved words)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, dict[str, Any]] = {}
        self._aliases: dict[str, str] = {}
        self._set: list[str] = []
        self._remove: list[str] = []

    def name(self, attribute: str) -> str:
        alias = self._aliases.setdefault(attribute, f"#n{len(self._aliases)}")
        self.names[alias] = attribute
        return alias

    def value(self, value: dict[str, Any]) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = value
        return placeholder

    def set(self, attribute: str, value: dict[str, Any]) -> _Update:
        self._set.append(f"{self.name(attribute)} = {self.value(value)}")
        return self

    def set_if_absent(self, attribute: str, value: dict[str, Any]) -> _Update:
        alias = self.name(attribute)
        self._set.append(f"{alias} = if_not_exists({alias}, {self.value(value)})")
        return self

    def remove(self, attribute: str) -> _Update:
        self._remove.append(self.name(attribute))
        return self

    def run(self, ops: Operations, item_key: Item, condition: str) -> bool:
        """Whether the update was made (False: the condition failed, nothing was written)."""
        expression = "SET " + ", ".join(self._set)
        if self._remove:
            expression += " REMOVE " + ", ".join(self._remove)
        try:
            ops.client.update_item(
                TableName=ops.table,
                Key=item_key,
                UpdateExpression=expression,
                ConditionExpression=condition,
                ExpressionAttributeNames=self.names,
                ExpressionAttributeValues=self.values,
            )
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True


def _whole_profile(profile: Profile) -> _Update:
    """SET every attribute of the profile but changed_at, REMOVE the others (None, or JSON stored the other way)."""
    update = _Update()
    attributes = profile_attributes(profile)
    fitting({**profile_key(profile.project_id, profile.entity_type, profile.entity_id), **attributes})
    for name in _PROFILE_ATTRIBUTES:
        if name in attributes:
            update.set(name, attributes[name])
        else:
            update.remove(name)
    return update


# ---- the store ----------------------------------------------------------------------------------------------


class DynamoProfileStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)

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
            record = _Update().set("changed_at", moment(changed_at))
            record.run(
                self._ops,
                item_key,
                f"attribute_exists(pk) AND (attribute_not_exists({record.name('changed_at')}) "
                f"OR {record.name('changed_at')} < {record.value(moment(changed_at))})",
            )
        claim = (
            _Update()
            .set("status", string(_PENDING))
            .set("queued_at", moment(at))
            .set("project_id", string(project_id))
            .set("entity_type", string(entity_type))
            .set("entity_id", string(entity_id))
            .set_if_absent("generation_count", number(0))
        )
        # `profile` and `sources` are not written: a created profile has none (read as empty), a stored one keeps
        # its own — which may be stored compressed as `profile_z`, where if_not_exists(profile, ...) would add a
        # second, empty `profile` beside it.
        if changed_at is not None:
            claim.set_if_absent("changed_at", moment(changed_at))
        status, queued_at = claim.name("status"), claim.name("queued_at")
        # Not claimed (no profile, or not pending, or pending without a claim or with one older than reclaim_before;
        # ISO text compares as the moments do) ...
        unclaimed = (
            f"attribute_not_exists({status}) OR {status} <> {claim.value(string(_PENDING))} "
            f"OR attribute_not_exists({queued_at}) OR {queued_at} < {claim.value(moment(reclaim_before))}"
        )
        condition = f"({unclaimed})"
        if changed_at is not None:
            # ... and the last generation read the memories before this change (else it saw it).
            read_at = claim.name("read_at")
            unseen = f"attribute_not_exists({read_at}) OR {read_at} < {claim.value(moment(changed_at))}"
            condition += f" AND ({unseen})"
        return claim.run(self._ops, item_key, condition)

    def finish_generation(self, profile: Profile, read_at: datetime) -> bool:
        """Two complementary conditional updates, neither of which writes changed_at: the claim ends when no change
        later than `read_at` is stored; else the profile stays pending, claimed anew. A claim that comes between
        the two finds the profile pending (its change is then read by the next generation, which the caller
        queues on True) or, after the first, not pending and claims itself; none is lost."""
        item_key = profile_key(profile.project_id, profile.entity_type, profile.entity_id)
        finished = replace(profile, read_at=read_at, queued_at=None)
        claimed_anew = replace(finished, status=ProfileStatus.PENDING, queued_at=profile.updated_at)
        for _ in range(MAX_ROUNDS):
            done = _whole_profile(finished)
            changed = done.name("changed_at")
            if done.run(
                self._ops, item_key, f"attribute_not_exists({changed}) OR {changed} <= {done.value(moment(read_at))}"
            ):
                return False
            again = _whole_profile(claimed_anew)
            changed = again.name("changed_at")
            if again.run(self._ops, item_key, f"{changed} > {again.value(moment(read_at))}"):
                return True
            # The stored change moved back between the two (a whole save or a delete): try again.
        raise RuntimeError(f"The generation of a profile could not be stored after {MAX_ROUNDS} rounds.")

    def pending_profiles(self) -> list[Profile]:
        """A Scan of the table (the local worker's restart and tools only)."""
        return [profile_of(i) for i in self._scan(PROFILE, "#s = :pending", {":pending": string(_PENDING)})]

    # ---- jobs ----

    def add_job(self, job: ProfileJob) -> ProfileJob:
        if job.idempotency_key is None:
            self._put(job_item(job))
            return job
        claim_key = job_key_claim(job.project_id, job.idempotency_key)
        claim = {**claim_key, "job_id": string(job.id)}
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
        return None if claim is None else self.get_job(project_id, claim["job_id"]["S"])

    def get_job(self, project_id: str, job_id: str) -> ProfileJob | None:
        item = self._ops.get(job_key(project_id, job_id))
        return None if item is None else job_of(item)

    def save_job(self, job: ProfileJob) -> None:
        """The job replaced (nothing when it is not stored)."""
        try:
            self._ops.client.put_item(
                TableName=self._ops.table,
                Item=fitting(job_item(job)),
                ConditionExpression="attribute_exists(pk)",
            )
        except ClientError as exc:
            if not condition_failed(exc):
                raise

    def unfinished_jobs(self) -> list[ProfileJob]:
        """A Scan of the table (the local worker's restart and tools only), oldest first."""
        values = {":queued": string(_UNFINISHED[0]), ":running": string(_UNFINISHED[1])}
        jobs = [job_of(i) for i in self._scan(JOB, "#s IN (:queued, :running)", values)]
        return sorted(jobs, key=lambda j: (j.created_at, j.id))

    # ---- projects ----

    def delete_project(self, project_id: str) -> None:
        doomed: list[Item] = []
        for item in self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": string(profiles_pk(project_id))},
            ConsistentRead=True,
            **projection(["pk", "sk"]),
        ):
            doomed.append(item)
            if len(doomed) >= 500:
                self._ops.delete_many(doomed)
                doomed = []
        self._ops.delete_many(doomed)

    # ---- helpers ----

    def _delete_stale_claim(self, claim_key: Item, job_id: dict[str, Any]) -> None:
        """Delete the key claim while it still names this job (a claim taken anew meanwhile stays)."""
        try:
            self._ops.client.delete_item(
                TableName=self._ops.table,
                Key=claim_key,
                ConditionExpression="job_id = :j",
                ExpressionAttributeValues={":j": job_id},
            )
        except ClientError as exc:
            if not condition_failed(exc):
                raise

    def _put(self, item: Item) -> None:
        self._ops.client.put_item(TableName=self._ops.table, Item=fitting(item))

    def _scan(self, sk_prefix: str, status_filter: str, values: dict[str, dict[str, Any]]) -> Sequence[Item]:
        """The profile items of every project whose sort key starts with `sk_prefix` and whose status (`#s`)
        passes the filter: a consistent, paginated Scan of the whole accounts table."""
        return list(
            self._ops.items(
                "scan",
                ConsistentRead=True,
                FilterExpression=f"begins_with(pk, :pk) AND begins_with(sk, :sk) AND ({status_filter})",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":pk": string(PROFILES), ":sk": string(sk_prefix), **values},
            )
        )
