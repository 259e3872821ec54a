"""Merge threshold benchmark: when are two memories of one user the same fact, by embedding similarity and textual
guards (mnemo.language.en.paraphrase), on the labelled pairs of bench/data/paraphrase_pairs.jsonl.

Each pair is embedded with the real all-MiniLM-L6-v2 on both backends (ONNX int8, the default, and float32, whose
cosines differ by up to ~0.05), and the cosine of the two texts read. Reported, per backend: the cosine
distributions of the positives and negatives (per kind too); a threshold sweep on the tune and test splits with
precision, recall and F1 for cosine alone, cosine + the value guards (numbers, negation, names, relations, change,
roles) and cosine + every guard (the value guards and the wording guard), i.e. `same_fact`; which guard blocks
how many positives and negatives; the numbers of MERGE_THRESHOLD on tune and test; and the hardest errors.

The recommended threshold is the highest cosine at which every guard on, on both backends, keeps tune precision at
least PRECISION_FLOOR and tune recall within RECALL_SLACK of its best: the guards decide what differs, the
cosine keeps anything the guards cannot read (two unrelated texts with the same content words) as high as it
costs little recall. It is chosen on the tune split only; test is held out.

`python -m bench.merge_threshold` prints the figures and records them (bench/results/merge.json).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder
from mnemo.language.en.paraphrase import GUARDS, MERGE_THRESHOLD, VALUE_GUARDS, guards_fired

DATA = Path(__file__).resolve().parent / "data" / "paraphrase_pairs.jsonl"
PRECISION_FLOOR = 0.98
RECALL_SLACK = 0.05
SWEEP = [round(0.30 + 0.01 * i, 2) for i in range(70)]  # 0.30 .. 0.99
CONFIGS: dict[str, tuple[str, ...]] = {"cosine": (), "value_guards": VALUE_GUARDS, "all_guards": GUARDS}
BACKENDS = {"onnx_int8": LocalEmbedderConfig(), "float32": LocalEmbedderConfig(quantize=False)}


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cosines(embedder: LocalMiniLMEmbedder, pairs: list[dict[str, Any]]) -> list[float]:
    a = embedder.embed([p["a"] for p in pairs])
    b = embedder.embed([p["b"] for p in pairs])
    return [round(float(x), 4) for x in (a * b).sum(axis=1)]


def scores(pairs: list[dict[str, Any]], sims: list[float], threshold: float, blocked: list[bool]) -> dict[str, Any]:
    tp = fp = fn = 0
    for pair, sim, stop in zip(pairs, sims, blocked, strict=True):
        merged = sim >= threshold and not stop
        tp += merged and pair["same"]
        fp += merged and not pair["same"]
        fn += (not merged) and pair["same"]
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
    }


def distribution(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    q = [round(float(x), 3) for x in np.percentile(values, [0, 10, 50, 90, 100])]
    return {"n": len(values), "min": q[0], "p10": q[1], "median": q[2], "p90": q[3], "max": q[4]}


def _split(pairs: list[dict[str, Any]], name: str) -> list[int]:
    return [i for i, p in enumerate(pairs) if p["split"] == name]


def evaluate(pairs: list[dict[str, Any]], sims: list[float]) -> dict[str, Any]:
    """Everything for one backend's cosines."""
    blocked = {name: [bool(guards_fired(p["a"], p["b"], guards)) for p in pairs] for name, guards in CONFIGS.items()}
    splits = {name: _split(pairs, name) for name in ("tune", "test")}

    def at(split: str, config: str, threshold: float) -> dict[str, Any]:
        idx = splits[split]
        return scores([pairs[i] for i in idx], [sims[i] for i in idx], threshold, [blocked[config][i] for i in idx])

    by_kind: dict[str, list[float]] = defaultdict(list)
    for pair, sim in zip(pairs, sims, strict=True):
        by_kind[pair["kind"]].append(sim)
    fired: dict[str, Counter[str]] = {"positives": Counter(), "negatives": Counter()}
    for pair in pairs:
        for guard in guards_fired(pair["a"], pair["b"]):
            fired["positives" if pair["same"] else "negatives"][guard] += 1
    return {
        "distribution": {
            "positives": distribution([s for p, s in zip(pairs, sims, strict=True) if p["same"]]),
            "negatives": distribution([s for p, s in zip(pairs, sims, strict=True) if not p["same"]]),
            "by_kind": {kind: distribution(values) for kind, values in sorted(by_kind.items())},
        },
        "guards_fired": {side: dict(counts.most_common()) for side, counts in fired.items()},
        "sweep": {
            split: {config: {f"{t:.2f}": at(split, config, t) for t in SWEEP} for config in CONFIGS} for split in splits
        },
        "at_merge_threshold": {
            split: {config: at(split, config, MERGE_THRESHOLD) for config in CONFIGS} for split in splits
        },
        "errors_at_merge_threshold": errors(pairs, sims, blocked["all_guards"], blocked["value_guards"]),
    }


