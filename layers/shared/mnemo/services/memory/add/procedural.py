"""A procedural add: an agent's execution history summarised by the LLM into one memory of the agent (its task,
steps and what remains), citing every message."""

from __future__ import annotations

from dataclasses import replace

from mnemo.domain.memory import SourceMessage
from mnemo.errors import ValidationError
from mnemo.ports.llm import LLM
from mnemo.services.commands import AddResult
from mnemo.services.memory.add import prompts
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.pending import PendingAdd


def add_procedural(add: PendingAdd, llm: LLM | None, filing: Filing) -> list[AddResult]:
    command = add.command
    if not command.scope.agent_id:
        raise ValidationError("Procedural memories need an agent_id.")
    if llm is None:
        raise ValidationError("Procedural memories are summarised by an LLM; configure one with POST /configure.")
    transcript = "\n".join(f"{m.role}: {m.content}" for m in command.messages)
    summary = llm.complete(
        [
            {"role": "system", "content": command.instructions or prompts.PROCEDURAL_SUMMARY},
            {"role": "user", "content": transcript},
        ]
    ).text.strip()
    if not summary:
        return []
    sources = tuple(SourceMessage(m.role, m.content, i, m.name) for i, m in enumerate(command.messages))
    metadata = {**command.metadata, "memory_type": "procedural_memory"}
    record = replace(add, command=replace(command, metadata=metadata)).record(summary, sources=sources)
    return filing.store_new([record], add)
