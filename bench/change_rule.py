"""The change rule of the deterministic path (issue 16): when does a newer statement make an older one of the same
user likely out of date, without an LLM (mnemo.services.memory.add.outdating `replaces`, mnemo.language.en.claims), on
the labelled pairs of bench/data/change_pairs.jsonl (an older and a newer statement, `changed`: whether the newer one
makes the older one no longer current).

The rule: their claims conflict, or the newer one says something changed about the same subject and the two are
close in meaning — the cosine of the two sentences, or of their closest clauses, at or above a threshold: a lower one
when both speak of one part of a life that holds one state at a time (mnemo.language.en.life_slots: home, work, sport,
partner, pets…). Two sweeps report precision and recall of the whole rule with the real all-MiniLM-L6-v2 (ONNX int8,
the default), and the pairs each setting gets wrong: the threshold with no slot distinction (both thresholds equal),
then the same-slot threshold with the other at the service's CHANGE_SIMILARITY. The last 16 pairs (8 changes said in
words the embedder finds loosely related, 8 statements sharing a slot and a change word that change nothing) were
written with the same-slot threshold.

`python -m bench.change_rule` prints the figures and records them (bench/results/change_rule.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder
from mnemo.language.en.changes import clauses, says_it_changed
from mnemo.language.en.claims import claims
from mnemo.services.memory.add.outdating import CHANGE_SIMILARITY, CHANGE_SIMILARITY_SAME_SLOT

DATA = Path(__file__).resolve().parent / "data" / "change_pairs.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "change_rule.json"
SWEEP = [round(0.25 + 0.05 * i, 2) for i in range(8)]  # 0.25 .. 0.60
SLOT_SWEEP = [round(0.15 + 0.05 * i, 2) for i in range(6)]  # 0.15 .. 0.40


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def closeness(embedder: LocalMiniLMEmbedder, newer: str, older: str) -> float:
    parts, others = clauses(newer), clauses(older)
    vectors = embedder.embed([newer, older, *parts, *others])
    whole = float(vectors[0] @ vectors[1])
    if len(parts) == 1 and len(others) == 1:
        return whole
    return max(whole, float((vectors[2 : 2 + len(parts)] @ vectors[2 + len(parts) :].T).max()))


def replaces(pair: dict[str, Any], similarity: float, threshold: float, same_slot_threshold: float) -> bool:
    """The service's rule (mnemo.services.memory.add.outdating `replaces`) for a newer and an older statement."""
    newer, older = pair["newer"], pair["older"]
    if any(a.conflicts(b) for a in claims(newer) for b in claims(older)):
        return True
    return says_it_changed(newer, older, lambda: similarity, threshold, same_slot_threshold)


def run() -> dict[str, Any]:
    pairs = load()
    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig())
    sims = [closeness(embedder, p["newer"], p["older"]) for p in pairs]
    sweep = [evaluate(pairs, sims, threshold, threshold) for threshold in SWEEP]
    slot_sweep = [evaluate(pairs, sims, CHANGE_SIMILARITY, floor) for floor in SLOT_SWEEP]
    chosen = evaluate(pairs, sims, CHANGE_SIMILARITY, CHANGE_SIMILARITY_SAME_SLOT)
    return {
        "pairs": len(pairs),
        "changed": sum(p["changed"] for p in pairs),
        "threshold": CHANGE_SIMILARITY,
        "same_slot_threshold": CHANGE_SIMILARITY_SAME_SLOT,
        "chosen": chosen,
        "sweep": sweep,
        "same_slot_sweep": slot_sweep,
    }


def evaluate(pairs: list[dict[str, Any]], sims: list[float], threshold: float, same_slot: float) -> dict[str, Any]:
    """Precision and recall of the rule at these thresholds, and the pairs it gets wrong."""
    tp = fp = fn = 0
    wrong = []
    for pair, sim in zip(pairs, sims, strict=True):
        said = replaces(pair, sim, threshold, same_slot)
        tp += said and pair["changed"]
        fp += said and not pair["changed"]
        fn += (not said) and pair["changed"]
        if said != pair["changed"]:
            wrong.append(
                {
                    "older": pair["older"],
                    "newer": pair["newer"],
                    "changed": pair["changed"],
                    "cosine": round(sim, 3),
                }
            )
    return {
        "threshold": threshold,
        "same_slot_threshold": same_slot,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0,
        "wrong": wrong,
    }


def main() -> int:
    result = run()
    print(
        f"change rule on {result['pairs']} pairs ({result['changed']} changes); threshold {result['threshold']}, "
        f"same slot {result['same_slot_threshold']}"
    )
    print("  one threshold for all pairs:")
    for row in result["sweep"]:
        print(f"  cosine >= {row['threshold']:.2f}: precision {row['precision']:.2f}, recall {row['recall']:.2f}")
    print(f"  same-slot threshold (others at {result['threshold']}):")
    for row in result["same_slot_sweep"]:
        mark = " <" if row["same_slot_threshold"] == round(result["same_slot_threshold"], 2) else ""
        print(
            f"  cosine >= {row['same_slot_threshold']:.2f}: precision {row['precision']:.2f}, "
            f"recall {row['recall']:.2f}{mark}"
        )
    for miss in result["chosen"]["wrong"]:
        kind = "missed" if miss["changed"] else "wrong "
        print(f"  {kind} ({miss['cosine']:.2f}) {miss['older']} -> {miss['newer']}")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
