"""What the AWS stack costs per million adds and per million searches, from measurements (issue 18, part 5):
`PYTHONPATH=. .venv/bin/python -m bench.cost [--adds N] [--searches N] [--json]`, or `python -m bench.run --only cost`
(bench/results/cost.json).

**Measured**, by running the real Lambda handlers as tests/handlers does (under moto, the sample events of events/):
the platform function (`functions/platform/app.py`) on a v3 `infer=false` add, a v3 asynchronous add (queued to the
SQS FIFO ingest queue, whose message the ingest worker's handler then runs: fact extraction and the update decision
by the LLM, embedding, the writes) and a v3 search; the webhook delivery function on what each add publishes to the
SNS topic (delivered by moto to its queue). Profiles are regenerated only in projects that turn them on (off by
default): the run counts the regenerations queued (none).
Counted per operation, by a wrapper of every boto3 call of the process: DynamoDB read and write request units,
computed from the sizes of the items each call reads and writes (on-demand rules: 4 KB per read unit, half for an
eventually consistent read; 1 KB per write unit, the larger of the item before and after; twice both in a transaction;
one more write per global secondary index whose projection the write changes) — moto's own ConsumedCapacity is a
constant per call, so the meter reads the items before and after each write from moto itself, unmetered; SQS
requests by queue (standard or FIFO) and SNS publishes. Bedrock tokens: every text the embedder is given and every
prompt and reply of the LLM, counted with the BERT WordPiece tokenizer the local embedder ships (Titan's and Nova's
tokenizers are not public: read the counts as ±20%). The LLM is a scripted stand-in (extraction answers the message
as one fact, the decision answers ADD), so its output tokens are those of a one-fact answer. The billed duration of
each invocation, warm (median of many): the process's CPU time on this machine (CPU time, not wall time, which the
other work sharing the two cores stretches), without what moto, the local embedder, the in-process index and the
scripted LLM spent of it, plus `BOTOCORE_CPU_MS_PER_CALL` per AWS call (the client's own work, counted with moto's
here), scaled by 1769 / MemorySize (Lambda gives a function a share of a vCPU in proportion to its memory, one full
vCPU at 1,769 MB; this machine's core is taken as one Lambda vCPU); plus the round trips those calls take from Lambda
(`ROUND_TRIP_MS`: assumed typical figures, not measured here), which the function is billed for while it waits.

**Not measured here**: OpenSearch Serverless, which bills capacity (OCU-hours) rather than requests — the index is
replaced by the in-process one of tests/support (its calls are counted and timed, their time replaced by a round
trip). Its bill is the capacity floor of the template's collection (0.5 indexing + 0.5 search OCU without standby
replicas, twice that with them) and, for a large store, the search OCUs its HNSW graphs need in memory
(`hnsw_bytes_per_vector`). Prices: `PRICES`, AWS list prices in us-east-1 as of `PRICE_DATE` — verify before use.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mnemo.domain.llm_usage import LLMUsage
from mnemo.ports.llm import Completion

ROOT = Path(__file__).resolve().parent.parent

# ---- prices ------------------------------------------------------------------------------------------------------

PRICE_DATE = "2025-06-01"
PRICE_NOTE = (
    f"AWS public list prices, us-east-1, as of {PRICE_DATE}, no free tier, no savings plans: list price, verify "
    "before use (https://aws.amazon.com/<service>/pricing/)."
)


@dataclass(frozen=True)
class Price:
    usd: float
    unit: str


PRICES: dict[str, Price] = {
    # AWS Lambda, x86_64 (the template's architecture), first pricing tier.
    "lambda_gb_second": Price(0.0000166667, "GB-second"),
    "lambda_request": Price(0.20 / 1e6, "invocation"),
    # API Gateway HTTP API, first 300 million requests a month (each 512 KB).
    "http_api_request": Price(1.00 / 1e6, "request"),
    # DynamoDB on-demand, Standard table class (prices since November 2024).
    "dynamodb_wru": Price(0.625 / 1e6, "write request unit"),
    "dynamodb_rru": Price(0.125 / 1e6, "read request unit"),
    "dynamodb_storage_gb_month": Price(0.25, "GB-month"),
    "dynamodb_pitr_gb_month": Price(0.20, "GB-month"),  # continuous backups: every table of the template has PITR
    # SQS, per request of up to 64 KB.
    "sqs_standard_request": Price(0.40 / 1e6, "request"),
    "sqs_fifo_request": Price(0.50 / 1e6, "request"),
    # SNS standard topic publishes (deliveries to SQS are free).
    "sns_publish": Price(0.50 / 1e6, "publish"),
    # Bedrock on-demand: Titan Text Embeddings V2 and Nova Lite (the template's defaults).
    "titan_embed_v2_input_token": Price(0.02 / 1e6, "input token"),
    "nova_lite_input_token": Price(0.06 / 1e6, "input token"),
    "nova_lite_output_token": Price(0.24 / 1e6, "output token"),
    # OpenSearch Serverless.
    "opensearch_ocu_hour": Price(0.24, "OCU-hour"),
    "opensearch_storage_gb_month": Price(0.024, "GB-month"),
    # CloudWatch Logs (the functions' logs and the API's access log), standard class.
    "cloudwatch_logs_ingested_gb": Price(0.50, "GB"),
    "cloudwatch_logs_stored_gb_month": Price(0.03, "GB-month"),
    # X-Ray (Tracing: Active on every function), traces recorded.
    "xray_trace_recorded": Price(5.00 / 1e6, "trace"),
}

HOURS_PER_MONTH = 730.0
SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600

# ---- assumptions -------------------------------------------------------------------------------------------------

# The round trip of a call from a Lambda function to a service in the same region, in milliseconds: what each call
# that moto, the local embedder, the in-process index or the scripted LLM answered here costs in wall time there.
# Assumed (typical figures), not measured here; the function is billed for the wait.
ROUND_TRIP_MS: dict[str, float] = {
    "dynamodb": 6.0,  # one item or one query page
    "dynamodb_transaction": 15.0,
    "sqs": 10.0,
    "sns": 15.0,
    "ssm": 10.0,
    "bedrock_embed": 60.0,  # Titan Text Embeddings V2, one short text
    "opensearch_search": 25.0,
    "opensearch_write": 30.0,
    "llm_call_base": 350.0,  # Nova Lite: time to the first token
    "llm_output_tokens_per_second": 150.0,
}
BOTOCORE_CPU_MS_PER_CALL = 0.5  # assumed: botocore's serializing and parsing of one call, counted with moto here
LAMBDA_FULL_VCPU_MB = 1769  # Lambda allots CPU in proportion to memory: one vCPU at 1,769 MB
PLATFORM_LOG_LINE_BYTES = 300  # the START, END and REPORT lines Lambda writes for each invocation
ACCESS_LOG_LINE_BYTES = 260  # one line of the HTTP API's JSON access log (template.yaml's Format, filled in)
XRAY_RESERVOIR_PER_SECOND = 1.0  # X-Ray's default sampling rule: the first request each second, then 5%
XRAY_RATE = 0.05
SQS_POLLERS_PER_QUEUE = 5  # Lambda's SQS event source: 5 long-polling pollers per queue when idle
SQS_POLL_SECONDS = 20  # each long poll waits up to 20 s


@dataclass(frozen=True)
class SearchIndex:
    """OpenSearch Serverless, as template.yaml makes it: a VECTORSEARCH collection, faiss HNSW (m = 16) over
    `dimension`-wide float32 vectors (EmbeddingDimensions)."""

    dimension: int = 1024
    hnsw_m: int = 16
    standby_replicas: bool = False  # OpenSearchStandbyReplicas (default DISABLED)
    ocu_memory_gib: float = 6.0  # each OCU: 6 GiB of memory and its vCPU
    graph_share_of_memory: float = 0.5  # assumed: half an OCU's memory holds graphs (the k-NN circuit breaker)
    document_overhead_bytes: int = 1024  # the text, ids and metadata of one document beside its vector

    @property
    def floor_ocus(self) -> tuple[float, float]:
        """(indexing, search) OCUs the collection never goes below."""
        return (1.0, 1.0) if self.standby_replicas else (0.5, 0.5)

    def hnsw_bytes_per_vector(self) -> float:
        """The faiss/nmslib HNSW estimate of the k-NN plugin's documentation: 1.1 × (4 × d + 8 × m) bytes."""
        return 1.1 * (4 * self.dimension + 8 * self.hnsw_m)

    def search_ocus(self, memories: int) -> float:
        graphs_gib = memories * self.hnsw_bytes_per_vector() / 2**30
        per_ocu = self.ocu_memory_gib * self.graph_share_of_memory
        needed = math.ceil(graphs_gib / per_ocu * 2) / 2  # in halves of an OCU
        replicas = 2 if self.standby_replicas else 1
        return max(self.floor_ocus[1], needed * replicas)

    def storage_gb(self, memories: int) -> float:
        return memories * (4 * self.dimension + self.document_overhead_bytes) / 1e9