def errors(
    pairs: list[dict[str, Any]], sims: list[float], blocked: list[bool], value_blocked: list[bool]
) -> dict[str, Any]:
    """The hardest mistakes at MERGE_THRESHOLD: negatives merged (or, with the value guards only, the negatives with
    the highest cosine that only the wording guard stops) and positives missed, with what stopped them."""
    rows = [
        {
            "a": p["a"],
            "b": p["b"],
            "kind": p["kind"],
            "split": p["split"],
            "cosine": s,
            "guards": guards_fired(p["a"], p["b"]),
        }
        for p, s in zip(pairs, sims, strict=True)
    ]
    merged = [s >= MERGE_THRESHOLD and not b for s, b in zip(sims, blocked, strict=True)]
    false_pos = [r for r, p, m in zip(rows, pairs, merged, strict=True) if m and not p["same"]]
    only_wording = [
        r
        for r, p, s, v in zip(rows, pairs, sims, value_blocked, strict=True)
        if not p["same"] and s >= MERGE_THRESHOLD and not v
    ]
    false_neg = [r for r, p, m in zip(rows, pairs, merged, strict=True) if p["same"] and not m]
    return {
        "false_positives": sorted(false_pos, key=lambda r: -r["cosine"]),
        "negatives_only_the_wording_guard_stops": sorted(only_wording, key=lambda r: -r["cosine"])[:15],
        "false_negatives_highest_cosine": sorted(false_neg, key=lambda r: -r["cosine"])[:15],
        "false_negatives_below_threshold": sorted(
            [r for r in false_neg if r["cosine"] < MERGE_THRESHOLD and not r["guards"]], key=lambda r: r["cosine"]
        ),
    }


def recommend(results: dict[str, dict[str, Any]]) -> float:
    """The highest swept cosine keeping, on every backend, tune precision ≥ PRECISION_FLOOR and tune recall within
    RECALL_SLACK of the best tune recall (all guards)."""
    ok: list[float] = []
    for t in SWEEP:
        good = True
        for result in results.values():
            sweep = result["sweep"]["tune"]["all_guards"]
            best = max(row["recall"] for row in sweep.values())
            row = sweep[f"{t:.2f}"]
            good &= row["precision"] >= PRECISION_FLOOR and row["recall"] >= best - RECALL_SLACK
        if good:
            ok.append(t)
    return max(ok) if ok else float("nan")


def run() -> dict[str, Any]:
    pairs = load()
    results = {name: evaluate(pairs, cosines(LocalMiniLMEmbedder(config), pairs)) for name, config in BACKENDS.items()}
    return {
        "pairs": len(pairs),
        "counts": {
            split: {
                "positives": sum(p["same"] for p in pairs if p["split"] == split),
                "negatives": sum(not p["same"] for p in pairs if p["split"] == split),
            }
            for split in ("tune", "test")
        },
        "merge_threshold": MERGE_THRESHOLD,
        "recommended_threshold": recommend(results),
        "precision_floor": PRECISION_FLOOR,
        "recall_slack": RECALL_SLACK,
        "guards": list(GUARDS),
        "backends": results,
    }


def _print(figures: dict[str, Any]) -> None:
    print(f"{figures['pairs']} pairs {figures['counts']}")
    print(f"MERGE_THRESHOLD {figures['merge_threshold']}, recommended {figures['recommended_threshold']}")
    for backend, result in figures["backends"].items():
        dist = result["distribution"]
        print(f"\n[{backend}] positives {dist['positives']}\n[{backend}] negatives {dist['negatives']}")
        print(f"[{backend}] guards fired: {result['guards_fired']}")
        for t in ("0.50", "0.60", "0.70", "0.80", "0.85", "0.90", "0.95"):
            cells = [
                f"{split}/{config}: P={row['precision']:.3f} R={row['recall']:.3f}"
                for split in ("tune", "test")
                for config in CONFIGS
                for row in [result["sweep"][split][config][t]]
            ]
            print(f"  {t}  " + "  ".join(cells))
        for split, configs in result["at_merge_threshold"].items():
            for config, row in configs.items():
                print(f"  at {figures['merge_threshold']} {split:4} {config:12} {row}")
        errs = result["errors_at_merge_threshold"]
        for key in ("false_positives", "negatives_only_the_wording_guard_stops", "false_negatives_highest_cosine"):
            print(f"  {key}:")
            for row in errs[key][:6]:
                print(f"    {row['cosine']:.3f} {row['kind']:16} {row['a']!r} / {row['b']!r} {row['guards']}")


def main(argv: list[str]) -> int:
    from bench.run import record

    figures = run()
    _print(figures)
    record("merge", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
