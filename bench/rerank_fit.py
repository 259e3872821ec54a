"""Fit the learned-fusion reranker (mnemo.adapters.rerankers.learned_fusion) on LoCoMo.

    PYTHONPATH=. .venv/bin/python -m bench.rerank_fit [--data ../shared/data/locomo-dev.json] [--no-write]

Every turn is stored as `mnemo bench locomo` stores it; every question is asked as a reranked search (the real path:
the candidates the reranker would see, each question at the end of its conversation), and the candidates' features
are recorded with whether each is an evidence turn. A logistic regression (classes balanced, L2 1e-3, full-batch
gradient descent on standardised features) is fitted on them.

The only LoCoMo split this project has is dev (five conversations), which is also the split the issue's targets are
measured on. So the figures that say how the model does on conversations it was not fitted on are those with each
conversation held out in turn (fitted on the other four): `held_out` in bench/results/rerank_fit.json. The weights
written are then fitted on all five; `in_sample` is their figure on the same questions."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.rerankers.learned_fusion import FEATURES, WEIGHTS_FILE, features
from mnemo.composition.container import build_container
from mnemo.domain import filters as f
from mnemo.language.en import english
from mnemo.ports.reranker import RerankCandidate
from mnemo.services.commands import SearchCommand
from mnemo.services.memory import MemoryService
from mnemo.settings import Settings
from mnemo_bench import locomo

L2 = 1e-3
STEPS = 1500
RATE = 0.5
KS = (1, 5, 10)


class _Recorder:
    """A reranker that keeps what it is shown (and leaves the order as it is)."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, list[RerankCandidate]]] = []

    @property
    def name(self) -> str:
        return "recorder"

    def scores(self, query: str, candidates: Sequence[RerankCandidate]) -> list[float]:
        self.shown.append((query, list(candidates)))
        return [0.0] * len(candidates)


def collect(data: Path) -> list[dict[str, Any]]:
    conversations = locomo.load(data)
    asked = locomo.questions(conversations).questions
    ended = {c.sample_id: c.ended() for c in conversations}
    recorder = _Recorder()
    with tempfile.TemporaryDirectory(prefix="mnemo-rerank-fit-") as data_dir:
        memo = locomo._MemoCatalog(locomo.default_catalog())
        container = build_container(Settings().model_copy(update={"data_dir": Path(data_dir)}), memo)
        try:
            base = container.memory_service
            embedder = base.providers.get().embedder
            aliases = locomo.store_turns(base, embedder, conversations, locomo.progress_to_stderr)
            embedder.embed([q.query for q in asked])
            service = MemoryService(
                base.store, base.index, base.providers, base.weights, reranker=recorder, language=english()
            )
            rows = []
            for question in asked:
                service.search(
                    SearchCommand(
                        query=question.query,
                        filters=f.Condition("user_id", "eq", question.user_id),
                        top_k=10,
                        threshold=0.0,
                        rerank=True,
                        reference_date=ended.get(question.user_id) or datetime.now(UTC),
                    )
                )
                query, candidates = recorder.shown.pop()
                labels = [1.0 if question.evidence & set(aliases.get(c.memory_id, ())) else 0.0 for c in candidates]
                rows.append(
                    {
                        "user": question.user_id,
                        "category": question.category,
                        "x": features(query, candidates),
                        "y": np.array(labels),
                    }
                )
            return rows
        finally:
            container.close()


def fit(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    x = np.concatenate([r["x"] for r in rows])
    y = np.concatenate([r["y"] for r in rows])
    mean, scale = x.mean(0), x.std(0) + 1e-6
    xs = (x - mean) / scale
    positive = y.mean()
    weight = np.where(y > 0, 0.5 / positive, 0.5 / (1 - positive))
    coef = np.zeros(x.shape[1])
    intercept = 0.0
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(xs @ coef + intercept)))
        g = (p - y) * weight
        coef -= RATE * (xs.T @ g / len(y) + L2 * coef)
        intercept -= RATE * float(g.mean())
    return {"mean": mean, "scale": scale, "coef": coef, "intercept": intercept}


def recall(rows: Sequence[dict[str, Any]], model: dict[str, Any]) -> dict[str, Any]:
    firsts = []
    for row in rows:
        s = ((row["x"] - model["mean"]) / model["scale"]) @ model["coef"]
        order = np.argsort(-s, kind="stable")
        firsts.append(next((p for p, j in enumerate(order) if row["y"][j] > 0), None))
    out: dict[str, Any] = {f"recall@{k}": _share(firsts, k) for k in KS}
    cats = sorted({r["category"] for r in rows})
    out["per_category"] = {
        c: {f"recall@{k}": _share([h for h, r in zip(firsts, rows, strict=True) if r["category"] == c], k) for k in KS}
        for c in cats
    }
    out["questions"] = len(rows)
    return out


def _share(firsts: Sequence[int | None], k: int) -> float:
    return round(sum(1 for h in firsts if h is not None and h < k) / len(firsts), 4) if firsts else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--no-write", action="store_true", help="Report only; leave the weights file as it is.")
    parser.add_argument("--out", type=Path, default=Path("bench/results/rerank_fit.json"))
    args = parser.parse_args(argv)
    rows = collect(args.data)
    users = sorted({r["user"] for r in rows})
    held_out_rows: list[dict[str, Any]] = []
    held_out_models = []
    for user in users:
        model = fit([r for r in rows if r["user"] != user])
        held_out_models.append(model)
        held_out_rows += [{**r, "_model": model} for r in rows if r["user"] == user]
    firsts = {
        user: recall([r for r in rows if r["user"] == user], m) for user, m in zip(users, held_out_models, strict=True)
    }
    pooled = _pooled(held_out_rows)
    final = fit(rows)
    report = {
        "data": args.data.name,
        "candidates_per_question": round(float(np.mean([len(r["y"]) for r in rows])), 1),
        "features": list(FEATURES),
        "held_out": {**pooled, "per_conversation": firsts},
        "in_sample": recall(rows, final),
        "coef": dict(zip(FEATURES, np.round(final["coef"], 4).tolist(), strict=True)),
        "note": "held_out: each conversation ranked by a model fitted on the other four (the reranker's scores alone, "
        "before the answer and time boosts the search adds); in_sample: the weights written, on all five.",
    }
    print(json.dumps(report, indent=1))
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if not args.no_write:
        weights = {
            "features": list(FEATURES),
            "mean": final["mean"].tolist(),
            "scale": final["scale"].tolist(),
            "coef": final["coef"].tolist(),
            "intercept": final["intercept"],
            "fitted_on": f"{args.data.name} (python -m bench.rerank_fit)",
        }
        WEIGHTS_FILE.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    return 0


def _pooled(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Recall over every question, each ranked by the model that did not see its conversation."""
    firsts = []
    for row in rows:
        model = row["_model"]
        s = ((row["x"] - model["mean"]) / model["scale"]) @ model["coef"]
        order = np.argsort(-s, kind="stable")
        firsts.append(next((p for p, j in enumerate(order) if row["y"][j] > 0), None))
    out: dict[str, Any] = {f"recall@{k}": _share(firsts, k) for k in KS}
    out["per_category"] = {
        c: {f"recall@{k}": _share([h for h, r in zip(firsts, rows, strict=True) if r["category"] == c], k) for k in KS}
        for c in sorted({r["category"] for r in rows})
    }
    return out


if __name__ == "__main__":
    raise SystemExit(main())
