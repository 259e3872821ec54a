"""The LoCoMo retrieval evaluation: data loading, date parsing, recall arithmetic, the CLI report, the peer seam."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mnemo.composition.container import Container
from mnemo.domain import filters as f
from mnemo.entrypoints import cli
from mnemo_bench import locomo
from mnemo_bench.locomo import EvaluationError, Question, parse_session_date, score
from tests.conftest import CachedModelRegistry

KS = (1, 5, 10)
REPORT_KEYS = {"recall@1", "recall@5", "recall@10", "per_category", "questions", "skipped"}

TINY: list[dict[str, Any]] = [
    {
        "sample_id": "conv-a",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Ben! How was your week?"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "I adopted a beagle puppy called Biscuit on Sunday."},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "Thanks!"},
            ],
            "session_2_date_time": "12:19 am on 4 January, 2024",
            "session_2": [
                {"speaker": "Ann", "dia_id": "D2:1", "text": "I started learning the cello at a music school."},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Thanks!"},
                {
                    "speaker": "Ann",
                    "dia_id": "D2:3",
                    "text": "Look at this.",
                    "img_url": ["https://example.invalid/x.jpg"],
                    "blip_caption": "a photo of a cello on a stand",
                },
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ben's beagle puppy?",
                "answer": "Biscuit",
                "evidence": ["D1:2"],
                "category": 1,
            },
            {
                "question": "Which instrument did Ann start learning?",
                "answer": "cello",
                "evidence": ["D2:1", "D:11:26"],
                "category": 2,
            },
            {"question": "Is Ann musical?", "answer": "Yes", "evidence": [], "category": 3},
            {"question": "What did Ben paint?", "answer": "?", "evidence": ["D8:6; D9:17"], "category": 5},
        ],
    },
    {
        "sample_id": "conv-b",
        "conversation": {
            "speaker_a": "Cat",
            "speaker_b": "Dan",
            "session_1_date_time": "7:31 pm on 21 January, 2022",
            "session_1": [
                {"speaker": "Cat", "dia_id": "D1:1", "text": "My sister moved to Lisbon to work as a nurse."},
                {"speaker": "Dan", "dia_id": "D1:2", "text": "I sold my old motorbike last month."},
            ],
        },
        "qa": [
            {"question": "Where does Cat's sister live?", "answer": "Lisbon", "evidence": ["D1:1"], "category": 4},
            {"question": "What did Cat sell?", "answer": "n/a", "evidence": ["D1:2"], "category": 5},
        ],
    },
]

FAKE_PEER = """
import json, sys
job = json.load(open(sys.argv[1]))
json.dump(job, open(SEEN, "w"))
# Fixed answers: the first stored turn of the asker's conversation, then an unknown key.
first = {c["user_id"]: [m["key"] for m in c["memories"]] for c in job["conversations"]}
rankings = [[first[q["user_id"]][0], "nope"] for q in job["questions"]]
json.dump({"rankings": rankings}, open(sys.argv[2], "w"))
print("peer chatter on stdout")
"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-locomo.json"
    path.write_text(json.dumps(TINY))
    return path


@pytest.fixture
def cached_model(monkeypatch: pytest.MonkeyPatch, registry: CachedModelRegistry) -> None:
    """Runs started from the CLI reuse the session's loaded model."""
    monkeypatch.setattr(locomo, "default_catalog", lambda: registry)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["bench", "locomo", *args])
    out, err = capsys.readouterr()
    return code, out, err


# ---- dates and data --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:19 am on 4 January, 2024", datetime(2024, 1, 4, 0, 19, tzinfo=UTC)),
        ("12:06 pm on 11 November, 2022", datetime(2022, 11, 11, 12, 6, tzinfo=UTC)),
        ("9:35 AM on 31 October, 2023", datetime(2023, 10, 31, 9, 35, tzinfo=UTC)),
        ("10:04 am on 19 Sept 2023", datetime(2023, 9, 19, 10, 4, tzinfo=UTC)),
    ],
)
def test_given_a_session_stamp_when_parsed_then_it_is_that_moment_in_utc(text: str, expected: datetime) -> None:
    assert parse_session_date(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "1:56 pm on 8 Smarch, 2023", "1:56 pm on 31 February, 2023", ""])
def test_given_an_unreadable_session_stamp_when_parsed_then_the_error_quotes_it(text: str) -> None:
    with pytest.raises(EvaluationError, match=r"session date|month"):
        parse_session_date(text)


def test_given_a_locomo_file_when_loaded_then_sessions_are_dated_and_in_order(data: Path) -> None:
    conversations = locomo.load(data)

    assert [c.sample_id for c in conversations] == ["conv-a", "conv-b"]
    first = conversations[0]
    assert [s.number for s in first.sessions] == [1, 2]
    assert first.sessions[0].date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert [t.dia_id for t in first.sessions[1].turns] == ["D2:1", "D2:2", "D2:3"]
    assert first.sessions[1].turns[2].caption == "a photo of a cello on a stand"


