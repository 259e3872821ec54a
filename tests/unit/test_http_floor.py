"""The HTTP floor benchmark's bare app does what its figures claim: one embedding per request, one committed row per
add."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench import http_floor


def _call(app: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app({"type": "http", "method": "POST", "path": "/"}, receive, send))
    return sent[0]["status"], json.loads(sent[1]["body"])


def test_http_mode_answers_without_embedding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_FLOOR_MODE", "http")
    assert _call(http_floor.floor_app(), {"query": "where do I live?"}) == (200, {"ok": True})


def test_embed_insert_mode_embeds_and_commits_each_add(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite3"
    monkeypatch.setenv("MNEMO_FLOOR_MODE", "embed_insert")
    monkeypatch.setenv("MNEMO_FLOOR_DB", str(db))
    app = http_floor.floor_app()
    status, answer = _call(app, {"messages": [{"role": "user", "content": "I moved to Lisbon in May."}]})
    assert status == 200 and answer["dimension"] == 384
    row = sqlite3.connect(db).execute("SELECT text, vector FROM memories WHERE id = ?", (answer["id"],)).fetchone()
    text, vector = row
    assert text == "I moved to Lisbon in May."
    assert np.isclose(np.linalg.norm(np.frombuffer(vector, dtype=np.float32)), 1.0, atol=1e-3)
