"""Counting what an add's LLM calls used: a `UsageMeter` sums the usage of every completion made through it, and
notes when the add could not use what the LLM answered and stored the rule-based extractor's statements instead
(its `fallback`), so that the add's answer and event can say so beside the calls spent.

A caller that wants an add's usage hands `MemoryService.add` a fresh meter and reads it afterwards, whether the add
succeeded or not (the tokens of the calls made before a failure were spent all the same). A call that fails is not
counted: the provider answered nothing to bill.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal

from mnemo.domain.llm_usage import NO_USAGE, LLMUsage
from mnemo.ports.llm import LLM, ChatMessage, Completion, JsonSchema

FallbackReason = Literal["llm_malformed", "llm_truncated", "llm_timeout"]


@dataclass(frozen=True, slots=True)
class Fallback:
    """Why an add stored what an extractor without an LLM found (`extractor`) rather than the LLM's facts: its
    answer twice not the JSON asked for (`llm_malformed`), twice cut off at its output limit (`llm_truncated`), or
    not given in time (`llm_timeout`)."""

    reason: FallbackReason
    extractor: Literal["rules"] = "rules"

    def to_json(self) -> dict[str, str]:
        return {"reason": self.reason, "extractor": self.extractor}


class UsageMeter:
    def __init__(self) -> None:
        self._usage = NO_USAGE
        self._lock = threading.Lock()
        self.fallback: Fallback | None = None  # set when the add fell back to the extractor without an LLM

    @property
    def usage(self) -> LLMUsage:
        """The calls and tokens counted so far (NO_USAGE before the first call)."""
        return self._usage

    def count(self, usage: LLMUsage) -> None:
        with self._lock:
            self._usage += usage

    def metered(self, llm: LLM) -> LLM:
        """`llm`, counting here the usage of each completion it makes."""
        return _MeteredLLM(llm, self)


class _MeteredLLM:
    def __init__(self, llm: LLM, meter: UsageMeter) -> None:
        self._llm = llm
        self._meter = meter

    @property
    def name(self) -> str:
        return self._llm.name

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        completion = self._llm.complete(messages, json_mode=json_mode, schema=schema)
        self._meter.count(completion.usage)
        return completion