# ---- the cost model ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invocation:
    """One kind of Lambda invocation an operation makes: `count` of them per operation, each billed `billed_ms`."""

    function: str
    memory_mb: int
    count: float
    billed_ms: float
    log_bytes: float = 0.0


@dataclass(frozen=True)
class Usage:
    """What one operation (one add, one search) uses, averaged."""

    http_requests: float = 0.0
    invocations: tuple[Invocation, ...] = ()
    dynamodb_rru: float = 0.0
    dynamodb_wru: float = 0.0
    sqs_standard_requests: float = 0.0
    sqs_fifo_requests: float = 0.0
    sns_publishes: float = 0.0
    embed_tokens: float = 0.0
    llm_input_tokens: float = 0.0
    llm_output_tokens: float = 0.0


def cost_of(usage: Usage, prices: dict[str, Price] | None = None) -> dict[str, float]:
    """The dollars of one operation, by line (X-Ray excluded: it depends on the request rate, see `xray_traces`)."""
    p = prices or PRICES
    gb_seconds = sum(i.count * i.billed_ms / 1000 * i.memory_mb / 1024 for i in usage.invocations)
    log_bytes = sum(i.count * (i.log_bytes + PLATFORM_LOG_LINE_BYTES) for i in usage.invocations)
    log_bytes += usage.http_requests * ACCESS_LOG_LINE_BYTES
    return {
        "Lambda compute": gb_seconds * p["lambda_gb_second"].usd,
        "Lambda requests": sum(i.count for i in usage.invocations) * p["lambda_request"].usd,
        "API Gateway (HTTP API)": usage.http_requests * p["http_api_request"].usd,
        "DynamoDB writes": usage.dynamodb_wru * p["dynamodb_wru"].usd,
        "DynamoDB reads": usage.dynamodb_rru * p["dynamodb_rru"].usd,
        "SQS": usage.sqs_standard_requests * p["sqs_standard_request"].usd
        + usage.sqs_fifo_requests * p["sqs_fifo_request"].usd,
        "SNS": usage.sns_publishes * p["sns_publish"].usd,
        "Bedrock embeddings (Titan v2)": usage.embed_tokens * p["titan_embed_v2_input_token"].usd,
        "Bedrock LLM (Nova Lite)": usage.llm_input_tokens * p["nova_lite_input_token"].usd
        + usage.llm_output_tokens * p["nova_lite_output_token"].usd,
        "CloudWatch Logs": log_bytes / 1e9 * p["cloudwatch_logs_ingested_gb"].usd,
    }


def per_million(usage: Usage, prices: dict[str, Price] | None = None) -> dict[str, float]:
    lines = {name: usd * 1e6 for name, usd in cost_of(usage, prices).items()}
    return {**lines, "total": sum(lines.values())}


def xray_traces(requests_per_month: float) -> float:
    """Traces X-Ray records under its default rule (one request a second, then 5%), traffic spread evenly."""
    if requests_per_month <= 0:
        return 0.0
    rate = requests_per_month / SECONDS_PER_MONTH
    sampled_per_second = min(rate, XRAY_RESERVOIR_PER_SECOND) + XRAY_RATE * max(0.0, rate - XRAY_RESERVOIR_PER_SECOND)
    return sampled_per_second * SECONDS_PER_MONTH


@dataclass(frozen=True)
class Tenant:
    name: str
    memories: int  # stored
    searches_per_month: int
    adds_per_month: int  # the add requests of a month
    infer: bool = True  # adds through the LLM (the platform's default) or verbatim (infer=false)


@dataclass(frozen=True)
class Storage:
    """Bytes kept per memory in DynamoDB (every item an add leaves, keys and indexes included) and per request in
    the request log (kept RequestLogRetentionDays)."""

    dynamodb_bytes_per_memory: float
    request_log_bytes_per_request: float
    request_log_retention_days: int = 30
    log_retention_days: int = 30


