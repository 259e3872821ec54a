"""Topic threshold benchmark: when is a statement about a topic an add's `includes` or `excludes` names, by
embedding similarity (mnemo.services.extraction.topics), on the labelled statements of
bench/data/topic_statements.jsonl (62 statements written for this, each labelled with the topics among 12 it is
about; every statement against every topic: 744 pairs).

Reported: precision, recall and F1 of "about the topic" over a threshold sweep of the cosine alone, for the bare
topic and for the phrasing "facts about <topic>"; then mnemo's rule (TopicMatcher: that cosine at
TOPIC_SIMILARITY, or the statement filed under the default category the topic names), overall and per topic, with
its misses and false matches.

`python -m bench.topics` prints the figures and records them (bench/results/topics.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.language.en import english
from mnemo.language.en.topic_words import rules
from mnemo.services.extraction.topics import TOPIC_SIMILARITY, TopicMatcher

TEMPLATE = rules().about  # the English pack's phrase for a topic

DATA = Path(__file__).resolve().parent / "data" / "topic_statements.jsonl"
SWEEP = [round(0.10 + 0.025 * i, 3) for i in range(13)]  # 0.10 .. 0.40
PHRASINGS = {"bare topic": "{}", "facts about <topic>": TEMPLATE}


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def scores(predicted: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    tp = int((predicted & labels).sum())
    fp = int((predicted & ~labels).sum())
    fn = int((~predicted & labels).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def run() -> dict[str, Any]:
    rows = load()
    topics = sorted({t for r in rows for t in r["topics"]})
    embedder = LocalMiniLMEmbedder()
    statements = embedder.embed([r["text"] for r in rows])
    labels = np.array([[t in r["topics"] for t in topics] for r in rows])
    figures: dict[str, Any] = {
        "statements": len(rows),
        "topics": topics,
        "pairs": int(labels.size),
        "positives": int(labels.sum()),
        "threshold": TOPIC_SIMILARITY,
        "sweep": {},
    }
    chosen: np.ndarray | None = None
    for name, template in PHRASINGS.items():
        similarity = statements @ embedder.embed([template.format(t) for t in topics]).T
        figures["sweep"][name] = {str(t): scores(similarity >= t, labels) for t in SWEEP}
        if template == TEMPLATE:
            chosen = similarity
    assert chosen is not None
    figures["cosine_alone_at_threshold"] = scores(chosen >= TOPIC_SIMILARITY, labels)
    matcher = TopicMatcher(embedder, english())
    predicted = np.stack([matcher.about(statements, [topic]) for topic in topics], axis=1)
    figures["at_threshold"] = scores(predicted, labels)
    figures["per_topic"] = {t: scores(predicted[:, i], labels[:, i]) for i, t in enumerate(topics)}
    figures["misses"] = [
        {"text": rows[s]["text"], "topic": topics[t], "cosine": round(float(chosen[s, t]), 3)}
        for s, t in zip(*np.nonzero(labels & ~predicted), strict=True)
    ][:20]
    figures["false_matches"] = sorted(
        (
            {"text": rows[s]["text"], "topic": topics[t], "cosine": round(float(chosen[s, t]), 3)}
            for s, t in zip(*np.nonzero(predicted & ~labels), strict=True)
        ),
        key=lambda row: -float(row["cosine"]),
    )[:20]
    return figures


def main(argv: list[str]) -> int:
    from bench.run import record

    figures = run()
    for name, sweep in figures["sweep"].items():
        print(name)
        for threshold, row in sweep.items():
            print(f"  {threshold:>6} {row}")
    print(f"cosine alone at {figures['threshold']}: {figures['cosine_alone_at_threshold']}")
    print(f"mnemo's rule: {figures['at_threshold']}")
    for topic, row in figures["per_topic"].items():
        print(f"  {topic:20} {row}")
    record("topics", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
