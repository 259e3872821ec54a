"""The tables of the benchmark results page, one function per benchmark: each takes a result as bench.run records
it (`{"machine": …, "figures": …}`) and gives the Markdown lines of its table (bench/report.py puts them on the
page)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Loader = Callable[[str], dict[str, Any] | None]


def ratio(ours: float | None, theirs: float | None) -> str:
    if not ours or not theirs:
        return "–"
    return f"{ours / theirs:.2f}"


def engine_rows(data: dict[str, Any]) -> list[str]:
    ours, peer = data["figures"]["mnemo"], data["figures"].get("mem0") or {}
    added = ours.get("add_measured_at", ours["sizes"][0])
    first = str(added)
    peer_at = {str(c["size"]): c for c in peer.get("checkpoints", [])}
    peer_first = peer_at.get(first, {})
    sizes_before = [int(size) for size in peer_at if int(size) < int(first)]
    segment = f"{max(sizes_before, default=0)} to {first}"
    # mem0 has no batched path for infer=false: a list of 100 messages is embedded and inserted one by one.
    peer_batch = (peer.get("batch_add") or {}).get("add_per_second")
    rows = [
        "| Engine | mnemo | mem0 2.2.1 | mnemo / mem0 |",
        "|---|---|---|---|",
        f"| embedder | {ours['embedder']} | huggingface all-MiniLM-L6-v2 (torch) | |",
        f"| embed, texts/s | {ours['embed_per_second']} | | |",
        f"| add infer=false, batched, memories/s (0 to {added}) | {ours['add_batched_per_second']} | "
        f"{peer_batch or '–'} | {ratio(ours['add_batched_per_second'], peer_batch)} |",
        f"| add infer=false, one per call, memories/s (mnemo: at {first}; mem0: {segment}) | "
        f"{ours['add_single_per_second']} | "
        f"{peer_first.get('add_per_second', '–')} | "
        f"{ratio(ours['add_single_per_second'], peer_first.get('add_per_second'))} |",
        f"| mnemo batched (0 to {first}) against mem0 one per call ({segment}) | {ours['add_batched_per_second']} | "
        f"{peer_first.get('add_per_second', '–')} | "
        f"{ratio(ours['add_batched_per_second'], peer_first.get('add_per_second'))} |",
    ]
    for size, by_shape in ours["search"].items():
        for shape, label in (
            ("scoped_one_user_of_many", f"one user of {ours['users']}"),
            ("one_user_holds_all", "one user holds all"),
            ("unscoped", "unscoped"),
        ):
            figures = by_shape[shape]
            for kind, kind_label in (("without_embedding_ms", "no embedding"), ("with_embedding_ms", "with embedding")):
                p = figures[kind]
                theirs = ""
                if shape == "scoped_one_user_of_many" and size in peer_at:
                    peer_key = (
                        "search_ms_without_embedding" if kind.startswith("without") else "search_ms_with_embedding"
                    )
                    theirs_p = peer_at[size].get(peer_key, {})
                    if theirs_p:
                        theirs = f"{theirs_p['p50']} / {theirs_p['p95']} / {theirs_p['p99']}"
                rows.append(
                    f"| search {size}, {label}, {kind_label}: p50 / p95 / p99 ms | "
                    f"{p['p50']} / {p['p95']} / {p['p99']} | {theirs or '–'} | "
                    f"{ratio(p['p50'], theirs_p['p50']) if theirs else '–'} |"
                )
    serving = ours.get("serving_footprint") or {}
    if serving:
        rows.append(
            f"| peak RSS of a process serving the store, MB (mnemo: a fresh process, {serving['memories']} "
            f"memories; mem0: its run to {first}) | {serving['peak_rss_mb']} | {peer.get('peak_rss_mb', '–')} | "
            f"{ratio(serving['peak_rss_mb'], peer.get('peak_rss_mb'))} |"
        )
    rows.append(
        f"| peak RSS of the benchmark process, MB (mnemo: two stores to {ours['sizes'][-1]} and every vector "
        f"precomputed) | {ours['peak_rss_mb']} | | |"
    )
    return rows


def http_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    routes = "platform API (/v3/memories/…)" if f.get("surface") == "platform" else "self-hosted API"
    rows = [
        f"| HTTP {routes}, {f['clients']} clients, {f['preloaded']} memories preloaded, "
        f"{f.get('workers', 1)} server process{'es' if f.get('workers', 1) > 1 else ''}"
        + (f" of {f['threads_per_worker']} request threads" if "threads_per_worker" in f else "")
        + " | requests/s | "
        "p50 / p95 / p99 ms | errors | server CPU ms per request |",
        "|---|---|---|---|---|",
    ]
    for kind in ("search", "add"):
        r = f[kind]
        p = r["latency_ms"]
        rows.append(
            f"| {kind} ({r['seconds']} s) | {r['per_second']} | {p['p50']} / {p['p95']} / {p['p99']} | {r['errors']} "
            f"| {r.get('server_cpu_ms_per_request', '–')} |"
        )
    if "load_average_before" in f:
        before, after = (", ".join(f"{v:.1f}" for v in f[k]) for k in ("load_average_before", "load_average_after"))
        m = data["machine"]
        rows += [
            "",
            f"Recorded {m['date']} at commit {m['commit']}; load average (1, 5, 15 min) on {m['cores']} cores: "
            f"{before} before the run, {after} after.",
        ]
    if "model_alone_ms" in f:
        speed = {k: f["model_alone_ms"][k] for k in ("before", "after")}
        rows.append(
            "The model alone on this machine (bench/model_speed.py, CPU ms per text, one per run): a question "
            f"{speed['before']['question_ms']} before the run and {speed['after']['question_ms']} after, an add's "
            f"text {speed['before']['add_text_ms']} and {speed['after']['add_text_ms']}."
        )
    return rows


def http_split_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    columns = [(surface, kind) for surface in ("selfhosted", "platform") if surface in f for kind in ("search", "add")]
    names = {"selfhosted": "self-hosted", "platform": "platform"}
    split = {column: f[column[0]]["split"][column[1]] for column in columns}
    lines: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("real server, per s (server CPU ms each)", lambda s: f"{s['per_second']} ({s['server_cpu_ms']})"),
        (
            "weightless server, per s (CPU ms each: the rest)",
            lambda s: f"{s['weightless_per_second']} ({s['the_rest_ms']})",
        ),
        ("the model in the server / alone, ms", lambda s: f"{s['model_in_server_ms']} / {s['model_alone_ms']}"),
        (
            "server CPU per request at the target, ms",
            lambda s: f"{s['server_cpu_ms_available_at_target']} (at {s['target_per_second']}/s)",
        ),
        ("left for the rest at the target, ms", lambda s: f"{s['left_for_the_rest_at_target_ms']}"),
    ]
    rows = [
        "| The split (bench/http_split.py): the model's run and the rest | "
        + " | ".join(f"{names[surface]} {kind}" for surface, kind in columns)
        + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    rows += [f"| {label} | " + " | ".join(cell(split[c]) for c in columns) + " |" for label, cell in lines]
    m = data["machine"]
    rows += ["", f"Recorded {m['date']} at commit {m['commit']}."]
    return rows


def model_batching_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    sizes = list(next(iter(f["builds"].values()))["question"]["cpu_ms_per_text_by_batch"])
    rows = [
        "| Shared model runs (bench/model_batching.py), CPU ms per text by batch of "
        + ", ".join(sizes)
        + " | batch of 8 against alone, least cosine | cosine to float32, mean (least) |",
        "|---|---|---|",
    ]
    for build, kinds in f["builds"].items():
        for kind, r in kinds.items():
            costs = " / ".join(str(ms) for ms in r["cpu_ms_per_text_by_batch"].values())
            cosine = r["cosine_to_fp32"]
            rows.append(
                f"| {build}, {kind.replace('_', ' ')}: {costs} | {r['batch_of_8_vs_alone_least_cosine']} | "
                f"{cosine['mean']} ({cosine['least']}) |"
            )
    m = data["machine"]
    rows += ["", f"{f['texts_each']} texts of each kind; recorded {m['date']} at commit {m['commit']}."]
    return rows


def http_floor_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    labels = {
        "http": "read the body, answer (uvicorn, httptools, loopback)",
        "embed": "… and embed the query (int8 MiniLM, ONNX Runtime): a search's floor",
        "embed_insert": "… embed the text and commit it to SQLite: an add's floor",
    }
    rows = [
        f"| The floor: a bare ASGI app, {f['workers']} uvicorn workers, {f['clients']} clients; a request does only "
        "| requests/s | p50 / p99 ms | errors | server CPU ms per request |",
        "|---|---|---|---|---|",
    ]
    for mode, label in labels.items():
        r = f[mode]
        p = r["latency_ms"]
        cpu = r["server_cpu_ms_per_request"]
        rows.append(f"| {label} | {r['per_second']} | {p['p50']} / {p['p99']} | {r['errors']} | {cpu} |")
    return rows


def locomo_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    rows = ["| LoCoMo dev, recall | @1 | @5 | @10 |", "|---|---|---|---|"]
    for label, block in (
        ("mnemo hybrid", f),
        ("mnemo semantic only", f.get("semantic_only")),
        ("mem0 2.2.1", f.get("mem0")),
    ):
        if block:
            rows.append(f"| {label} | {block['recall@1']:.3f} | {block['recall@5']:.3f} | {block['recall@10']:.3f} |")
    rows.append(f"\n{f.get('questions')} questions, {f.get('skipped')} skipped.")
    return rows


def locomo_rerank_rows(data: dict[str, Any]) -> list[str]:
    """`mnemo bench locomo --rerank`: the reranked search beside the hybrid one, overall and temporal (category 3)."""
    f = data["figures"]
    rows = [
        "| LoCoMo dev, recall @1 / @5 / @10 | all | temporal (category 3) | search p50 |",
        "|---|---|---|---|",
    ]
    latency = f.get("latency_ms", {})
    for label, block, p50 in (
        ("mnemo hybrid", f.get("without_rerank"), latency.get("hybrid_p50")),
        ("mnemo hybrid + rerank", f, latency.get("rerank_p50")),
    ):
        if block:
            cat3 = block["per_category"].get("3", {})
            rows.append(
                f"| {label} | {_recalls(block)} | {_recalls(cat3) if cat3 else '–'} | "
                f"{f'{p50:.1f} ms' if p50 is not None else '–'} |"
            )
    if "rerank_added_p50" in latency:
        load_average = ", ".join(f"{v:.1f}" for v in f.get("load_average", []))
        rows.append(
            f"\nRerank adds {latency['rerank_added_p50']:.1f} ms per search (p50 of the per-question difference; "
            f"the query embedding memoized; load average {load_average or 'not recorded'} on 2 cores)."
        )
    return rows


def _recalls(block: dict[str, Any]) -> str:
    return " / ".join(f"{block[f'recall@{k}']:.3f}" for k in (1, 5, 10))


def _decay_label(name: str) -> str:
    if name == "off":
        return "decay off"
    half_life, _, boost = name.removeprefix("half_life_").partition("_access_boost_")
    return f"decay on, half-life {half_life} days" + (f", access boost {boost}" if boost else "")


def decay_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    facts = f["changing_facts"]
    default = f["default"]["half_life_days"]
    rows = [
        f"| Memory decay, scripted changing facts ({facts['changed']} changed, {facts['retrieved']} retrieved on "
        f"the way; {facts['subjects'] - facts['changed']} stable): the current fact first | changed | changed and "
        "retrieved | stable | MRR@5, changed |",
        "|---|---|---|---|---|",
    ]
    for name, block in facts["configurations"].items():
        groups = ("changed", "changed_retrieved", "stable")
        cells = [f"{block[k]['current_first']}/{block[k]['subjects']}" for k in groups]
        marker = " (default)" if name == f"half_life_{default:g}" else ""
        rows.append(f"| {_decay_label(name)}{marker} | {' | '.join(cells)} | {block['changed']['mrr@5']:.3f} |")
    loco = f.get("locomo")
    if loco:
        off = loco["off"]
        rows += ["", "| LoCoMo dev, recall, with decay (change) | @1 | @5 | @10 |", "|---|---|---|---|"]
        rows.append(f"| decay off | {off['recall@1']:.3f} | {off['recall@5']:.3f} | {off['recall@10']:.3f} |")
        for name, block in loco["configurations"].items():
            cells = [f"{block[k]:.3f} ({block['change'][k]:+.3f})" for k in ("recall@1", "recall@5", "recall@10")]
            marker = " (default)" if name == f"half_life_{default:g}" else ""
            rows.append(f"| {_decay_label(name)}{marker} | {' | '.join(cells)} |")
    m = data["machine"]
    rows += [
        "",
        f"Recorded {m['date']} at commit {m['commit']}. Access boost {f['default']['access_boost']:g} and access "
        f"half-life {f['default']['access_half_life_days']:g} days unless the row says otherwise; the probes asked on "
        f"{facts['now'][:10]}, each LoCoMo question at the end of its conversation.",
    ]
    return rows


def lambda_rows(data: dict[str, Any]) -> list[str]:
    f = data["figures"]
    if not f.get("functions"):
        return [f"Lambda cold start: {f.get('note', 'no functions')}."]
    rows = [
        "| Function | ready, s (median) | ready, CPU s (median) | imports torch | unzipped MB |",
        "|---|---|---|---|---|",
    ]
    for name, r in f["functions"].items():
        cpu = r.get("ready_cpu_seconds_median", "—")  # older results have no CPU figure
        rows.append(f"| {name} | {r['ready_seconds_median']} | {cpu} | {r['imports_torch']} | {r['unzipped_mb']} |")
    load = f.get("load_average")
    if load:
        rows.append("")
        rows.append(f"Load average (1, 5, 15 min) at the start {load['start']}, at the end {load['end']}.")
    return rows


def webhook_rows(data: dict[str, Any]) -> list[str]:
    f, m = data["figures"], data["machine"]
    setup = f["setup"]
    hooks = setup["webhooks"]
    healthy = f["latency_ms_from_occurred_at"]["healthy_paced"]
    burst = f["throughput"]["healthy_burst"]
    outage = f["outage"]
    logs = f["delivery_log"].values()
    cpu = f["cpu_seconds"]
    schedule = setup.get("retry_schedule_short", setup["retry_schedule"])
    ordered = "yes" if not f["order_problems"] else "; ".join(f["order_problems"])
    return [
        f"| Webhooks: {f['events_added']:,} memory events to {hooks} webhooks ({f['deliveries_expected']:,} "
        f"deliveries), receivers down {outage['down_for_seconds']:g} s mid-run | |",
        "|---|---|",
        f"| latency, healthy, {setup['pace_events_per_second']:g} events/s ({setup['messages_per_add']} per add): "
        f"p50 / p95 / p99 / max ms, the event's `occurred_at` to the receiver | "
        f"{healthy['p50']} / {healthy['p95']} / {healthy['p99']} / {healthy['max']} |",
        f"| deliveries/s, healthy, adds back to back ({burst['deliveries']:,} deliveries, first add to last "
        f"arrival) | {burst['deliveries_per_second']} |",
        f"| outage: events made while down; received while down | {outage['events_during']:,}; "
        f"{outage['received_while_down']} |",
        f"| after the return: first delivery / backlog of {outage['backlog_deliveries_at_recovery']:,} drained / "
        f"all delivered, s | {outage['first_arrival_after_recovery_s']} / {outage['backlog_drained_after_recovery_s']}"
        f" / {outage['everything_delivered_after_recovery_s']} ({outage['drain_deliveries_per_second']} "
        "deliveries/s draining) |",
        f"| delivered | {f['delivered_percent']:g}% ({f['deliveries_unique']:,} of {f['deliveries_expected']:,}) |",
        f"| repeats received (same `webhook-id`); duplicates after dropping them | {f['repeats_raw']}; "
        f"{f['duplicates_after_dropping_repeats']} |",
        f"| signatures valid (`standardwebhooks`, on arrival) | {f['signatures_verified'] - f['signatures_invalid']:,}"
        f" of {f['signatures_verified']:,} |",
        f"| each webhook in order (sequence increasing on arrival, memories in the order added) | {ordered} |",
        f"| delivery log: dead; pending; attempts that failed | {sum(v['dead_count'] for v in logs)}; "
        f"{sum(v['pending_count'] for v in logs)}; {sum(v['failed_attempts'] for v in logs)} |",
        f"| server peak RSS, MB | {f['server_peak_rss_mb']} |",
        "",
        f"Recorded {m['date']} at commit {m['commit']}; retry schedule {schedule} s "
        f"({setup['retry_jitter']}). CPU seconds over the {f['run_seconds']:g} s run: server {cpu['server']}, "
        f"receivers {cpu['receivers']}, load generator {cpu['load_generator']}, other processes on the machine "
        f"{cpu.get('other_processes', '–')} (of {cpu.get('machine_capacity', '–')} available).",
    ]


def memory_quality_rows(data: dict[str, Any], load: Loader) -> list[str]:
    from bench.memory_quality.report import markdown, splits_markdown

    others = {split: load(f"memory_quality-{split}") for split in ("dev", "holdout", "blind", "tune")}
    recorded = {"eval": data, **{split: other for split, other in others.items() if other}}
    return [*markdown(data["figures"], data["machine"]), "", *splits_markdown(recorded)]


def llm_cost_rows(data: dict[str, Any]) -> list[str]:
    from bench.llm_cost import table

    f, m = data["figures"], data["machine"]
    s = f["summary"]
    rows = [
        f"**LLM cost per conversation** (`bench/llm_cost.py`): the {f['conversations']} conversations of "
        f"{f['data']} ({f['messages']} messages, {f['people']} people, each person's in order), one add each with "
        f"infer on, against one recording loopback OpenAI-compatible server answering scripted JSON; `{f['model']}`, "
        f"tokens counted by the server with {f['tokenizer']}.",
        "",
        "| per conversation (mean) | LLM calls | input tokens | output tokens | input tokens / mem0's (mean, max) |",
        "|---|--:|--:|--:|--:|",
    ]
    names = (("mnemo", "mnemo (self-hosted)"), ("mnemo-platform", "mnemo (platform project)"), ("mem0", "mem0 2.2.1"))
    for system, label in names:
        mean = s[system]["per_conversation_mean"]
        versus = s.get(f"{system}_vs_mem0")
        ratio = f"{versus['input_tokens_ratio_mean']:.2f}, {versus['input_tokens_ratio_max']:.2f}" if versus else "–"
        rows.append(
            f"| {label} | {mean['calls']:g} | {mean['input_tokens']:,.0f} | {mean['output_tokens']:,.0f} | {ratio} |"
        )
    checks = ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in f["reported_usage_matches_the_server"].items())
    rows += [
        "",
        f"Target ({f['target']}) met in every conversation: "
        f"{'yes' if s['mnemo_vs_mem0']['target_met_every_conversation'] else 'NO'} (self-hosted), "
        f"{'yes' if s['mnemo-platform_vs_mem0']['target_met_every_conversation'] else 'NO'} (platform). The usage "
        f"mnemo reported equals the server's count: {checks}. Recorded {m['date']} at commit {m['commit']}.",
        "",
        '<details markdown="1">',
        "<summary>Every conversation</summary>",
        "",
        table(f),
        "",
        "</details>",
    ]
    return rows