def monthly_bill(
    tenant: Tenant,
    add: Usage,
    search: Usage,
    storage: Storage,
    index: SearchIndex | None = None,
    prices: dict[str, Price] | None = None,
) -> dict[str, float]:
    """The month's dollars by line (the per-operation lines summed over adds and searches, and what the stack costs
    by the hour or by the gigabyte) with their total."""
    p = prices or PRICES
    index = index or SearchIndex()
    lines: dict[str, float] = {}
    for usage, count in ((add, tenant.adds_per_month), (search, tenant.searches_per_month)):
        for name, usd in cost_of(usage, p).items():
            lines[name] = lines.get(name, 0.0) + usd * count
    indexing, searching = index.floor_ocus[0], index.search_ocus(tenant.memories)
    lines["OpenSearch Serverless OCUs"] = (indexing + searching) * HOURS_PER_MONTH * p["opensearch_ocu_hour"].usd
    lines["OpenSearch Serverless storage"] = index.storage_gb(tenant.memories) * p["opensearch_storage_gb_month"].usd
    requests = tenant.adds_per_month * add.http_requests + tenant.searches_per_month * search.http_requests
    log_gb = requests * storage.request_log_bytes_per_request * storage.request_log_retention_days / 30 / 1e9
    table_gb = tenant.memories * storage.dynamodb_bytes_per_memory / 1e9 + log_gb
    lines["DynamoDB storage and backups (PITR)"] = table_gb * (
        p["dynamodb_storage_gb_month"].usd + p["dynamodb_pitr_gb_month"].usd
    )
    # Lambda's pollers of the three queues with an event source (ingest FIFO, profiles, webhook deliveries), idle.
    polls = SQS_POLLERS_PER_QUEUE * SECONDS_PER_MONTH / SQS_POLL_SECONDS
    lines["SQS"] = lines.get("SQS", 0.0) + polls * (p["sqs_fifo_request"].usd + 2 * p["sqs_standard_request"].usd)
    lines["X-Ray traces"] = xray_traces(requests) * p["xray_trace_recorded"].usd
    ingested_gb = lines["CloudWatch Logs"] / p["cloudwatch_logs_ingested_gb"].usd
    lines["CloudWatch Logs"] += ingested_gb * storage.log_retention_days / 30 * p["cloudwatch_logs_stored_gb_month"].usd
    return {**lines, "total": sum(lines.values())}


def dominant(bill: dict[str, float]) -> tuple[str, float]:
    """The largest line and its share of the total."""
    name = max((n for n in bill if n != "total"), key=lambda n: bill[n])
    return name, bill[name] / bill["total"]


TENANTS = (
    Tenant("small", memories=10_000, searches_per_month=100_000, adds_per_month=10_000),
    Tenant("large", memories=10_000_000, searches_per_month=100_000_000, adds_per_month=10_000_000),
)


# ---- DynamoDB capacity from item sizes ---------------------------------------------------------------------------


_SCALAR_SIZES: dict[str, Callable[[Any], int]] = {
    "S": lambda v: len(v.encode("utf-8")),
    "N": lambda v: (len(v.lstrip("-").replace(".", "").lstrip("0") or "0") + 1) // 2 + 1,
    "B": len,
    "BOOL": lambda _v: 1,
    "NULL": lambda _v: 1,
}


def _value_size(value: Any) -> int:
    ((kind, v),) = value.items()
    if kind in _SCALAR_SIZES:
        return _SCALAR_SIZES[kind](v)
    if kind in ("SS", "NS", "BS"):
        return sum(_SCALAR_SIZES[kind[0]](x) for x in v)
    if kind == "L":
        return 3 + sum(1 + _value_size(x) for x in v)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + _value_size(x) for k, x in v.items())
    raise ValueError(kind)


def item_size(item: dict[str, Any] | None) -> int:
    """An item's size as DynamoDB counts it: each attribute's name and value (numbers about a byte per two digits)."""
    if not item:
        return 0
    return sum(len(name.encode("utf-8")) + _value_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / 1024))


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


