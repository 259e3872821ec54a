"""What an add asks to extract (`includes`) and never to extract (`excludes`), read without an LLM: each is free
text naming topics ("health, my kids"), split into its topics. A statement is about a topic when
- the cosine of its embedding and that of "facts about <topic>" reaches TOPIC_SIMILARITY, or
- the topic is one of the 15 default categories in other words (its closest category, by the zero-shot categorizer
  of mnemo.services.category_classifier, scores at least CATEGORY_MATCH: "health", "my hobbies", "sports") and the
  statement is filed under that category.

Measured with all-MiniLM-L6-v2 on bench/data/topic_statements.jsonl (62 statements labelled with 12 topics, 744
pairs; `python -m bench.topics`, bench/results/topics.json; the thresholds were chosen on the same set, which has no
held-out part): precision 0.69, recall 0.81 (F1 0.75) — against 0.66 / 0.68 for the cosine alone and 0.65 at best
for the bare topic. For "health", 0.56 / 0.71. It is approximate: with an LLM, the extraction is told both and reads
them itself."""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from mnemo.ports.embedder import Embedder
from mnemo.services.category_classifier import DEFAULT_CATEGORIES, EmbeddingCategorizer

TOPIC_SIMILARITY = 0.175
CATEGORY_MATCH = 0.7
TEMPLATE = "facts about {}"
MAX_TOPICS = 20
_SPLIT = re.compile(r"[,;\n]+|\s+(?:and|or)\s+", re.IGNORECASE)

Vectors = npt.NDArray[np.float32]


def topics_of(text: str | None) -> list[str]:
    """The topics a free text names ("health, money and my kids" -> health, money, my kids), at most MAX_TOPICS."""
    if not text:
        return []
    found = [t.strip(" .!") for t in _SPLIT.split(text)]
    return list(dict.fromkeys(t for t in found if t))[:MAX_TOPICS]


class TopicMatcher:
    """Which statements are about which topics, with one embedder (the statements' vectors come from it)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._categorizer = EmbeddingCategorizer(embedder)

    def about(self, statements: Vectors, topics: list[str]) -> npt.NDArray[np.bool_]:
        """For each statement (a row of unit vectors), whether it is about one of the topics."""
        if not topics or not len(statements):
            return np.zeros(len(statements), dtype=bool)
        phrased = self.embedder.embed([TEMPLATE.format(topic) for topic in topics])
        closest: Vectors = (statements @ phrased.T).max(axis=1)
        found = closest >= TOPIC_SIMILARITY
        names = [name for name, _ in DEFAULT_CATEGORIES]
        per_topic = self._categorizer.similarities(topics, DEFAULT_CATEGORIES)
        matched = {names[int(np.argmax(row))] for row in per_topic if float(row.max()) >= CATEGORY_MATCH}
        if matched:
            filed = self._categorizer.categorize_vectors(statements, DEFAULT_CATEGORIES)
            found |= np.array([bool(chosen) and chosen[0] in matched for chosen in filed])
        return np.asarray(found, dtype=bool)
