"""The items of the profile store (profile_store.py) in the accounts table, all of a project's in one partition:

| item | `pk` | `sk` | attributes |
|---|---|---|---|
| settings | `T#PROFILES#<project id>` | `SETTINGS` | the settings (`schema` as JSON text, absent: None) |
| profile | `T#PROFILES#<project id>` | `P#<entity type>#<entity id>` | the profile (below) |
| job | `T#PROFILES#<project id>` | `J#<job id>` | the job (`entity_ids`, `answer` as JSON text) |
| job key claim | `T#PROFILES#<project id>` | `K#<Idempotency-Key>` | job_id: the one job of this key |

A profile item holds `profile` and `sources` as JSON text (over 16 KB compressed, `profile_z`/`sources_z`), status,
reason, updated_at, generation_count, stamp and the claim's moments: changed_at, read_at, queued_at.
An absent attribute stands for None (a moment is fixed-width ISO text, see attributes.value); a profile item without
`profile` or `sources` has empty ones (a claim creates the item without them: see claim_generation).
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.attributes import Item, attributes
from mnemo.adapters.dynamodb.codec import json_attribute, json_of, json_or, json_string, json_value, key
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.domain.profiles import Profile, ProfileJob, ProfileSettings

PROFILES = "T#PROFILES#"
SETTINGS = "SETTINGS"
PROFILE = "P#"
JOB = "J#"
JOB_KEY = "K#"


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
    """The settings; the schema, when there is one, as JSON (compressed when large)."""
    schema = {} if s.schema is None else json_attribute("schema", s.schema)
    return {**settings_key(s.project_id), **as_attributes(s, omit=("schema",)), **schema}


def settings_of(item: Item) -> ProfileSettings:
    return from_item(ProfileSettings, item, schema=json_or(item, "schema", None))


def profile_attributes(p: Profile) -> Item:
    """The profile's attributes but its key and changed_at (which only a claim and a whole save write)."""
    return {
        **as_attributes(p, omit=("profile", "sources", "changed_at")),
        **json_attribute("profile", p.profile),
        **json_attribute("sources", p.sources),
    }


def profile_item(p: Profile) -> Item:
    return {
        **profile_key(p.project_id, p.entity_type, p.entity_id),
        **profile_attributes(p),
        **attributes(changed_at=p.changed_at),
    }


def profile_of(item: Item) -> Profile:
    """A profile item without `profile` or `sources` (a claim made it) has empty ones."""
    return from_item(Profile, item, profile=json_or(item, "profile", {}), sources=json_or(item, "sources", {}))


def job_item(j: ProfileJob) -> Item:
    """The job; the entity ids and the answer as JSON."""
    return {
        **job_key(j.project_id, j.id),
        **as_attributes(j, omit=("entity_ids", "answer")),
        "entity_ids": json_string(list(j.entity_ids)),
        **json_attribute("answer", j.answer),
    }


def job_of(item: Item) -> ProfileJob:
    entity_ids = tuple(json_of(item, "entity_ids"))
    return from_item(ProfileJob, item, entity_ids=entity_ids, answer=json_value(item, "answer"))