@dataclass
class Table:
    keys: list[str]
    indexes: list[tuple[list[str], str, list[str]]]  # key attributes, projection type, included attributes

    def key_of(self, item: dict[str, Any]) -> dict[str, Any]:
        return {k: item[k] for k in self.keys}

    def projected(self, index: tuple[list[str], str, list[str]], item: dict[str, Any] | None) -> dict[str, Any] | None:
        """What `index` holds of `item` (None: the item is not in the index)."""
        keys, projection, included = index
        if item is None or any(k not in item for k in keys):
            return None
        if projection == "ALL":
            return item
        names = set(keys) | set(self.keys) | (set(included) if projection == "INCLUDE" else set())
        return {n: v for n, v in item.items() if n in names}

    def index_write_units(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> int:
        """The writes of the secondary indexes when an item goes from `old` to `new`."""
        units = 0
        for index in self.indexes:
            before, after = self.projected(index, old), self.projected(index, new)
            if before == after:
                continue
            if before is None or after is None:
                units += write_units(item_size(before or after))
            elif all(before[k] == after[k] for k in index[0]):
                units += write_units(max(item_size(before), item_size(after)))
            else:
                units += write_units(item_size(before)) + write_units(item_size(after))
        return units


@dataclass
class Call:
    service: str
    operation: str
    seconds: float
    cpu_seconds: float = 0.0  # the process's CPU time in the call (moto's work, here)
    rru: float = 0.0
    wru: float = 0.0
    requests: float = 1.0  # billed requests (SNS: one per message of a batch)
    fifo: bool = False
    queue: str = ""


class AwsMeter:
    """Every boto3 call of the process, while installed (BaseClient._make_api_call wrapped): its time and, for
    DynamoDB, the units it consumes, computed from the items it reads and writes (looked up in moto, unmetered)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.errors: list[str] = []  # what the meter failed to count (never the calls themselves)
        self._tables: dict[str, Table] = {}
        self._paused = threading.local()
        self._lock = threading.RLock()

    @contextmanager
    def installed(self) -> Iterator[AwsMeter]:
        from botocore.client import BaseClient

        original = BaseClient._make_api_call
        meter = self

        def metered(client: Any, operation: str, params: dict[str, Any]) -> Any:
            if getattr(meter._paused, "on", False):
                return original(client, operation, params)
            with meter._lock:  # moto's backends are not thread-safe
                wall, cpu = time.perf_counter(), time.process_time()
                try:
                    return meter._call(original, client, operation, params)
                finally:  # the call's Call, timed with the meter's own lookups: all of it is a stand-in's time
                    meter.calls[-1].seconds = time.perf_counter() - wall
                    meter.calls[-1].cpu_seconds = time.process_time() - cpu

        BaseClient._make_api_call = metered
        try:
            yield self
        finally:
            BaseClient._make_api_call = original

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The driver's own calls (what Lambda's event sources do, modelled apart) are not counted."""
        self._paused.on = True
        try:
            yield
        finally:
            self._paused.on = False

    def mark(self) -> int:
        return len(self.calls)

    def since(self, mark: int) -> list[Call]:
        with self._lock:
            return list(self.calls[mark:])

    def _table(self, original: Callable[..., Any], client: Any, name: str) -> Table:
        if name not in self._tables:
            described = original(client, "DescribeTable", {"TableName": name})["Table"]
            indexes = [
                (
                    [k["AttributeName"] for k in gsi["KeySchema"]],
                    gsi["Projection"]["ProjectionType"],
                    list(gsi["Projection"].get("NonKeyAttributes", [])),
                )
                for gsi in described.get("GlobalSecondaryIndexes", []) + described.get("LocalSecondaryIndexes", [])
            ]
            self._tables[name] = Table([k["AttributeName"] for k in described["KeySchema"]], indexes)
        return self._tables[name]

    def _call(self, original: Callable[..., Any], client: Any, operation: str, params: dict[str, Any]) -> Any:
        service = client.meta.service_model.service_name
        if service != "dynamodb":
            try:
                return original(client, operation, params)
            finally:
                self.calls.append(self._messaging(service, operation, params))

        try:  # (table, key, new item if given, in a transaction), with each item as it was
            writes = [
                (*write, self._get(original, client, write[0], write[1]))
                for write in self._writes(original, client, operation, params)
            ]
        except Exception as error:  # the meter must never change what the call does
            self.errors.append(f"{operation}: {error!r}")
            writes = []
        response: Any = None
        try:
            response = original(client, operation, params)
            return response
        finally:
            try:
                rru = self._reads(original, client, operation, params, response) if response is not None else 0.0
                self.calls.append(Call(service, operation, 0.0, rru=rru, wru=self._wru(original, client, writes)))
            except Exception as error:  # the meter must never change what the call does
                self.errors.append(f"{operation}: {error!r}")
                self.calls.append(Call(service, operation, 0.0))

    @staticmethod
    def _get(original: Callable[..., Any], client: Any, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        found: dict[str, Any] | None = original(
            client, "GetItem", {"TableName": table, "Key": key, "ConsistentRead": True}
        ).get("Item")
        return found

    def _wru(self, original: Callable[..., Any], client: Any, writes: list[tuple[Any, ...]]) -> float:
        """The write units of these writes, now done: the larger of each item before and after (twice in a
        transaction), and the writes of the indexes their change touches."""
        wru = 0.0
        for table, key, new, transaction, old in writes:
            after = new if new is not None else self._get(original, client, table, key)
            wru += write_units(max(item_size(old), item_size(after))) * (2 if transaction else 1)
            wru += self._table(original, client, table).index_write_units(old, after)
        return wru

    def _writes(
        self, original: Callable[..., Any], client: Any, operation: str, params: dict[str, Any]
    ) -> list[tuple[str, dict[str, Any], Any, bool]]:
        """(table, key, the new item when the call gives it whole, in a transaction) of each item it writes."""

        def key(table: str, item: dict[str, Any]) -> dict[str, Any]:
            return self._table(original, client, table).key_of(item)

        def put(table: str, item: dict[str, Any], transaction: bool) -> tuple[str, dict[str, Any], Any, bool]:
            return (table, key(table, item), item, transaction)

        if operation == "PutItem":
            return [put(params["TableName"], params["Item"], False)]
        if operation in ("UpdateItem", "DeleteItem"):
            return [(params["TableName"], params["Key"], None, False)]
        if operation == "BatchWriteItem":
            return [
                put(table, r["PutRequest"]["Item"], False)
                if "PutRequest" in r
                else (table, r["DeleteRequest"]["Key"], None, False)
                for table, requests in params["RequestItems"].items()
                for r in requests
            ]
        if operation == "TransactWriteItems":  # Update, Delete, ConditionCheck: the item as it is (a check is a write)
            bodies = [next(iter(entry.items())) for entry in params["TransactItems"]]
            return [
                put(b["TableName"], b["Item"], True) if kind == "Put" else (b["TableName"], b["Key"], None, True)
                for kind, b in bodies
            ]
        return []

    def _reads(
        self, original: Callable[..., Any], client: Any, operation: str, params: dict[str, Any], response: Any
    ) -> float:
        consistent = bool(params.get("ConsistentRead"))
        if operation == "GetItem":
            item = response.get("Item")
            if item is not None and "ProjectionExpression" in params:
                item = original(client, "GetItem", _whole_items(params)).get("Item", item)
            return read_units(item_size(item), consistent)
        if operation in ("Query", "Scan"):
            items = response.get("Items", [])
            if "ProjectionExpression" in params or params.get("Select") == "COUNT":
                items = original(client, operation, _whole_items(params))["Items"]  # billed on whole items
            total = sum(item_size(i) for i in items)
            scanned, count = response.get("ScannedCount", len(items)), max(1, len(items))
            if scanned > len(items) and items:
                total = total * scanned / count  # filtered out after being read: billed too
            return read_units(total, consistent)
        if operation == "BatchGetItem":
            units = 0.0
            for table, request in params["RequestItems"].items():
                found = response.get("Responses", {}).get(table, [])
                if "ProjectionExpression" in request and found:
                    whole = original(client, "BatchGetItem", {"RequestItems": {table: _whole_items(request)}})
                    found = whole.get("Responses", {}).get(table, found)
                units += sum(read_units(item_size(i), bool(request.get("ConsistentRead"))) for i in found)
                units += (len(request["Keys"]) - len(found)) * read_units(0, bool(request.get("ConsistentRead")))
            return units
        if operation == "TransactGetItems":
            return sum(2 * read_units(item_size(r.get("Item")), True) for r in response.get("Responses", []))
        return 0.0

    @staticmethod
    def _messaging(service: str, operation: str, params: dict[str, Any]) -> Call:
        queue = str(params.get("QueueUrl", ""))
        requests = 1.0
        if operation == "PublishBatch":
            requests = float(len(params.get("PublishBatchRequestEntries", [])))
        return Call(service, operation, 0.0, requests=requests, fifo=queue.endswith(".fifo"), queue=queue)


def _whole_items(params: dict[str, Any]) -> dict[str, Any]:
    """The same read without its projection (DynamoDB bills the whole items), keeping only the attribute names the
    other expressions still use."""
    kept = {k: v for k, v in params.items() if k not in ("ProjectionExpression", "Select")}
    names = kept.pop("ExpressionAttributeNames", None)
    if names:
        used = " ".join(str(kept.get(k, "")) for k in ("KeyConditionExpression", "FilterExpression"))
        still = {k: v for k, v in names.items() if k in used}
        if still:
            kept["ExpressionAttributeNames"] = still
    return kept


# ---- the stand-ins of Bedrock and OpenSearch, metered --------------------------------------------------------------


class Tokens:
    """Token counts with the BERT WordPiece tokenizer the local embedder ships (no special tokens, no truncation):
    the proxy for Titan's and Nova's tokenizers."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        from mnemo.adapters.embedders.local_minilm import default_model_dir

        self._tokenizer = Tokenizer.from_file(str(default_model_dir() / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


@dataclass
class Stopwatch:
    calls: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the process's CPU time
    tokens_in: int = 0
    tokens_out: int = 0

    def snapshot(self) -> Stopwatch:
        return replace(self, calls=Counter(self.calls))

    def minus(self, earlier: Stopwatch) -> Stopwatch:
        return Stopwatch(
            self.calls - earlier.calls,
            self.seconds - earlier.seconds,
            self.cpu_seconds - earlier.cpu_seconds,
            self.tokens_in - earlier.tokens_in,
            self.tokens_out - earlier.tokens_out,
        )

    @contextmanager
    def timing(self) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - wall
            self.cpu_seconds += time.process_time() - cpu


class MeteredEmbedder:
    """Bedrock's embedder on Lambda, the local MiniLM here: its calls timed, its texts counted in tokens."""

    def __init__(self, inner: Any, tokens: Tokens) -> None:
        self._inner = inner
        self._tokens = tokens
        self.watch = Stopwatch()

    @property
    def name(self) -> str:
        name: str = self._inner.name
        return name

    @property
    def dimension(self) -> int:
        dimension: int = self._inner.dimension
        return dimension

    def embed(self, texts: list[str]) -> Any:
        with self.watch.timing():
            self.watch.calls["embed"] += 1
            self.watch.tokens_in += sum(self._tokens.count(t) for t in texts)
            return self._inner.embed(texts)


DECISION_MARK = "Existing memories (id and text):"


class ScriptedLLM:
    """Nova Lite's stand-in: extraction answers the add's message as one fact, the decision adds it. Every prompt and
    reply counted in tokens; unknown prompts are answered `{}` and counted as `other`."""

    name = "scripted"

    def __init__(self, tokens: Tokens) -> None:
        self._tokens = tokens
        self.fact = ""
        self.watch = Stopwatch()

    def complete(self, messages: list[Any], *, json_mode: bool = False, schema: Any = None) -> Completion:
        with self.watch.timing():
            return self._complete(messages)

    def _complete(self, messages: list[Any]) -> Completion:
        prompt = "\n".join(str(m["content"]) for m in messages)
        if DECISION_MARK in prompt:
            kind, reply = "decision", json.dumps({"memory": [{"id": "new", "text": self.fact, "event": "ADD"}]})
        elif '"facts"' in prompt or "facts" in prompt.lower():
            kind, reply = "extraction", json.dumps({"facts": [self.fact]})
        else:
            kind, reply = "other", "{}"
        self.watch.calls[kind] += 1
        tokens_in = self._tokens.count(prompt) + 4 * len(messages)  # a few tokens of role markup each
        tokens_out = self._tokens.count(reply)
        self.watch.tokens_in += tokens_in
        self.watch.tokens_out += tokens_out
        return Completion(reply, LLMUsage(1, tokens_in, tokens_out))  # the usage a provider reports with its reply


class MeteredIndex:
    """The in-process index standing in for OpenSearch: each call counted (search or write) and timed."""

    READS = frozenset({"search", "keyword_search", "get", "count", "list", "find", "ids", "exists", "vectors"})

    def __init__(self, inner: Any, watch: Stopwatch) -> None:
        self._inner = inner
        self._watch = watch

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute) or name.startswith("_"):
            return attribute
        watch = self._watch

        def timed(*args: Any, **kwargs: Any) -> Any:
            with watch.timing():
                watch.calls[f"{'search' if any(r in name for r in MeteredIndex.READS) else 'write'}:{name}"] += 1
                return attribute(*args, **kwargs)

        return timed


class CountingStream:
    """sys.stdout while the functions run: what they log (Powertools' JSON lines) counted, not shown."""

    def __init__(self) -> None:
        self.bytes = 0
        self.errors: list[str] = []  # the ERROR lines: a run that logs one measured a failure, not the service

    def write(self, text: str) -> int:
        self.bytes += len(text.encode("utf-8"))
        if '"level":"ERROR"' in text.replace(" ", ""):
            self.errors.append(text[:2000])
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


# ---- the measurement -----------------------------------------------------------------------------------------------

FUNCTIONS = {  # template.yaml's logical ids of the functions an add or a search runs
    "platform": "PlatformFunction",
    "ingest_worker": "IngestWorkerFunction",
    "webhook_delivery": "WebhookDeliveryFunction",
}


def template_memory_sizes(template: Path = ROOT / "template.yaml") -> dict[str, int]:
    """MemorySize of each function of template.yaml (Globals' when it sets none)."""
    text = template.read_text()
    globals_ = re.search(r"^Globals:.*?^\s+MemorySize:\s*(\d+)", text, re.S | re.M)
    if globals_ is None:
        raise ValueError("template.yaml sets no MemorySize in Globals")
    default = int(globals_.group(1))
    sizes: dict[str, int] = {}
    for match in re.finditer(
        r"^  (\w+Function):\n    Type: AWS::Serverless::Function\n(.*?)(?=^  \w+:\n)", text, re.S | re.M
    ):
        own = re.search(r"^      MemorySize:\s*(\d+)", match.group(2), re.M)
        sizes[match.group(1)] = int(own.group(1)) if own else default
    return sizes


@dataclass
class Sample:
    """One handler invocation: wall time, and what it spent waiting on stand-ins and calling AWS."""

    function: str
    wall_s: float
    process_cpu_s: float  # the process's CPU time (the app runs in a worker thread): not stretched by a busy machine
    calls: list[Call]
    embed: Stopwatch
    llm: Stopwatch
    index: Stopwatch
    log_bytes: int

    def aws_seconds(self) -> float:
        return sum(c.seconds for c in self.calls)

    def own_wall_s(self) -> float:
        """mnemo's own wall time: without moto, the local embedder, the in-process index and the LLM."""
        return max(0.0, self.wall_s - self.aws_seconds() - self.embed.seconds - self.llm.seconds - self.index.seconds)

    def cpu_s(self) -> float:
        """mnemo's own CPU time: the process's, without what moto, the local embedder, the in-process index and the
        LLM spent of it."""
        stand_ins = sum(c.cpu_seconds for c in self.calls) + sum(
            w.cpu_seconds for w in (self.embed, self.llm, self.index)
        )
        return max(0.0, self.process_cpu_s - stand_ins) + len(self.calls) * BOTOCORE_CPU_MS_PER_CALL / 1000

    def waits_ms(self) -> float:
        """The round trips the same calls take on AWS (ROUND_TRIP_MS)."""
        waits = 0.0
        for call in self.calls:
            if call.service == "dynamodb":
                key = "dynamodb_transaction" if call.operation.startswith("Transact") else "dynamodb"
                waits += ROUND_TRIP_MS[key]
            else:
                waits += ROUND_TRIP_MS.get(call.service, ROUND_TRIP_MS["sqs"])
        waits += self.embed.calls["embed"] * ROUND_TRIP_MS["bedrock_embed"]
        for name, count in self.index.calls.items():
            waits += count * ROUND_TRIP_MS["opensearch_search" if name.startswith("search") else "opensearch_write"]
        llm_calls = sum(self.llm.calls.values())
        waits += llm_calls * ROUND_TRIP_MS["llm_call_base"]
        waits += self.llm.tokens_out / ROUND_TRIP_MS["llm_output_tokens_per_second"] * 1000
        return waits


class Harness:
    """The stack under moto with the platform function, the ingest worker and the webhook delivery function, as
    tests/handlers runs them; every invocation metered."""

    def __init__(self, work: Path) -> None:
        from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder

        self.tokens = Tokens()
        self.embedder = MeteredEmbedder(LocalMiniLMEmbedder(), self.tokens)
        self.llm = ScriptedLLM(self.tokens)
        self.index_watch = Stopwatch()
        self.meter = AwsMeter()
        self.stdout = CountingStream()
        self.work = work
        self.samples: dict[str, list[Sample]] = {}

    @contextmanager
    def running(self) -> Iterator[Harness]:
        from moto import mock_aws
        from tests.support.aws_backend import InProcessIndexes
        from tests.support.lambda_aws import BedrockAsLocalCatalog, create_stack, environment
        from tests.support.webhook_aws import create_webhook_queues

        from mnemo.composition.aws_functions import build_aws_webhook_delivery
        from mnemo.composition.container import build_container

        llm = self.llm

        class Catalog(BedrockAsLocalCatalog):
            def build_llm(self, provider: str, config: dict[str, Any] | None) -> Any:
                return llm if provider == "bedrock" else super().build_llm(provider, config)

        with mock_aws():
            self.stack = create_stack()
            self.queues = create_webhook_queues(self.stack)
            env = {
                **self.stack.env,
                **self.queues.env,
                "MNEMO_LLM_PROVIDER": "bedrock",  # the template's default: Nova Lite (scripted here)
                "MNEMO_LLM_CONFIG": '{"model": "amazon.nova-lite-v1:0"}',
                "POWERTOOLS_SERVICE_NAME": "mnemo",
            }
            indexes = InProcessIndexes(self.work, self.embedder.dimension)
            watch = self.index_watch

            def index_for(name: str) -> Any:
                return MeteredIndex(indexes.named(name), watch)

            catalog = Catalog(self.embedder)
            saved = sys.stdout
            sys.stdout = self.stdout
            try:
                with environment(env), self.meter.installed():
                    self.platform = importlib.import_module("functions.platform.app")
                    self.worker = importlib.import_module("functions.ingest_worker.app")
                    self.delivery = importlib.import_module("functions.webhook_delivery.app")
                    self.platform.entry.function.reset(
                        lambda: build_container(catalog=catalog, namespace_index=index_for)
                    )
                    self.worker.entry.container.reset(
                        lambda: build_container(catalog=catalog, serves_http=False, namespace_index=index_for)
                    )
                    self.delivery.entry.runtime.reset(build_aws_webhook_delivery)
                    with self.meter.paused():
                        container = self.platform.entry.function.container.get()
                        self.tenant = container.platform.tenancy.bootstrap("cost@example.com", "Cost")
                    yield self
                    self.platform.entry.function.reset()
                    self.worker.entry.container.reset()
                    self.delivery.entry.runtime.reset()
            finally:
                sys.stdout = saved
                indexes.close()

    def invoke(self, function: str, call: Callable[[], Any], record: str | None) -> Any:
        mark = self.meter.mark()
        embed, llm, index = self.embedder.watch.snapshot(), self.llm.watch.snapshot(), self.index_watch.snapshot()
        logged = self.stdout.bytes
        start, cpu = time.perf_counter(), time.process_time()
        result = call()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        if record is not None:
            sample = Sample(
                function,
                wall,
                cpu,
                self.meter.since(mark),
                self.embedder.watch.minus(embed),
                self.llm.watch.minus(llm),
                self.index_watch.minus(index),
                self.stdout.bytes - logged,
            )
            self.samples.setdefault(record, []).append(sample)
        return result

    def http(self, event: str, body: dict[str, Any], record: str | None) -> dict[str, Any]:
        from tests.support.lambda_aws import FakeLambdaContext, HttpResponse, load_event

        loaded = load_event(f"platform/{event}", project_key=self.tenant.api_key)
        loaded["body"] = json.dumps(body)
        context = FakeLambdaContext(function_name="platform", memory_limit_in_mb=1024)
        raw = self.invoke("platform", lambda: self.platform.handler(loaded, context), record)
        response = HttpResponse.of(raw)
        assert response.status == 200, response.body
        answer: dict[str, Any] = response.body
        return answer

    def run_queue(self, url: str, arn: str, function: str, record: str | None, batch: int) -> int:
        """What Lambda's SQS event source does: receive a batch, invoke the handler, delete what succeeded."""
        from tests.support import moto_aws
        from tests.support.lambda_aws import FakeLambdaContext, sqs_record

        handled = 0
        while True:
            with self.meter.paused():
                reply = moto_aws.client("sqs").receive_message(
                    QueueUrl=url, MaxNumberOfMessages=batch, AttributeNames=["All"], MessageAttributeNames=["All"]
                )
            messages = reply.get("Messages", [])
            if not messages:
                return handled
            event = {"Records": [sqs_record(m, arn) for m in messages]}
            module = self.worker if function == "ingest_worker" else self.delivery
            context = FakeLambdaContext(function_name=function)
            answer = self.invoke(function, functools.partial(module.handler, event, context), record)
            failed = {f["itemIdentifier"] for f in answer.get("batchItemFailures", [])}
            assert not failed, answer
            with self.meter.paused():
                for message in messages:
                    moto_aws.client("sqs").delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            handled += len(messages)

    def deliver_events(self, record: str | None) -> int:
        """The webhook delivery function on what the topic delivered to its queue (batches of 10, as deployed)."""
        return self.run_queue(self.queues.url, self.queues.arn, "webhook_delivery", record, 10)

    def run_ingest(self, record: str | None) -> int:
        from tests.support.lambda_aws import INGEST_QUEUE_ARN

        return self.run_queue(self.stack.queue_url, INGEST_QUEUE_ARN, "ingest_worker", record, 1)


def _load() -> dict[str, Any]:
    stat = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(t) for t in stat]
    return {"loadavg": list(os.getloadavg()), "busy_ticks": sum(ticks) - ticks[3] - ticks[4], "ticks": sum(ticks)}


