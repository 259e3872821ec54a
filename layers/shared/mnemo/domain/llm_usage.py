"""What LLM calls cost: how many calls, and the input (prompt) and output (completion) tokens the provider counted.

Every completion carries the usage of its call (mnemo.ports.llm `Completion`); an add sums the usage of the calls
it made (mnemo.services.llm_usage `UsageMeter`) and answers it, its platform event keeps it, and a project's
statistics add up its adds'. An add that calls no LLM (infer=false, or no LLM configured) used `NO_USAGE`: zero
calls and zero tokens. A provider that reports no token counts leaves them at zero for that call (the call is
still counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LLMUsage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
        )

    @classmethod
    def of_call(cls, input_tokens: Any, output_tokens: Any) -> LLMUsage:
        """One call's usage from what a provider reported: a count that is missing or not a whole number >= 0 is
        read as 0 (the call itself still counts)."""
        return cls(1, _count(input_tokens), _count(output_tokens))

    def to_json(self) -> dict[str, int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}

    @classmethod
    def from_json(cls, raw: Any) -> LLMUsage:
        """The usage of `to_json`; anything else (a record from before usage was kept) is NO_USAGE."""
        if not isinstance(raw, dict):
            return NO_USAGE
        return cls(_count(raw.get("calls")), _count(raw.get("input_tokens")), _count(raw.get("output_tokens")))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


NO_USAGE = LLMUsage()

# The names under which a project's counters (mnemo.ports.tenancy_store `bump_counter`) sum its adds' usage.
COUNTER_NAMES = ("llm_calls", "llm_input_tokens", "llm_output_tokens")


def as_counters(usage: LLMUsage) -> dict[str, int]:
    """The usage as the project counters it adds to."""
    return dict(zip(COUNTER_NAMES, (usage.calls, usage.input_tokens, usage.output_tokens), strict=True))


def from_counters(counters: dict[str, int]) -> LLMUsage:
    """A project's summed usage, from its counters."""
    return LLMUsage(*(counters.get(name, 0) for name in COUNTER_NAMES))
