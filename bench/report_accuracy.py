"""The tables of the results page for the benchmarks that judge a rule against labelled data (categories,
paraphrase merging, topics, the change rule, the reranker's fit), and for the cost of erasure and of the AWS stack.

Each function takes a recorded result and gives the Markdown lines of its table; bench/report.py puts them on the
page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _pr(block: dict[str, Any], precision: str = "precision", recall: str = "recall") -> str:
    return f"{block[precision]:.3f} / {block[recall]:.3f}"


def categories_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    rows = [
        "| Categories, micro precision / recall | tune | test | coverage (test) |",
        "|---|---|---|---|",
    ]
    for system, splits in f["systems"].items():
        micro = {split: _pr(got, "micro_precision", "micro_recall") for split, got in splits.items()}
        rows.append(
            f"| {system.replace('_', ' ')} | {micro.get('tune', '–')} | {micro.get('test', '–')} | "
            f"{splits.get('test', {}).get('coverage', '–')} |"
        )
    rule, timing = f["rule"], f["timing"]
    rows += [
        "",
        f"{f['memories']['tune']} memories to tune on, {f['memories']['test']} held out; "
        f"threshold {rule['threshold']}, "
        f"at most {rule['max_categories']} category per memory; {timing['warm_ms_per_memory']} ms per memory warm, "
        f"{timing['cold_ms_per_memory']} cold.",
    ]
    return rows


def merge_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    rows = [
        f"| Merging paraphrases at cosine ≥ {f['merge_threshold']}, precision / recall | split | cosine alone | "
        "value guards | every guard |",
        "|---|---|---|---|---|",
    ]
    for backend, figures in f["backends"].items():
        for split, systems in figures["at_merge_threshold"].items():
            cells = " | ".join(_pr(systems[s]) for s in ("cosine", "value_guards", "all_guards"))
            rows.append(f"| {backend} | {split} | {cells} |")
    counts = ", ".join(f"{split} {c['positives']} + {c['negatives']}" for split, c in f["counts"].items())
    rows += ["", f"{f['pairs']} labelled pairs (paraphrases + not: {counts}); guards: {', '.join(f['guards'])}."]
    return rows


def topics_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    at, alone = f["at_threshold"], f["cosine_alone_at_threshold"]
    rows = [
        "| Topics without an LLM | precision | recall | F1 |",
        "|---|---|---|---|",
        f"| mnemo's rule (cosine ≥ {f['threshold']}, or the default category the topic names) | {at['precision']} | "
        f"{at['recall']} | {at['f1']} |",
        f"| the cosine alone | {alone['precision']} | {alone['recall']} | {alone['f1']} |",
    ]
    rows += [f"| — {topic} | {t['precision']} | {t['recall']} | {t['f1']} |" for topic, t in f["per_topic"].items()]
    rows += [
        "",
        f"{f['statements']} statements, {len(f['topics'])} topics, {f['pairs']} pairs ({f['positives']} "
        "about their topic).",
    ]
    return rows


def change_rule_rows(data: dict[str, Any]) -> list[str]:
    chosen = data["chosen"]
    return [
        "| The change rule | cosine threshold | same part of a life | precision | recall | wrong |",
        "|---|---|---|---|---|---|",
        f"| chosen | {chosen['threshold']} | {chosen['same_slot_threshold']} | {chosen['precision']} | "
        f"{chosen['recall']} | {len(chosen['wrong'])} |",
        "",
        f"{data['pairs']} labelled pairs, {data['changed']} of them a change.",
    ]


def rerank_fit_rows(data: dict[str, Any]) -> list[str]:
    rows = ["| The reranker on LoCoMo dev | recall@1 | recall@5 | recall@10 |", "|---|---|---|---|"]
    for label, key in (("each conversation held out of the fit", "held_out"), ("fitted on all five", "in_sample")):
        block = data[key]
        rows.append(f"| {label} | {block['recall@1']:.3f} | {block['recall@5']:.3f} | {block['recall@10']:.3f} |")
    rows += ["", f"{data['candidates_per_question']} candidates per question; {len(data['features'])} features."]
    return rows


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _sizes(files: dict[str, int]) -> str:
    return f"{_mb(files['file_bytes'])} (+ {_mb(files['wal_bytes'])})"


def erasure_rows(data: dict[str, Any]) -> list[str]:
    before, after = data["before"], data["after"]
    rows = [
        f"| {after['memories']:,} memories in one file (SQLite {after['sqlite']}) | before | after |",
        "|---|---|---|",
    ]
    readers: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
        ("add (one memory, `infer=false`): p50 / p95 ms", lambda r: f"{r['add']['p50_ms']} / {r['add']['p95_ms']}"),
        (
            "delete one memory by id: p50 / p95 ms",
            lambda r: f"{r['delete_one']['p50_ms']} / {r['delete_one']['p95_ms']}",
        ),
        ("delete the 1,000 memories of one user, ms", lambda r: f"{r['delete_1000_of_one_user_ms']}"),
        ("file after the load (+ WAL)", lambda r: _sizes(r["after_load"])),
        ("file at the end (+ WAL)", lambda r: _sizes(r["at_end"])),
    )
    rows += [f"| {label} | {read(before)} | {read(after)} |" for label, read in readers]
    parts = after.get("purge_parts")
    if parts:
        rows.append(
            f"| the purge's parts: FTS5 `optimize` / WAL checkpoint, ms | – | {parts['fts_optimize_ms']} / "
            f"{parts['wal_checkpoint_ms']} |"
        )
    return rows


def _money(usd: float) -> str:
    return f"${usd:,.2f}"


def cost_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    operations = list(f["per_million"])
    lines = list(f["per_million"][operations[0]])
    rows = [
        "| Per million, us-east-1 | " + " | ".join(op.replace("_", " ") for op in operations) + " |",
        "|---" * (len(operations) + 1) + "|",
    ]
    for line in lines:
        cells = " | ".join(_money(f["per_million"][op][line]) for op in operations)
        rows.append(f"| {'**total**' if line == 'total' else line} | {cells} |")
    rows += ["", "| A month | total | largest line | without OpenSearch |", "|---|---|---|---|"]
    for name, bill in f["monthly"].items():
        rows.append(
            f"| {name} | {_money(bill['lines']['total'])} | {bill['dominant']} ({bill['dominant_share']:.0%}) | "
            f"{_money(bill['without_opensearch'])} |"
        )
    rows += ["", f"Prices: {f['prices']['note']}"]
    return rows