def usage_of(
    samples: dict[str, list[Sample]], operation: str, count: int, sizes: dict[str, int]
) -> tuple[Usage, dict[str, Any]]:
    """The average use of one `operation` from its samples (`operation/function` keys), and the details."""
    invocations: list[Invocation] = []
    calls: list[Call] = []
    details: dict[str, Any] = {"operations": count, "functions": {}}
    embed_tokens = llm_in = llm_out = 0
    queue_polls = {"fifo": 0.0, "standard": 0.0}
    for key, group in sorted(samples.items()):
        if not key.startswith(f"{operation}/"):
            continue
        function = key.split("/", 1)[1]
        logical = FUNCTIONS[function]
        memory = sizes[logical]
        scale = max(1.0, LAMBDA_FULL_VCPU_MB / memory)
        modeled = [s.cpu_s() * 1000 * scale + s.waits_ms() for s in group]
        billed = math.ceil(statistics.median(modeled))
        per_operation = len(group) / count
        log_bytes = statistics.mean(s.log_bytes for s in group)
        invocations.append(Invocation(logical, memory, per_operation, billed, log_bytes))
        if function != "platform":  # an SQS event source: one ReceiveMessage and one DeleteMessageBatch a batch
            queue_polls["fifo" if function == "ingest_worker" else "standard"] += 2 * per_operation
        for sample in group:
            calls.extend(sample.calls)
            embed_tokens += sample.embed.tokens_in
            llm_in += sample.llm.tokens_in
            llm_out += sample.llm.tokens_out
        details["functions"][logical] = {
            "memory_mb": memory,
            "invocations_per_operation": per_operation,
            "measured_wall_ms_p50": statistics.median(s.wall_s for s in group) * 1000,
            "measured_cpu_ms_p50": statistics.median(s.cpu_s() for s in group) * 1000,
            "measured_own_wall_ms_p50": statistics.median(s.own_wall_s() for s in group) * 1000,
            "cpu_scale": scale,
            "round_trips_ms_p50": statistics.median(s.waits_ms() for s in group),
            "moto_ms_p50": statistics.median(s.aws_seconds() for s in group) * 1000,
            "local_embedder_ms_p50": statistics.median(s.embed.seconds for s in group) * 1000,
            "inprocess_index_ms_p50": statistics.median(s.index.seconds for s in group) * 1000,
            "billed_ms_modelled_p50": billed,
            "log_bytes_mean": log_bytes,
            "aws_calls_per_invocation": dict(
                sorted(Counter(f"{c.service}:{c.operation}" for s in group for c in s.calls).items())
            ),
            "index_calls_per_invocation": dict(sum((s.index.calls for s in group), Counter())),
            "llm_calls_per_invocation": dict(sum((s.llm.calls for s in group), Counter())),
        }
        for name in ("aws_calls_per_invocation", "index_calls_per_invocation", "llm_calls_per_invocation"):
            details["functions"][logical][name] = {
                k: round(v / len(group), 3) for k, v in details["functions"][logical][name].items()
            }
    sqs = [c for c in calls if c.service == "sqs"]
    usage = Usage(
        http_requests=1.0 if any(k == f"{operation}/platform" for k in samples) else 0.0,
        invocations=tuple(invocations),
        dynamodb_rru=sum(c.rru for c in calls) / count,
        dynamodb_wru=sum(c.wru for c in calls) / count,
        sqs_standard_requests=sum(c.requests for c in sqs if not c.fifo) / count + queue_polls["standard"],
        sqs_fifo_requests=sum(c.requests for c in sqs if c.fifo) / count + queue_polls["fifo"],
        sns_publishes=sum(c.requests for c in calls if c.service == "sns") / count,
        embed_tokens=embed_tokens / count,
        llm_input_tokens=llm_in / count,
        llm_output_tokens=llm_out / count,
    )
    return usage, details


