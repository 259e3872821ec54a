"""The change rule's learned check (mnemo.language.en.same_slot, read by changes.py): whether two statements speak of
one part of a life that holds one state at a time, from the default embedder's vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.language.en import same_slot
from mnemo.language.en.changes import says_it_changed
from mnemo.language.en.words import PackDataError

PAIRS = Path(__file__).resolve().parents[3] / "bench" / "data" / "slot_pairs.jsonl"


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder()


def probability(embedder: LocalMiniLMEmbedder, earlier: str, later: str) -> float | None:
    a, b = embedder.embed([earlier, later])
    return same_slot.probability(a, b, embedder.name)


@pytest.mark.parametrize(
    ("learned", "replaces"),
    [(0.9, True), (same_slot.ALONE, True), (0.7, False), (None, False)],
)
def test_a_later_statement_saying_no_change_replaces_only_when_the_model_is_nearly_sure(
    learned: float | None, replaces: bool
) -> None:
    later, earlier = "My job interview is on Friday.", "My job interview is on Tuesday."
    assert says_it_changed(later, earlier, lambda: 0.9, 0.40, 0.25, lambda: learned) is replaces


def test_a_statement_saying_a_change_of_one_learned_slot_replaces_at_the_same_slot_closeness() -> None:
    # no word list reads a slot in these two; the learned probability does
    later, earlier = "I switched to the night team, I'm a supervisor now", "I am an analyst in the Leeds office"
    assert says_it_changed(later, earlier, lambda: 0.30, 0.40, 0.25, lambda: 0.6)
    assert not says_it_changed(later, earlier, lambda: 0.30, 0.40, 0.25, lambda: 0.3)
    assert not says_it_changed(later, earlier, lambda: 0.30, 0.40, 0.25, lambda: None)


def test_another_subject_is_never_replaced_however_sure_the_model() -> None:
    assert not says_it_changed("My sister lives in Oslo.", "I live in Lisbon.", lambda: 0.9, 0.40, 0.25, lambda: 1.0)


def test_the_model_reads_the_default_embedder_and_no_other(embedder: LocalMiniLMEmbedder) -> None:
    a, b = embedder.embed(["My job interview is on Tuesday.", "My job interview is on Friday."])
    sure = same_slot.probability(a, b, embedder.name)
    assert sure is not None and sure >= same_slot.ALONE
    assert same_slot.probability(b, a, embedder.name) == pytest.approx(sure)  # the order does not matter
    assert same_slot.probability(a, b, "openai/text-embedding-3-small") is None
    assert same_slot.probability(a[:100], b[:100], embedder.name) is None  # vectors of another size
    unrelated = probability(embedder, "I play tennis on Sundays", "I play the piano in the evenings")
    assert unrelated is not None and unrelated < same_slot.ONE_SLOT


def test_the_model_separates_the_labelled_pairs_it_was_trained_on(embedder: LocalMiniLMEmbedder) -> None:
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]
    older = embedder.embed([p["older"] for p in pairs])
    newer = embedder.embed([p["newer"] for p in pairs])
    scores = np.array([same_slot.probability(o, n, embedder.name) for o, n in zip(older, newer, strict=True)])
    same = np.array([p["same_slot"] for p in pairs])
    # every pair of one slot against every pair of two: how often the first scores higher (the AUC)
    auc = (scores[same][:, None] > scores[~same][None, :]).mean()
    assert auc >= 0.85
    nearly_sure = scores >= same_slot.ALONE
    assert same[nearly_sure].mean() >= 0.95 and nearly_sure.sum() >= 0.15 * same.sum()


def test_a_model_file_that_cannot_be_read_is_a_pack_data_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "same_slot.json"
    broken.write_text('{"embedder": "local/all-MiniLM-L6-v2"}')
    monkeypatch.setattr(same_slot, "MODEL", broken)
    same_slot._model.cache_clear()
    try:
        with pytest.raises(PackDataError, match=r"same_slot\.json"):
            same_slot.probability(np.ones(384), np.ones(384), "local/all-MiniLM-L6-v2")
    finally:
        same_slot._model.cache_clear()
