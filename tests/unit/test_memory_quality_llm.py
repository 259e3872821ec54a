"""bench/memory_quality/llm.py: what each add cost summed the same way for every system, the endpoint handed to
mnemo's `openai` provider, and where a run with an LLM is recorded (never over the no-LLM records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.memory_quality.data import first_users, load
from bench.memory_quality.llm import AddCost, Endpoint, cost_figures, merged, record_name

from mnemo.adapters.llms.openai import OpenAILLMConfig


def test_an_add_cost_reads_the_usage_an_add_answered() -> None:
    # Given the usage a surface answered for an add, and an add that called no LLM
    cost = AddCost.of_usage({"calls": 2, "input_tokens": 900, "output_tokens": 80}, 12.5, "llm_malformed")
    none = AddCost.of_usage(None, 0.2)

    # Then both are costs, the second of nothing
    assert cost == AddCost(2, 900, 80, 12.5, "llm_malformed")
    assert none == AddCost(0, 0, 0, 0.2, None)


def test_cost_figures_sum_the_adds_and_count_the_fallbacks_by_reason() -> None:
    costs = [
        AddCost(2, 1000, 100, 10.0),
        AddCost(1, 500, 50, 4.0, "llm_timeout"),
        AddCost(3, 1500, 30, 16.0, "llm_malformed"),
        AddCost(2, 1000, 20, 2.0, "llm_malformed"),
    ]

    figures = cost_figures(costs)

    assert (figures["adds"], figures["calls"], figures["input_tokens"], figures["output_tokens"]) == (4, 8, 4000, 200)
    assert figures["per_add"] == {
        "calls": 2.0,
        "input_tokens": 1000.0,
        "output_tokens": 50.0,
        "seconds": 8.0,
        "seconds_max": 16.0,
    }
    assert figures["fallbacks"] == 3
    assert figures["fallbacks_by_reason"] == {"llm_malformed": 2, "llm_timeout": 1}


def test_cost_figures_of_no_adds_are_zero() -> None:
    figures = cost_figures([])

    assert figures["adds"] == 0 and figures["per_add"]["calls"] == 0.0 and figures["fallbacks_by_reason"] == {}


def test_the_endpoint_is_a_valid_openai_provider_config_with_no_retries() -> None:
    endpoint = Endpoint("http://127.0.0.1:8766/v1", "qwen", timeout=600.0)

    section = endpoint.mnemo_config()
    config = OpenAILLMConfig.model_validate(section["config"])

    assert section["provider"] == "openai"
    assert (config.base_url, config.model, config.json_format()) == ("http://127.0.0.1:8766/v1", "qwen", "json_schema")
    assert (config.timeout, config.total_timeout, config.max_retries) == (600.0, 600.0, 0)


def test_runs_with_an_llm_are_recorded_apart_from_the_no_llm_records() -> None:
    assert record_name("blind2", "llm") == "memory_quality_llm-blind2"
    assert record_name("eval", "mem0") == "memory_quality_mem0-eval"


def record(split: str, model: str, surfaces: dict[str, Any], commit: str = "new") -> dict[str, Any]:
    return {"split": split, "service_commit": commit, "llm": {"model": model}, "surfaces": surfaces}


def test_a_new_run_keeps_the_other_surfaces_of_the_same_split_and_model(tmp_path: Path) -> None:
    # Given the self-hosted surface recorded earlier, on another commit
    previous = tmp_path / "memory_quality_llm-blind2.json"
    previous.write_text(json.dumps({"figures": record("blind2", "qwen", {"selfhosted": {"junk": 1}}, "old")}))

    # When the platform surface of the same split is run
    figures = merged(previous, record("blind2", "qwen", {"platform": {"junk": 2}}))

    # Then the record holds both, each with the commit it ran on
    assert figures["surfaces"] == {
        "selfhosted": {"service_commit": "old", "junk": 1},
        "platform": {"service_commit": "new", "junk": 2},
    }


def test_a_new_run_replaces_the_surface_it_ran_and_ignores_another_model(tmp_path: Path) -> None:
    previous = tmp_path / "memory_quality_llm-blind2.json"
    previous.write_text(json.dumps({"figures": record("blind2", "qwen", {"selfhosted": {"junk": 1}}, "old")}))

    rerun = merged(previous, record("blind2", "qwen", {"selfhosted": {"junk": 3}}))
    other_model = merged(previous, record("blind2", "llama", {"platform": {"junk": 2}}))
    nothing_before = merged(tmp_path / "absent.json", record("blind2", "qwen", {"platform": {"junk": 2}}))

    assert rerun["surfaces"] == {"selfhosted": {"service_commit": "new", "junk": 3}}
    assert other_model["surfaces"] == {"platform": {"service_commit": "new", "junk": 2}}
    assert nothing_before["surfaces"] == {"platform": {"service_commit": "new", "junk": 2}}


def test_the_first_users_of_a_split_keep_all_their_conversations_and_changes() -> None:
    # Given the blind2 split
    split = load("blind2")

    # When only its first user is kept
    one = first_users(split, 1)

    # Then that user's conversations (in time order) and changes are all there, and nobody else's
    user = split.users[0]
    assert one.users == (user,)
    assert one.conversations == tuple(c for c in split.conversations if c.user_id == user)
    assert one.changes == tuple(c for c in split.changes if c.user_id == user) and one.changes
    assert list(one.names) == [user]
    with pytest.raises(ValueError, match="at least 1"):
        first_users(split, 0)


def test_a_surface_with_an_llm_gets_its_provider_and_a_token_that_outlasts_the_run(tmp_path: Path) -> None:
    from bench.memory_quality.surfaces import serve_settings

    section = Endpoint("http://127.0.0.1:8766/v1", "qwen").mnemo_config()

    with_llm = serve_settings(tmp_path, section)
    without = serve_settings(tmp_path)

    assert (with_llm.llm_provider, with_llm.llm_config["base_url"]) == ("openai", "http://127.0.0.1:8766/v1")
    assert with_llm.access_token_minutes == 24 * 60
    assert (without.llm_provider, without.llm_config, without.access_token_minutes) == (None, {}, 30)
