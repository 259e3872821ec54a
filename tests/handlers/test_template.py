"""template.yaml against the code: the tables declare exactly the keys and indexes the DynamoDB adapters create,
each function's API routes are exactly its route group's, every route and message kind has a sample event, and
the queue, DLQ and TTL settings are as the deployment needs them."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.routing import APIRoute

from mnemo.adapters.dynamodb.schema import table_definition
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE, key_table
from mnemo.api.route_groups import GROUP_ROUTERS, load_routers
from tests.support import moto_aws
from tests.support.lambda_aws import EVENTS, FUNCTIONS, ROOT


class _CloudFormationLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (!Ref, !Sub, !If, ...) read as {"Ref": ...}-style mappings."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CloudFormationLoader.add_multi_constructor("!", _tag)

TEMPLATE: dict[str, Any] = yaml.load((ROOT / "template.yaml").read_text(), Loader=_CloudFormationLoader)
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTION_GROUPS = {
    name: Path(r["Properties"]["CodeUri"]).name
    for name, r in RESOURCES.items()
    if r["Type"] == "AWS::Serverless::Function"
}
HTTP_GROUPS = {name: group for name, group in FUNCTION_GROUPS.items() if group in GROUP_ROUTERS}
EXPLORER = {("GET", "/"), ("GET", "/docs"), ("GET", "/openapi.json")}  # every app has them; the admin's is routed


def _table(properties: dict[str, Any]) -> dict[str, Any]:
    """The parts of a table that must match the adapter's CreateTable request, in a comparable form."""
    indexes = {
        i["IndexName"]: (
            [(k["AttributeName"], k["KeyType"]) for k in i["KeySchema"]],
            i["Projection"]["ProjectionType"],
            sorted(i["Projection"].get("NonKeyAttributes", [])),
        )
        for i in properties.get("GlobalSecondaryIndexes", [])
    }
    return {
        "attributes": sorted((a["AttributeName"], a["AttributeType"]) for a in properties["AttributeDefinitions"]),
        "keys": [(k["AttributeName"], k["KeyType"]) for k in properties["KeySchema"]],
        "indexes": indexes,
        "billing": properties["BillingMode"],
    }


@pytest.mark.parametrize(
    ("resource", "definition", "ttl"),
    [
        ("MemoriesTable", table_definition("x"), None),
        ("AccountsTable", key_table("x"), TTL_ATTRIBUTE),
        ("RequestLogTable", key_table("x"), TTL_ATTRIBUTE),
    ],
)
def test_each_table_declares_exactly_what_its_adapter_creates(
    resource: str, definition: dict[str, Any], ttl: str | None
) -> None:
    properties = RESOURCES[resource]["Properties"]
    assert _table(properties) == _table(definition)
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["SSESpecification"] == {"SSEEnabled": True}
    assert properties.get("TimeToLiveSpecification") == (
        None if ttl is None else {"AttributeName": ttl, "Enabled": True}
    )


def test_the_jobs_table_is_keyed_as_powertools_idempotency_writes_it() -> None:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    layer = DynamoDBPersistenceLayer(table_name="x", boto3_client=moto_aws.client("dynamodb"))  # never called
    properties = RESOURCES["JobsTable"]["Properties"]
    assert properties["KeySchema"] == [{"AttributeName": layer.key_attr, "KeyType": "HASH"}]
    assert properties["TimeToLiveSpecification"] == {"AttributeName": layer.expiry_attr, "Enabled": True}
    assert properties["BillingMode"] == "PAY_PER_REQUEST"


def _api_routes(function: str) -> list[tuple[str, str]]:
    events = RESOURCES[function]["Properties"]["Events"].values()
    return [(e["Properties"]["Method"], e["Properties"]["Path"]) for e in events if e["Type"] == "HttpApi"]


def _matches(api_route: tuple[str, str], method: str, path: str) -> bool:
    """Whether API Gateway sends `method path` on this route ({proxy+} is greedy, a {name} is one segment)."""
    api_method, api_path = api_route
    pattern = re.escape(api_path).replace(re.escape("{proxy+}"), ".+")
    pattern = re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", pattern)
    return api_method in ("ANY", method) and re.fullmatch(pattern, path) is not None


