"""Retrieval quality on LoCoMo-format conversations, with no LLM in the loop.

Every turn is stored as a memory through the real memory service (`infer=false`, scoped by
`user_id` = the conversation's `sample_id`, backdated to its session's date, the turn's `dia_id` in its
metadata); every question is then asked within its conversation, and a question counts as a hit at k when
one of its evidence turns is among the top k results. Recall@k is reported overall and per category, for
mnemo's semantic-only search (keyword weight 0), its hybrid search, and optionally for a peer system run
in its own virtualenv through a JSON job file (see `run_peer`).

Evidence ids that name no turn of the conversation (malformed ids such as "D:11:26" or "D8:6; D9:17")
are dropped; a question left with no evidence is skipped and counted.

With decay (`--decay`: the platform's memory decay, mnemo.services.decay, as a project with `decay` on ranks its
v3 search), the hybrid search is asked again with every question seen at the end of its conversation (the date of
its last session) and each answer's memories recorded as retrieved, in question order, so later questions see the
retrievals of earlier ones, as a project's v3 search does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.errors import MnemoError
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder, Vectors
from mnemo.ports.llm import LLM
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.services.decay import Decay, DecaySettings
from mnemo.services.memory import MemoryService
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.settings import Settings

DEFAULT_KS = (1, 5, 10)
PEER_SETUP = "bench/peer/setup_mem0_venv.sh"
PEER_VENV_PYTHON = "bench/.work/mem0-venv/bin/python"

_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D\d+:\d+")
_SESSION_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$", re.IGNORECASE
)
_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = {
    **{m: i for i, m in enumerate(_MONTH_NAMES, 1)},
    **{m[:3]: i for i, m in enumerate(_MONTH_NAMES, 1)},
    "sept": 9,
}


class EvaluationError(MnemoError):
    """The data file or the peer system could not be used."""


# ---- the data -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None = None  # what an image shared in this turn shows (LoCoMo's `blip_caption`)


@dataclass(frozen=True, slots=True)
class Session:
    number: int
    date: datetime | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class Question:
    user_id: str
    query: str
    category: str
    evidence: frozenset[str]


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    qa: tuple[dict[str, Any], ...]

    def turn_ids(self) -> set[str]:
        return {t.dia_id for s in self.sessions for t in s.turns}

    def ended(self) -> datetime | None:
        """When its last dated session was: the moment its questions are asked, with decay."""
        return max((s.date for s in self.sessions if s.date is not None), default=None)


@dataclass(frozen=True, slots=True)
class QuestionSet:
    questions: tuple[Question, ...]
    skipped: int  # questions with no usable evidence
    skipped_evidence_ids: int  # evidence ids that name no turn of their conversation


def parse_session_date(text: str) -> datetime:
    """LoCoMo's session stamps, such as "1:56 pm on 8 May, 2023", as an aware UTC datetime."""
    match = _SESSION_DATE.match(text)
    if match is None:
        raise EvaluationError(f"Unrecognised session date {text!r} (expected a form like '1:56 pm on 8 May, 2023').")
    hour, minute, half, day, month_name, year = match.groups()
    month = _MONTHS.get(month_name.lower())
    if month is None:
        raise EvaluationError(f"Unrecognised month {month_name!r} in session date {text!r}.")
    hour_24 = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    try:
        return datetime(int(year), month, int(day), hour_24, int(minute), tzinfo=UTC)
    except ValueError as exc:
        raise EvaluationError(f"Invalid session date {text!r}: {exc}.") from exc


def load(path: Path) -> list[Conversation]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvaluationError(f"Cannot read the LoCoMo file {path}: {exc}") from exc
    if not isinstance(raw, list):
        raise EvaluationError(f"{path}: expected a JSON list of conversations.")
    return [_conversation(item, i) for i, item in enumerate(raw)]


