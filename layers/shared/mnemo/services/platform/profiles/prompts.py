"""Prompts of the LLM profile generator: fill a project's profile schema from one user's memories."""

from __future__ import annotations

PROFILE_GENERATION = """You write the profile of one user from what is remembered about them. The profile is a JSON \
object that follows this JSON Schema (draft 2020-12):

{schema}

Rules:
- Fill a property only from the memories below; never invent or guess. Leave out a property that no memory \
answers (do not write null, "" or [] for it).
- When memories disagree, the newer one wins (memory 0 is the newest).
- For each property you fill, list in "sources" the numbers of the memories it came from.
{custom_instructions}
Memories (number and text, newest first):
{memories}

Reply with a JSON object only: {{"profile": {{...}}, "sources": {{"<property>": [<memory number>, ...]}}}}"""

CUSTOM_INSTRUCTIONS = "\nInstructions from the project:\n{instructions}\n"

RETRY = """Your reply could not be used: {error}
Reply again with the corrected JSON object only: {{"profile": {{...}}, "sources": {{"<property>": [<memory \
number>, ...]}}}}, the profile following the schema."""
