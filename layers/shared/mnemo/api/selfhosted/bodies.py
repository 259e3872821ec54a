"""Request bodies of the self-hosted routes: memories and search, then accounts
(/auth, /users, /api-keys). Their answers are in responses.py."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from mnemo.api.limits import (
    JSON_RULE,
    MAX_DESCRIPTION,
    MAX_INSTRUCTIONS,
    MAX_MESSAGES,
    MAX_NAME,
    MAX_QUERY,
    MAX_SHORT,
    MAX_TOP_K,
    Metadata,
)
from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.domain.accounts import Role, is_email, normalize_email
from mnemo.domain.memory import Scope
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message

# ---- memories and search -----------------------------------------------------------------------------------


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str = Field(
        min_length=1, max_length=MAX_SHORT, description="Who said it: user, assistant or system.", examples=["user"]
    )
    content: str = Field(
        description="What was said (an add's messages and metadata: at most 100 kB in all, 413 beyond).",
        examples=["I moved to Lisbon last spring and I'm allergic to peanuts."],
    )
    name: str | None = Field(
        default=None, max_length=MAX_NAME, description="The speaker's name; kept as the memory's actor_id."
    )


class MemoryCreate(BaseModel):
    """One add: at most 100 kB of messages and metadata in all (413 beyond)."""

    model_config = ConfigDict(extra="forbid")
    messages: list[MessageIn] = Field(
        min_length=1, max_length=MAX_MESSAGES, description="The conversation to remember."
    )
    user_id: str | None = Field(
        default=None, max_length=MAX_NAME, description="The user the memories belong to.", examples=["alice"]
    )
    agent_id: str | None = Field(default=None, max_length=MAX_NAME, description="The agent the memories belong to.")
    run_id: str | None = Field(
        default=None, max_length=MAX_NAME, description="The run (session) the memories belong to."
    )
    app_id: str | None = Field(default=None, max_length=MAX_NAME, description="The application the memories belong to.")
    metadata: Metadata | None = Field(default=None, description=f"Stored with every memory of this call. {JSON_RULE}")
    expiration_date: str | None = Field(
        default=None, max_length=MAX_SHORT, description="YYYY-MM-DD; the memory is hidden after it."
    )
    infer: bool | None = Field(default=None, description="Extract facts (default) or store messages as given.")
    memory_type: str | None = Field(default=None, max_length=MAX_SHORT, description="Only 'procedural_memory'.")
    prompt: str | None = Field(
        default=None,
        max_length=MAX_INSTRUCTIONS,
        description="Custom instructions for this call only (at most 20,000 characters).",
    )


class MemoryUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str | None = Field(default=None, description="The new text (with the metadata: at most 100 kB, 413 beyond).")
    metadata: Metadata | None = Field(default=None, description=f"Merged into the memory's metadata. {JSON_RULE}")
    expiration_date: str | None = Field(
        default=None, max_length=MAX_SHORT, description="YYYY-MM-DD, or null to clear it."
    )


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(
        max_length=MAX_QUERY,
        description="What to look for (at most 4,000 characters).",
        examples=["Where does Alice live?"],
    )
    filters: dict[str, Any] | None = Field(
        default=None,
        description="Which memories to search (OSS filter grammar); names a user_id, agent_id or run_id.",
        examples=[{"user_id": "alice"}],
    )
    user_id: str | None = Field(default=None, max_length=MAX_NAME, description="Deprecated: use filters.")
    agent_id: str | None = Field(default=None, max_length=MAX_NAME, description="Deprecated: use filters.")
    run_id: str | None = Field(default=None, max_length=MAX_NAME, description="Deprecated: use filters.")
    top_k: int | None = Field(default=None, ge=0, le=MAX_TOP_K, description="At most this many results (20).")
    threshold: float | None = Field(default=None, description="The lowest semantic score kept, 0 to 1 (0.1).")
    explain: bool = Field(default=False, description="Add score_details to every result.")
    show_expired: bool = Field(default=False, description="Include memories past their expiration_date.")
    rerank: bool = Field(
        default=False,
        description="Re-score a wide pool of candidates with the deployment's reranker (README, Search); "
        "score_details then has rerank_score and hybrid_score.",
    )


def add_command(body: MemoryCreate) -> AddCommand:
    """The add the body asks for, its size checked (413) before any work."""
    scope = Scope(
        user_id=clean_id("user_id", body.user_id),
        agent_id=clean_id("agent_id", body.agent_id),
        run_id=clean_id("run_id", body.run_id),
        app_id=clean_id("app_id", body.app_id),
    )
    if scope.is_empty():  # the reference server's rule: an app alone owns no memory here
        raise ValidationError("At least one identifier (user_id, agent_id, run_id) is required.")
    if body.memory_type is not None and body.memory_type != "procedural_memory":
        raise ValidationError("Invalid 'memory_type'. Please pass procedural_memory to create procedural memories.")
    command = AddCommand(
        messages=[Message(m.role, m.content, m.name) for m in body.messages],
        scope=scope,
        metadata=body.metadata or {},
        infer=body.infer is not False,
        expiration_date=parse_expiration(body.expiration_date),
        instructions=body.prompt,
        procedural=body.memory_type == "procedural_memory",
    )
    command.check_size()
    return command


# ---- accounts ------------------------------------------------------------------------------------------------

MAX_PASSWORD = 1024  # argon2 takes any length; this bounds the work one request can ask for


# What `_email` takes, for /openapi.json: mnemo.domain.accounts' rule around the spaces normalize_email strips. The
# white space is spelled out: a JSON Schema `\s` (ECMA-262) is not Python's (which has \x1c-\x1f and \x85).
_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
EMAIL_SCHEMA: JsonDict = {"pattern": rf"^[{_SPACE}]*[^@{_SPACE}]+@[^@{_SPACE}]+\.[^@{_SPACE}]+[{_SPACE}]*$"}


def _email(value: str) -> str:
    if not is_email(normalize_email(value)):
        raise ValueError("value is not a valid email address")
    return value


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(max_length=255, examples=["admin@example.com"])
    password: str = Field(max_length=MAX_PASSWORD)


class Registration(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=255, examples=["Ada"])
    email: str = Field(max_length=255, examples=["admin@example.com"], json_schema_extra=EMAIL_SCHEMA)
    password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")

    _check_email = field_validator("email")(_email)


class NewUser(Registration):
    role: Role = Field(default=Role.MEMBER, description="member (the default) or admin.")


class RefreshRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    refresh_token: str = Field(
        max_length=4_096, description="The refresh token of the last sign-in or refresh (single use)."
    )


class ProfileUpdate(BaseModel):
    """Only the name and the email: a role is an admin's to change (PATCH with any other key is refused)."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, max_length=255, description="The new name; a blank one is ignored.")
    email: str | None = Field(
        default=None, max_length=255, description="The new email.", json_schema_extra=EMAIL_SCHEMA
    )

    @field_validator("email")
    @classmethod
    def _check_email(cls, value: str | None) -> str | None:
        return None if value is None else _email(value)


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    current_password: str = Field(max_length=MAX_PASSWORD)
    new_password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")


class NewApiKey(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: str = Field(default="", max_length=255, description="A name to tell keys apart.", examples=["my agent"])


class UseCase(BaseModel):
    """What the deployment is for, as the reference's dashboard asks it."""

    model_config = ConfigDict(extra="forbid")
    use_case: str = Field(
        max_length=MAX_DESCRIPTION, description="What the memories are for (at most 2,000 characters)."
    )