def _conversation(item: Any, position: int) -> Conversation:
    if not isinstance(item, dict) or "sample_id" not in item or not isinstance(item.get("conversation"), dict):
        raise EvaluationError(f"Conversation #{position} needs a sample_id and a conversation object.")
    body: dict[str, Any] = item["conversation"]
    sessions: list[Session] = []
    for key, turns in body.items():
        match = _SESSION.fullmatch(key)
        if match is None or not isinstance(turns, list):
            continue
        stamp = body.get(f"{key}_date_time")
        sessions.append(
            Session(
                number=int(match.group(1)),
                date=parse_session_date(stamp) if isinstance(stamp, str) and stamp.strip() else None,
                turns=tuple(
                    Turn(
                        dia_id=str(t["dia_id"]),
                        speaker=str(t.get("speaker") or ""),
                        text=str(t.get("text") or ""),
                        caption=t.get("blip_caption") or None,
                    )
                    for t in turns
                    if isinstance(t, dict) and "dia_id" in t
                ),
            )
        )
    sessions.sort(key=lambda s: s.number)
    qa = item.get("qa") or []
    return Conversation(str(item["sample_id"]), tuple(sessions), tuple(q for q in qa if isinstance(q, dict)))


def questions(conversations: Iterable[Conversation]) -> QuestionSet:
    """The answerable questions, each with the evidence ids that name a turn of its conversation."""
    kept: list[Question] = []
    skipped = dropped = 0
    for conversation in conversations:
        known = conversation.turn_ids()
        for qa in conversation.qa:
            raw = qa.get("evidence") or []
            ids = [str(e) for e in raw] if isinstance(raw, list) else [str(raw)]
            valid = frozenset(e for e in ids if _DIA_ID.fullmatch(e) and e in known)
            dropped += len(ids) - sum(1 for e in ids if e in valid)
            query = str(qa.get("question") or "").strip()
            if not valid or not query:
                skipped += 1
                continue
            kept.append(Question(conversation.sample_id, query, str(qa.get("category", "")), valid))
    return QuestionSet(tuple(kept), skipped, dropped)


def memory_text(turn: Turn) -> str:
    """What is stored for a turn: who said it and what they said ("Caroline: I went to ..."), the form mem0's
    own LoCoMo evaluation stores. A turn's words alone often do not say whose they are ("I went to ...")."""
    text = turn.text.strip()
    if not text:
        return ""
    return f"{turn.speaker}: {text}" if turn.speaker else text


def turn_metadata(session: Session, turn: Turn) -> dict[str, Any]:
    return {
        "dia_id": turn.dia_id,
        "speaker": turn.speaker,
        "session": session.number,
        **({"session_date": session.date.isoformat()} if session.date else {}),
        **({"image_caption": turn.caption} if turn.caption else {}),
    }


# ---- scoring ------------------------------------------------------------------------------------------

# A ranking is the ordered results of one question, each result given as the turn ids it stands for
# (a memory stands for several turns when identical turns were stored once).
Ranking = Sequence[Collection[str]]


def score(asked: Sequence[Question], rankings: Sequence[Ranking], ks: Sequence[int]) -> dict[str, Any]:
    """Recall@k overall and per category: the share of questions with an evidence turn in the top k."""
    if len(rankings) != len(asked):
        raise EvaluationError(f"{len(rankings)} rankings for {len(asked)} questions.")
    first_hits = [_first_hit(q.evidence, r) for q, r in zip(asked, rankings, strict=True)]
    categories = sorted({q.category for q in asked}, key=_category_order)
    out: dict[str, Any] = {**_recalls(first_hits, ks), "questions": len(asked)}
    out["per_category"] = {
        c: {
            "questions": sum(1 for q in asked if q.category == c),
            **_recalls([h for q, h in zip(asked, first_hits, strict=True) if q.category == c], ks),
        }
        for c in categories
    }
    return out


def _first_hit(evidence: frozenset[str], ranking: Ranking) -> int | None:
    for position, keys in enumerate(ranking):
        if not evidence.isdisjoint(keys):
            return position
    return None


def _recalls(first_hits: Sequence[int | None], ks: Sequence[int]) -> dict[str, float]:
    total = len(first_hits)
    return {
        f"recall@{k}": round(sum(1 for h in first_hits if h is not None and h < k) / total, 4) if total else 0.0
        for k in ks
    }


def _category_order(category: str) -> tuple[int, str]:
    return (int(category), "") if category.isdigit() else (10**9, category)


# ---- mnemo --------------------------------------------------------------------------------------------


def default_catalog() -> ProviderCatalog:
    """The providers a run builds its embedder from (tests substitute a catalogue with the model loaded)."""
    from mnemo.adapters.registry import ProviderRegistry

    return ProviderRegistry()


