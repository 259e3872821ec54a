"""The API as /openapi.json describes it, compared with the committed snapshot (tests/fixtures/openapi.json): a
change of any route, parameter, body or answer is a visible diff in review. After an intended change, write the
snapshot again with `make openapi-snapshot` and commit it with the change."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

SNAPSHOT = Path(__file__).resolve().parents[1] / "fixtures" / "openapi.json"
UPDATE = "MNEMO_UPDATE_OPENAPI_SNAPSHOT"


def as_text(description: Any) -> str:
    return json.dumps(description, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_served_api_description_is_the_committed_snapshot(client: TestClient) -> None:
    served = as_text(client.get("/openapi.json").json())
    if os.environ.get(UPDATE) == "1":
        SNAPSHOT.write_text(served, encoding="utf-8")
    committed = SNAPSHOT.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(committed.splitlines(True), served.splitlines(True), "committed", "served"))
    assert served == committed, f"The API changed; if that is intended, run `make openapi-snapshot`.\n{diff[:20000]}"


def test_every_route_describes_its_answer(client: TestClient) -> None:
    """Each operation names the model of its success answer: no route answers an undocumented shape."""
    paths = client.get("/openapi.json").json()["paths"]
    untyped = []
    for path, operations in paths.items():
        for method, operation in operations.items():
            success = next(v for k, v in operation["responses"].items() if k.startswith("2"))
            schema = success.get("content", {}).get("application/json", {}).get("schema", {})
            if not schema or (schema.get("type") == "object" and "properties" not in schema):
                untyped.append(f"{method.upper()} {path}")
    assert untyped == []