def _scan_bytes(table: str) -> tuple[int, int]:
    from tests.support import moto_aws

    total = items = 0
    for page in moto_aws.client("dynamodb").get_paginator("scan").paginate(TableName=table):
        total += sum(item_size(i) + 100 for i in page["Items"])  # DynamoDB bills 100 bytes of overhead per item
        items += len(page["Items"])
    return total, items


def measure(adds: int = 100, searches: int = 500, warmup: int = 5) -> dict[str, Any]:
    """Run the handlers and return each operation's Usage (as dicts) with the details and the storage per memory."""
    from bench.corpus import generate

    items = generate(2 * (adds + warmup), users=10, seed=18)
    sync_items, async_items = items[: adds + warmup], items[adds + warmup :]
    load_before = _load()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work, Harness(Path(work)).running() as h:

        def body(item: Any, infer: bool) -> dict[str, Any]:
            made: dict[str, Any] = {"messages": [{"role": "user", "content": item.text}], "user_id": item.user_id}
            return made if infer else {**made, "infer": False}

        for n, item in enumerate(sync_items):
            record = None if n < warmup else "add_infer_false"
            added = h.http("add_now", body(item, infer=False), f"{record}/platform" if record else None)
            assert added["status"] == "SUCCEEDED", added
            h.deliver_events(f"{record}/webhook_delivery" if record else None)
        for n, item in enumerate(async_items):
            record = None if n < warmup else "add_infer_true"
            h.llm.fact = item.text.rstrip(".")
            queued = h.http("add_async", body(item, infer=True), f"{record}/platform" if record else None)
            assert queued["status"] == "PENDING", queued
            assert h.run_ingest(f"{record}/ingest_worker" if record else None) == 1
            h.deliver_events(f"{record}/webhook_delivery" if record else None)
        for n in range(searches + warmup):
            item = items[n % len(items)]
            query = {"query": item.question, "filters": {"user_id": item.user_id}, "top_k": 5}
            found = h.http("search_v3", query, "search/platform" if n >= warmup else None)
            assert "results" in found, found
        with h.meter.paused():
            memories_bytes, memories_items = _scan_bytes(h.stack.memories_table)
            accounts_bytes, _ = _scan_bytes(h.stack.accounts_table)
            log_bytes, log_items = _scan_bytes(h.stack.request_log_table)
        samples = h.samples
        if h.stdout.errors or h.meter.errors:
            raise RuntimeError(f"the run failed: {h.meter.errors[:3]} {h.stdout.errors[:1]}")
        profile_sends = sum(
            1
            for group in samples.values()
            for s in group
            for c in s.calls
            if c.operation == "SendMessage" and c.queue == h.stack.profile_queue_url
        )
    elapsed = time.perf_counter() - started
    load_after = _load()
    sizes = template_memory_sizes()
    usages: dict[str, Any] = {}
    details: dict[str, Any] = {}
    for operation, count in (("add_infer_false", adds), ("add_infer_true", adds), ("search", searches)):
        usage, detail = usage_of(samples, operation, count, sizes)
        usages[operation], details[operation] = usage, detail
    stored = 2 * (adds + warmup)
    busy = (load_after["busy_ticks"] - load_before["busy_ticks"]) / max(1, load_after["ticks"] - load_before["ticks"])
    return {
        "usage": {k: asdict(v) for k, v in usages.items()},
        # Profiles are regenerated only in projects that enable them (off by default): none here.
        "profile_messages_sent_per_add": profile_sends / (2 * adds),
        "details": details,
        "storage": asdict(
            Storage(
                dynamodb_bytes_per_memory=(memories_bytes + accounts_bytes) / stored,
                request_log_bytes_per_request=log_bytes / max(1, log_items),
            )
        ),
        "storage_items": {"memories_table_items": memories_items, "request_log_items": log_items, "memories": stored},
        "run": {
            "adds_each_kind": adds,
            "searches": searches,
            "warmup_each": warmup,
            "seconds": elapsed,
            "loadavg_before": load_before["loadavg"],
            "loadavg_after": load_after["loadavg"],
            "machine_busy_share": busy,
            "cpus": os.cpu_count(),
        },
    }


