"""One add, from its command to its results: checked, its metadata without identity fields, its categories decided
(pending.py), then one of four paths — a procedural summary (procedural.py), verbatim (verbatim.py), the statements
of the extractor when there is no LLM (statements.py), or the LLM's facts and decisions (inferred.py) — with the
extractor's statements instead when the LLM's answer cannot be read even when asked twice."""

from __future__ import annotations

import logging
from dataclasses import replace

from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import LLM
from mnemo.services.commands import AddCommand, AddResult, check_topics
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory.add.apply import Applying
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inferred import InferredAdd
from mnemo.services.memory.add.outdating import Outdating
from mnemo.services.memory.add.pending import pending
from mnemo.services.memory.add.procedural import add_procedural
from mnemo.services.memory.add.statements import StatementsAdd
from mnemo.services.memory.add.topics import Topics
from mnemo.services.memory.add.verbatim import add_verbatim
from mnemo.services.memory.erase import Erasing
from mnemo.services.memory.metadata import strip_identity
from mnemo.services.memory.parts import MemoryParts

logger = logging.getLogger(__name__)


class AddPipeline:
    def __init__(self, parts: MemoryParts, filing: Filing, erasing: Erasing) -> None:
        """`erasing`: what erases a memory the LLM decided to DELETE when the add stored nothing to replace it."""
        self._parts = parts
        self._filing = filing
        outdating = Outdating(parts)
        self._statements = StatementsAdd(parts, filing, Topics(parts), outdating)
        self._inferred = InferredAdd(parts, filing, Applying(parts, erasing), outdating)

    def add(self, command: AddCommand, meter: UsageMeter | None) -> list[AddResult]:
        """Store what the add says (its size was checked where it was made). Every provider call happens before
        the first write, so an add that fails on a provider can be made again whole."""
        if not command.scope.has_owner():
            raise ValidationError("At least one identifier (user_id, agent_id, run_id) is required.")
        check_topics(command)
        command = replace(command, metadata=strip_identity(command.metadata))
        add = pending(command, self._parts.policy, self._parts.language)
        llm = self._llm(meter)
        if command.procedural:
            return add_procedural(add, llm, self._filing)
        if not command.infer:
            return add_verbatim(add, self._filing)
        if llm is None:
            return self._statements.add(add)
        try:
            return self._inferred.add(add, llm)
        except ProviderError as error:
            if error.code != "provider_bad_response":
                raise
            # Asked twice, the LLM gave no answer to read (cut off, or not the JSON asked for); it wrote nothing
            # yet, so the add is the rule-based extractor's rather than lost.
            logger.warning("the LLM's answer could not be read (%s); the add uses the rule-based extractor", error)
            return self._statements.add(add)

    def _llm(self, meter: UsageMeter | None) -> LLM | None:
        """The LLM in use, counting its usage on `meter` when there is one."""
        llm = self._parts.providers.get().llm
        if llm is not None and meter is not None:
            llm = meter.metered(llm)
        return llm
