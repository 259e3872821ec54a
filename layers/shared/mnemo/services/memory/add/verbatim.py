"""An add with `infer` off: each message (not the system's) stored as it was said, citing itself."""

from __future__ import annotations

from mnemo.domain.memory import SourceMessage
from mnemo.services.commands import AddResult
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.pending import PendingAdd


def add_verbatim(add: PendingAdd, filing: Filing) -> list[AddResult]:
    candidates = [
        add.record(
            m.content.strip(),
            sources=(SourceMessage(m.role, m.content, i, m.name),),
            actor_id=m.name,
            role=m.role,
        )
        for i, m in enumerate(add.command.messages)
        if m.role != "system" and m.content.strip()
    ]
    return filing.store_new(candidates, add)
