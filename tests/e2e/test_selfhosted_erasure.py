"""A delete erases, on the self-hosted surface (issue 16, part 4): a sentinel written through every path that stores
text (a verbatim add, an inferred add on the no-LLM default whose message holds another memory's sentence too, an
update of a memory's text), then deleted — by id, by user, by entity, by a reset — is in no byte of any file of the
data dir afterwards (the SQLite file, its WAL), while what was not deleted is whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.support.erasure_scan import Sentinel, files_holding, rows_holding, settled_scan


def add(client: TestClient, text: str, *, infer: bool, user: str = "alice") -> list[dict[str, Any]]:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user, "infer": infer}
    answer = client.post("/memories", json=body)
    assert answer.status_code == 200, answer.text
    results: list[dict[str, Any]] = answer.json()["results"]
    return results


def written(client: TestClient, word: str) -> dict[str, str]:
    """The sentinel through every writing path; the ids of the memories that hold it, and of a sibling that does
    not (it comes from the inferred add's message too, and cites only its own sentence of it)."""
    (verbatim,) = add(client, f"My gym locker code is {word} and nobody knows it.", infer=False)
    inferred = add(
        client, f"I keep the spare key under the {word} flowerpot. I love hiking in the Swiss Alps.", infer=True
    )
    key = next(r for r in inferred if word in r["memory"])
    sibling = next(r for r in inferred if "hiking" in r["memory"])
    (plain,) = add(client, "My bike is a blue road bike.", infer=False)
    updated = client.put(f"/memories/{plain['id']}", json={"text": f"My bike lock code is {word}."})
    assert updated.status_code == 200, updated.text
    (other,) = add(client, "I drink green tea every morning.", infer=False, user="bob")
    return {
        "verbatim": verbatim["id"],
        "key": key["id"],
        "updated": plain["id"],
        "sibling": sibling["id"],
        "bob": other["id"],
    }


@pytest.mark.parametrize("how", ["each by id", "by user", "by entity", "reset"])
def test_a_deleted_sentinel_is_in_no_byte_of_the_data_dir(client: TestClient, data_dir: Path, how: str) -> None:
    sentinel = Sentinel.new()
    ids = written(client, sentinel.word)
    assert files_holding(data_dir, sentinel.needle)  # the scan sees it while it is stored
    history = client.get(f"/memories/{ids['updated']}/history").json()
    assert [h["new_memory"] for h in history] == [
        "My bike is a blue road bike.",
        f"My bike lock code is {sentinel.word}.",
    ]

    if how == "each by id":
        for name in ("verbatim", "key", "updated"):
            assert client.delete(f"/memories/{ids[name]}").status_code == 200
    elif how == "by user":
        assert client.delete("/memories", params={"user_id": "alice"}).status_code == 200
    elif how == "by entity":
        assert client.delete("/entities/user/alice").status_code in (200, 204)
    else:
        assert client.post("/reset").status_code == 200

    left = settled_scan(lambda: files_holding(data_dir, sentinel.needle))
    assert left == [], (left, rows_holding(data_dir, sentinel.needle))
    if how == "reset":
        return
    erased = client.get(f"/memories/{ids['updated']}/history")
    assert erased.status_code == 200
    entries = erased.json()
    assert [h["event"] for h in entries] == ["ADD", "UPDATE", "DELETE"]
    assert all(h["old_memory"] is None and h["new_memory"] is None for h in entries)
    assert client.get(f"/memories/{ids['bob']}").json()["memory"] == "I drink green tea every morning."
    if how == "each by id":
        sibling = client.get(f"/memories/{ids['sibling']}").json()
        assert sibling["memory"] == "I love hiking in the Swiss Alps."
        # It cites its own sentence of the shared message (its span), never the deleted one's: nothing to redact.
        (source,) = sibling["sources"]
        assert source["content"] == "I love hiking in the Swiss Alps." and "redacted" not in source
        assert sentinel.word not in str(sibling)
