"""Dream's synthesis for one user: the LLM reads the user's memories and answers what to synthesize, merge and
supersede; the answer is checked and turned into one ConsolidateCommand (applied by MemoryService.consolidate).

The prompt (reflection_prompts.py) lists the user's newest `max_memories` active memories as m1, m2, … (newest
first, each with the day it was stored; earlier syntheses marked). The answer names memories by those references;
what it names otherwise is left out, as is every item that breaks a rule, each with the reason (`ignored`):
- a synthesized fact cites two or more listed memories that are not themselves synthesized, says something (at
  most MAX_TEXT characters), and is not the text of a listed memory; at most `max_syntheses` are kept;
- a merge keeps a listed memory and names at least one other as its duplicate;
- a supersede names two listed memories, the current one stored no earlier than the outdated one (the newer fact
  wins; an LLM naming the older one as current has misread the dates);
- a memory retired by one item (a duplicate, an outdated memory) is not kept or made current by a later one.
A reply that is not a JSON object with those lists is sent back once with the error; a second failure raises
ReflectionRejectedError. A provider failure (ProviderError) propagates, for the job to retry."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.commands import Category, ConsolidateCommand, Merge, Supersede, Synthesis
from mnemo.services.llm_json import parse_json_reply
from mnemo.services.platform.dream import reflection_prompts

DEFAULT_MAX_MEMORIES = 200  # the newest memories one run reads (the prompt stays a few thousand tokens)
DEFAULT_MAX_SYNTHESES = 10  # synthesized facts one run may write per user
MAX_TEXT = 1_000  # characters of a synthesized fact or a reworded memory
MAX_IGNORED = 50  # reasons kept for the items left out
ATTEMPTS = 2  # the first answer and one retry with its error


class ReflectionRejectedError(Exception):
    """The LLM's answer could not be used, twice; the message says why."""


@dataclass(frozen=True, slots=True)
class Reflection:
    """What a run decided for one user (checked), and the reasons for what it left out."""

    command: ConsolidateCommand
    ignored: list[str] = field(default_factory=list)


class Reflector:
    def __init__(
        self, llm: LLM, *, max_memories: int = DEFAULT_MAX_MEMORIES, max_syntheses: int = DEFAULT_MAX_SYNTHESES
    ) -> None:
        self._llm = llm
        self._max_memories = max_memories
        self._max_syntheses = max_syntheses

    def reflect(
        self,
        scope: Scope,
        memories: Sequence[MemoryRecord],
        *,
        instructions: str | None = None,
        custom_categories: tuple[Category, ...] = (),
    ) -> Reflection:
        """Ask the LLM about `memories` (newest first; only the newest max_memories are read)."""
        listed = list(memories[: self._max_memories])
        messages: list[ChatMessage] = [{"role": "user", "content": self._prompt(listed, instructions)}]
        problem = ""
        for attempt in range(ATTEMPTS):
            reply = self._llm.complete(messages, json_mode=True).text
            try:
                parsed = _lists(reply)
            except _UnusableReplyError as unusable:
                problem = str(unusable)
                if attempt + 1 < ATTEMPTS:
                    retry = reflection_prompts.RETRY.format(error=problem)
                    messages = [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": retry}]
                continue
            return _Checker(scope, listed, self._max_syntheses, custom_categories).check(parsed)
        raise ReflectionRejectedError(f"The LLM's answer was rejected twice: {problem}")

    def _prompt(self, memories: list[MemoryRecord], instructions: str | None) -> str:
        listing = "\n".join(
            f"m{n} [{m.created_at.date().isoformat()}]{' [synthesized]' if m.synthesized else ''} "
            f"{json.dumps(m.text, ensure_ascii=False)}"
            for n, m in enumerate(memories, start=1)
        )
        custom = (
            reflection_prompts.CUSTOM_INSTRUCTIONS.format(instructions=instructions.strip())
            if instructions and instructions.strip()
            else ""
        )
        return reflection_prompts.REFLECTION.format(
            max_syntheses=self._max_syntheses, custom_instructions=custom, memories=listing
        )


class _UnusableReplyError(Exception):
    """The reply cannot be read at all; the message says why (it goes back to the LLM)."""


_LISTS = ("synthesized", "merge", "supersede")


def _lists(reply: str) -> dict[str, list[Any]]:
    try:
        parsed = parse_json_reply(reply)
    except ProviderError as error:  # not the provider's failure: what it said is not JSON
        raise _UnusableReplyError("the reply is not a JSON object.") from error
    out: dict[str, list[Any]] = {}
    for name in _LISTS:
        value = parsed.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list):
            raise _UnusableReplyError(f'"{name}" must be a list.')
        out[name] = value
    return out


