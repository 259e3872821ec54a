"""One add, from its command to its results: checked, its metadata without identity fields, its categories decided
(pending.py), then one of four paths — a procedural summary (procedural.py), verbatim (verbatim.py), the statements
of the extractor when there is no LLM (statements.py), or the LLM's facts and decisions (inferred.py) — with the
extractor's statements instead when the LLM's answer cannot be used (fallback.py), said on the add's meter, and
beside it when the policy asks for the statements its answer left out (`rules_beside_llm`)."""

from __future__ import annotations

import logging
from dataclasses import replace

from mnemo.errors import ValidationError
from mnemo.ports.llm import LLM
from mnemo.services.commands import AddCommand, AddResult, check_topics
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory.add.apply import Applying
from mnemo.services.memory.add.fallback import UnusableAnswerError
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
            answered = self._inferred.add(add, llm)
            if self._parts.policy.rules_beside_llm:
                answered += self._statements.add_beside(add, answered)
            return answered
        except UnusableAnswerError as gave_up:
            # The LLM gave no answer to use; it wrote nothing yet, so the add is the rule-based extractor's rather
            # than lost, and says so.
            reason = gave_up.fallback.reason
            logger.warning("the add uses the rule-based extractor (%s): %s", reason, gave_up.message)
            if meter is not None:
                meter.fallback = gave_up.fallback
            return self._statements.add(add)

    def _llm(self, meter: UsageMeter | None) -> LLM | None:
        """The LLM in use, counting its usage on `meter` when there is one."""
        llm = self._parts.providers.get().llm
        if llm is not None and meter is not None:
            llm = meter.metered(llm)
        return llm
