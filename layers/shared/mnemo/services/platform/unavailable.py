"""A feature a backend does not offer (AWS without a profile queue has no profiles; without an events topic, no
webhooks): a value in the feature's place, saying why, which the routes answer with a 503."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Unavailable:
    reason: str  # what the 503 says
