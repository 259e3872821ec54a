"""The README rows and the plot of bench/million.py's results (bench/report.py calls these)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PLOT = "million.png"
SEARCHES = (
    ("scoped_one_user_of_many", "scoped (one user of size / 100)"),
    ("unscoped", "unscoped"),
    ("one_user_holds_all", "one user holds all"),
)
# Issue 18, part 2: (label, where in a size's figures, bound, whether lower is better)
TARGETS = (
    ("scoped search p50, no embedding, ms", ("search_without_embedding_ms", "scoped_one_user_of_many", "p50"), 2.0),
    ("unscoped search p50, no embedding, ms", ("search_without_embedding_ms", "unscoped", "p50"), 25.0),
    (
        "one user holds all, search p50, no embedding, ms",
        ("search_without_embedding_ms", "one_user_holds_all", "p50"),
        25.0,
    ),
    ("peak RSS serving it, MB (users of 100)", ("serving", "users_of_100", "peak_rss_mb"), 1536.0),
    ("peak RSS serving it, MB (one user)", ("serving", "one_user_holds_all", "peak_rss_mb"), 1536.0),
    ("ready to serve after start, s (users of 100)", ("serving", "users_of_100", "ready_seconds"), 15.0),
    ("ready to serve after start, s (one user)", ("serving", "one_user_holds_all", "ready_seconds"), 15.0),
)


def _at(figures: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = figures
    for key in path:
        value = value[key]
    return value


def _load(figures: dict[str, Any]) -> str:
    return ", ".join(str(x) for x in figures["load_average"])


def rows(data: dict[str, Any]) -> list[str]:
    figures, machine = data["figures"], data["machine"]
    sizes = [str(s) for s in figures["sizes"] if str(s) in figures["at"]]
    largest = figures["at"][sizes[-1]]
    out = [
        f"**A million memories on one machine** (`bench/million.py`, issue 18 part 2; recorded {machine['date']} at "
        f"commit {machine['commit']}, {machine['cores']} cores shared with other work: the load average is beside "
        f"each figure). Two stores grow side by side: users of {figures['per_user']} memories, and one user holding "
        f"all; vectors are {figures['base_texts']:,} real embeddings of the corpus plus noise, questions embedded for "
        f"real; the approximate index (faiss IVF-SQ8, nprobe {figures['ann_nprobe']}) serves searches over "
        f"{figures['ann_min_rows']:,} rows or more.",
        "",
        "| memories | search p50 / p95 ms, no embedding: scoped | unscoped | one user holds all | recall@10 vs exact: "
        "unscoped, one user | fresh process: ready s, peak RSS MB, p50 ms (users; one user) | load average |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        at = figures["at"][size]
        searches = at["search_without_embedding_ms"]
        cells = [f"{searches[k]['p50']} / {searches[k]['p95']}" for k, _ in SEARCHES]
        recall = at["recall"]
        served = at["serving"]
        serving = "; ".join(
            f"{s['ready_seconds']}, {s['peak_rss_mb']}, {s['search_ms']['p50']}"
            for s in (served["users_of_100"], served["one_user_holds_all"])
        )
        out.append(
            f"| {int(size):,} | {' | '.join(cells)} | {recall['unscoped']['recall_at_10']}, "
            f"{recall['one_user_holds_all']['recall_at_10']}{' (approximate)' if recall['approximate'] else ''} | "
            f"{serving} | {_load(searches['unscoped'])} |"
        )
    out += ["", f"| At {int(sizes[-1]):,} memories | target | measured | met |", "|---|---|---|---|"]
    for label, path, bound in TARGETS:
        value = _at(largest, path)
        out.append(f"| {label} | ≤ {bound:g} | {value} | {'yes' if value <= bound else 'no'} |")
    for name, label in (("users_of_100", "users of 100"), ("one_user_holds_all", "one user")):
        added = figures["batched_add"][name]
        out.append(
            f"| batched add, memories/s ({label}; infer=false, real embedder, 100 per call; load "
            f"{_load(added)}) | ≥ 400 | {added['memories_per_second']} | "
            f"{'yes' if added['memories_per_second'] >= 400 else 'no'} |"
        )
    rebuilt = [
        (size, figures["at"][size]["serving_rebuilt"]) for size in sizes if "serving_rebuilt" in figures["at"][size]
    ]
    for size, served in rebuilt:
        users, one = served["users_of_100"], served["one_user_holds_all"]
        out += [
            "",
            f"Without its snapshot (as after a crash: the index rebuilt from the records) a fresh process was ready in "
            f"{users['ready_seconds']} s (users) and {one['ready_seconds']} s (one user) at {int(size):,} memories, "
            f"peak RSS {users['peak_rss_mb']} and {one['peak_rss_mb']} MB.",
        ]
    uncached = largest["search_without_embedding_ms"].get("scoped_one_user_of_many_file_not_cached")
    if uncached is not None:
        out += [
            "",
            f"The scoped figure is taken with the stores' files prewarmed in the page cache "
            f"({largest.get('prewarmed_mb', '?')} MB in {largest.get('prewarm_seconds', '?')} s), as a serving process "
            f"does at start. With the page cache dropped, users searched for the first time: scoped p50 / p95 "
            f"{uncached['p50']} / {uncached['p95']} ms at {int(sizes[-1]):,} memories (each search reads its ~40 "
            f"candidates' rows from the disk).",
        ]
    served = largest["serving"]
    if "peak_rss_with_close_mb" in served["users_of_100"]:
        users, one = served["users_of_100"], served["one_user_holds_all"]
        out += [
            "",
            f"At {int(sizes[-1]):,} memories, writing the snapshot when the process closed took "
            f"{users['close_seconds']} and {one['close_seconds']} s and raised its peak RSS to "
            f"{users['peak_rss_with_close_mb']} and "
            f"{one['peak_rss_with_close_mb']} MB (users; one user): it reads every int8 row once.",
        ]
    out += ["", f"![latency and RSS against store size](results/{PLOT})"]
    return out


def plot(data: dict[str, Any], results: Path) -> None:
    try:
        import matplotlib
    except ImportError:
        print(f"matplotlib is not installed: bench/results/{PLOT} not redrawn")
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = data["figures"]
    sizes = [s for s in figures["sizes"] if str(s) in figures["at"]]
    fig, (latency, memory) = plt.subplots(1, 2, figsize=(11, 4.5))
    for key, label in SEARCHES:
        latency.plot(
            sizes, [figures["at"][str(s)]["search_without_embedding_ms"][key]["p50"] for s in sizes], "-o", label=label
        )
    latency.axhline(2, color="grey", linestyle=":", linewidth=1)
    latency.axhline(25, color="grey", linestyle=":", linewidth=1)
    latency.set_xscale("log")
    latency.set_yscale("log")
    latency.set_xlabel("memories in the store")
    latency.set_ylabel("search p50, ms (no query embedding)")
    latency.set_title("Search latency (targets: 2 ms scoped, 25 ms broad)")
    latency.grid(True, which="both", alpha=0.3)
    latency.legend()
    for key, label in (("users_of_100", "users of 100"), ("one_user_holds_all", "one user holds all")):
        memory.plot(sizes, [figures["at"][str(s)]["serving"][key]["peak_rss_mb"] for s in sizes], "-o", label=label)
    memory.axhline(1536, color="grey", linestyle=":", linewidth=1)
    memory.set_xscale("log")
    memory.set_xlabel("memories in the store")
    memory.set_ylabel("peak RSS of a fresh serving process, MB")
    memory.set_title("Memory (target: 1.5 GB)")
    memory.grid(True, which="both", alpha=0.3)
    memory.legend()
    fig.tight_layout()
    fig.savefig(results / PLOT, dpi=110)
