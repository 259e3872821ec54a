"""Request bodies of the self-hosted routes (compat-reference §1.4): memories and search, then accounts
(/auth, /users, /api-keys). Their answers are in responses.py."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.domain.accounts import Role, is_email, normalize_email
from mnemo.domain.memory import Scope
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message

# ---- memories and search -----------------------------------------------------------------------------------


class MessageIn(BaseModel):
    role: str = Field(min_length=1, description="Who said it: user, assistant or system.", examples=["user"])
    content: str = Field(
        description="What was said.", examples=["I moved to Lisbon last spring and I'm allergic to peanuts."]
    )
    name: str | None = Field(default=None, description="The speaker's name; kept as the memory's actor_id.")


class MemoryCreate(BaseModel):
    messages: list[MessageIn] = Field(min_length=1, description="The conversation to remember.")
    user_id: str | None = Field(default=None, description="The user the memories belong to.", examples=["alice"])
    agent_id: str | None = Field(default=None, description="The agent the memories belong to.")
    run_id: str | None = Field(default=None, description="The run (session) the memories belong to.")
    app_id: str | None = Field(default=None, description="The application the memories belong to.")
    metadata: dict[str, Any] | None = Field(default=None, description="Stored with every memory of this call.")
    expiration_date: str | None = Field(default=None, description="YYYY-MM-DD; the memory is hidden after it.")
    infer: bool | None = Field(default=None, description="Extract facts (default) or store messages as given.")
    memory_type: str | None = Field(default=None, description="Only 'procedural_memory'.")
    prompt: str | None = Field(
        default=None,
        max_length=20_000,
        description="Custom instructions for this call only (at most 20,000 characters).",
    )


class MemoryUpdate(BaseModel):
    text: str | None = Field(default=None, description="The new text.")
    metadata: dict[str, Any] | None = Field(default=None, description="Merged into the memory's metadata.")
    expiration_date: str | None = Field(default=None, description="YYYY-MM-DD, or null to clear it.")


class SearchRequest(BaseModel):
    query: str = Field(description="What to look for.", examples=["Where does Alice live?"])
    filters: dict[str, Any] | None = Field(
        default=None,
        description="Which memories to search (OSS filter grammar); names a user_id, agent_id or run_id.",
        examples=[{"user_id": "alice"}],
    )
    user_id: str | None = Field(default=None, description="Deprecated: use filters.")
    agent_id: str | None = Field(default=None, description="Deprecated: use filters.")
    run_id: str | None = Field(default=None, description="Deprecated: use filters.")
    top_k: int | None = Field(default=None, ge=0, le=1000, description="At most this many results (20).")
    threshold: float | None = Field(default=None, description="The lowest semantic score kept, 0 to 1 (0.1).")
    explain: bool = Field(default=False, description="Add score_details to every result.")
    show_expired: bool = Field(default=False, description="Include memories past their expiration_date.")


def add_command(body: MemoryCreate) -> AddCommand:
    """The add the body asks for, its size checked (413) before any work."""
    scope = Scope(
        user_id=clean_id("user_id", body.user_id),
        agent_id=clean_id("agent_id", body.agent_id),
        run_id=clean_id("run_id", body.run_id),
        app_id=clean_id("app_id", body.app_id),
    )
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


def _email(value: str) -> str:
    if not is_email(normalize_email(value)):
        raise ValueError("value is not a valid email address")
    return value


class Credentials(BaseModel):
    email: str = Field(max_length=255, examples=["admin@example.com"])
    password: str = Field(max_length=MAX_PASSWORD)


class Registration(BaseModel):
    name: str = Field(min_length=1, max_length=255, examples=["Ada"])
    email: str = Field(max_length=255, examples=["admin@example.com"])
    password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")

    _check_email = field_validator("email")(_email)


class NewUser(Registration):
    role: Role = Field(default=Role.MEMBER, description="member (the default) or admin.")


class RefreshRequest(BaseModel):
    refresh_token: str = Field(description="The refresh token of the last sign-in or refresh (single use).")


class ProfileUpdate(BaseModel):
    name: str | None = Field(default=None, max_length=255, description="The new name; a blank one is ignored.")
    email: str | None = Field(default=None, max_length=255, description="The new email.")

    @field_validator("email")
    @classmethod
    def _check_email(cls, value: str | None) -> str | None:
        return None if value is None else _email(value)


class PasswordChange(BaseModel):
    current_password: str = Field(max_length=MAX_PASSWORD)
    new_password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")


class NewApiKey(BaseModel):
    label: str = Field(default="", max_length=255, description="A name to tell keys apart.", examples=["my agent"])
