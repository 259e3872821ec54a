"""What an add asks to extract (`includes`) and never to extract (`excludes`), read without an LLM: each is free
text naming topics ("health, my kids"), split into its topics by the language pack (mnemo.language `TopicWords`).
A statement is about a topic when
- the cosine of its embedding and that of the pack's phrase for the topic ("facts about <topic>") reaches
  TOPIC_SIMILARITY, or
- the topic is one of the default categories in other words (its closest category, by the zero-shot categorizer
  of mnemo.services.category_classifier, scores at least CATEGORY_MATCH: "health", "my hobbies", "sports") and the
  statement is filed under that category.

The thresholds are measured by `python -m bench.topics` (bench/data/topic_statements.jsonl,
bench/results/topics.json). It is approximate: with an LLM, the extraction is told both and reads them itself."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from mnemo.language import CategoryWords, TopicWords
from mnemo.ports.embedder import Embedder
from mnemo.services.category_classifier import EmbeddingCategorizer

TOPIC_SIMILARITY = 0.175
CATEGORY_MATCH = 0.7
MAX_TOPICS = 20

Vectors = npt.NDArray[np.float32]


class TopicLanguage(CategoryWords, TopicWords, Protocol):
    """What reading topics needs of a language pack: its words of topics and its default categories."""


def topics_of(words: TopicWords, text: str | None) -> list[str]:
    """The topics a free text names ("health, money and my kids" -> health, money, my kids), at most MAX_TOPICS."""
    if not text:
        return []
    return words.topics(text)[:MAX_TOPICS]


class TopicMatcher:
    """Which statements are about which topics, with one embedder (the statements' vectors come from it)."""

    def __init__(self, embedder: Embedder, words: TopicLanguage) -> None:
        self.embedder = embedder
        self._words = words
        self._categorizer = EmbeddingCategorizer(embedder, words=words)

    def about(self, statements: Vectors, topics: list[str]) -> npt.NDArray[np.bool_]:
        """For each statement (a row of unit vectors), whether it is about one of the topics."""
        if not topics or not len(statements):
            return np.zeros(len(statements), dtype=bool)
        phrased = self.embedder.embed([self._words.about_topic(topic) for topic in topics])
        closest: Vectors = (statements @ phrased.T).max(axis=1)
        found = closest >= TOPIC_SIMILARITY
        defaults = self._words.default_categories
        names = [name for name, _ in defaults]
        per_topic = self._categorizer.similarities(topics, defaults)
        matched = {names[int(np.argmax(row))] for row in per_topic if float(row.max()) >= CATEGORY_MATCH}
        if matched:
            filed = self._categorizer.categorize_vectors(statements, defaults)
            found |= np.array([bool(chosen) and chosen[0] in matched for chosen in filed])
        return np.asarray(found, dtype=bool)
