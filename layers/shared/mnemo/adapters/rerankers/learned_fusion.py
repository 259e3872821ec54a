"""The learned-fusion reranker: a logistic model over the signals a search already has, fitted on LoCoMo.

No cross-encoder or late-interaction model ships its weights inside a package of the registries this project installs
from (PyPI, npm, Debian), and mnemo's runtime loads no weights from a hub; so `rerank=true` re-scores the candidates
with a model of the signals the index gives each one, and of how they sit among the other candidates:

- the semantic score, its rank and its z-score among the candidates; the keyword (BM25) score relative to the best,
  its square, its rank, whether any keyword matched; the hybrid score and its rank;
- the memories stated at the same moment (same `created_at`: one conversation's session, one add): the best hybrid
  score among the others, the mean of their best three, how many there are, and how far its semantic score is below
  their best — a memory said in the part of a conversation the question is about is likelier to answer it;
- the memory's length in words, whether it is short (four words or fewer) or a question, and whether the query names
  the speaker a memory is attributed to ("Caroline: …").

The weights (`learned_fusion.json`) are fitted by `bench/rerank_fit.py` (logistic regression, classes balanced),
its figures with each conversation held out in bench/results/rerank_fit.json. Plain NumPy: it runs wherever mnemo
does, the Lambda layer included."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.ports.reranker import RerankCandidate

WEIGHTS_FILE = Path(__file__).with_name("learned_fusion.json")
FEATURES = (
    "semantic",
    "keyword_relative_squared",
    "keyword_relative",
    "semantic_reciprocal_rank",
    "keyword_reciprocal_rank",
    "moment_best_other",
    "moment_mean_top3",
    "moment_size_log",
    "words_log",
    "is_question",
    "names_speaker",
    "hybrid",
    "semantic_z",
    "semantic_if_names_speaker",
    "hybrid_reciprocal_rank",
    "semantic_below_moment_best",
    "is_short",
    "hybrid_rank_log",
    "keyword_matched",
    "moment_best_other_semantic",
    "moment_keyword_matches_log",
)
_SPEAKER = re.compile(r"^\s*([^:\n]{1,40}):\s")


def _ranks(values: np.ndarray) -> np.ndarray:
    """0 for the largest value, 1 for the next…; ties keep the candidates' order."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.arange(len(values))
    return ranks


def features(query: str, candidates: Sequence[RerankCandidate]) -> np.ndarray:
    """The [candidates, len(FEATURES)] matrix the model scores."""
    n = len(candidates)
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    semantic = np.clip(np.array([c.semantic for c in candidates], dtype=np.float64), 0.0, 1.0)
    keyword = np.array([max(c.keyword, 0.0) for c in candidates], dtype=np.float64)
    best = keyword.max()
    relative = keyword / best if best > 0 else np.zeros(n)
    hybrid = (0.5 * semantic + 0.5 * relative**2) / (1.0 if best > 0 else 0.5)
    best_other = np.zeros(n)
    mean_top3 = np.zeros(n)
    size = np.zeros(n)
    below = np.zeros(n)
    other_semantic = np.zeros(n)
    keyword_matches = np.zeros(n)
    moments: dict[float, list[int]] = {}
    for i, c in enumerate(candidates):
        moments.setdefault(c.created_at.timestamp(), []).append(i)
    for members in moments.values():
        idx = np.array(members)
        scores = hybrid[idx]
        top = np.sort(scores)[::-1]
        size[idx] = len(idx)
        mean_top3[idx] = top[:3].mean()
        below[idx] = semantic[idx] - semantic[idx].max()
        keyword_matches[idx] = np.log1p(float((keyword[idx] > 0).sum()))
        if len(idx) > 1:
            first = int(np.argmax(scores))
            best_other[idx] = top[0]
            best_other[idx[first]] = top[1]
            sem_top = np.sort(semantic[idx])[::-1]
            other_semantic[idx] = sem_top[0]
            other_semantic[idx[int(np.argmax(semantic[idx]))]] = sem_top[1]
    words = np.array([len(c.text.split()) for c in candidates], dtype=np.float64)
    asked = query.lower()
    names = np.array(
        [1.0 if (m := _SPEAKER.match(c.text)) and m.group(1).strip().lower() in asked else 0.0 for c in candidates]
    )
    question = np.array([1.0 if c.text.strip().endswith("?") else 0.0 for c in candidates])
    hybrid_rank = _ranks(hybrid)
    z = (semantic - semantic.mean()) / (semantic.std() + 1e-6)
    columns = [
        semantic,
        relative**2,
        relative,
        1.0 / (1.0 + _ranks(semantic)),
        1.0 / (1.0 + _ranks(keyword)),
        best_other,
        mean_top3,
        np.log1p(size),
        np.log1p(words),
        question,
        names,
        hybrid,
        z,
        semantic * names,
        1.0 / (1.0 + hybrid_rank),
        below,
        (words <= 4).astype(np.float64),
        np.log1p(hybrid_rank),
        (keyword > 0).astype(np.float64),
        other_semantic,
        keyword_matches,
    ]
    return np.stack(columns, axis=1)


@cache
def _load(path: Path) -> dict[str, Any]:
    model: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if tuple(model["features"]) != FEATURES:
        raise ValueError(f"{path}: fitted on other features than this reranker computes")
    return model


class LearnedFusionReranker:
    """`scores` is the model's probability that a candidate answers the query."""

    def __init__(self, weights: Path = WEIGHTS_FILE) -> None:
        model = _load(weights)
        self._mean = np.array(model["mean"], dtype=np.float64)
        self._scale = np.array(model["scale"], dtype=np.float64)
        self._coef = np.array(model["coef"], dtype=np.float64)
        self._intercept = float(model["intercept"])

    @property
    def name(self) -> str:
        return "learned-fusion"

    def scores(self, query: str, candidates: Sequence[RerankCandidate]) -> list[float]:
        if not candidates:
            return []
        logits = ((features(query, candidates) - self._mean) / self._scale) @ self._coef + self._intercept
        return [float(v) for v in 1.0 / (1.0 + np.exp(-logits))]
