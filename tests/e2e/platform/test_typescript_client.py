"""The real TypeScript `mem0ai` client (npm, pinned in tests/clients/typescript/package.json) against a running
platform: one node process calls every public method of its `MemoryClient` (tests/clients/typescript/
every_method.mjs) and prints what each answered; the tests here hold the answers to what mnemo did.

Set-up installs the client with `npm ci` into tests/clients/typescript/node_modules (not committed), once per
package-lock.json: a rerun with the same lock installs nothing. Never globally. Without node or npm the tests fail
and say so: the TypeScript client is part of what `make test` proves."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from mnemo.composition.container import build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import Server, new_tenant, serving
from tests.support.waits import seconds
from tests.support.webhook_receiver import Receiver, receiving

CLIENT_DIR = Path(__file__).resolve().parents[2] / "clients" / "typescript"
SCRIPT = CLIENT_DIR / "every_method.mjs"
STAMP = CLIENT_DIR / "node_modules" / ".mnemo-installed"

# Every public method of mem0ai 3.3.1's MemoryClient (README, "Client compatibility", lists each). A newer client
# with other methods fails test_every_method_is_called until the script and the README say what they do.
METHODS = {
    "add",
    "batchDelete",
    "batchUpdate",
    "createMemoryExport",
    "createWebhook",
    "delete",
    "deleteAll",
    "deleteUser",
    "deleteUsers",
    "deleteWebhook",
    "feedback",
    "generateProfile",
    "get",
    "getAll",
    "getMemoryExport",
    "getProfile",
    "getProfileJob",
    "getProfileSettings",
    "getProject",
    "getWebhooks",
    "history",
    "ping",
    "sampleProfiles",
    "search",
    "update",
    "updateProfileSettings",
    "updateProject",
    "updateWebhook",
    "users",
}


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"`{name}` is not on PATH: the TypeScript mem0ai client is tested with node (20 or newer) and npm. "
            "Install Node.js, then run the tests again.",
            pytrace=False,
        )
    return found


def lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", ".npmrc"):
        digest.update((CLIENT_DIR / name).read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def node() -> str:
    """node, with the locked client installed beside the script (`npm ci`, only when the lock changed)."""
    node = tool("node")
    npm = tool("npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.fail(f"node {version} is too old for the TypeScript client test: 20 or newer", pytrace=False)
    wanted = lock_digest()
    if not STAMP.exists() or STAMP.read_text() != wanted:
        installed = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT_DIR,
            env={**os.environ, "npm_config_cache": str(CLIENT_DIR / ".npm-cache")},
            capture_output=True,
            text=True,
            timeout=seconds(240),
            check=False,
        )
        if installed.returncode != 0:
            pytest.fail(f"npm ci failed in {CLIENT_DIR}:\n{installed.stdout}\n{installed.stderr}", pytrace=False)
        STAMP.write_text(wanted)
    return node


@pytest.fixture(scope="module")
def server(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One embedded platform for the whole node run (the AWS composition answers the same routes, and the Python
    clients' tests run on both). Webhooks may target loopback: the receiver is one."""
    container = build_container(
        Settings(
            data_dir=tmp_path_factory.mktemp("typescript") / "data",
            jwt_secret=SecretStr("x" * 40),
            argon2_memory_kib=64,
            argon2_time_cost=1,
            webhook_allow_private_urls=True,
        ),
        CachedModelRegistry(embedder),
    )
    try:
        with serving(container) as url:
            yield Server(url, container)
    finally:
        container.close()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def run(node: str, server: Server, receiver: Receiver) -> dict[str, Any]:
    tenant = new_tenant(server, "typescript")
    env = {
        **os.environ,
        "MNEMO_URL": server.url,
        "MNEMO_API_KEY": tenant.key,
        "MNEMO_WEBHOOK_URL": receiver.url,
        "MEM0_TELEMETRY": "false",
        "MEM0_DIR": tempfile.mkdtemp(prefix="mnemo-test-mem0-ts-"),
    }
    done = subprocess.run(
        [node, str(SCRIPT)], cwd=CLIENT_DIR, env=env, capture_output=True, text=True, timeout=seconds(180), check=False
    )
    assert done.returncode == 0, f"node failed ({done.returncode}):\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    result["tenant"] = {"org_id": tenant.org_id, "project_id": tenant.project_id, "email": tenant.email}
    return result


def ok(run: dict[str, Any], step: str) -> Any:
    """What the client answered at one step of the script (fails with the error when it threw)."""
    answer = run["steps"][step]
    assert "ok" in answer, f"{step}: {answer['error']}"
    return answer["ok"]


