"""Category benchmark: zero-shot categories for memories (`mnemo.services.category_classifier`) against a labelled
set, beside the keyword categorizer (`mnemo.services.categories.categorize`) as a baseline.

The labelled set is bench/data/categories.jsonl: 240 short memories as an extraction step stores them, each with
1 or 2 of the 15 default categories (16 per category as the first label, spread over all 15), a third of them
held out (`"split": "test"`: every third memory of each category). The rule's parameters were chosen on the
`tune` split only; the `test` split is reported as it comes.

Figures, per split: micro precision and recall (over every (memory, category) pair), macro precision and recall
(the mean over the 15 categories; a category never predicted counts as precision 0), per-category precision,
recall and counts, and the share of memories given at least one category (`coverage`). For these systems:

- `embedding`: the default `Rule` on the default categories with their prototypes (what the service uses);
- `embedding_with_misc_fallback`: the same, with `misc` for memories no category reaches the threshold for;
- `embedding_without_prototypes`: names and descriptions only, as a custom category set is phrased;
- `keyword_baseline`: `categorize` (a shared content word with the name or description).

Plus a sweep of the threshold (and margin, up to 2 categories) on both splits, and the time to categorize a batch
of 100 memories (category vectors cached, and cold: the first call, which embeds them).

`PYTHONPATH=. .venv/bin/python -m bench.categories` prints the figures and writes bench/results/categories.json.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.run import record
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.services.categories import categorize
from mnemo.services.category_classifier import EmbeddingCategorizer, Rule, Scores

DATA = Path(__file__).resolve().parent / "data" / "categories.jsonl"
SPLITS = ("tune", "test")
THRESHOLDS = [round(0.1 + 0.025 * i, 3) for i in range(13)]  # 0.1 .. 0.4
MARGINS = (0.0, 0.02, 0.05)
ENGLISH = english()
DEFAULT_CATEGORIES = ENGLISH.default_categories

Labels = Sequence[Sequence[str]]


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _ratio(num: int, den: int) -> float:
    return round(num / den, 3) if den else 0.0


def scores(predicted: Labels, gold: Labels, names: Sequence[str]) -> dict[str, Any]:
    """Micro and macro precision and recall, per-category figures and coverage."""
    per: dict[str, dict[str, Any]] = {}
    for name in names:
        tp = sum(1 for p, g in zip(predicted, gold, strict=True) if name in p and name in g)
        npred = sum(1 for p in predicted if name in p)
        ngold = sum(1 for g in gold if name in g)
        per[name] = {
            "precision": _ratio(tp, npred),
            "recall": _ratio(tp, ngold),
            "predicted": npred,
            "gold": ngold,
            "correct": tp,
        }
    tp = sum(v["correct"] for v in per.values())
    return {
        "micro_precision": _ratio(tp, sum(v["predicted"] for v in per.values())),
        "micro_recall": _ratio(tp, sum(v["gold"] for v in per.values())),
        "macro_precision": round(statistics.fmean(v["precision"] for v in per.values()), 3),
        "macro_recall": round(statistics.fmean(v["recall"] for v in per.values()), 3),
        "coverage": _ratio(sum(1 for p in predicted if p), len(predicted)),
        "labels_predicted": sum(len(p) for p in predicted),
        "labels_gold": sum(len(g) for g in gold),
        "per_category": per,
    }


def _worst(figures: dict[str, Any], key: str, count: int = 3) -> list[tuple[str, float]]:
    ranked = sorted(figures["per_category"].items(), key=lambda item: item[1][key])
    return [(name, v[key]) for name, v in ranked[:count]]


def sweep(categorizer: EmbeddingCategorizer, matrices: dict[str, Scores], gold: dict[str, Labels]) -> list[Any]:
    """Micro precision and recall on both splits for each threshold and margin (at most 2 categories)."""
    names = [name for name, _ in DEFAULT_CATEGORIES]
    rows = []
    for margin in MARGINS:
        for threshold in THRESHOLDS:
            rule = Rule(threshold=threshold, margin=margin, max_categories=2)
            row: dict[str, Any] = {"threshold": threshold, "margin": margin}
            for split in SPLITS:
                got = scores(categorizer.decide(matrices[split], DEFAULT_CATEGORIES, rule), gold[split], names)
                row[split] = [got["micro_precision"], got["micro_recall"]]
            rows.append(row)
    return rows


def timing(embedder: Embedder, texts: list[str], repeats: int = 5) -> dict[str, float]:
    """Milliseconds per memory to categorize a batch of 100: cold (the category vectors embedded on the way) and
    warm (the median of `repeats` calls)."""
    batch = (texts * (100 // len(texts) + 1))[:100]
    categorizer = EmbeddingCategorizer(embedder, words=ENGLISH)
    start = time.perf_counter()
    categorizer.categorize(batch, DEFAULT_CATEGORIES)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        categorizer.categorize(batch, DEFAULT_CATEGORIES)
        warm.append(time.perf_counter() - start)
    return {
        "batch": len(batch),
        "cold_ms_per_memory": round(cold * 1000 / len(batch), 3),
        "warm_ms_per_memory": round(statistics.median(warm) * 1000 / len(batch), 3),
    }


def run(embedder: Embedder | None = None) -> dict[str, Any]:
    embedder = embedder or LocalMiniLMEmbedder()
    rows = load()
    names = [name for name, _ in DEFAULT_CATEGORIES]
    texts = {split: [r["text"] for r in rows if r["split"] == split] for split in SPLITS}
    gold: dict[str, Labels] = {split: [r["categories"] for r in rows if r["split"] == split] for split in SPLITS}
    with_prototypes = EmbeddingCategorizer(embedder, words=ENGLISH)
    without_prototypes = EmbeddingCategorizer(embedder, words=ENGLISH, prototypes=False)
    matrices = {split: with_prototypes.similarities(texts[split], DEFAULT_CATEGORIES) for split in SPLITS}
    plain = {split: without_prototypes.similarities(texts[split], DEFAULT_CATEGORIES) for split in SPLITS}
    rule = with_prototypes.rule
    systems: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        predictions = {
            "embedding": with_prototypes.decide(matrices[split], DEFAULT_CATEGORIES),
            "embedding_with_misc_fallback": with_prototypes.decide(
                matrices[split], DEFAULT_CATEGORIES, Rule(rule.threshold, rule.margin, rule.max_categories, True)
            ),
            "embedding_without_prototypes": without_prototypes.decide(plain[split], DEFAULT_CATEGORIES),
            "keyword_baseline": [categorize(ENGLISH, text, DEFAULT_CATEGORIES) for text in texts[split]],
        }
        for system, predicted in predictions.items():
            systems.setdefault(system, {})[split] = scores(predicted, gold[split], names)
    return {
        "embedder": embedder.name,
        "memories": {split: len(texts[split]) for split in SPLITS},
        "rule": asdict(rule),
        "systems": systems,
        "sweep": sweep(with_prototypes, matrices, gold),
        "timing": timing(embedder, texts["tune"] + texts["test"]),
    }


def summary(figures: dict[str, Any]) -> str:
    lines = [f"rule {figures['rule']}", f"timing {figures['timing']}"]
    for system, splits in figures["systems"].items():
        for split, got in splits.items():
            lines.append(
                f"{system:30} {split:4}  micro P {got['micro_precision']:.3f} R {got['micro_recall']:.3f}  "
                f"macro P {got['macro_precision']:.3f} R {got['macro_recall']:.3f}  coverage {got['coverage']:.2f}  "
                f"worst P {_worst(got, 'precision')}  worst R {_worst(got, 'recall')}"
            )
    lines.append("threshold margin  tune P/R      test P/R")
    for row in figures["sweep"]:
        lines.append(
            f"{row['threshold']:9.3f} {row['margin']:6.2f}  {row['tune'][0]:.3f}/{row['tune'][1]:.3f}  "
            f"{row['test'][0]:.3f}/{row['test'][1]:.3f}"
        )
    return "\n".join(lines)


def main() -> int:
    figures = run()
    print(summary(figures))
    record("categories", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
