"""A linear classifier over sentence embeddings: what a language pack learned from labelled sentences, shipped as
a small JSON file beside its rules (weights, bias, the threshold chosen when it was trained, and the embedder whose
vectors it reads).

Language-neutral: a pack reads its own file and the core asks it for a probability. A model reads only the vectors
of the embedder it was trained on (`embedder`, `dimension`); with any other embedder configured, `reads` is False
and the caller keeps to its rules."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class LinearModelError(ValueError):
    """A model file that is not one (its name in the message)."""


@dataclass(frozen=True, slots=True)
class LinearModel:
    name: str
    embedder: str
    weights: npt.NDArray[np.float64]
    bias: float
    threshold: float

    @property
    def dimension(self) -> int:
        return int(self.weights.shape[0])

    def reads(self, embedder: str, dimension: int) -> bool:
        """Whether vectors of this embedder are what the model was trained on."""
        return embedder == self.embedder and dimension == self.dimension

    def probabilities(self, vectors: Vectors) -> npt.NDArray[np.float64]:
        """Per row, the probability of the class the model was trained to find."""
        scores = np.asarray(vectors, dtype=np.float64) @ self.weights + self.bias
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-scores))
        return out

    def passes(self, vectors: Vectors) -> npt.NDArray[np.bool_]:
        """Per row, whether its probability reaches the model's threshold."""
        out: npt.NDArray[np.bool_] = self.probabilities(vectors) >= self.threshold
        return out


def read_linear_model(name: str, text: str) -> LinearModel:
    try:
        raw: Any = json.loads(text)
        weights = np.asarray(raw["weights"], dtype=np.float64)
        model = LinearModel(name, str(raw["embedder"]), weights, float(raw["bias"]), float(raw["threshold"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise LinearModelError(f"{name}: not a linear model file ({exc})") from exc
    if weights.ndim != 1 or not weights.size or not np.all(np.isfinite(weights)):
        raise LinearModelError(f"{name}: its weights must be a non-empty list of finite numbers")
    if not 0.0 <= model.threshold <= 1.0:
        raise LinearModelError(f"{name}: its threshold must be between 0 and 1")
    return model


def linear_model_file(model: LinearModel, **about: Any) -> str:
    """The JSON file of a model; `about`: what it was trained on and how well it did, kept with it."""
    body = {
        "embedder": model.embedder,
        "threshold": round(model.threshold, 4),
        "bias": float(model.bias),
        "about": about,
        "weights": [round(float(w), 6) for w in model.weights],
    }
    return json.dumps(body, indent=1) + "\n"