# ---- the report ----------------------------------------------------------------------------------------------------


def _usage(raw: dict[str, Any]) -> Usage:
    return Usage(**{**raw, "invocations": tuple(Invocation(**i) for i in raw["invocations"])})


def report(measured: dict[str, Any], index: SearchIndex | None = None) -> dict[str, Any]:
    """Per-million costs and the tenants' monthly bills from `measure()`'s figures."""
    index = index or SearchIndex()
    usages = {name: _usage(raw) for name, raw in measured["usage"].items()}
    storage = Storage(**measured["storage"])
    millions = {name: per_million(u) for name, u in usages.items()}
    bills: dict[str, Any] = {}
    for tenant in TENANTS:
        for standby in (False, True):
            collection = replace(index, standby_replicas=standby)
            add = usages["add_infer_true" if tenant.infer else "add_infer_false"]
            bill = monthly_bill(tenant, add, usages["search"], storage, collection)
            line, share = dominant(bill)
            bills[f"{tenant.name}{'-standby' if standby else ''}"] = {
                "tenant": asdict(tenant),
                "standby_replicas": standby,
                "search_ocus": collection.search_ocus(tenant.memories),
                "indexing_ocus": collection.floor_ocus[0],
                "lines": bill,
                "dominant": line,
                "dominant_share": share,
                "without_opensearch": bill["total"]
                - bill["OpenSearch Serverless OCUs"]
                - bill["OpenSearch Serverless storage"],
            }
    return {
        "per_million": millions,
        "usage_per_operation": {name: asdict(u) for name, u in usages.items()},
        "monthly": bills,
        "prices": {"date": PRICE_DATE, "note": PRICE_NOTE, "table": {k: asdict(v) for k, v in PRICES.items()}},
        "assumptions": {
            "round_trip_ms": ROUND_TRIP_MS,
            "lambda_full_vcpu_mb": LAMBDA_FULL_VCPU_MB,
            "botocore_cpu_ms_per_call": BOTOCORE_CPU_MS_PER_CALL,
            "search_index": asdict(index) | {"hnsw_bytes_per_vector": index.hnsw_bytes_per_vector()},
            "lambda_log_lines_bytes": PLATFORM_LOG_LINE_BYTES,
            "access_log_line_bytes": ACCESS_LOG_LINE_BYTES,
            "xray_sampling": {"reservoir_per_second": XRAY_RESERVOIR_PER_SECOND, "rate": XRAY_RATE},
            "sqs_idle_polling": {"pollers_per_queue": SQS_POLLERS_PER_QUEUE, "poll_seconds": SQS_POLL_SECONDS},
        },
    }


