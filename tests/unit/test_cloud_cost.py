"""bench/cost.py's arithmetic on inputs whose answer is worked out by hand: the price of one operation's use, the
DynamoDB units of items of known sizes, the OpenSearch Serverless capacity and the monthly bill."""

from __future__ import annotations

import math

import pytest
from bench.cost import (
    HOURS_PER_MONTH,
    PRICES,
    SECONDS_PER_MONTH,
    Invocation,
    SearchIndex,
    Storage,
    Table,
    Tenant,
    Usage,
    cost_of,
    dominant,
    item_size,
    monthly_bill,
    per_million,
    read_units,
    template_memory_sizes,
    write_units,
    xray_traces,
)

ADD = Usage(
    http_requests=1,
    invocations=(Invocation("PlatformFunction", 1024, 1, 500), Invocation("WebhookDeliveryFunction", 512, 2, 100)),
    dynamodb_rru=10,
    dynamodb_wru=20,
    sqs_standard_requests=2,
    sqs_fifo_requests=3,
    sns_publishes=1,
    embed_tokens=1000,
    llm_input_tokens=1000,
    llm_output_tokens=100,
)


def test_one_operation_costs_what_each_line_counts_at_list_price() -> None:
    costs = cost_of(ADD)
    # 0.5 s at 1 GB, and two 0.1 s invocations at 0.5 GB: 0.6 GB-s
    assert costs["Lambda compute"] == pytest.approx(0.6 * 0.0000166667)
    assert costs["Lambda requests"] == pytest.approx(3 * 0.20e-6)
    assert costs["API Gateway (HTTP API)"] == pytest.approx(1.00e-6)
    assert costs["DynamoDB writes"] == pytest.approx(20 * 0.625e-6)
    assert costs["DynamoDB reads"] == pytest.approx(10 * 0.125e-6)
    assert costs["SQS"] == pytest.approx(2 * 0.40e-6 + 3 * 0.50e-6)
    assert costs["SNS"] == pytest.approx(0.50e-6)
    assert costs["Bedrock embeddings (Titan v2)"] == pytest.approx(1000 * 0.02e-6)
    assert costs["Bedrock LLM (Nova Lite)"] == pytest.approx(1000 * 0.06e-6 + 100 * 0.24e-6)
    # each invocation's log bytes and Lambda's 300 bytes of START/END/REPORT lines, with the access log line
    assert costs["CloudWatch Logs"] == pytest.approx((3 * 300 + 260) / 1e9 * 0.50)
    million = per_million(ADD)
    assert million["total"] == pytest.approx(sum(costs.values()) * 1e6)
    assert million["DynamoDB writes"] == pytest.approx(12.5)


def test_dynamodb_units_follow_item_sizes() -> None:
    item = {"pk": {"S": "abc"}, "n": {"N": "12345"}, "ok": {"BOOL": True}, "tags": {"L": [{"S": "ab"}]}}
    # pk 2+3; n 1+(5 digits: 3 bytes)+1; ok 2+1; tags 4 + 3 + (1 + 2)
    assert item_size(item) == 5 + 5 + 3 + 10
    assert item_size(None) == 0
    assert write_units(0) == 1 and write_units(1024) == 1 and write_units(1025) == 2
    assert read_units(4096, consistent=False) == 0.5 and read_units(4097, consistent=True) == 2.0
    table = Table(keys=["pk"], indexes=[(["gsi"], "KEYS_ONLY", [])])
    old = {"pk": {"S": "a"}, "gsi": {"S": "x"}, "body": {"S": "y" * 2000}}
    assert table.index_write_units(None, old) == 1  # the index gains an entry
    assert table.index_write_units(old, {**old, "body": {"S": "z"}}) == 0  # its projection did not change
    assert table.index_write_units(old, {**old, "gsi": {"S": "w"}}) == 2  # moved: one delete, one put


def test_the_search_collection_needs_memory_for_its_graphs_beyond_the_floor() -> None:
    index = SearchIndex()
    assert index.floor_ocus == (0.5, 0.5) and SearchIndex(standby_replicas=True).floor_ocus == (1.0, 1.0)
    assert index.hnsw_bytes_per_vector() == pytest.approx(1.1 * (4 * 1024 + 8 * 16))
    assert index.search_ocus(10_000) == 0.5
    graphs_gib = 10_000_000 * index.hnsw_bytes_per_vector() / 2**30
    expected = math.ceil(graphs_gib / 3.0 * 2) / 2
    assert index.search_ocus(10_000_000) == expected
    assert SearchIndex(standby_replicas=True).search_ocus(10_000_000) == 2 * expected


def test_xray_records_every_request_below_one_a_second_and_five_percent_above() -> None:
    assert xray_traces(100_000) == pytest.approx(100_000)
    rate = 10.0
    assert xray_traces(rate * SECONDS_PER_MONTH) == pytest.approx((1 + 0.05 * 9) * SECONDS_PER_MONTH)


def test_a_months_bill_sums_the_operations_and_the_capacity_and_names_its_largest_line() -> None:
    tenant = Tenant("t", memories=1_000, searches_per_month=2_000, adds_per_month=1_000)
    search = Usage(http_requests=1, dynamodb_rru=4)
    storage = Storage(dynamodb_bytes_per_memory=1e6, request_log_bytes_per_request=0.0)
    bill = monthly_bill(tenant, ADD, search, storage)
    assert bill["DynamoDB reads"] == pytest.approx((1_000 * 10 + 2_000 * 4) * 0.125e-6)
    assert bill["API Gateway (HTTP API)"] == pytest.approx(3_000 * 1.00e-6)
    assert bill["OpenSearch Serverless OCUs"] == pytest.approx(1.0 * HOURS_PER_MONTH * 0.24)
    assert bill["DynamoDB storage and backups (PITR)"] == pytest.approx(1.0 * (0.25 + 0.20))  # 1 GB
    polls = 5 * SECONDS_PER_MONTH / 20
    assert bill["SQS"] == pytest.approx(1_000 * cost_of(ADD)["SQS"] + polls * (0.50e-6 + 2 * 0.40e-6))
    assert bill["total"] == pytest.approx(sum(v for k, v in bill.items() if k != "total"))
    line, share = dominant(bill)
    assert line == "OpenSearch Serverless OCUs" and share == pytest.approx(175.2 / bill["total"])


def test_the_price_table_is_dated_and_the_memory_sizes_come_from_the_template() -> None:
    assert all(p.usd > 0 and p.unit for p in PRICES.values())
    sizes = template_memory_sizes()
    assert sizes["PlatformFunction"] == 1024 and sizes["IngestWorkerFunction"] == 1024
    assert sizes["WebhookDeliveryFunction"] == 512 and sizes["AuthFunction"] == 1769