def _group_routes(group: str) -> list[tuple[str, str]]:
    """The (method, path) of each route of the group, with a sample value in each path parameter."""
    routes: list[tuple[str, str]] = []
    for router in load_routers(GROUP_ROUTERS[group]):
        for route in router.routes:
            assert isinstance(route, APIRoute)
            path = re.sub(r"\{[a-z_]+\}", "x1", route.path_format)
            routes.extend((method, path) for method in sorted(route.methods or ()))
    return routes


@pytest.mark.parametrize("function", sorted(HTTP_GROUPS))
def test_a_functions_api_routes_are_exactly_its_route_group(function: str) -> None:
    group, api = HTTP_GROUPS[function], _api_routes(function)
    served = _group_routes(group) + (sorted(EXPLORER) if group == "admin" else [])
    unrouted = [r for r in served if not any(_matches(a, *r) for a in api)]
    assert unrouted == [], f"{function} serves routes API Gateway never sends it"
    for route in api:
        assert any(_matches(route, method, path) for method, path in served), f"{route} reaches no route of {group}"
    others = [(n, r) for n, g in HTTP_GROUPS.items() if n != function for r in _api_routes(n)]
    stolen = [(n, a) for n, a in others for r in _group_routes(group) if _matches(a, *r)]
    assert stolen == [], f"another function's routes take {group}'s paths"


def test_every_function_folder_is_in_the_template_with_its_events() -> None:
    folders = sorted(p.parent.name for p in FUNCTIONS.glob("*/app.py"))
    assert sorted(FUNCTION_GROUPS.values()) == folders
    assert sorted(p.name for p in EVENTS.iterdir() if p.is_dir()) == folders


@pytest.mark.parametrize("function", sorted(HTTP_GROUPS))
def test_every_route_has_a_sample_event_that_api_gateway_would_send_its_function(function: str) -> None:
    group, api = HTTP_GROUPS[function], _api_routes(function)
    samples = [json.loads(p.read_text()) for p in sorted((EVENTS / group).glob("*.json"))]
    sent = []
    for event in samples:
        method, path = event["requestContext"]["http"]["method"], event["rawPath"]
        assert event["version"] == "2.0" and event["routeKey"].split(" ", 1)[1] in {a[1] for a in api}
        assert any(_matches(a, method, path) for a in api), (method, path)
        sent.append((method, path))
    served = _group_routes(group) + (sorted(EXPLORER) if group == "admin" else [])
    for method, path in served:
        pattern = re.escape(path).replace("x1", "[^/]+")
        assert any(m == method and re.fullmatch(pattern, p) for m, p in sent), f"no sample event for {method} {path}"


def test_the_ingest_queue_is_fifo_with_a_dead_letter_queue_and_time_for_the_worker() -> None:
    worker = RESOURCES["IngestWorkerFunction"]["Properties"]
    queue = RESOURCES["IngestQueue"]["Properties"]
    source = worker["Events"]["IngestJobs"]
    assert source["Type"] == "SQS"
    assert source["Properties"]["Queue"] == {"Fn::GetAtt": ["IngestQueue", "Arn"]}
    assert source["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert queue["VisibilityTimeout"] >= 6 * worker["Timeout"]
    assert queue["FifoQueue"] is True and RESOURCES["IngestDeadLetterQueue"]["Properties"]["FifoQueue"] is True
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["IngestDeadLetterQueue", "Arn"]}
    assert worker["Environment"]["Variables"]["MNEMO_JOBS_TABLE"] == {"Ref": "JobsTable"}
    # the worker knows a job's last attempt (a platform add then ends FAILED), and may shorten a retry's wait
    attempts = int(worker["Environment"]["Variables"]["MNEMO_JOB_ATTEMPTS"])
    assert queue["RedrivePolicy"]["maxReceiveCount"] >= 2 * attempts  # room for receives skipped behind a retry
    assert {"SQSPollerPolicy": {"QueueName": {"Fn::GetAtt": ["IngestQueue", "QueueName"]}}} in worker["Policies"]
    # a long import or Dream run goes on in a message of its own (not in the same call, past the worker's timeout)
    assert worker["Environment"]["Variables"]["MNEMO_QUEUE_URL"] == {"Ref": "IngestQueue"}
    assert {"SQSSendMessagePolicy": {"QueueName": {"Fn::GetAtt": ["IngestQueue", "QueueName"]}}} in worker["Policies"]


