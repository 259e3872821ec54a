"""What the LLM's extraction is told besides its prompt: the add's own instructions or the configured ones, an add's
custom categories, and its topics (`includes`, `excludes`)."""

from __future__ import annotations

from mnemo.services.categories import with_categories
from mnemo.services.commands import AddCommand
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.providers import ActiveProviders


def extraction_instructions(command: AddCommand, policy: AddPolicy, providers: ActiveProviders) -> str | None:
    """The extraction's instructions: the add's own (a platform add carries its project's), else the configured
    ones, whether or not the add has custom categories. The categories follow them unless the policy files memories
    under them (then they are for filing, which is done after the extraction, and the extraction is not told)."""
    instructions = command.instructions or providers.get().custom_instructions
    if command.custom_categories and not policy.categorize:
        instructions = with_categories(instructions, command.custom_categories)
    return with_topics(instructions, command)


def with_topics(instructions: str | None, command: AddCommand) -> str | None:
    """The extraction's instructions, followed by what the add asks to extract only and never to extract."""
    asked = [
        f"Extract only facts about: {command.includes}." if command.includes else "",
        f"Never extract facts about: {command.excludes}." if command.excludes else "",
    ]
    parts = [p for p in (instructions, *asked) if p]
    return "\n".join(parts) if parts else None
