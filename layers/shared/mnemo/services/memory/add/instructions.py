"""What the LLM's extraction is told besides its prompt: the add's own instructions or the configured ones, an add's
custom categories, and its topics (`includes`, `excludes`)."""

from __future__ import annotations

from mnemo.services.categories import with_categories
from mnemo.services.commands import AddCommand
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.providers import ActiveProviders


def extraction_instructions(command: AddCommand, policy: AddPolicy, providers: ActiveProviders) -> str | None:
    """The extraction's instructions: the add's own, else the configured ones; an add with custom categories
    (a platform project's) uses its own only, followed by its categories unless the policy files memories under
    them (then the categories are for filing, which is done after the extraction, and the extraction is not told)."""
    if command.custom_categories and policy.categorize:
        return with_topics(command.instructions, command)
    if command.custom_categories:
        return with_topics(with_categories(command.instructions, command.custom_categories), command)
    return with_topics(command.instructions or providers.get().custom_instructions, command)


def with_topics(instructions: str | None, command: AddCommand) -> str | None:
    """The extraction's instructions, followed by what the add asks to extract only and never to extract."""
    asked = [
        f"Extract only facts about: {command.includes}." if command.includes else "",
        f"Never extract facts about: {command.excludes}." if command.excludes else "",
    ]
    parts = [p for p in (instructions, *asked) if p]
    return "\n".join(parts) if parts else None