def error(run: dict[str, Any], step: str) -> dict[str, str]:
    answer = run["steps"][step]
    assert "error" in answer, f"{step} did not fail: {answer['ok']}"
    failure: dict[str, str] = answer["error"]
    return failure


def test_every_method_is_called(run: dict[str, Any]) -> None:
    assert set(run["methods"]) == METHODS
    assert set(run["called"]) == METHODS


def test_ping_gives_the_keys_organization_and_project(run: dict[str, Any]) -> None:
    assert ok(run, "ping") is None
    assert ok(run, "identity") == {
        "organizationId": run["tenant"]["org_id"],
        "projectId": run["tenant"]["project_id"],
    }
    refused = error(run, "ping.badKey")
    assert refused["name"] == "AuthenticationError" and "Invalid API key" in refused["message"]


def test_webhooks(run: dict[str, Any], receiver: Receiver) -> None:
    made = ok(run, "createWebhook")
    assert made["webhookId"] and made["name"] == "hook" and made["url"] == f"{receiver.url}/first"
    assert made["eventTypes"] == ["memory_update"] and made["isActive"] is True
    (listed,) = ok(run, "getWebhooks")
    assert listed["webhookId"] == made["webhookId"] and listed["project"] == run["tenant"]["project_id"]
    assert ok(run, "getWebhooks.projectId") == ok(run, "getWebhooks")
    assert ok(run, "updateWebhook") == {"message": "Webhook updated successfully"}
    (after,) = ok(run, "getWebhooks.afterUpdate")
    assert (after["name"], after["url"], after["eventTypes"]) == (
        "renamed",
        f"{receiver.url}/renamed",
        ["memory_add", "memory_delete"],
    )
    # The two adds made while it was there reached the updated URL; then it was deleted.
    got = receiver.wait_for(lambda got: len(got) >= 2)
    assert {r.path for r in got} == {"/hooks/renamed"}
    assert {r.body["event_type"] for r in got} == {"memory_add"}
    assert ok(run, "deleteWebhook") == {"message": "Webhook deleted successfully"}
    assert ok(run, "getWebhooks.afterDelete") == []


def test_add_list_search_get(run: dict[str, Any]) -> None:
    queued = ok(run, "add.inferred")
    assert queued["status"] == "PENDING" and queued["eventId"]
    assert ok(run, "add.inferred.event")["status"] == "SUCCEEDED"
    (added,) = ok(run, "add.verbatim")["results"]
    assert added["data"] == {"memory": "I bake bread on Sundays"} and added["event"] == "ADD"
    listed = ok(run, "getAll")
    assert listed["count"] == 2
    assert {m["memory"] for m in listed["results"]} == {"I grow tomatoes on my balcony.", "I bake bread on Sundays"}
    found = ok(run, "search")["results"]
    assert [m["memory"] for m in found] == ["I grow tomatoes on my balcony."] and found[0]["score"] > 0
    got = ok(run, "get")
    assert got["id"] == added["id"] and got["userId"] == "alice"
    assert got["metadata"] == {"snake_key": "kept as is"}  # the client keeps metadata's keys verbatim


def test_update_history_batch_update_feedback(run: dict[str, Any]) -> None:
    assert ok(run, "update")["memory"] == "I bake sourdough on Sundays"
    assert ok(run, "update.metadata")["metadata"] == {"snake_key": "changed"}
    after = ok(run, "get.afterUpdate")
    assert (after["memory"], after["metadata"]) == ("I bake sourdough on Sundays", {"snake_key": "changed"})
    history = ok(run, "history")
    assert [h["event"] for h in history][:2] == ["ADD", "UPDATE"]
    assert history[1]["oldMemory"] == "I bake bread on Sundays"
    assert history[1]["newMemory"] == "I bake sourdough on Sundays"
    assert ok(run, "batchUpdate")["message"].startswith("Successfully updated 1")
    assert ok(run, "get.afterBatchUpdate")["memory"] == "I bake rye bread on Sundays"
    feedback = ok(run, "feedback")
    assert (feedback["feedback"], feedback["feedbackReason"]) == ("NEGATIVE", "not quite right")


def test_exports_and_users(run: dict[str, Any]) -> None:
    made = ok(run, "createMemoryExport")
    assert made["id"]
    exported = ok(run, "getMemoryExport")
    assert set(exported["facts"]) == {"I grow tomatoes on my balcony.", "I bake rye bread on Sundays"}
    assert ok(run, "getMemoryExport.filters") == exported
    users = ok(run, "users")
    assert [(u["type"], u["name"], u["totalMemories"]) for u in users["results"]] == [("user", "alice", 2)]
    assert users["count"] == 1
    paged = ok(run, "users.page")
    assert paged["count"] == 1 and len(paged["results"]) == 1


