"""Memory decay benchmark: does decay put the current fact first when facts change, and what does it cost on LoCoMo,
whose questions are about old sessions?

1. *Changing facts* (bench/data/changing_facts.jsonl, written for this): 52 subjects of 8 users. 40 are facts that
   changed over time ("Lives in a small flat in Paris" in 2023 → "Moved to Lisbon in June" in 2025; 4 of them
   changed twice), 12 are stable facts stated once, years ago (allergies, a birthplace): what decay may cost. Each
   has a probe question. 20 are also *retrieved* on the way: a query asked a number of times at evenly spread
   moments of a period — the old fact retrieved often before it changed ("Where does Ben work?" 12 times over three
   years), or questions worded like the old fact after it changed ("Does Dana still have the Toyota Corolla?").

   Everything runs through the real v3 path with the real local embedder: a `mnemo` container on a temporary data
   dir (SQLite), one project per configuration, `POST /v3/memories/add/` (`infer=false`, `timestamp` = the fact's
   date) and `POST /v3/memories/search/`, in the order of the timeline, the decay clock
   (`ProjectMemoryService.clock`) set to each moment; every retrieval with decay on records its results. Then each
   probe is asked on 2025-12-01 (NOW) and its top result read (the probes, asked one after the other, reinforce
   what they return too). Reported: how often the current fact is first, decay off, and on for a sweep of
   half-lives and of access boosts (and for the retrieved subjects alone), the mean reciprocal rank of the current
   fact in the top 5, and which subjects change.

2. *LoCoMo* (../shared/data/locomo-dev.json, the harness of mnemo_bench.locomo): recall@1/5/10 of the hybrid search
   without decay and with it for the same sweep, each question seen at the end of its conversation (its last
   session's date) and every answer recorded as retrieved in question order (`mnemo bench locomo --decay`).

`PYTHONPATH=. .venv/bin/python -m bench.decay [--quick]` prints the figures and writes bench/results/decay.json
(`--quick`: the default settings only, no LoCoMo).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr

from bench.run import ROOT, record
from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.services.decay import DecaySettings
from mnemo.settings import Settings

DATA = Path(__file__).resolve().parent / "data" / "changing_facts.jsonl"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev.json"
NOW = datetime(2025, 12, 1, 12, 0, tzinfo=UTC)  # when the probes are asked
HALF_LIVES = (30.0, 90.0, 180.0, 365.0, 730.0)
ACCESS_BOOSTS = (0.0, 0.1, 0.2, 0.3)  # the others than the default's, at the default half-life
PROBE_TOP_K = 5


# ---- the scripted set ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Retrieval:
    query: str
    top_k: int
    count: int
    start: datetime
    end: datetime

    def moments(self) -> list[datetime]:
        if self.count == 1:
            return [self.start]
        step = (self.end - self.start) / (self.count - 1)
        return [self.start + step * i for i in range(self.count)]


@dataclass(frozen=True)
class Subject:
    id: str
    user: str
    facts: tuple[tuple[str, datetime], ...]  # oldest first; the last is the current fact
    probe: str
    retrievals: tuple[Retrieval, ...] = ()

    @property
    def changed(self) -> bool:
        return len(self.facts) > 1

    @property
    def current(self) -> str:
        return self.facts[-1][0]


def _day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(hour=12, tzinfo=UTC)


def load(path: Path = DATA) -> list[Subject]:
    subjects = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        subjects.append(
            Subject(
                raw["id"],
                raw["user"],
                tuple((f["text"], _day(f["date"])) for f in raw["facts"]),
                raw["probe"],
                tuple(
                    Retrieval(r["query"], r["top_k"], r["count"], _day(r["from"]), _day(r["to"]))
                    for r in raw["retrievals"]
                ),
            )
        )
    return subjects


# ---- the platform ------------------------------------------------------------------------------------------


@dataclass
class Platform:
    """A `mnemo` container with its HTTP app; each configuration gets a project of its own."""

    container: Container
    http: TestClient

    @property
    def project_memory(self) -> Any:
        assert self.container.platform is not None
        return self.container.platform.project_memory

    def project(self, name: str, decay: bool) -> dict[str, str]:
        assert self.container.platform is not None
        made = self.container.platform.tenancy.bootstrap(f"{name}@decay.example", name)
        headers = {"Authorization": f"Token {made.api_key}"}
        path = f"/api/v1/orgs/organizations/{made.org.id}/projects/{made.project.id}/"
        assert self.http.patch(path, json={"decay": decay}, headers=headers).status_code == 200
        return headers

    def add(self, headers: dict[str, str], user: str, text: str, at: datetime) -> dict[str, Any]:
        body = {
            "messages": [{"role": "user", "content": text}],
            "user_id": user,
            "infer": False,
            "timestamp": at.isoformat(),
        }
        answer = self.http.post("/v3/memories/add/", json=body, headers=headers).json()
        assert answer["status"] == "SUCCEEDED", answer
        result: dict[str, Any] = answer["results"][0]
        return result

    def search(self, headers: dict[str, str], user: str, query: str, top_k: int, at: datetime) -> list[dict[str, Any]]:
        self.project_memory.clock = lambda: at
        body = {"query": query, "filters": {"user_id": user}, "top_k": top_k}
        answer = self.http.post("/v3/memories/search/", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        hits: list[dict[str, Any]] = answer.json()["results"]
        return hits


@contextmanager
def platform() -> Iterator[Platform]:
    with tempfile.TemporaryDirectory(prefix="mnemo-decay-bench-") as data_dir:
        settings = Settings(data_dir=Path(data_dir), jwt_secret=SecretStr("d" * 40))
        container = build_container(settings)
        try:
            with TestClient(create_app(container)) as http:
                yield Platform(container, http)
        finally:
            container.close()


@dataclass
class Outcome:
    subject: Subject
    first: str  # the probe's top result
    rank: int | None  # of the current fact in the top PROBE_TOP_K (1-based)
    merged: int = 0  # facts the add kept as another's (merged: not a memory of their own)

    @property
    def right(self) -> bool:
        return self.first == self.subject.current


@dataclass
class Run:
    outcomes: list[Outcome]
    retrievals: int
    seconds: float
    returned_old: int = 0  # retrievals of a changed subject after its change whose top result was an old fact
    returned_after: int = 0  # retrievals of a changed subject after its change
    extra: dict[str, Any] = field(default_factory=dict)


def replay(bench: Platform, subjects: Sequence[Subject], name: str, decay: DecaySettings | None) -> Run:
    """Every add and retrieval of the timeline in order (adds first on a day), then every probe at NOW."""
    started = time.perf_counter()
    headers = bench.project(name, decay is not None)
    if decay is not None:
        bench.project_memory.decay = decay
    events: list[tuple[datetime, int, Subject, Any]] = []
    for subject in subjects:
        events += [(at, 0, subject, text) for text, at in subject.facts]
        events += [(at, 1, subject, r) for r in subject.retrievals for at in r.moments()]
    merged: dict[str, int] = {}
    retrievals = returned_old = returned_after = 0
    for at, kind, subject, what in sorted(events, key=lambda e: (e[0], e[1], e[2].id)):
        if kind == 0:
            result = bench.add(headers, subject.user, what, at)
            merged[subject.id] = merged.get(subject.id, 0) + (result["event"] != "ADD")
            continue
        hits = bench.search(headers, subject.user, what.query, what.top_k, at)
        retrievals += 1
        if subject.changed and at > subject.facts[-1][1]:
            returned_after += 1
            returned_old += bool(hits) and hits[0]["memory"] in {text for text, _ in subject.facts[:-1]}
    outcomes = []
    for subject in subjects:
        hits = bench.search(headers, subject.user, subject.probe, PROBE_TOP_K, NOW)
        texts = [h["memory"] for h in hits]
        rank = texts.index(subject.current) + 1 if subject.current in texts else None
        outcomes.append(Outcome(subject, texts[0] if texts else "", rank, merged.get(subject.id, 0)))
    return Run(outcomes, retrievals, round(time.perf_counter() - started, 1), returned_old, returned_after)


def figures_of(run: Run) -> dict[str, Any]:
    def block(outcomes: list[Outcome]) -> dict[str, Any]:
        return {
            "subjects": len(outcomes),
            "current_first": sum(o.right for o in outcomes),
            "current_first_rate": round(sum(o.right for o in outcomes) / len(outcomes), 3) if outcomes else 0.0,
            "mrr@5": round(statistics.fmean(1 / o.rank if o.rank else 0.0 for o in outcomes), 3) if outcomes else 0.0,
        }

    changed = [o for o in run.outcomes if o.subject.changed]
    return {
        "changed": block(changed),
        "changed_retrieved": block([o for o in changed if o.subject.retrievals]),
        "changed_not_retrieved": block([o for o in changed if not o.subject.retrievals]),
        "stable": block([o for o in run.outcomes if not o.subject.changed]),
        "all": block(run.outcomes),
        "retrievals": run.retrievals,
        "after_change_retrievals_answered_with_an_old_fact": f"{run.returned_old} of {run.returned_after}",
        "facts_merged_at_add": sum(o.merged for o in run.outcomes),
        "seconds": run.seconds,
        "first": {o.subject.id: o.right for o in run.outcomes},
    }


def configurations(half_lives: Sequence[float], boosts: Sequence[float]) -> dict[str, DecaySettings]:
    """Each half-life with the default access boost, then the default half-life with each other boost."""
    default = DecaySettings()
    configs = {f"half_life_{h:g}": replace(default, half_life_days=h) for h in half_lives}
    for boost in (b for b in boosts if b != default.access_boost):
        name = f"half_life_{default.half_life_days:g}_access_boost_{boost:g}"
        configs[name] = replace(default, access_boost=boost)
    return configs


def changing_facts(configs: dict[str, DecaySettings]) -> dict[str, Any]:
    subjects = load()
    everything: dict[str, DecaySettings | None] = {"off": None, **configs}
    out: dict[str, Any] = {
        "now": NOW.isoformat(),
        "subjects": len(subjects),
        "changed": sum(s.changed for s in subjects),
        "retrieved": sum(bool(s.retrievals) for s in subjects),
        "configurations": {},
    }
    with platform() as bench:
        for name, decay in everything.items():
            print(f"changing facts: {name}", flush=True)
            figures = figures_of(replay(bench, subjects, name.replace("_", "-"), decay))
            if decay is not None:
                figures["settings"] = _settings(decay)
            out["configurations"][name] = figures
    off = out["configurations"]["off"]["first"]
    for name, block in out["configurations"].items():
        if name != "off":
            block["gained"] = sorted(s for s, right in block["first"].items() if right and not off[s])
            block["lost"] = sorted(s for s, right in block["first"].items() if off[s] and not right)
    return out


# ---- LoCoMo -------------------------------------------------------------------------------------------------


def locomo(configs: dict[str, DecaySettings], data: Path = LOCOMO) -> dict[str, Any]:
    from mnemo_bench import locomo as harness

    conversations = harness.load(data)
    asked = harness.questions(conversations).questions
    names, decays = list(configs), list(configs.values())
    run = harness.run_mnemo(conversations, asked, 10, progress=harness.progress_to_stderr, decays=decays)
    ks = (1, 5, 10)
    off = harness.score(asked, run.hybrid, ks)
    out: dict[str, Any] = {
        "dataset": data.name,
        "questions": len(asked),
        "memories": run.memories,
        "off": _recalls(off, ks),
        "configurations": {},
        "seconds": run.seconds,
    }
    for name, decay, rankings in zip(names, decays, run.decayed, strict=True):
        scored = harness.score(asked, rankings, ks)
        out["configurations"][name] = {
            **_recalls(scored, ks),
            "change": {f"recall@{k}": round(scored[f"recall@{k}"] - off[f"recall@{k}"], 4) for k in ks},
            "per_category": {c: _recalls(v, ks) for c, v in scored["per_category"].items()},
            "settings": _settings(decay),
        }
    out["off_per_category"] = {c: _recalls(v, ks) for c, v in off["per_category"].items()}
    out["session_span_days"] = _session_spans(conversations)
    return out


def _recalls(block: dict[str, Any], ks: Sequence[int]) -> dict[str, float]:
    return {f"recall@{k}": block[f"recall@{k}"] for k in ks}


def _session_spans(conversations: Sequence[Any]) -> dict[str, float]:
    spans = []
    for conversation in conversations:
        dates = [s.date for s in conversation.sessions if s.date is not None]
        if dates:
            spans.append((max(dates) - min(dates)) / timedelta(days=1))
    return {"min": round(min(spans)), "median": round(statistics.median(spans)), "max": round(max(spans))}


def _settings(decay: DecaySettings) -> dict[str, float]:
    return {
        "half_life_days": decay.half_life_days,
        "access_boost": decay.access_boost,
        "access_half_life_days": decay.access_half_life_days,
    }


# ---- the whole benchmark ------------------------------------------------------------------------------------


def run(quick: bool = False) -> dict[str, Any]:
    default = DecaySettings()
    configs = configurations((default.half_life_days,), ()) if quick else configurations(HALF_LIVES, ACCESS_BOOSTS)
    figures: dict[str, Any] = {"default": _settings(default), "changing_facts": changing_facts(configs)}
    if not quick:
        figures["locomo"] = locomo(configs)
    return figures


def summary(figures: dict[str, Any]) -> str:
    lines = ["changing facts: the current fact first (changed subjects; retrieved ones; stable ones), mrr@5"]
    for name, block in figures["changing_facts"]["configurations"].items():
        c, r, s = block["changed"], block["changed_retrieved"], block["stable"]
        lines.append(
            f"  {name:<36} {c['current_first']}/{c['subjects']}  {r['current_first']}/{r['subjects']}  "
            f"{s['current_first']}/{s['subjects']}  mrr {c['mrr@5']:.3f}  "
            f"old answers after a change {block['after_change_retrievals_answered_with_an_old_fact']}"
        )
    if "locomo" in figures:
        loco = figures["locomo"]
        off = loco["off"]
        recalls = " / ".join(f"{off[f'recall@{k}']:.3f}" for k in (1, 5, 10))
        lines.append(f"LoCoMo recall@1/5/10: off {recalls}")
        for name, block in loco["configurations"].items():
            lines.append(
                f"  {name:<36} {block['recall@1']:.3f} / {block['recall@5']:.3f} / {block['recall@10']:.3f}  "
                f"(change {block['change']['recall@1']:+.3f} / {block['change']['recall@5']:+.3f} / "
                f"{block['change']['recall@10']:+.3f})"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.decay")
    parser.add_argument("--quick", action="store_true", help="The default settings only, and no LoCoMo.")
    args = parser.parse_args(argv)
    figures = run(quick=args.quick)
    print(summary(figures))
    record("decay-quick" if args.quick else "decay", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
