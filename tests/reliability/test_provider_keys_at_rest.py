"""Provider keys at rest, on a real `mnemo serve`: an `api_key` given to POST /configure is in no byte of the data dir
(the SQLite file, its WAL, the namespaces' files) nor of the server's log — while it is served, after it is replaced,
and after a clean stop (SIGTERM) — including a key an older version had stored in clear, once it is replaced and the
server has stopped (the stop checkpoints and truncates the WAL). GET /configure shows it redacted; after a restart on
the same data dir (the same key file) the provider is still called with the key, whole; and a start with another key
stops at once, saying the stored key cannot be decrypted.

The LLM is a loopback server speaking the OpenAI protocol: it records the Authorization header it receives."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.services.configuration import SETTINGS_KEY
from tests.reliability.live_server import ADMIN, Server, serving, start
from tests.support.erasure_scan import Sentinel, files_holding
from tests.support.openai_server import OpenAIServer

TIMEOUT = 60.0  # latency is not what is tested here


def llm_config(base_url: str, api_key: str) -> dict[str, Any]:
    return {"llm": {"provider": "openai", "config": {"base_url": base_url, "api_key": api_key, "model": "m"}}}


def stored_in_clear(data_dir: Path, config: dict[str, Any]) -> None:
    """What an older version stored: the configuration with its key in clear."""
    database = Database(data_dir / "mnemo.sqlite3")
    try:
        SqliteMemoryStore(database).put_setting(SETTINGS_KEY, config)
    finally:
        database.close()


def configure(server: Server, config: dict[str, Any]) -> None:
    answer = httpx.post(f"{server.base}/configure", json=config, headers=ADMIN, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text


def traces(root: Path, *keys: Sentinel) -> dict[str, list[str]]:
    """The files under `root` holding each key, by key: empty lists when none holds any."""
    return {key.word: files_holding(root, key.needle) for key in keys}


def test_a_provider_key_is_in_no_byte_at_rest_and_still_reaches_the_provider(tmp_path: Path) -> None:
    data_dir, log = tmp_path / "data", tmp_path / "serve.log"
    legacy, first, second = Sentinel.new(), Sentinel.new(), Sentinel.new()
    nowhere: dict[str, list[str]] = {legacy.word: [], first.word: [], second.word: []}
    with OpenAIServer() as llm:
        # Given a key an older version stored in clear (the scan finds it)
        stored_in_clear(data_dir, llm_config(llm.base_url, legacy.word))
        assert files_holding(data_dir, legacy.needle)

        with serving(data_dir, log, MNEMO_LOG_LEVEL="debug") as server:
            # When a key is configured, then it is nowhere at rest while served
            configure(server, llm_config(llm.base_url, first.word))
            assert traces(tmp_path, first) == {first.word: []}
            # When it is replaced, then neither it nor its replacement is anywhere
            configure(server, llm_config(llm.base_url, second.word))
            assert traces(tmp_path, first, second) == {first.word: [], second.word: []}
            # And GET /configure shows it redacted
            shown = httpx.get(f"{server.base}/configure", headers=ADMIN, timeout=TIMEOUT)
            assert shown.status_code == 200, shown.text
            assert shown.json()["llm"]["config"]["api_key"] == "[redacted]"
            assert all(key.needle not in shown.text for key in (legacy, first, second))

        # After a clean stop, no key is anywhere (the one stored in clear included), and the WAL is empty
        assert traces(tmp_path, legacy, first, second) == nowhere
        wal = data_dir / "mnemo.sqlite3-wal"
        assert not wal.exists() or wal.stat().st_size == 0
        key_file = data_dir / "config_encryption_key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

        # After a restart with the same key file, the provider is called with the key, whole
        with serving(data_dir, log) as server:
            llm.reply('{"facts": []}', '{"memory": []}')
            body = {"messages": [{"role": "user", "content": "I work as a nurse."}], "user_id": "u", "infer": True}
            httpx.post(f"{server.base}/memories", json=body, headers=ADMIN, timeout=TIMEOUT)
            assert llm.chat_requests, "the configured LLM was not called"
            assert {r.headers.get("authorization") for r in llm.chat_requests} == {f"Bearer {second.word}"}
        assert traces(tmp_path, legacy, first, second) == nowhere

        # A start with another key does not start (rather than answering 500 later), and says why
        with pytest.raises(AssertionError, match="cannot be decrypted with the key of MNEMO_CONFIG_ENCRYPTION_KEY"):
            start(data_dir, log, MNEMO_CONFIG_ENCRYPTION_KEY=Fernet.generate_key().decode()).stop()
