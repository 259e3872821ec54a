"""The learned check of the change rule: whether two statements speak of the same part of a life that holds one
state at a time (a home, a job, a partner, a car…), read from their embeddings rather than from words, so that it
reaches changes said in words no rule lists ("I'm a social worker" / "I'm a team manager now").

A logistic regression on the default embedder's (all-MiniLM-L6-v2) vectors of the two statements: the features are
their elementwise product, their absolute difference and their cosine, standardised, with an L2 penalty. It is trained
on bench/data/slot_pairs.jsonl (an older and a newer statement, `same_slot`), pairs written apart by a writer who read
no evaluation data, half of them traps (the same words about another thing: "I live in Toronto" / "if I lived in
Vancouver I'd hike"). Five-fold cross-validation reports the AUC and the precision and recall at the two thresholds
the language pack reads (mnemo.language.en.same_slot), beside the word-list slots of mnemo.language.en.life_slots on
the same pairs. The standardisation is folded into the coefficients written to the pack's
data/same_slot.json.

`python -m bench.same_slot` prints the figures, writes the model and records them (bench/results/same_slot.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder
from mnemo.language.en import same_slot
from mnemo.language.en.life_slots import share_a_slot

DATA = Path(__file__).resolve().parent / "data" / "slot_pairs.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "same_slot.json"
PENALTY = 100.0  # the L2 penalty on the standardised features, chosen by cross-validated AUC (10 to 1,000 tried)
FOLDS = 5


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def fit(x: np.ndarray, y: np.ndarray, penalty: float = PENALTY) -> tuple[np.ndarray, float]:
    """The coefficients and intercept of a logistic regression on raw features (standardised inside, folded back)."""
    mean, spread = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mean) / spread, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    ridge = penalty * np.diag(np.r_[np.ones(z.shape[1] - 1), 0.0])
    for _ in range(30):  # Newton's method: the loss is convex and smooth
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (p - y) + ridge @ w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + ridge
        w -= np.linalg.solve(hessian, gradient)
    coefficients = w[:-1] / spread
    return coefficients, float(w[-1] - mean @ coefficients)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores)] = np.arange(1, len(scores) + 1)
    positives = y.sum()
    negatives = len(y) - positives
    return float((ranks[y == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def precision_recall(said: np.ndarray, y: np.ndarray) -> dict[str, float]:
    tp, fp = int((said & (y == 1)).sum()), int((said & (y == 0)).sum())
    return {"precision": round(tp / (tp + fp), 3) if tp + fp else 1.0, "recall": round(tp / int(y.sum()), 3)}


def run() -> dict[str, Any]:
    pairs = load()
    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig())
    older = embedder.embed([p["older"] for p in pairs])
    newer = embedder.embed([p["newer"] for p in pairs])
    x = np.stack([same_slot.features(o, n) for o, n in zip(older, newer, strict=True)])
    y = np.array([1.0 if p["same_slot"] else 0.0 for p in pairs])
    order = np.random.default_rng(0).permutation(len(y))
    scores = np.zeros(len(y))
    for held in np.array_split(order, FOLDS):
        trained = np.setdiff1d(order, held)
        coefficients, intercept = fit(x[trained], y[trained])
        scores[held] = 1 / (1 + np.exp(-(x[held] @ coefficients + intercept)))
    words = np.array([share_a_slot(p["older"], p["newer"]) for p in pairs])
    coefficients, intercept = fit(x, y)
    return {
        "pairs": len(pairs),
        "same_slot": int(y.sum()),
        "embedder": embedder.name,
        "penalty": PENALTY,
        "cross_validated": {
            "folds": FOLDS,
            "auc": round(auc(scores, y), 3),
            "one_slot": {"threshold": same_slot.ONE_SLOT, **precision_recall(scores >= same_slot.ONE_SLOT, y)},
            "alone": {"threshold": same_slot.ALONE, **precision_recall(scores >= same_slot.ALONE, y)},
        },
        "word_slots": precision_recall(words, y),
        "model": {
            "embedder": embedder.name,
            "coefficients": [round(float(c), 6) for c in coefficients],
            "intercept": round(intercept, 6),
        },
    }


def main() -> int:
    result = run()
    model = result.pop("model")
    same_slot.MODEL.write_text(json.dumps(model) + "\n")
    cv, words = result["cross_validated"], result["word_slots"]
    print(f"same slot on {result['pairs']} pairs ({result['same_slot']} of one slot), {cv['folds']}-fold:")
    print(f"  AUC {cv['auc']}")
    for name in ("one_slot", "alone"):
        row = cv[name]
        print(f"  p >= {row['threshold']}: precision {row['precision']}, recall {row['recall']}")
    print(f"  the word-list slots: precision {words['precision']}, recall {words['recall']}")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {same_slot.MODEL} and {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