def test_the_profile_queue_is_standard_read_by_the_worker_and_fed_by_whoever_queues_generations() -> None:
    worker = RESOURCES["IngestWorkerFunction"]["Properties"]
    queue = RESOURCES["ProfileQueue"]["Properties"]
    source = worker["Events"]["ProfileTasks"]
    assert set(worker["Events"]) == {"IngestJobs", "ProfileTasks"}
    assert source["Type"] == "SQS" and source["Properties"]["Queue"] == {"Fn::GetAtt": ["ProfileQueue", "Arn"]}
    assert source["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert "FifoQueue" not in queue  # standard: each generation is delayed by its own debounce
    assert queue["VisibilityTimeout"] >= 6 * worker["Timeout"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["ProfileDeadLetterQueue", "Arn"]}
    send = {"SQSSendMessagePolicy": {"QueueName": {"Fn::GetAtt": ["ProfileQueue", "QueueName"]}}}
    # the platform (jobs, stale reads), the delivery function (memory changes) and the worker (a generation put
    # back) queue generations
    for name in ("PlatformFunction", "ConsoleFunction", "WebhookDeliveryFunction", "IngestWorkerFunction"):
        function = RESOURCES[name]["Properties"]
        assert function["Environment"]["Variables"]["MNEMO_PROFILE_QUEUE_URL"] == {"Ref": "ProfileQueue"}, name
        assert send in function["Policies"], name
    assert {"SQSPollerPolicy": {"QueueName": {"Fn::GetAtt": ["ProfileQueue", "QueueName"]}}} in worker["Policies"]


def test_secrets_reach_the_functions_as_parameter_names_only() -> None:
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    for secret in ("JWT_SECRET", "ADMIN_API_KEY", "LLM_API_KEY", "EMBEDDER_API_KEY"):
        assert f"MNEMO_{secret}" not in variables and secret not in variables
        assert variables[f"MNEMO_{secret}_PARAMETER"]["Ref"].endswith("ParameterName")
    for name in ("JwtSecretParameterName", "AdminApiKeyParameterName"):
        assert TEMPLATE["Parameters"][name]["Type"] == "String"
        assert "NoEcho" not in TEMPLATE["Parameters"][name]  # a name, not a value


def test_the_config_encryption_key_is_a_parameter_name_every_policy_that_reads_provider_keys_allows() -> None:
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert "MNEMO_CONFIG_ENCRYPTION_KEY" not in variables
    assert variables["MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER"] == {"Ref": "ConfigEncryptionKeyParameterName"}
    parameter = TEMPLATE["Parameters"]["ConfigEncryptionKeyParameterName"]
    assert parameter["Default"] == "" and "NoEcho" not in parameter  # optional; a name, not a value
    for policy in ("ReadSecretsPolicy", "ReadProviderKeysPolicy"):
        resources = RESOURCES[policy]["Properties"]["PolicyDocument"]["Statement"][0]["Resource"]
        assert any(
            r.get("Fn::If", [None])[0] == "HasConfigEncryptionKey" and "ConfigEncryptionKeyParameterName" in str(r)
            for r in resources
        ), policy
    assert {"Fn::Condition": "HasConfigEncryptionKey"} in TEMPLATE["Conditions"]["HasProviderApiKey"]["Fn::Or"]


def test_the_layer_installs_no_local_model_runtime_and_builds_for_lambdas_platform() -> None:
    requirements = (ROOT / "layers" / "shared" / "requirements.txt").read_text().lower()
    names = {re.split(r"[<>=\[; ]", line.strip(), maxsplit=1)[0] for line in requirements.splitlines()}
    names.discard("")
    names = {n for n in names if not n.startswith("#")}
    assert not names & {"onnxruntime", "onnx", "torch", "tokenizers", "sentence-transformers", "transformers"}
    assert {"fastapi", "mangum", "aws-lambda-powertools", "numpy"} <= names
    layer = RESOURCES["SharedLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    assert layer["Properties"]["CompatibleRuntimes"] == [TEMPLATE["Globals"]["Function"]["Runtime"]]
    makefile = (ROOT / "layers" / "shared" / "Makefile").read_text()
    assert "--platform manylinux2014_x86_64" in makefile and "--python-version 3.11" in makefile
    # and without the local server, which the MCP SDK brings and no function imports (test_cold_start.py)
    assert 'rm -rf "$(TARGET)"/uvicorn "$(TARGET)"/uvicorn-*.dist-info "$(TARGET)"/click' in makefile


# The package's runtime dependencies that Lambda does without: the local server (uvicorn and its speed-ups), the
# local embedding model's runtime (Bedrock embeds on AWS) and the local store's approximate index (OpenSearch).
LOCAL_ONLY = {"uvicorn", "uvloop", "httptools", "tokenizers", "onnxruntime", "onnx", "faiss-cpu"}


def test_the_layer_installs_every_runtime_dependency_a_function_may_import() -> None:
    """A dependency missing from the layer fails only in Lambda (the tests run in the package's own environment):
    the console's function once started without Jinja2."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = {re.split(r"[<>=\[; ]", spec, maxsplit=1)[0].lower() for spec in project["dependencies"]}
    lines = (ROOT / "layers" / "shared" / "requirements.txt").read_text().lower().splitlines()
    layer = {re.split(r"[<>=\[; ]", line.strip(), maxsplit=1)[0] for line in lines if line.strip()[:1].isalnum()}
    assert needed - LOCAL_ONLY - layer == set()
    assert needed >= LOCAL_ONLY  # each exception is still a dependency, or it leaves this list


def test_webhook_events_reach_the_delivery_function_through_its_queue_with_a_dead_letter_queue() -> None:
    from mnemo.domain.webhooks import EVENT_TYPES

    function = RESOURCES["WebhookDeliveryFunction"]["Properties"]
    queue = RESOURCES["WebhookDeliveryQueue"]["Properties"]
    events = function["Events"]
    sources = [e for e in events.values() if e["Type"] == "SQS"]
    assert [s["Properties"]["Queue"] for s in sources] == [{"Fn::GetAtt": ["WebhookDeliveryQueue", "Arn"]}]
    assert sources[0]["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["WebhookDeliveryDeadLetterQueue", "Arn"]}
    assert queue["RedrivePolicy"]["maxReceiveCount"] >= 2
    assert queue["SqsManagedSseEnabled"] is True  # SNS cannot deliver to a queue under the AWS managed KMS key
    # the schedule: the outboxes' leftovers and the retries beyond SQS's 15-minute delay
    [schedule] = [e for e in events.values() if e["Type"] == "Schedule"]
    assert schedule["Properties"]["Schedule"] == "rate(1 minute)"
    # the topic's subscription: raw envelopes, the webhook event types only, allowed by the queue's policy
    subscription = RESOURCES["WebhookDeliverySubscription"]["Properties"]
    assert subscription["TopicArn"] == {"Ref": "EventsTopic"} and subscription["Protocol"] == "sqs"
    assert subscription["Endpoint"] == {"Fn::GetAtt": ["WebhookDeliveryQueue", "Arn"]}
    assert subscription["RawMessageDelivery"] is True
    assert sorted(subscription["FilterPolicy"]["event_type"]) == sorted(EVENT_TYPES)
    [allowed] = RESOURCES["WebhookDeliveryQueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert allowed["Principal"] == {"Service": "sns.amazonaws.com"} and allowed["Action"] == "sqs:SendMessage"
    assert allowed["Condition"] == {"ArnEquals": {"aws:SourceArn": {"Ref": "EventsTopic"}}}
    variables = function["Environment"]["Variables"]
    assert variables["MNEMO_WEBHOOK_QUEUE_URL"] == {"Ref": "WebhookDeliveryQueue"}
    assert {"SQSSendMessagePolicy": {"QueueName": {"Fn::GetAtt": ["WebhookDeliveryQueue", "QueueName"]}}} in function[
        "Policies"
    ]


@pytest.mark.parametrize(
    "function", ["PlatformFunction", "ConsoleFunction", "IngestWorkerFunction", "WebhookDeliveryFunction"]
)
def test_every_function_that_writes_webhook_events_publishes_them_to_the_topic(function: str) -> None:
    properties = RESOURCES[function]["Properties"]
    assert properties["Environment"]["Variables"]["MNEMO_TOPIC_ARN"] == {"Ref": "EventsTopic"}
    assert {"SNSPublishMessagePolicy": {"TopicName": {"Fn::GetAtt": ["EventsTopic", "TopicName"]}}} in properties[
        "Policies"
    ]
    for table in ("MemoriesTable", "AccountsTable"):  # the outboxes are read and deleted once published
        assert {"DynamoDBCrudPolicy": {"TableName": {"Ref": table}}} in properties["Policies"]


def test_the_dream_schedule_invokes_the_scheduler_which_queues_runs_for_the_ingest_worker() -> None:
    schedule = RESOURCES["DreamSchedule"]
    assert schedule["Type"] == "AWS::Scheduler::Schedule"
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"] == {"Ref": "DreamScheduleExpression"}
    assert TEMPLATE["Parameters"]["DreamScheduleExpression"]["Default"] == "rate(1 hour)"
    target = properties["Target"]
    assert target["Arn"] == {"Fn::GetAtt": ["DreamSchedulerFunction", "Arn"]}
    assert target["RoleArn"] == {"Fn::GetAtt": ["DreamScheduleRole", "Arn"]}
    assert json.loads(target["Input"]) == json.loads((EVENTS / "dream_scheduler" / "schedule.json").read_text())
    role = RESOURCES["DreamScheduleRole"]["Properties"]
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"} and trust["Action"] == "sts:AssumeRole"
    [invoke] = role["Policies"][0]["PolicyDocument"]["Statement"]
    assert invoke["Action"] == "lambda:InvokeFunction"
    assert invoke["Resource"] == {"Fn::GetAtt": ["DreamSchedulerFunction", "Arn"]}  # that function only
    function = RESOURCES["DreamSchedulerFunction"]["Properties"]
    assert function["CodeUri"] == "functions/dream_scheduler/" and "Events" not in function
    assert function["Environment"]["Variables"]["MNEMO_QUEUE_URL"] == {"Ref": "IngestQueue"}
    assert {"SQSSendMessagePolicy": {"QueueName": {"Fn::GetAtt": ["IngestQueue", "QueueName"]}}} in function["Policies"]
    assert {"DynamoDBCrudPolicy": {"TableName": {"Ref": "AccountsTable"}}} in function["Policies"]
    assert {"DynamoDBReadPolicy": {"TableName": {"Ref": "MemoriesTable"}}} in function["Policies"]


def test_every_provider_the_template_offers_is_in_the_catalogue() -> None:
    from mnemo.adapters.registry import KINDS

    parameters = TEMPLATE["Parameters"]
    assert set(parameters["LlmProvider"]["AllowedValues"]) - {"none"} <= set(KINDS["llm"])
    assert set(parameters["EmbedderProvider"]["AllowedValues"]) <= set(KINDS["embedder"])
    assert {"anthropic", "azure_openai", "gemini", "ollama"} <= set(parameters["LlmProvider"]["AllowedValues"])
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["MNEMO_EMBEDDER_EXTRA_CONFIG"] == {"Ref": "EmbedderExtraConfig"}
