"""`mnemo platform bootstrap` with MNEMO_BACKEND=aws starts a tenant in a deployed stack's accounts table
(DynamoDB under moto): the printed key opens the new project, and a second run for the same email reuses the
user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws

from mnemo import cli
from mnemo.adapters.dynamodb.tenancy import DynamoTenancyStore, create_tenancy_table
from mnemo.services.platform.tenancy import TenancyService
from tests.support import moto_aws

TABLE = "mnemo-test-accounts"


@pytest.fixture
def accounts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in {
        "MNEMO_BACKEND": "aws",
        "MNEMO_ACCOUNTS_TABLE": TABLE,
        "MNEMO_AWS_REGION": moto_aws.REGION,
        "AWS_ACCESS_KEY_ID": "moto",
        "AWS_SECRET_ACCESS_KEY": "moto",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_tenancy_table(client, TABLE)
        yield client


def bootstrap(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, str]:
    assert cli.main(["platform", "bootstrap", "--json", *args]) == 0
    printed: dict[str, str] = json.loads(capsys.readouterr().out)
    return printed


def test_given_the_aws_backend_when_bootstrapping_then_the_key_opens_its_project_in_dynamodb(
    accounts: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    started = bootstrap(capsys, "--email", "Ops@Example.com", "--org", "Acme", "--project", "Main")
    tenancy = TenancyService(DynamoTenancyStore(accounts, TABLE), lambda _namespace: None)

    caller = tenancy.authenticate(started["api_key"])

    assert caller.project.id == started["project_id"]
    assert caller.project.org_id == started["org_id"]
    assert caller.user.email == "ops@example.com"
    stored = json.dumps(accounts.scan(TableName=TABLE)["Items"])
    assert started["api_key"] not in stored  # hashed, never kept in clear


def test_given_a_known_email_when_bootstrapping_again_then_the_same_user_owns_a_second_org(
    accounts: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    first = bootstrap(capsys, "--email", "ops@example.com", "--org", "Acme")
    second = bootstrap(capsys, "--email", "OPS@example.com", "--org", "Globex")
    store = DynamoTenancyStore(accounts, TABLE)
    user = store.user_by_email("ops@example.com")

    assert user is not None
    assert {org.id for org in store.orgs_of(user.id)} == {first["org_id"], second["org_id"]}
    assert first["project_id"] != second["project_id"]
