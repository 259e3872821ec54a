"""A project's settings as a queued add keeps them: its instructions and custom categories applied to the add when
it is submitted (the call's own win), and the add's timestamp in whole seconds, as its event stores it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from mnemo.domain.tenancy import Project
from mnemo.services.commands import AddCommand, Category

if TYPE_CHECKING:
    pass


def project_categories(project: Project) -> tuple[Category, ...]:
    """The project's custom categories, as (name, description) pairs."""
    return tuple((name, description) for entry in project.custom_categories for name, description in entry.items())


def with_project_settings(command: AddCommand, project: Project) -> AddCommand:
    """The call's own instructions and categories win; else the project's (categories replace, never merge): for
    the memories of an agent alone (an agent id and no user id), its agent_custom_instructions when it has them."""
    categories = command.custom_categories or project_categories(project)
    of_an_agent = command.scope.agent_id is not None and command.scope.user_id is None
    project_instructions = (of_an_agent and project.agent_custom_instructions) or project.custom_instructions
    return replace(
        command,
        instructions=command.instructions or project_instructions,
        custom_categories=categories,
        multilingual=project.multilingual,
        timestamp=whole_seconds(command.timestamp),
    )


def whole_seconds(moment: datetime | None) -> datetime | None:
    """A platform add's timestamp as its event keeps it: Unix seconds (0 is no timestamp), so that an add run at
    once and one run from its event make the same memory."""
    seconds = int(moment.timestamp()) if moment is not None else 0
    return datetime.fromtimestamp(seconds, tz=UTC) if seconds else None
