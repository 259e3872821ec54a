"""The evaluation of one surface: add every conversation in time order, check each one's gold facts right after its
add, then judge every memory left, ask every probe, and run the erasure cases."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, Protocol

from bench.memory_quality import erasure
from bench.memory_quality.data import Change, Conversation, Dataset, Split, first_users, load
from bench.memory_quality.llm import AddCost, Endpoint, cost_figures
from bench.memory_quality.scoring import (
    GoldCheck,
    Hit,
    ProbeOutcome,
    Stored,
    Verdict,
    check_gold,
    duplicates,
    gold_figures,
    judge,
    lost_subject,
    probe_figures,
    rank_probe,
    relative_dates,
    share,
)
from bench.memory_quality.surfaces import SURFACES, SurfaceName, open_surface
from mnemo.ports.embedder import Embedder

# The targets on the embedded default.
TARGETS = {
    "junk_share": ("<=", 0.05),
    "gold_stored_share": (">=", 0.90),
    "current_top1_share": (">=", 0.85),
    "outdated_above_current_share": ("<=", 0.10),
    "erasure_hits": ("<=", 0),
}
SystemName = SurfaceName | Literal["mem0"]
THRESHOLDS = {"default": None, "threshold_0": 0.0}  # None: the surface's default (0.1)


class Evaluated(Protocol):
    """What the evaluation drives: a mnemo surface (surfaces.py) or the mem0 peer (mem0_surface.py)."""

    @property
    def name(self) -> str: ...

    @property
    def last_usage(self) -> dict[str, int] | None: ...

    @property
    def last_fallback(self) -> str | None: ...

    def add(self, conversation: Conversation, run_id: str | None = None) -> list[tuple[str, str]]: ...

    def memories(self, user_id: str) -> list[Stored]: ...

    def search(self, user_id: str, query: str, threshold: float | None = None) -> list[Hit]: ...


def add_all(surface: Evaluated, dataset: Dataset) -> tuple[dict[str, str], list[GoldCheck], list[AddCost]]:
    """Add every conversation in time order; which conversation made each memory, each gold fact checked right
    after its own conversation, and what each add cost (its seconds, and its LLM calls when it made some)."""
    origin: dict[str, str] = {}
    checks: list[GoldCheck] = []
    costs: list[AddCost] = []
    for conversation in dataset.conversations:
        started = time.perf_counter()
        for memory_id, event in surface.add(conversation):
            if event == "ADD":
                origin.setdefault(memory_id, conversation.id)
        seconds = time.perf_counter() - started
        costs.append(cost := AddCost.of_usage(surface.last_usage, seconds, surface.last_fallback))
        if cost.calls or cost.fallback:  # a run with an LLM takes hours: say how it goes
            print(f"{surface.name} {conversation.id}: {cost}", file=sys.stderr, flush=True)
        checks += check_gold(conversation.gold, surface.memories(conversation.user_id))
    return origin, checks, costs


def final_memories(surface: Evaluated, dataset: Dataset, origin: dict[str, str]) -> list[Stored]:
    """Every memory of every user at the end, with the conversation that made it."""
    return [replace(m, conversation_id=origin.get(m.id)) for user in dataset.users for m in surface.memories(user)]


def _conversation(dataset: Dataset, memory: Stored) -> Conversation | None:
    return dataset.conversation_by_id.get(memory.conversation_id or "")


def judge_all(dataset: Dataset, memories: list[Stored]) -> list[Verdict]:
    verdicts = []
    for memory in memories:
        conversation = _conversation(dataset, memory)
        people = conversation.people if conversation else ()
        verdicts.append(judge(memory, dataset.facts_of(memory.user_id), people))
    return verdicts


def ask(
    surface: Evaluated, dataset: Dataset, change: Change, memories: list[Stored], threshold: float | None
) -> list[ProbeOutcome]:
    assistant_only = {m.id: m.assistant_only for m in memories}
    current = dataset.facts[f"{change.user_id}/{change.current}"]
    outdated = [dataset.facts[f"{change.user_id}/{key}"] for key in change.outdated]
    return [
        rank_probe(
            change.uid,
            probe.person,
            probe.question,
            surface.search(change.user_id, probe.question, threshold),
            (current, outdated),
            assistant_only,
        )
        for probe in change.probes
    ]


def _junk(verdicts: list[Verdict]) -> dict[str, Any]:
    active = [v for v in verdicts if v.memory.active]
    junk = [v for v in active if v.junk]
    return {
        "memories": len(active),
        "junk": len(junk),
        "share": share(len(junk), len(active)),
        "by_reason": dict(Counter(v.reason for v in junk if v.reason).most_common()),
        "from_assistant_messages_only": sum(v.memory.assistant_only for v in active),
    }


def _unresolved(dataset: Dataset, memories: list[Stored]) -> dict[str, list[dict[str, Any]]]:
    pronouns, dates = [], []
    for memory in (m for m in memories if m.active):
        conversation = _conversation(dataset, memory)
        pronoun = lost_subject(memory.text, conversation.people) if conversation else None
        if pronoun:
            pronouns.append({"memory": memory.text, "pronoun": pronoun, "conversation": memory.conversation_id})
        words = relative_dates(memory.text)
        if words:
            dates.append({"memory": memory.text, "words": words, "conversation": memory.conversation_id})
    return {"pronouns": pronouns, "dates": dates}


def _dated(checks: list[GoldCheck]) -> dict[str, Any]:
    dated = [c for c in checks if c.fact.date]
    return {
        "facts": len(dated),
        "stored": sum(c.stored for c in dated),
        "stored_with_the_date_resolved": sum(bool(c.date_resolved) for c in dated),
    }


def _failures(
    verdicts: list[Verdict], checks: list[GoldCheck], probes: dict[str, list[ProbeOutcome]]
) -> dict[str, Any]:
    """Every case that missed, for engineers to read."""
    return {
        "junk": [
            {
                "memory": v.memory.text,
                "reason": v.reason,
                "conversation": v.memory.conversation_id,
                "roles": list(v.memory.roles),
            }
            for v in verdicts
            if v.memory.active and v.junk
        ],
        "gold_stored_as": {c.fact.uid: list(c.matched_by) for c in checks if c.stored},
        "gold_missing": [
            {"fact": c.fact.uid, "text": c.fact.text, "conversation": c.fact.conversation_id}
            | ({"about": c.fact.about} if c.fact.about else {})
            | ({"needs_the_assistants_turn": True} if c.fact.context else {})
            for c in checks
            if not c.stored
        ],
        "dates_not_resolved": [
            {
                "fact": c.fact.uid,
                "phrase": c.fact.date.phrase,
                "resolved": c.fact.date.resolved,
                "stored_as": list(c.matched_by),
            }
            for c in checks
            if c.fact.date and c.stored and not c.date_resolved
        ],
        "probes": {
            name: [_probe_row(o) for o in outcomes if not o.top1 or o.outdated_above]
            for name, outcomes in probes.items()
        },
    }


def _probe_row(outcome: ProbeOutcome) -> dict[str, Any]:
    return {
        "change": outcome.change,
        "question": outcome.question,
        "current_rank": outcome.current_rank,
        "outdated_rank": outcome.outdated_rank,
        "first": outcome.first,
        "first_is": outcome.first_kind,
        "hits": outcome.hits,
    }


def headline(figures: dict[str, Any]) -> dict[str, float | int | None]:
    """The figures the targets are about."""
    return {
        "junk_share": figures["junk"]["share"],
        "gold_stored_share": figures["gold_stored"]["all"]["share"],
        "current_top1_share": figures["probes"]["default"]["all"]["current_top1_share"],
        "outdated_above_current_share": figures["probes"]["default"]["all"]["outdated_above_current_share"],
        "erasure_hits": figures["erasure"]["hits"] if figures.get("erasure") else None,
    }


def meets(value: float | int | None, target: tuple[str, float]) -> bool | None:
    if value is None:
        return None
    op, bound = target
    return value <= bound if op == "<=" else value >= bound


def evaluate(
    name: SurfaceName,
    dataset: Dataset,
    embedder: Embedder,
    *,
    with_erasure: bool = True,
    llm: Endpoint | None = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix=f"mnemo-quality-{name}-") as root,
        open_surface(
            name,
            Path(root) / "data",
            embedder,
            llm.mnemo_config() if llm else None,
            rules_beside=bool(llm and llm.rules_beside),
        ) as surface,
    ):
        observed = observe(surface, dataset)
    figures = score(dataset, observed, started)
    if with_erasure:
        figures["erasure"] = erasure.run(name, embedder)
    return finish(figures, started)


def evaluate_mem0(dataset: Dataset, llm: Endpoint) -> dict[str, Any]:
    """mem0 with its LLM at the same endpoint, judged as mnemo is (no erasure cases: they are about mnemo's stores)."""
    from bench.memory_quality.mem0_surface import open_mem0

    started = time.perf_counter()
    with open_mem0(llm) as (mem0, opened):
        observed = observe(mem0, dataset)
    figures = score(dataset, observed, started)
    figures["mem0_version"] = opened["mem0_version"]
    return finish(figures, started)


def evaluate_system(
    name: SystemName, dataset: Dataset, embedder: Embedder, *, with_erasure: bool, llm: Endpoint | None
) -> dict[str, Any]:
    if name != "mem0":
        return evaluate(name, dataset, embedder, with_erasure=with_erasure, llm=llm)
    if llm is None:
        raise ValueError("mem0 is evaluated with an LLM only: name one (--llm local or --llm-base-url)")
    return evaluate_mem0(dataset, llm)


Observed = tuple[dict[str, str], list[GoldCheck], list[AddCost], list[Stored], dict[str, list[ProbeOutcome]]]


def observe(surface: Evaluated, dataset: Dataset) -> Observed:
    """Everything the evaluation asks of a system: the adds (and their costs), every memory left, every probe."""
    origin, checks, costs = add_all(surface, dataset)
    memories = final_memories(surface, dataset, origin)
    probes = {
        label: [o for change in dataset.changes for o in ask(surface, dataset, change, memories, threshold)]
        for label, threshold in THRESHOLDS.items()
    }
    return origin, checks, costs, memories, probes


def score(dataset: Dataset, observed: Observed, started: float) -> dict[str, Any]:
    """The figures of what a system stored and answered (the erasure cases apart: None until run)."""
    _origin, checks, costs, memories, probes = observed
    evaluated = time.perf_counter()
    verdicts = judge_all(dataset, memories)
    unresolved = _unresolved(dataset, memories)
    figures: dict[str, Any] = {
        "memories_by_state": dict(Counter(m.state for m in memories)),
        "junk": _junk(verdicts),
        "duplicates": (dups := duplicates(verdicts)),
        "duplicated_gold_facts": len(dups),
        "gold_stored": gold_figures(checks),
        "probes": {label: probe_figures(outcomes) for label, outcomes in probes.items()},
        "unresolved_pronouns": len(unresolved["pronouns"]),
        "unresolved_relative_dates": len(unresolved["dates"]),
        "relative_date_facts": _dated(checks),
        "erasure": None,
        "failures": {**_failures(verdicts, checks, probes), "unresolved": unresolved},
        "llm_cost": cost_figures(costs),
    }
    add_seconds = [c.seconds for c in costs]
    figures["seconds"] = {
        "adds": round(sum(add_seconds), 2),
        "add_mean": round(sum(add_seconds) / max(len(add_seconds), 1), 3),
        "evaluation": round(evaluated - started, 2),
    }
    return figures


def finish(figures: dict[str, Any], started: float) -> dict[str, Any]:
    """The figures with the run's whole time, the headline and which targets it met."""
    figures["seconds"]["with_erasure"] = round(time.perf_counter() - started, 2)
    figures["headline"] = headline(figures)
    figures["targets_met"] = {key: meets(figures["headline"][key], target) for key, target in TARGETS.items()}
    return figures


def dataset_figures(dataset: Dataset) -> dict[str, int]:
    gold = dataset.gold
    return {
        "conversations": len(dataset.conversations),
        "users": len(dataset.users),
        "messages": sum(len(c.messages) for c in dataset.conversations),
        "user_messages": sum(m.role == "user" for c in dataset.conversations for m in c.messages),
        "gold_facts": len(gold),
        "acceptable_extras": sum(len(c.acceptable) for c in dataset.conversations),
        "changing_facts": len(dataset.changes),
        "probes": sum(len(c.probes) for c in dataset.changes),
        "self_introductions": sum(f.key == "name" for f in gold),
        "third_person_facts": sum(bool(f.about) for f in gold),
        "facts_needing_the_assistants_turn": sum(f.context for f in gold),
        "relative_date_facts": sum(bool(f.date) for f in gold),
        "people_named": sum(len(c.people) for c in dataset.conversations),
    }


LOCOMO_FLOOR = 0.738  # LoCoMo dev recall@10 before issue 16 (bench/results/locomo.json): it must not fall


def locomo_guard() -> dict[str, Any]:
    """LoCoMo dev retrieval (mnemo_bench.locomo: every turn stored verbatim, each question asked): recall@10 against
    its floor, so that a change to ranking made for this evaluation does not cost the other."""
    from bench.run import ROOT
    from mnemo_bench import locomo

    figures = locomo.evaluate(ROOT.parent / "shared" / "data" / "locomo-dev.json", locomo.DEFAULT_KS)
    return {
        "recall@1": figures["recall@1"],
        "recall@5": figures["recall@5"],
        "recall@10": figures["recall@10"],
        "floor": LOCOMO_FLOOR,
        "holds": figures["recall@10"] >= LOCOMO_FLOOR,
        "seconds": figures["seconds"],
    }


def service_commit() -> str:
    """The last commit that changed the service (layers/): what was measured, whatever the benchmark's own commit."""
    from bench.run import ROOT

    command = ["git", "-C", str(ROOT), "log", "-1", "--format=%h", "--", "layers"]
    found = subprocess.run(command, capture_output=True, text=True, check=False)
    return found.stdout.strip()


def run(
    split: Split = "eval",
    surfaces: Sequence[SystemName] = SURFACES,
    *,
    erasure: bool = True,
    locomo: bool = False,
    llm: Endpoint | None = None,
    users: int | None = None,
) -> dict[str, Any]:
    """The whole record: the data set's make-up, the targets, each surface's figures (and the LoCoMo guard).
    `users`: only the split's first so many users (all of their conversations)."""
    from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder

    started = time.perf_counter()
    dataset = load(split) if users is None else first_users(load(split), users)
    embedder = LocalMiniLMEmbedder()
    figures: dict[str, Any] = {
        "split": split,
        "service_commit": service_commit(),
        "embedder": embedder.name,
        "llm": llm.describe() if llm else None,
        "users": list(dataset.users) if users is not None else "all",
        "dataset": dataset_figures(dataset),
        "targets": {key: f"{op} {bound}" for key, (op, bound) in TARGETS.items()},
        "surfaces": {
            name: evaluate_system(name, dataset, embedder, with_erasure=erasure, llm=llm) for name in surfaces
        },
    }
    if locomo:
        figures["locomo"] = locomo_guard()
    figures["seconds"] = round(time.perf_counter() - started, 1)
    return figures
