"""The learned-fusion reranker (mnemo.adapters.rerankers.learned_fusion): its weights fit its features, its scores,
and a search asking for rerank where there is no reranker."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.rerankers.learned_fusion import FEATURES, WEIGHTS_FILE, LearnedFusionReranker, features
from mnemo.domain import filters as f
from mnemo.errors import ValidationError
from mnemo.language.en import english
from mnemo.ports.reranker import RerankCandidate
from mnemo.services.commands import SearchCommand
from mnemo.services.memory import RERANK_UNAVAILABLE, MemoryService

SESSION = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LATER = SESSION + timedelta(days=30)


def candidate(memory_id: str, text: str, semantic: float, keyword: float = 0.0, at: datetime = SESSION) -> Any:
    return RerankCandidate(memory_id, text, at, semantic, keyword)


def test_the_shipped_weights_are_fitted_on_the_features_it_computes() -> None:
    model = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert tuple(model["features"]) == FEATURES
    for key in ("mean", "scale", "coef"):
        assert len(model[key]) == len(FEATURES)
    assert all(s > 0 for s in model["scale"])


def test_features_read_the_moment_a_memory_was_stated_with() -> None:
    pool = [
        candidate("a", "Caroline: I went to the LGBTQ support group yesterday.", 0.6, 4.0),
        candidate("b", "Melanie: That's great!", 0.2),
        candidate("c", "Caroline: I painted a sunrise.", 0.3, 0.0, LATER),
    ]
    x = features("When did Caroline go to the support group?", pool)
    column = {name: x[:, i] for i, name in enumerate(FEATURES)}
    assert x.shape == (3, len(FEATURES))
    assert column["moment_size_log"].tolist() == pytest.approx([np.log(3), np.log(3), np.log(2)])
    assert column["moment_best_other"][1] == pytest.approx(column["hybrid"][0])  # a's moment-mate is b
    assert column["moment_best_other"][2] == 0.0  # alone at its moment
    assert column["names_speaker"].tolist() == [1.0, 0.0, 1.0]
    assert column["is_short"].tolist() == [0.0, 1.0, 0.0]
    assert column["keyword_relative"].tolist() == [1.0, 0.0, 0.0]


def test_the_answer_scores_above_small_talk_and_every_score_is_a_probability() -> None:
    reranker = LearnedFusionReranker()
    pool = [
        candidate("small", "Melanie: Wow!", 0.35),
        candidate("answer", "Caroline: I went to the LGBTQ support group yesterday, it was so powerful.", 0.55, 6.0),
        candidate("other", "Melanie: The kids loved the beach.", 0.15, 0.0, LATER),
    ]
    scores = reranker.scores("When did Caroline go to the LGBTQ support group?", pool)
    assert len(scores) == 3
    assert all(0.0 < s < 1.0 for s in scores)
    assert scores[1] == max(scores)
    assert reranker.scores("anything", []) == []


def test_a_search_asking_for_rerank_where_there_is_no_reranker_is_refused() -> None:
    service = MemoryService(None, None, None, language=english())  # type: ignore[arg-type]  # refused before any of them is used
    command = SearchCommand(query="where do I live?", filters=f.Condition("user_id", "eq", "alice"), rerank=True)
    with pytest.raises(ValidationError) as refused:
        service.search(command)
    assert refused.value.message == RERANK_UNAVAILABLE
