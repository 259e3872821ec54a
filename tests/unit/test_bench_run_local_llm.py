"""`python -m bench.run` says whether the local LLM of bench/llm_local is installed, and changes nothing else.

A cache of fake stamps and a sparse file of the pinned size stand in for the model and the runtime."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from bench import run
from bench.llm_local.model import write_stamp
from bench.llm_local.pins import QWEN_CODER_1_5B, CacheLayout
from bench.llm_local.runtime import package_digest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def install_fakes(layout: CacheLayout) -> None:
    model = layout.model_file(QWEN_CODER_1_5B)
    model.parent.mkdir(parents=True)
    with model.open("wb") as sparse:  # the pinned size without writing a gigabyte
        sparse.truncate(QWEN_CODER_1_5B.size)
    write_stamp(layout, QWEN_CODER_1_5B)
    entry = layout.runtime / "node_modules" / "node-llama-cpp" / "package.json"
    entry.parent.mkdir(parents=True)
    entry.write_text("{}")
    layout.runtime_stamp.write_text(package_digest() + "\n")


def test_bench_run_says_how_to_install_the_local_llm_when_it_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEMO_LLM_CACHE", str(tmp_path))

    notice = run.local_llm_notice()

    assert notice.startswith("local LLM: not installed")
    assert f"`make llm-local` installs it into {tmp_path}" in notice
    assert notice.endswith("the benchmarks run without it")


def test_bench_run_says_where_the_installed_local_llm_serves(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    install_fakes(CacheLayout(tmp_path))
    port = free_port()
    monkeypatch.setenv("MNEMO_LLM_CACHE", str(tmp_path))
    monkeypatch.setenv("LLM_PORT", str(port))

    notice = run.local_llm_notice()

    assert notice == (
        f"local LLM: installed in {tmp_path}; bench.llm_local.LocalLLM serves it at http://127.0.0.1:{port}/v1"
    )


def test_a_malformed_setting_is_said_and_does_not_stop_the_benchmarks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PORT", "eighty")

    notice = run.local_llm_notice()

    assert notice == "local LLM: LLM_PORT must be an integer, not 'eighty'; the benchmarks run without it"


def test_bench_run_prints_the_notice_before_the_parts_it_was_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEMO_LLM_CACHE", str(tmp_path))
    recorded: list[tuple[str, dict[str, Any]]] = []

    def record(name: str, figures: dict[str, Any]) -> None:
        recorded.append((name, figures))
        print("recorded")

    monkeypatch.setattr(run, "run_merge", lambda quick: {"quick": quick})
    monkeypatch.setattr(run, "record", record)

    assert run.main(["--quick", "--only", "merge"]) == 0

    out = capsys.readouterr().out
    assert out.index("local LLM: not installed") < out.index("recorded")
    assert recorded == [("merge-quick", {"quick": True})]  # the part ran as it does without the notice
