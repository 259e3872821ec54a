"""Whether two statements speak of the same part of a life that holds one state at a time, learned from embeddings:
the change rule's check for what the word lists of life_slots.py cannot list ("I'm a social worker" / "I'm a team
manager now"; "I drive a Suzuki Swift" / "bought a Maruti Baleno last month").

A logistic regression on the two statements' vectors by one embedder (its name is in the model): their elementwise
product, their absolute difference and their cosine. The model is data (data/same_slot.json), trained on English
pairs written for it by `python -m bench.same_slot`, which reports its cross-validated precision at the two
thresholds below. Vectors of another embedder mean nothing to it: it then answers None and the rules decide alone.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

from mnemo.language.en.words import PackDataError

MODEL = Path(__file__).resolve().parent / "data" / "same_slot.json"
ONE_SLOT = 0.5  # read as one slot: a statement saying a change replaces at the same-slot closeness
ALONE = 0.85  # so likely one slot that a later statement replaces an earlier one without saying it changed


def features(earlier: np.ndarray, later: np.ndarray) -> np.ndarray:
    """What the model reads of two unit vectors: their elementwise product, absolute difference and cosine."""
    product = earlier * later
    return np.concatenate([product, np.abs(earlier - later), [product.sum()]])


@cache
def _model() -> tuple[str, np.ndarray, float]:
    try:
        doc = json.loads(MODEL.read_text())
        embedder, intercept = str(doc["embedder"]), float(doc["intercept"])
        coefficients = np.asarray(doc["coefficients"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PackDataError(f"mnemo.language.en data/same_slot.json: {exc}") from exc
    return embedder, coefficients, intercept


def probability(earlier: np.ndarray, later: np.ndarray, embedder: str) -> float | None:
    """The probability that the two statements (their vectors by `embedder`) speak of one slot; None when the model
    was not trained on that embedder's vectors."""
    trained_on, coefficients, intercept = _model()
    if embedder != trained_on:
        return None
    x = features(np.asarray(earlier, dtype=np.float64), np.asarray(later, dtype=np.float64))
    if x.shape != coefficients.shape:
        return None
    return float(1 / (1 + np.exp(-(x @ coefficients + intercept))))
