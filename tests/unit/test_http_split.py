"""The split benchmark: its weightless server keeps the embedder but not the model's run, and its figures add up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from bench import http_load, http_split

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


def test_the_split_is_the_difference_of_the_two_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    def served(kind_cpu: dict[str, float]) -> dict[str, Any]:
        return {
            kind: {"per_second": 1000 / cpu, "server_cpu_ms_per_request": cpu, "client_cpu_ms_per_request": 0.2}
            for kind, cpu in kind_cpu.items()
        }

    def fake_run(**kwargs: Any) -> dict[str, Any]:
        weightless = "server_env" in kwargs
        assert kwargs["server_env"]["PYTHONPATH"].startswith(str(http_split.WEIGHTLESS)) if weightless else True
        return served({"search": 1.5, "add": 2.5} if weightless else {"search": 4.0, "add": 6.0})

    monkeypatch.setattr(http_load, "run", fake_run)
    monkeypatch.setattr(http_split, "model_costs", lambda: {"question_ms": 1.6, "add_text_ms": 2.9})
    result = http_split.run(seconds=1, preload=10, surfaces=("selfhosted",))
    search, add = result["selfhosted"]["split"]["search"], result["selfhosted"]["split"]["add"]
    assert search["model_in_server_ms"] == 2.5 and add["model_in_server_ms"] == 3.5
    assert search["server_cpu_ms_available_at_target"] == pytest.approx(2000 / 600 - 0.2, abs=1e-3)
    assert add["left_for_the_rest_at_target_ms"] == pytest.approx(2000 / 500 - 0.2 - 3.5, abs=1e-3)
    assert (search["model_alone_ms"], add["model_alone_ms"]) == (1.6, 2.9)
