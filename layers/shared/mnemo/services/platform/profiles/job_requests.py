"""What a profile job request asks for, checked: a trigger names one user, a sample picks a few at random.

Kept apart from the service so the request's rules (its fields, its bounds, the idempotent replay) read in one
place; the service only stores and runs the job."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemo.domain.profiles import ENTITY_USER, ProfileJob
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.services.platform.profiles.users import ProjectUsers, profile_user

MAX_SAMPLE = 10  # users of one sample job
DEFAULT_SAMPLE = 5
FIELDS = frozenset({"operation", "entity_type", "entity_id", "limit"})
NOT_ENABLED = "Profiles are not enabled for this project: turn them on with POST /v2/profiles/settings/."
PROFILE_NOT_FOUND = "Entity not found."


@dataclass(frozen=True, slots=True)
class JobAnswer:
    """A job create's answer (the first one, replayed for the same key and body) and whether it is a replay."""

    body: dict[str, Any]
    replayed: bool


def sample_limit(body: Mapping[str, Any]) -> int:
    limit = body.get("limit")
    if limit is None:
        return DEFAULT_SAMPLE
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_SAMPLE:
        raise ValidationError(f"limit must be an integer from 1 to {MAX_SAMPLE}.")
    return limit


def job_users(users: ProjectUsers, project_id: str, body: Mapping[str, Any], *, enabled: bool) -> list[str]:
    """The users a job request names (trigger) or picks (sample), the request checked."""
    operation = body.get("operation")
    if operation not in ("trigger", "sample"):
        raise ValidationError('operation must be "trigger" or "sample".')
    if body.get("entity_type", ENTITY_USER) != ENTITY_USER:
        raise ValidationError("Profiles are generated for users only: entity_type must be user.")
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise ValidationError(f"Unknown fields: {', '.join(unknown)}.")
    if not enabled:
        raise ValidationError(NOT_ENABLED)
    if operation == "sample":
        limit = sample_limit(body)
        known = users.all(project_id)
        return sorted(random.sample(known, min(limit, len(known))))
    entity_id = body.get("entity_id")
    if not isinstance(entity_id, str) or not entity_id.strip():
        raise ValidationError("entity_id is required.")
    user_id = profile_user(ENTITY_USER, entity_id)
    if not users.known(project_id, user_id):
        raise NotFoundError(PROFILE_NOT_FOUND)
    return [user_id]


def replayed(earlier: ProfileJob, digest: str) -> JobAnswer:
    """The first answer of a job request sent again with the same Idempotency-Key (409 for another body)."""
    if earlier.request_hash != digest:
        raise ConflictError("This Idempotency-Key was used with another request body.")
    return JobAnswer(dict(earlier.answer), True)
