"""The split benchmark: its weightless server keeps the embedder but not the model's run, and its figures add up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from bench import corpus, http_load, http_split, model_speed, report

_EMBED = (
    "import json; from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder as E; e = E(); "
    "v = e.embed(['I moved to Lisbon in May.', 'I moved to Lisbon in May.', 'My sister is a nurse.']); "
    "print(json.dumps([E._forward_onnx.__name__, e.backend, v.tolist()]))"
)


def _embedded_in_a_process(env: dict[str, str]) -> tuple[str, str, np.ndarray]:
    done = subprocess.run([sys.executable, "-c", _EMBED], env=env, capture_output=True, text=True, check=True)
    forward, backend, vectors = json.loads(done.stdout)
    return forward, backend, np.asarray(vectors, dtype=np.float32)


def test_a_process_started_with_the_weightless_path_embeds_without_the_model() -> None:
    path = os.pathsep.join([str(http_split.WEIGHTLESS), os.environ.get("PYTHONPATH", "")])
    forward, backend, vectors = _embedded_in_a_process({**os.environ, "PYTHONPATH": path})
    real_forward, real_backend, real = _embedded_in_a_process(dict(os.environ))
    assert (forward, backend) == ("weightless_forward", "onnx")  # the session is loaded; its run is not used
    assert real_forward == "_forward_onnx" and real_backend == "onnx"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[1])  # deterministic: the same text, the same vector
    assert not np.allclose(vectors[0], vectors[2])
    assert abs(float(vectors[0] @ real[0])) < 0.5  # not the model's vector


def _served(**kwargs: Any) -> dict[str, Any]:
    """What bench.http_load.run gives, reduced to what the split reads: the weightless server spends less."""
    weightless = "server_env" in kwargs
    if weightless:
        assert kwargs["server_env"]["PYTHONPATH"].startswith(str(http_split.WEIGHTLESS))
    cpu = {"search": 1.5, "add": 2.5} if weightless else {"search": 4.0, "add": 6.0}
    return {
        kind: {"per_second": 1000 / ms, "server_cpu_ms_per_request": ms, "client_cpu_ms_per_request": 0.2}
        for kind, ms in cpu.items()
    }


def test_the_split_is_the_difference_of_the_two_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_load, "run", _served)
    monkeypatch.setattr(http_split, "model_costs", lambda: {"question_ms": 1.6, "add_text_ms": 2.9})
    result = http_split.run(seconds=1, preload=10, surfaces=("selfhosted",))
    search, add = result["selfhosted"]["split"]["search"], result["selfhosted"]["split"]["add"]
    assert search["model_in_server_ms"] == 2.5 and add["model_in_server_ms"] == 3.5
    assert search["server_cpu_ms_available_at_target"] == pytest.approx(2000 / 600 - 0.2, abs=1e-3)
    assert add["left_for_the_rest_at_target_ms"] == pytest.approx(2000 / 500 - 0.2 - 3.5, abs=1e-3)
    assert (search["model_alone_ms"], add["model_alone_ms"]) == (1.6, 2.9)


def test_the_model_speed_is_measured_on_the_benchmark_questions_and_add_texts() -> None:
    speed = model_speed.model_costs(count=20)
    assert speed["texts_each"] == 20
    assert speed["question_ms"] > 0 and speed["add_text_ms"] > 0
    # an add's text is a stored fact, longer than the question that asks for it
    assert speed["tokens_mean"]["add_text"] > speed["tokens_mean"]["question"] > 2


def test_the_report_renders_the_split_and_the_model_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_load, "run", _served)
    monkeypatch.setattr(http_split, "model_costs", lambda: {"question_ms": 1.6, "add_text_ms": 2.9})
    machine = {"date": "2026-11-28T13:00:00+00:00", "commit": "abc1234", "cores": 2}
    figures = http_split.run(seconds=1, preload=10, surfaces=("selfhosted", "platform"))
    rows = report.http_split_rows({"machine": machine, "figures": figures})
    assert rows[0].count("|") == 6 and "platform add" in rows[0]
    assert "| the model in the server / alone, ms | 2.5 / 1.6 | 3.5 / 2.9 | 2.5 / 1.6 | 3.5 / 2.9 |" in rows
    speed = {"question_ms": 1.7, "add_text_ms": 3.0}
    served = {**_served(), "clients": 16, "preloaded": 10, "model_alone_ms": {"before": speed, "after": speed}}
    for kind in ("search", "add"):
        served[kind] |= {"seconds": 1, "errors": 0, "latency_ms": {"p50": 1, "p95": 2, "p99": 3}}
    text = "\n".join(report.http_rows({"machine": machine, "figures": served}))
    assert "a question 1.7 before the run and 1.7 after, an add's text 3.0 and 3.0" in text


def test_every_http_benchmark_draws_the_same_texts() -> None:
    """The model's measured speed, the floor and the served load embed one corpus: its preloaded memories' questions
    are the searches, the texts after them the adds, whatever number of fresh texts a benchmark asks for."""
    few, many = corpus.http_texts(fresh=10, preload=50), corpus.http_texts(fresh=100, preload=50)
    assert few.preloaded == many.preloaded and few.fresh == many.fresh[:10]
    assert len(few.preloaded) == 50 and len({i.user_id for i in few.preloaded}) == corpus.HTTP_USERS // 2
    assert not {i.text for i in few.preloaded} & {i.text for i in many.fresh}