class _Checker:
    """Turns the LLM's lists into a ConsolidateCommand, keeping only what follows the rules (module docstring)."""

    def __init__(
        self, scope: Scope, listed: list[MemoryRecord], max_syntheses: int, categories: tuple[Category, ...]
    ) -> None:
        self._scope = scope
        self._by_ref = {f"m{n}": m for n, m in enumerate(listed, start=1)}
        self._texts = {m.text.strip().casefold() for m in listed}
        self._max_syntheses = max_syntheses
        self._categories = categories
        self._retired: set[str] = set()
        self.ignored: list[str] = []

    def check(self, lists: dict[str, list[Any]]) -> Reflection:
        merges = [m for m in (self._merge(i, raw) for i, raw in enumerate(lists["merge"], 1)) if m]
        supersedes = [s for s in (self._supersede(i, raw) for i, raw in enumerate(lists["supersede"], 1)) if s]
        syntheses: list[Synthesis] = []
        for i, raw in enumerate(lists["synthesized"], 1):
            synthesis = self._synthesis(i, raw)
            if synthesis is None:
                continue
            if len(syntheses) >= self._max_syntheses:
                self._ignore(f"synthesized #{i}: more than {self._max_syntheses} in one run")
                continue
            syntheses.append(synthesis)
        command = ConsolidateCommand(
            self._scope, tuple(syntheses), tuple(merges), tuple(supersedes), custom_categories=self._categories
        )
        return Reflection(command, self.ignored)

    def _ignore(self, reason: str) -> None:
        if len(self.ignored) < MAX_IGNORED:
            self.ignored.append(reason)

    def _memory(self, ref: Any) -> MemoryRecord | None:
        if isinstance(ref, int) and not isinstance(ref, bool):
            ref = f"m{ref}"
        return self._by_ref.get(ref.strip().lower()) if isinstance(ref, str) else None

    def _synthesis(self, i: int, raw: Any) -> Synthesis | None:
        where = f"synthesized #{i}"
        if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or not raw["text"].strip():
            self._ignore(f"{where}: not an object with a text")
            return None
        text = raw["text"].strip()
        if len(text) > MAX_TEXT:
            self._ignore(f"{where}: longer than {MAX_TEXT} characters")
            return None
        if text.casefold() in self._texts:
            self._ignore(f"{where}: restates a listed memory")
            return None
        refs = raw.get("sources")
        sources = [self._memory(r) for r in refs] if isinstance(refs, list) else []
        cited = list(dict.fromkeys(m.id for m in sources if m is not None and not m.synthesized))
        if len(cited) < 2:
            self._ignore(f"{where}: cites fewer than two listed memories that are not synthesized")
            return None
        return Synthesis(text, tuple(cited))

    def _merge(self, i: int, raw: Any) -> Merge | None:
        where = f"merge #{i}"
        keep = self._memory(raw.get("keep")) if isinstance(raw, dict) else None
        if keep is None or keep.id in self._retired:
            self._ignore(f"{where}: keeps no listed memory (or one already merged or superseded)")
            return None
        refs = raw.get("duplicates")
        found = [self._memory(r) for r in refs] if isinstance(refs, list) else []
        duplicates = list(dict.fromkeys(m.id for m in found if m and m.id != keep.id and m.id not in self._retired))
        if not duplicates:
            self._ignore(f"{where}: names no listed duplicate")
            return None
        text = raw.get("text")
        reworded = text.strip() if isinstance(text, str) and text.strip() else None
        if reworded is not None and len(reworded) > MAX_TEXT:
            self._ignore(f"{where}: its text is longer than {MAX_TEXT} characters (kept as it was)")
            reworded = None
        self._retired.update(duplicates)
        return Merge(keep.id, tuple(duplicates), reworded)

    def _supersede(self, i: int, raw: Any) -> Supersede | None:
        where = f"supersede #{i}"
        outdated = self._memory(raw.get("outdated")) if isinstance(raw, dict) else None
        current = self._memory(raw.get("current")) if isinstance(raw, dict) else None
        if outdated is None or current is None or outdated.id == current.id:
            self._ignore(f"{where}: does not name two listed memories")
            return None
        if outdated.id in self._retired or current.id in self._retired:
            self._ignore(f"{where}: names a memory already merged or superseded")
            return None
        if current.created_at < outdated.created_at:
            self._ignore(f"{where}: the current memory is older than the one it would replace")
            return None
        self._retired.add(outdated.id)
        return Supersede(outdated.id, current.id)
