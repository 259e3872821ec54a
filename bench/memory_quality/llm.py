"""The memory-quality evaluation with a real LLM: which endpoint mnemo's `openai` provider is pointed at, what each
add cost (LLM calls, input and output tokens as the server counted them, seconds, whether the add fell back to the
rule-based extractor), and where such a run's record goes.

Kept apart from the evaluation itself so that the no-LLM default stays what it was, and so that the figures of the
three systems compared (mnemo without an LLM, mnemo with one, mem0 with the same one) are summed the same way. A run
with an LLM never writes the no-LLM records: its files are `memory_quality_llm-<split>.json` (mnemo) and
`memory_quality_mem0-<split>.json` (mem0).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

# A local model on a shared CPU queues its calls one at a time: an attempt's timeout must cover the wait behind the
# others as well as its own call, and a retry would only queue a second copy of the same prompt.
LOCAL_TIMEOUT = 2400.0
System = Literal["llm", "llm-rules", "mem0"]


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat endpoint and the model it serves."""

    base_url: str
    model: str
    timeout: float = LOCAL_TIMEOUT
    rules_beside: bool = False  # mnemo's llm_rules_beside: the extractor's statements the answer left out kept too

    def mnemo_config(self) -> dict[str, Any]:
        """The `llm` section of mnemo's configuration: the `openai` provider at this endpoint, asking for JSON by a
        strict schema (the local server enforces it with a grammar), no retries."""
        return {
            "provider": "openai",
            "config": {
                "base_url": self.base_url,
                "api_key": "sk-local",
                "model": self.model,
                "json_mode": "json_schema",
                "timeout": self.timeout,
                "total_timeout": self.timeout,
                "max_retries": 0,
            },
        }

    def describe(self) -> dict[str, Any]:
        described = {"base_url": self.base_url, "model": self.model, "timeout": self.timeout}
        return {**described, "rules_beside": True} if self.rules_beside else described


@dataclass(frozen=True)
class AddCost:
    """What one add cost: the LLM calls it made and their tokens (the server's usage), its seconds, and the reason
    it fell back to the rule-based extractor (None: it used the LLM's answer)."""

    calls: int
    input_tokens: int
    output_tokens: int
    seconds: float
    fallback: str | None = None

    @classmethod
    def of_usage(cls, usage: dict[str, Any] | None, seconds: float, fallback: str | None = None) -> AddCost:
        counts = usage or {}
        return cls(
            int(counts.get("calls", 0)),
            int(counts.get("input_tokens", 0)),
            int(counts.get("output_tokens", 0)),
            seconds,
            fallback,
        )


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 3) if values else 0.0


def _per_add(costs: Sequence[AddCost]) -> dict[str, float]:
    return {
        "calls": _mean([c.calls for c in costs]),
        "input_tokens": _mean([c.input_tokens for c in costs]),
        "output_tokens": _mean([c.output_tokens for c in costs]),
        "seconds": _mean([c.seconds for c in costs]),
        "seconds_max": round(max((c.seconds for c in costs), default=0.0), 3),
    }


def cost_figures(costs: Sequence[AddCost]) -> dict[str, Any]:
    """The totals and per-add means of the adds' costs, and how many adds fell back (by reason)."""
    return {
        "adds": len(costs),
        "calls": sum(c.calls for c in costs),
        "input_tokens": sum(c.input_tokens for c in costs),
        "output_tokens": sum(c.output_tokens for c in costs),
        "per_add": _per_add(costs),
        "fallbacks": sum(c.fallback is not None for c in costs),
        "fallbacks_by_reason": dict(Counter(c.fallback for c in costs if c.fallback).most_common()),
    }


def record_name(split: str, system: System) -> str:
    """The results file (without `.json`) of a run with an LLM: never one of the no-LLM records."""
    return f"memory_quality_{system}-{split}"


def merged(previous: Path, figures: dict[str, Any]) -> dict[str, Any]:
    """The new run's figures, with the surfaces of the record at `previous` that it did not run (the same split and
    model only): the self-hosted and platform surfaces of one split can then be run apart, hours apart. Each surface
    says which service commit it ran on, as the two runs may have run on different ones."""
    figures = {**figures, "surfaces": _stamped(figures)}
    if not previous.exists():
        return figures
    earlier = json.loads(previous.read_text()).get("figures", {})
    same = earlier.get("split") == figures["split"] and (earlier.get("llm") or {}).get("model") == (
        figures.get("llm") or {}
    ).get("model")
    if not same:
        return figures
    kept = {name: f for name, f in _stamped(earlier).items() if name not in figures["surfaces"]}
    return {**figures, "surfaces": {**kept, **figures["surfaces"]}}


def _stamped(figures: dict[str, Any]) -> dict[str, Any]:
    """The record's surfaces, each with the service commit it ran on (the record's, unless it says its own)."""
    commit = figures.get("service_commit")
    return {name: {"service_commit": commit, **surface} for name, surface in figures.get("surfaces", {}).items()}
