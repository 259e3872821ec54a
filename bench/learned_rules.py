"""Train the English pack's learned models and record how they do on conversations they were not trained on.

`durable_fact`: whether a statement the deterministic extractor keeps is a fact worth remembering about the user or
their life, rather than chat. A logistic regression (L2, classes balanced, Newton's method) on the default
embedder's vectors (all-MiniLM-L6-v2, ONNX int8, as the service runs it), trained on:
- bench/data/fact_sentences.jsonl, when present (sentences as users type them, labelled durable or not);
- the user sentences of the memory-quality splits the rules were fitted on (eval, tune, dev), labelled durable when a
  gold fact or acceptable extra of their conversation matches them, and each such fact's wording and examples.
Never on the holdout, blind or blind2 splits: the extractor's statements on holdout and blind are the held-out check
(AUC, the chat it removes and the facts it loses at the chosen threshold).

The threshold keeps nearly every fact: the highest at which five-fold cross-validation on the training sentences
still passes `RECALL` of the durable ones. It is a gate for what the rules keep, not a replacement of them.

`python -m bench.learned_rules` writes layers/shared/mnemo/language/en/data/durable_fact.json and
bench/results/learned_rules.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.memory_quality.data import Conversation, Split, load
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.language import Turn
from mnemo.language.en import english
from mnemo.language.linear_model import LinearModel, linear_model_file

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = ROOT / "bench" / "data" / "fact_sentences.jsonl"
MODEL_FILE = ROOT / "layers" / "shared" / "mnemo" / "language" / "en" / "data" / "durable_fact.json"
RESULTS = ROOT / "bench" / "results" / "learned_rules.json"
TRAIN_SPLITS: tuple[Split, ...] = ("eval", "tune", "dev")
CHECK_SPLITS: tuple[Split, ...] = ("holdout", "blind")
RECALL = 0.99  # of durable sentences, in cross-validation, at the chosen threshold
L2 = 1.0
FOLDS = 5

Labelled = list[tuple[str, bool]]


def conversation_sentences(conversation: Conversation) -> Labelled:
    facts = conversation.gold + conversation.acceptable
    out: Labelled = []
    for message in conversation.messages:
        if message.role != "user":
            continue
        for sentence in english().sentences(message.content):
            out.append((sentence.text, any(f.rule.matches(sentence.text) for f in facts)))
    for fact in facts:
        out += [(text, True) for text in (fact.text, *fact.examples)]
    return out


def training_set() -> tuple[Labelled, dict[str, int]]:
    rows: Labelled = []
    sources: dict[str, int] = {}
    if SENTENCES.is_file():
        written = [json.loads(line) for line in SENTENCES.read_text().splitlines() if line.strip()]
        rows += [(str(r["text"]), bool(r["durable"])) for r in written]
        sources["fact_sentences.jsonl"] = len(written)
    for split in TRAIN_SPLITS:
        found = [row for c in load(split).conversations for row in conversation_sentences(c)]
        rows += found
        sources[f"memory_quality {split}"] = len(found)
    return rows, sources


def check_set() -> Labelled:
    """The extractor's statements on the held-out splits, labelled by the facts of their conversations."""
    rows: Labelled = []
    for split in CHECK_SPLITS:
        for c in load(split).conversations:
            turns = [Turn(i, m.role, m.content) for i, m in enumerate(c.messages)]
            facts = c.gold + c.acceptable
            rows += [(s.text, any(f.rule.matches(s.text) for f in facts)) for s in english().statements(turns, c.time)]
    return rows


def fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], l2: float = L2) -> tuple[np.ndarray, float]:
    """Logistic regression, classes weighted to count alike, by Newton's method (25 steps)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    share = y.mean()
    weight = np.where(y == 1, 0.5 / share, 0.5 / (1 - share))
    penalty = l2 * np.eye(xb.shape[1])
    penalty[-1, -1] = 0.0
    w = np.zeros(xb.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-xb @ w))
        gradient = xb.T @ (weight * (p - y)) + penalty @ w
        hessian = (xb * (weight * p * (1 - p))[:, None]).T @ xb + penalty
        w -= np.linalg.solve(hessian, gradient)
    return w[:-1], float(w[-1])


def probabilities(w: np.ndarray, b: float, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = 1 / (1 + np.exp(-(x @ w + b)))
    return out


def auc(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    positives, negatives = p[y == 1], p[y == 0]
    if not len(positives) or not len(negatives):
        return float("nan")
    return float((positives[:, None] > negatives[None, :]).mean() + 0.5 * (positives[:, None] == negatives).mean())


def cross_validated(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each row's probability from a model trained on the other folds."""
    order = np.random.default_rng(20261129).permutation(len(y))
    out = np.zeros(len(y))
    for fold in range(FOLDS):
        held = order[fold::FOLDS]
        trained = np.setdiff1d(order, held)
        w, b = fit(x[trained], y[trained])
        out[held] = probabilities(w, b, x[held])
    return out


def threshold_for(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    """The highest threshold that still passes RECALL of the durable rows."""
    durable = np.sort(p[y == 1])
    return float(durable[int(np.floor((1 - RECALL) * len(durable)))])


def gate_figures(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64], threshold: float) -> dict[str, Any]:
    kept = p >= threshold
    return {
        "statements": len(y),
        "chat": int((y == 0).sum()),
        "auc": round(auc(p, y), 3),
        "chat_removed": int((~kept & (y == 0)).sum()),
        "facts_lost": int((~kept & (y == 1)).sum()),
        "chat_share_before": round(float(1 - y.mean()), 3),
        "chat_share_after": round(float(1 - y[kept].mean()), 3) if kept.any() else None,
    }


def run() -> tuple[LinearModel, dict[str, Any]]:
    embedder = LocalMiniLMEmbedder()
    rows, sources = training_set()
    x = embedder.embed([t for t, _ in rows]).astype(np.float64)
    y = np.array([1.0 if label else 0.0 for _, label in rows])
    cv = cross_validated(x, y)
    threshold = threshold_for(cv, y)
    w, b = fit(x, y)
    checked = check_set()
    xc = embedder.embed([t for t, _ in checked]).astype(np.float64)
    yc = np.array([1.0 if label else 0.0 for _, label in checked])
    figures = {
        "model": "durable_fact",
        "embedder": embedder.name,
        "training": {"rows": len(y), "durable": int(y.sum()), "sources": sources, "l2": L2},
        "cross_validation": {"folds": FOLDS, "auc": round(auc(cv, y), 3), "recall_target": RECALL},
        "threshold": round(threshold, 4),
        "held_out_statements": gate_figures(probabilities(w, b, xc), yc, threshold),
    }
    return LinearModel("durable_fact", embedder.name, w, b, threshold), figures


def main() -> int:
    model, figures = run()
    MODEL_FILE.write_text(linear_model_file(model, **{k: figures[k] for k in ("training", "cross_validation")}))
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    print(f"wrote {MODEL_FILE.relative_to(ROOT)} and {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