class _MemoEmbedder:
    """Embeds each distinct text once: the questions are asked twice (semantic-only and hybrid), and the
    turns of a conversation are embedded in one batch before they are stored one by one."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self._seen: dict[str, Vectors] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self._seen[text] = vector
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._seen[t] for t in texts]).astype(np.float32, copy=False)


class _MemoCatalog:
    def __init__(self, inner: ProviderCatalog) -> None:
        self.inner = inner
        self.embedders: list[_MemoEmbedder] = []

    def bundled(self) -> dict[str, list[str]]:
        return self.inner.bundled()

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        embedder = _MemoEmbedder(self.inner.build_embedder(provider, config))
        self.embedders.append(embedder)
        return embedder

    def build_llm(self, provider: str, config: dict[str, Any] | None) -> LLM:
        return self.inner.build_llm(provider, config)


Rankings = list[list[tuple[str, ...]]]


@dataclass
class MnemoRun:
    hybrid: Rankings
    semantic_only: Rankings
    memories: int
    weights: RankingWeights
    embedder: str
    seconds: dict[str, float] = field(default_factory=dict)
    decayed: list[Rankings] = field(default_factory=list)  # the hybrid search with each of `decays`, in order
    reranked: Rankings | None = None  # the hybrid search with `rerank`
    latency_ms: dict[str, float] = field(default_factory=dict)  # p50 of one search (query embedding memoized)


def run_mnemo(
    conversations: Sequence[Conversation],
    asked: Sequence[Question],
    k: int,
    *,
    settings: Settings | None = None,
    catalog: ProviderCatalog | None = None,
    progress: Callable[[str], None] | None = None,
    decays: Sequence[DecaySettings] = (),
    rerank: bool = False,
) -> MnemoRun:
    """Store every turn through the memory service on a fresh data dir, then ask every question twice (hybrid and
    semantic-only), once more with `rerank`, and once more with each of `decays` (see `ask_decayed`). Every question
    is asked at the end of its conversation (`reference_date`: its last session's date), so that its time phrases
    ("last week") resolve against that date."""
    from mnemo.composition.container import build_container

    say = progress or (lambda _message: None)
    memo = _MemoCatalog(catalog or default_catalog())
    with tempfile.TemporaryDirectory(prefix="mnemo-locomo-") as data_dir:
        base = settings or Settings()
        container = build_container(base.model_copy(update={"data_dir": Path(data_dir)}), memo)
        try:
            hybrid_service = container.memory_service
            embedder = hybrid_service.providers.get().embedder
            started = time.perf_counter()
            aliases = store_turns(hybrid_service, embedder, conversations, say)
            stored = time.perf_counter()
            semantic_service = MemoryService(
                hybrid_service.store,
                hybrid_service.index,
                hybrid_service.providers,
                RankingWeights(semantic=1.0, keyword=0.0),
                language=english(),
            )
            say(f"asking {len(asked)} questions")
            embedder.embed([q.query for q in asked])
            ended = {c.sample_id: c.ended() for c in conversations}
            hybrid_times: list[float] = []
            hybrid = _ask(hybrid_service, asked, k, aliases, ended=ended, times=hybrid_times)
            semantic = _ask(semantic_service, asked, k, aliases, ended=ended)
            latency = {"hybrid_p50": _p50(hybrid_times)}
            reranked = None
            if rerank:
                say(f"asking {len(asked)} questions with rerank")
                rerank_times: list[float] = []
                reranked = _ask(hybrid_service, asked, k, aliases, ended=ended, rerank=True, times=rerank_times)
                latency |= {
                    "rerank_p50": _p50(rerank_times),
                    "rerank_added_p50": _p50([b - a for a, b in zip(hybrid_times, rerank_times, strict=True)]),
                }
            done = time.perf_counter()
            decayed = []
            for decay in decays:
                say(f"asking {len(asked)} questions with decay (half-life {decay.half_life_days:g} days)")
                decayed.append(ask_decayed(hybrid_service, conversations, asked, k, aliases, decay))
            return MnemoRun(
                hybrid=hybrid,
                semantic_only=semantic,
                memories=hybrid_service.index.count(),
                weights=hybrid_service.weights,
                embedder=embedder.name,
                seconds={
                    "store": round(stored - started, 2),
                    "search": round(done - stored, 2),
                    **({"search_decayed": round(time.perf_counter() - done, 2)} if decays else {}),
                },
                decayed=decayed,
                reranked=reranked,
                latency_ms=latency,
            )
        finally:
            container.close()


def store_turns(
    service: MemoryService,
    embedder: Embedder,
    conversations: Sequence[Conversation],
    say: Callable[[str], None] = lambda _message: None,
) -> dict[str, tuple[str, ...]]:
    """Store every turn; returns each memory's turn ids (identical turns of one conversation share one memory)."""
    aliases: dict[str, list[str]] = {}
    for number, conversation in enumerate(conversations, start=1):
        turns = sum(len(s.turns) for s in conversation.sessions)
        say(f"storing conversation {conversation.sample_id} ({number}/{len(conversations)}, {turns} turns)")
        # One embedding batch per conversation; each turn is then added on its own, with its own metadata.
        embedder.embed([memory_text(t) for s in conversation.sessions for t in s.turns if memory_text(t)])
        scope = Scope(user_id=conversation.sample_id)
        for session in conversation.sessions:
            for turn in session.turns:
                text = memory_text(turn)
                if not text:
                    continue
                results = service.add(
                    AddCommand(
                        messages=[Message(role="user", content=text, name=turn.speaker or None)],
                        scope=scope,
                        metadata=turn_metadata(session, turn),
                        infer=False,
                        timestamp=session.date,
                    )
                )
                for result in results:
                    aliases.setdefault(result.record.id, []).append(turn.dia_id)
    return {memory_id: tuple(ids) for memory_id, ids in aliases.items()}


def _p50(values: Sequence[float]) -> float:
    return round(float(np.median(values)) * 1000, 3) if values else 0.0


def _ask(
    service: MemoryService,
    asked: Sequence[Question],
    k: int,
    aliases: dict[str, tuple[str, ...]],
    *,
    ended: Mapping[str, datetime | None] | None = None,
    rerank: bool = False,
    times: list[float] | None = None,
) -> list[list[tuple[str, ...]]]:
    """Each question's ranking; `ended`: when each conversation ended (the questions' `reference_date`); `times`:
    filled with each search's seconds."""
    rankings: list[list[tuple[str, ...]]] = []
    for question in asked:
        started = time.perf_counter()
        results = service.search(
            SearchCommand(
                query=question.query,
                filters=f.Condition("user_id", "eq", question.user_id),
                top_k=k,
                threshold=0.0,
                rerank=rerank,
                reference_date=(ended or {}).get(question.user_id),
            )
        )
        if times is not None:
            times.append(time.perf_counter() - started)
        rankings.append([aliases.get(r.record.id) or (str(r.record.metadata.get("dia_id", "")),) for r in results])
    return rankings


class RetrievalLog:
    """An AccessLog in memory (mnemo.ports.memory_access): the retrievals of one decayed run."""

    def __init__(self) -> None:
        self.times: dict[str, list[datetime]] = {}

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        for memory_id, times in accesses.items():
            self.times[memory_id] = sorted([*self.times.get(memory_id, []), *times], reverse=True)[:20]

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        return {i: self.times[i] for i in memory_ids if i in self.times}

    def forget(self, memory_ids: Sequence[str]) -> None:
        for memory_id in memory_ids:
            self.times.pop(memory_id, None)

    def clear(self) -> None:
        self.times.clear()


def ask_decayed(
    service: MemoryService,
    conversations: Sequence[Conversation],
    asked: Sequence[Question],
    k: int,
    aliases: dict[str, tuple[str, ...]],
    settings: DecaySettings,
) -> Rankings:
    """Every question asked with decay, seen at the end of its conversation (its last session's date), in order:
    what each answers is recorded as retrieved (in a log of this run's own) before the next is asked."""
    decayed = MemoryService(
        service.store, service.index, service.providers, service.weights, accesses=RetrievalLog(), language=english()
    )
    ended = {c.sample_id: c.ended() for c in conversations}
    rankings: Rankings = []
    for question in asked:
        at = ended.get(question.user_id) or datetime.now(UTC)
        results = decayed.search(
            SearchCommand(
                query=question.query,
                filters=f.Condition("user_id", "eq", question.user_id),
                top_k=k,
                threshold=0.0,
                decay=Decay(settings, at),
            )
        )
        rankings.append([aliases.get(r.record.id) or (str(r.record.metadata.get("dia_id", "")),) for r in results])
    return rankings


def decay_settings_of(settings: DecaySettings) -> dict[str, float]:
    return {
        "half_life_days": settings.half_life_days,
        "access_boost": settings.access_boost,
        "access_half_life_days": settings.access_half_life_days,
    }


# ---- a peer system ------------------------------------------------------------------------------------


def repo_root() -> Path:
    here = Path(__file__).resolve()
    for candidate in (*here.parents, Path.cwd()):
        if (candidate / "bench").is_dir() and (candidate / "layers").is_dir():
            return candidate
    return Path.cwd()


def default_peer_runner(peer: str) -> Path:
    return Path(__file__).resolve().with_name(f"{peer}_peer.py")


def default_peer_python() -> Path:
    return repo_root() / PEER_VENV_PYTHON


@dataclass(frozen=True, slots=True)
class PeerSpec:
    """A peer system run as `<python> <runner> JOB.json OUT.json` (see `peer_job` for the job's shape)."""

    name: str = "mem0"
    python: Path | None = None  # default: bench/.work/mem0-venv/bin/python under the repository root
    runner: Path | None = None  # default: mnemo_bench/<name>_peer.py, beside this module

    def command(self, job: Path, out: Path) -> list[str]:
        python = self.python or default_peer_python()
        runner = self.runner or default_peer_runner(self.name)
        if not python.exists():
            raise EvaluationError(
                f"The {self.name} peer's Python {python} does not exist. Create its virtualenv once with "
                f"`bash {PEER_SETUP}` (from the repository root), or pass --peer-python PATH."
            )
        if not runner.exists():
            raise EvaluationError(f"The {self.name} peer runner {runner} does not exist.")
        return [str(python), str(runner), str(job), str(out)]


def peer_job(conversations: Sequence[Conversation], asked: Sequence[Question], k: int) -> dict[str, Any]:
    return {
        "kind": "retrieval",
        "k": k,
        # A faiss store per conversation: mem0 filters by user after its nearest-neighbour search, so in a shared
        # store a conversation's best turns can fall outside the window it fetches (fewer than k results).
        "store_per_user": True,
        "conversations": [
            {
                "user_id": c.sample_id,
                "memories": [
                    {"key": t.dia_id, "text": memory_text(t), "metadata": turn_metadata(s, t)}
                    for s in c.sessions
                    for t in s.turns
                    if memory_text(t)
                ],
            }
            for c in conversations
        ],
        "questions": [{"user_id": q.user_id, "query": q.query} for q in asked],
    }


def run_peer(
    peer: PeerSpec, conversations: Sequence[Conversation], asked: Sequence[Question], k: int
) -> list[list[tuple[str, ...]]]:
    """Run the peer on the same memories and questions; its rankings, in the questions' order."""
    with tempfile.TemporaryDirectory(prefix=f"mnemo-locomo-{peer.name}-") as work:
        job, out = Path(work) / "job.json", Path(work) / "out.json"
        command = peer.command(job, out)
        job.write_text(json.dumps(peer_job(conversations, asked, k)), encoding="utf-8")
        # The peer's stdout is kept off ours (which may carry the JSON report); its stderr passes through.
        completed = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
        if completed.returncode != 0:
            tail = "\n".join((completed.stdout or "").strip().splitlines()[-20:])
            raise EvaluationError(
                f"The {peer.name} peer failed (exit code {completed.returncode}): {' '.join(command)}"
                + (f"\n{tail}" if tail else "")
            )
        try:
            rankings = json.loads(out.read_text(encoding="utf-8"))["rankings"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EvaluationError(f"The {peer.name} peer wrote no usable {out.name}: {exc}") from exc
    if not isinstance(rankings, list) or len(rankings) != len(asked):
        raise EvaluationError(f"The {peer.name} peer returned rankings for {len(rankings)} of {len(asked)} questions.")
    return [[(str(key),) for key in ranking[:k]] for ranking in rankings]


# ---- the whole evaluation -----------------------------------------------------------------------------


def evaluate(
    data: Path,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    peer: PeerSpec | None = None,
    settings: Settings | None = None,
    catalog: ProviderCatalog | None = None,
    progress: Callable[[str], None] | None = None,
    decay: DecaySettings | None = None,
    rerank: bool = False,
) -> dict[str, Any]:
    """The report: hybrid recall at the top level (with `rerank`, the reranked search's, and the hybrid search's
    without it as `without_rerank`), `semantic_only` and the peer's (by name) alongside, and with
    `decay` the hybrid search's with decay (`decay`: its recall, the settings, and the change from without)."""
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise EvaluationError("Every k must be a positive integer.")
    conversations = load(data)
    qs = questions(conversations)
    if not qs.questions:
        raise EvaluationError(f"{data}: no question with usable evidence.")
    say = progress or (lambda _message: None)
    k = ks[-1]
    started = time.perf_counter()
    decays = [decay] if decay is not None else []
    run = run_mnemo(
        conversations, qs.questions, k, settings=settings, catalog=catalog, progress=say, decays=decays, rerank=rerank
    )
    skipped = {"skipped": qs.skipped, "skipped_evidence_ids": qs.skipped_evidence_ids}
    report: dict[str, Any] = {
        "dataset": Path(data).name,
        "conversations": len(conversations),
        "memories": run.memories,
        "k": ks,
        **score(qs.questions, run.hybrid, ks),
        **skipped,
        "semantic_only": {**score(qs.questions, run.semantic_only, ks), **skipped},
        "embedder": run.embedder,
        "weights": {"semantic": run.weights.semantic, "keyword": run.weights.keyword},
        "seconds": run.seconds,
        "latency_ms": run.latency_ms,
        "reference_date": "each conversation's last session",
    }
    if run.reranked is not None:
        report["without_rerank"] = {k: report[k] for k in (*(f"recall@{k}" for k in ks), "questions", "per_category")}
        report.update(score(qs.questions, run.reranked, ks))
        report["rerank"] = True
    if decay is not None:
        decayed = score(qs.questions, run.decayed[0], ks)
        report["decay"] = {
            **decayed,
            **skipped,
            "settings": decay_settings_of(decay),
            "change": {f"recall@{k}": round(decayed[f"recall@{k}"] - report[f"recall@{k}"], 4) for k in ks},
        }
    if peer is not None:
        say(f"running the {peer.name} peer")
        peer_started = time.perf_counter()
        report[peer.name] = {**score(qs.questions, run_peer(peer, conversations, qs.questions, k), ks), **skipped}
        report["seconds"][peer.name] = round(time.perf_counter() - peer_started, 2)
    report["seconds"]["total"] = round(time.perf_counter() - started, 2)
    return report


def render(report: dict[str, Any]) -> str:
    """A plain-text table of the report."""
    ks: list[int] = report["k"]
    systems = [("mnemo hybrid" + (" + rerank" if report.get("rerank") else ""), report)]
    systems += [("mnemo hybrid", report["without_rerank"])] if "without_rerank" in report else []
    systems += [("mnemo semantic-only", report["semantic_only"])]
    systems += [("mnemo hybrid + decay", report["decay"])] if "decay" in report else []
    systems += [(name, report[name]) for name in ("mem0",) if name in report]
    header = f"{'system':<22}{'category':<10}{'questions':>10}" + "".join(f"{f'R@{k}':>8}" for k in ks)
    lines = [
        f"LoCoMo retrieval: {report['dataset']}, {report['conversations']} conversations, "
        f"{report['memories']} memories, {report['questions']} questions ({report['skipped']} skipped, "
        f"{report['skipped_evidence_ids']} unusable evidence ids dropped)",
        header,
    ]
    for name, block in systems:
        rows = [("all", block), *block["per_category"].items()]
        for category, row in rows:
            lines.append(
                f"{name:<22}{category:<10}{row['questions']:>10}" + "".join(f"{row[f'recall@{k}']:>8.3f}" for k in ks)
            )
    lines.append(f"seconds: {report['seconds']}")
    if report.get("latency_ms"):
        lines.append(f"search p50 ms: {report['latency_ms']}")
    return "\n".join(lines)


def progress_to_stderr(message: str) -> None:
    print(f"mnemo bench: {message}", file=sys.stderr, flush=True)