def test_given_malformed_or_missing_evidence_when_questions_are_prepared_then_they_are_dropped_and_counted(
    data: Path,
) -> None:
    prepared = locomo.questions(locomo.load(data))

    assert [(q.user_id, q.category, sorted(q.evidence)) for q in prepared.questions] == [
        ("conv-a", "1", ["D1:2"]),
        ("conv-a", "2", ["D2:1"]),  # "D:11:26" dropped, the good id kept
        ("conv-b", "4", ["D1:1"]),
        ("conv-b", "5", ["D1:2"]),
    ]
    assert prepared.skipped == 2  # no evidence at all; only a malformed id
    assert prepared.skipped_evidence_ids == 2


@pytest.mark.parametrize("content", ["not json", '{"a": 1}', '[{"conversation": {}}]'])
def test_given_a_file_that_is_not_locomo_when_loaded_then_an_evaluation_error_says_so(
    tmp_path: Path, content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)

    with pytest.raises(EvaluationError):
        locomo.load(path)


# ---- scoring ------------------------------------------------------------------------------------------


def q(category: str, *evidence: str) -> Question:
    return Question("u", "?", category, frozenset(evidence))


def test_given_rankings_when_scored_then_a_hit_at_k_is_any_evidence_turn_in_the_top_k() -> None:
    asked = [q("1", "a"), q("1", "b", "c"), q("2", "z"), q("2", "d")]
    rankings: list[list[tuple[str, ...]]] = [
        [("a",)],  # hit at rank 1
        [("x",), ("y",), ("c",)],  # second evidence turn at rank 3
        [("x",)] * 10,  # never
        [("x",)] * 5 + [("y", "d")],  # at rank 6, through a memory that stands for two turns
    ]

    report = score(asked, rankings, KS)

    assert report["questions"] == 4
    assert report["recall@1"] == 0.25
    assert report["recall@5"] == 0.5
    assert report["recall@10"] == 0.75
    assert report["per_category"] == {
        "1": {"questions": 2, "recall@1": 0.5, "recall@5": 1.0, "recall@10": 1.0},
        "2": {"questions": 2, "recall@1": 0.0, "recall@5": 0.0, "recall@10": 0.5},
    }


def test_given_categories_when_scored_then_they_are_ordered_by_number() -> None:
    asked = [q("10", "a"), q("2", "a"), q("other", "a"), q("1", "a")]

    report = score(asked, [[("a",)]] * 4, (1,))

    assert list(report["per_category"]) == ["1", "2", "10", "other"]
    assert report["recall@1"] == 1.0


def test_given_fewer_rankings_than_questions_when_scored_then_it_is_an_error() -> None:
    with pytest.raises(EvaluationError):
        score([q("1", "a")], [], KS)


# ---- storing turns through the service ----------------------------------------------------------------


def test_given_turns_when_stored_then_each_is_a_backdated_scoped_memory_with_its_dia_id(
    data: Path, container: Container
) -> None:
    conversations = locomo.load(data)
    service = container.memory_service

    aliases = locomo.store_turns(service, service.providers.get().embedder, conversations)

    records = service.get_all(f.Condition("user_id", "eq", "conv-a"), top_k=None)
    by_dia = {r.metadata["dia_id"]: r for r in records}
    # Ann says "Thanks!" twice: stored once, and that memory stands for both turns.
    assert sorted(by_dia) == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:3"]
    assert aliases[by_dia["D1:3"].id] == ("D1:3", "D2:2")
    puppy = by_dia["D1:2"]
    assert puppy.text == "Ben: I adopted a beagle puppy called Biscuit on Sunday."
    assert puppy.created_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert puppy.actor_id == "Ben"
    assert puppy.metadata["session"] == 1
    assert by_dia["D2:3"].metadata["image_caption"] == "a photo of a cello on a stand"
    assert {r.metadata["dia_id"] for r in service.get_all(f.Condition("user_id", "eq", "conv-b"))} == {"D1:1", "D1:2"}


