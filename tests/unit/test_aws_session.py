"""The AWS compositions' sessions share the process's SDK data (its JSON read once) and nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.loaders import JSONFileLoader

from mnemo.composition.aws_session import aws_session


def test_sessions_share_one_data_loader_and_keep_their_own_region_and_credentials() -> None:
    first, second = aws_session("eu-west-1"), aws_session("us-east-2")
    assert second._session.get_component("data_loader") is first._session.get_component("data_loader")
    assert first._session is not second._session
    assert (first.region_name, second.region_name) == ("eu-west-1", "us-east-2")
    first._session.set_credentials("first-key", "first-secret")
    second._session.set_credentials("second-key", "second-secret")
    assert first.get_credentials().access_key == "first-key"
    assert second.get_credentials().access_key == "second-key"


def test_a_service_model_is_read_once_and_the_search_paths_do_not_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    load_file = JSONFileLoader.load_file

    def counted(self: JSONFileLoader, file_path: str) -> Any:
        read.append(file_path)
        return load_file(self, file_path)

    monkeypatch.setattr(JSONFileLoader, "load_file", counted)
    paths = list(aws_session("eu-west-1")._session.get_component("data_loader").search_paths)
    clients = [
        aws_session("eu-west-1").client("sqs", aws_access_key_id="a", aws_secret_access_key="b") for _ in range(3)
    ]
    assert [client.meta.region_name for client in clients] == ["eu-west-1"] * 3
    models = [path for path in read if "/sqs/" in path and path.endswith("service-2")]
    assert len(models) <= 1  # none when an earlier test of this process read it
    assert aws_session(None)._session.get_component("data_loader").search_paths == paths
    assert len(set(paths)) == len(paths)