def run(adds: int = 100, searches: int = 500) -> dict[str, Any]:
    measured = measure(adds=adds, searches=searches)
    return {"measured": measured, **report(measured)}


def _money(usd: float) -> str:
    return f"${usd:,.2f}" if usd >= 0.01 or usd == 0 else f"${usd:.4f}"


def summary(figures: dict[str, Any]) -> str:
    lines = [f"prices: {PRICE_NOTE}"]
    for name, costs in figures["per_million"].items():
        top = sorted(((v, k) for k, v in costs.items() if k != "total"), reverse=True)[:3]
        lines.append(
            f"per million {name}: {_money(costs['total'])}  (" + ", ".join(f"{k} {_money(v)}" for v, k in top) + ")"
        )
    for name, bill in figures["monthly"].items():
        lines.append(
            f"{name}: {_money(bill['lines']['total'])}/month, dominant: {bill['dominant']} "
            f"({bill['dominant_share']:.0%}); without OpenSearch {_money(bill['without_opensearch'])}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cost")
    parser.add_argument("--adds", type=int, default=100, help="Adds measured of each kind (infer false and true).")
    parser.add_argument("--searches", type=int, default=500)
    parser.add_argument("--json", action="store_true", help="Print every figure as JSON.")
    parser.add_argument("--out", type=Path, default=None, help="Also write the figures here.")
    args = parser.parse_args(argv)
    figures = run(adds=args.adds, searches=args.searches)
    text = json.dumps(figures, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text if args.json else summary(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