def test_profiles(run: dict[str, Any]) -> None:
    assert ok(run, "getProfile.notEnabled")["status"] == "not_enabled"
    before = ok(run, "getProfileSettings")
    assert before["enabled"] is False and before["capabilities"]["jobs"] is True
    updated = ok(run, "updateProfileSettings")
    assert updated["enabled"] is True
    user = updated["entities"]["user"]
    assert user["customInstructions"] == "Be brief."
    assert set(user["schema"]["properties"]) == {"home_city", "hobbies"}  # the schema's own keys, not camelCased
    assert ok(run, "getProfileSettings.afterUpdate") == updated

    job = ok(run, "generateProfile")
    assert job["operation"] == "trigger" and job["entityType"] == "user" and job["replayed"] is False
    assert job["statusUrl"] == f"/v2/profiles/jobs/{job['jobId']}/"
    assert ok(run, "generateProfile.replayed") == job | {"replayed": True}
    done = ok(run, "getProfileJob.statusUrl")["job"]
    assert done["id"] == job["jobId"] and done["status"] == "succeeded"
    assert done["total"] == done["completed"] == 1 and done["entityIds"] == ["alice"]
    assert ok(run, "getProfileJob.jobId") == ok(run, "getProfileJob.statusUrl")
    profile = ok(run, "getProfile")
    # No LLM here: the similarity generator fills what the memories support (or says there is too little).
    assert profile["status"] in ("succeeded", "insufficient_data"), profile
    assert profile["entityType"] == "user" and profile["entityId"] == "alice" and profile["generationCount"] >= 1

    sample = ok(run, "sampleProfiles")
    assert sample["operation"] == "sample" and sample["sampled"] == 1 and sample["entityIds"] == ["alice"]
    assert ok(run, "getProfileJob.sample")["job"]["status"] == "succeeded"
    assert ok(run, "updateProfileSettings.off")["enabled"] is False


def test_project(run: dict[str, Any]) -> None:
    assert ok(run, "getProject.fields") == {"customInstructions": None, "decay": False}
    assert ok(run, "updateProject")["message"]
    project = ok(run, "getProject")
    assert project["projectId"] == run["tenant"]["project_id"] and project["orgId"] == run["tenant"]["org_id"]
    assert project["customInstructions"] == "Keep food facts."
    assert project["agentCustomInstructions"] == "Keep the agent's tools."
    assert project["customCategories"] == [{"cooking": "Food and recipes"}]
    assert (project["memoryDepth"], project["usecaseSetting"], project["version"]) == (
        "deep",
        "a cooking assistant",
        "v2",
    )
    assert project["multilingual"] is True and project["decay"] is True
    refused = error(run, "updateProject.enableGraph")
    assert refused["name"] == "ValidationError" and "graph" in refused["message"]


def test_deletes(run: dict[str, Any]) -> None:
    assert ok(run, "delete")["message"]
    missing = error(run, "get.afterDelete")
    assert missing["name"] == "MemoryNotFoundError"
    assert ok(run, "batchDelete")["message"].startswith("Successfully deleted 1")
    assert ok(run, "getAll.afterBatchDelete")["count"] == 0
    assert ok(run, "delete.deleteLinked")["message"]
    assert ok(run, "deleteAll")["message"]
    assert ok(run, "getAll.afterDeleteAll")["count"] == 0
    assert ok(run, "deleteUser")["message"] == "Entity deleted successfully."
    assert ok(run, "deleteUsers.runId") == {"message": "Entity deleted successfully."}
    assert ok(run, "add.appOnly")["status"] == "SUCCEEDED"
    assert [m["appId"] for m in ok(run, "getAll.app")["results"]] == ["shop"]
    assert ok(run, "deleteUsers.appId") == {"message": "Entity deleted successfully."}
    assert ok(run, "getAll.afterAppDelete")["count"] == 0
    listed = ok(run, "users.beforeDeleteUsers")
    before = {(u["type"], u["name"]): u["totalMemories"] for u in listed["results"]}
    assert before == {("agent", "bot"): 1, ("app", "kiosk"): 2, ("user", "erin"): 2}  # an app alone is listed too
    assert (listed["totalUsers"], listed["totalAgents"], listed["totalApps"], listed["totalRuns"]) == (1, 1, 1, 0)
    assert ok(run, "deleteUsers") == {"message": "All users, agents, apps and runs deleted."}
    assert ok(run, "users.afterDeleteUsers")["results"] == []
    assert ok(run, "getAll.afterDeleteUsers")["count"] == 0  # nothing of the project is left, the app's included
    unknown = error(run, "get.unknown")
    assert unknown["name"] == "MemoryNotFoundError"