# ---- the command ----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("cached_model")
def test_given_a_locomo_file_when_benchmarked_as_json_then_one_report_object_is_printed(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run_cli(capsys, "--data", str(data), "--json")

    assert code == 0
    report = json.loads(out)
    assert set(report) >= REPORT_KEYS
    assert set(report["semantic_only"]) >= REPORT_KEYS
    assert "mem0" not in report
    for block in (report, report["semantic_only"]):
        assert block["questions"] == 4
        assert block["skipped"] == 2
        assert set(block["per_category"]) == {"1", "2", "4", "5"}
        assert all(0.0 <= block[f"recall@{k}"] <= 1.0 for k in KS)
        assert block["recall@1"] <= block["recall@5"] <= block["recall@10"]
        # Every conversation holds fewer than 10 memories: everything is in the top 10.
        assert block["recall@10"] == 1.0
    assert report["memories"] == 7  # 8 turns, one of them a repeat
    assert report["skipped_evidence_ids"] == 2
    # Distinctive words: the hybrid search puts the evidence first.
    assert report["per_category"]["1"]["recall@1"] == 1.0
    assert report["per_category"]["4"]["recall@1"] == 1.0


@pytest.mark.usefixtures("cached_model")
def test_given_decay_when_benchmarked_then_the_decayed_recall_and_its_change_are_reported(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run_cli(capsys, "--data", str(data), "--json", "--decay-half-life", "30")

    assert code == 0
    report = json.loads(out)
    decayed = report["decay"]
    assert set(decayed) >= REPORT_KEYS | {"settings", "change"}
    assert decayed["settings"]["half_life_days"] == 30.0
    assert decayed["questions"] == 4 and decayed["recall@10"] == 1.0
    for k in KS:
        assert decayed["change"][f"recall@{k}"] == pytest.approx(decayed[f"recall@{k}"] - report[f"recall@{k}"])
    assert "mnemo hybrid + decay" in locomo.render(report)


@pytest.mark.usefixtures("cached_model")
def test_given_chosen_cut_offs_when_benchmarked_then_recall_is_reported_at_those(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run_cli(capsys, "--data", str(data), "--json", "--k", "2", "--k", "1")

    report = json.loads(out)
    assert code == 0
    assert report["k"] == [1, 2]
    assert {key for key in report if key.startswith("recall@")} == {"recall@1", "recall@2"}


@pytest.mark.usefixtures("cached_model")
def test_given_no_json_flag_when_benchmarked_then_a_table_is_printed(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run_cli(capsys, "--data", str(data))

    assert code == 0
    assert "mnemo hybrid" in out
    assert "mnemo semantic-only" in out
    assert "R@10" in out


@pytest.mark.usefixtures("cached_model")
def test_given_a_peer_when_benchmarked_then_it_gets_the_same_turns_and_questions_and_is_scored_alike(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = tmp_path / "fake_peer.py"
    seen = tmp_path / "job-seen.json"
    runner.write_text(f"SEEN = {str(seen)!r}\n{FAKE_PEER}")

    code, out, _err = run_cli(
        capsys,
        "--data",
        str(data),
        "--json",
        "--peer",
        "mem0",
        "--peer-python",
        sys.executable,
        "--peer-runner",
        str(runner),
    )

    assert code == 0
    report = json.loads(out)  # the peer's own stdout did not leak into the report
    mem0 = report["mem0"]
    assert set(mem0) >= REPORT_KEYS
    assert mem0["questions"] == 4
    assert mem0["skipped"] == 2
    # The fake always answers the first turn: right only for conv-b's question on D1:1.
    assert mem0["recall@1"] == mem0["recall@10"] == 0.25
    assert mem0["per_category"]["4"]["recall@1"] == 1.0
    assert mem0["per_category"]["1"]["recall@10"] == 0.0
    job = json.loads(seen.read_text())
    assert len(job["questions"]) == 4
    assert sum(len(c["memories"]) for c in job["conversations"]) == 8


def test_given_a_peer_when_its_job_is_built_then_it_follows_the_protocol(data: Path) -> None:
    conversations = locomo.load(data)
    asked = locomo.questions(conversations).questions

    job = locomo.peer_job(conversations, asked, 10)

    assert job["kind"] == "retrieval"
    assert job["k"] == 10
    assert job["store_per_user"] is True
    assert [c["user_id"] for c in job["conversations"]] == ["conv-a", "conv-b"]
    first = job["conversations"][0]["memories"][1]
    assert first["key"] == "D1:2"
    assert first["text"] == "Ben: I adopted a beagle puppy called Biscuit on Sunday."
    assert first["metadata"]["dia_id"] == "D1:2"
    assert first["metadata"]["session_date"] == "2023-05-08T13:56:00+00:00"
    assert len(job["conversations"][0]["memories"]) == 6  # every turn, repeats included
    assert job["questions"] == [{"user_id": q.user_id, "query": q.query} for q in asked]


@pytest.mark.usefixtures("cached_model")
def test_given_no_peer_virtualenv_when_benchmarked_with_a_peer_then_the_error_says_how_to_make_one(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys, "--data", str(data), "--json", "--peer", "mem0", "--peer-python", str(tmp_path / "no-python")
    )

    assert code == 1
    assert out == ""
    assert "bench/peer/setup_mem0_venv.sh" in err


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("import sys; print('boom'); sys.exit(3)", "exit code 3"),
        ("import json, sys; json.dump({'rankings': [[]]}, open(sys.argv[2], 'w'))", "rankings for 1 of 4"),
        ("pass", "no usable"),
    ],
)
def test_given_a_failing_peer_when_run_then_the_error_says_what_went_wrong(
    data: Path, tmp_path: Path, script: str, message: str
) -> None:
    runner = tmp_path / "peer.py"
    runner.write_text(script)
    conversations = locomo.load(data)
    asked = locomo.questions(conversations).questions

    with pytest.raises(EvaluationError, match=message):
        locomo.run_peer(locomo.PeerSpec("mem0", Path(sys.executable), runner), conversations, asked, 10)


def test_given_a_missing_data_file_when_benchmarked_then_it_fails_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "--data", str(tmp_path / "none.json"), "--json")

    assert code == 1
    assert out == ""
    assert "Cannot read" in err
