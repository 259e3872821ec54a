"""The benchmarks' helper for the local LLM server: its settings, its base URL, and what it does when the model is
not installed (it starts nothing). No model, no server: the port it is given has nothing listening."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from bench.llm_local.pins import CacheLayout, ModelPins
from bench.llm_local.process import LocalLLM, ServerError

PINS = ModelPins(package_prefix="fake-part", parts=1, version="1", sha256="a" * 64, size=5, file_name="fake.gguf")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_helper_names_the_base_url_and_passes_its_settings(tmp_path: Path) -> None:
    llm = LocalLLM(CacheLayout(tmp_path), PINS, port=8799, context_size=4096, slots=2)

    env = llm.environment()

    assert llm.base_url == "http://127.0.0.1:8799/v1"
    assert env["LLM_MODEL_PATH"] == str(tmp_path / "model" / "fake.gguf")
    assert env["LLM_RUNTIME_DIR"] == str(tmp_path / "runtime")
    settings = ("LLM_PORT", "LLM_THREADS", "LLM_CONTEXT", "LLM_SLOTS", "LLM_MODEL_ID")
    assert [env[name] for name in settings] == ["8799", "1", "4096", "2", "fake"]
    assert llm.command()[:3] == ["nice", "-n", "10"]
    assert llm.command()[-1].endswith("bench/llm_local/server.mjs")


def test_the_settings_come_from_the_environment_else_the_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LLM_PORT", "9123")
    monkeypatch.setenv("LLM_CONTEXT", "12288")
    monkeypatch.setenv("LLM_SLOTS", "2")
    llm = LocalLLM(CacheLayout(tmp_path), PINS)
    assert (llm.base_url, llm.context_size, llm.slots) == ("http://127.0.0.1:9123/v1", 12288, 2)

    for name in ("LLM_PORT", "LLM_CONTEXT", "LLM_SLOTS"):
        monkeypatch.delenv(name)
    llm = LocalLLM(CacheLayout(tmp_path), PINS)
    assert (llm.base_url, llm.context_size, llm.slots) == ("http://127.0.0.1:8766/v1", 16384, 4)

    monkeypatch.setenv("LLM_PORT", "eighty")
    with pytest.raises(ServerError, match="LLM_PORT must be an integer"):
        LocalLLM(CacheLayout(tmp_path), PINS)


def test_starting_what_is_not_installed_says_what_is_missing_and_starts_nothing(tmp_path: Path) -> None:
    llm = LocalLLM(CacheLayout(tmp_path), PINS, port=free_port())

    with pytest.raises(ServerError, match="not installed"):
        llm.start()

    assert not llm.serving()
    assert not (tmp_path / "server.log").exists()
