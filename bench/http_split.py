"""Where a served request's CPU goes: the model's run, and everything else.

`bench.http_load` measures the server's CPU per search and per add. This runs the same benchmark (the same server,
clients, texts and settings) on a server whose embedder keeps its tokenizer and everything around it but whose
model run is replaced by a lookup of a few microseconds (bench/weightless/sitecustomize.py, put on the server's
PYTHONPATH): what that server spends per request is everything but the model. The model's own cost is measured
beside it (bench.model_speed: in this process, on the benchmark's own questions and add texts).

From the two, for each target rate: the CPU the 2 cores have per request at that rate (less what the load
generator, on the same cores, takes per request), what the model takes of it, and what is left for the rest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench import http_load
from bench.corpus import HTTP_PRELOAD
from bench.model_speed import model_costs

WEIGHTLESS = Path(__file__).resolve().parent / "weightless"
TARGETS = {"search": 600, "add": 500}  # issue 18, part 1: requests per second on 2 cores
CORES = 2


def run(
    seconds: float = 30.0, preload: int = HTTP_PRELOAD, surfaces: tuple[str, ...] = ("selfhosted", "platform")
) -> dict[str, Any]:
    """Each surface twice, one run after the other: the real server, then the weightless one. A request's model
    in the server is the difference of their CPU per request (it may differ from the model alone: the machine's
    speed drifts between the runs, and the rest of each request evicts the model's weights from the CPU's caches)."""
    path = os.pathsep.join(p for p in (str(WEIGHTLESS), os.environ.get("PYTHONPATH", "")) if p)
    result: dict[str, Any] = {"model_alone": model_costs()}
    alone = {"search": result["model_alone"]["question_ms"], "add": result["model_alone"]["add_text_ms"]}
    for surface in surfaces:
        real = http_load.run(seconds=seconds, preload=preload, surface=surface, model_speed=False)
        weightless = http_load.run(
            seconds=seconds, preload=preload, surface=surface, server_env={"PYTHONPATH": path}, model_speed=False
        )
        split: dict[str, Any] = {}
        for kind in ("search", "add"):
            spent = real[kind]["server_cpu_ms_per_request"]
            rest = weightless[kind]["server_cpu_ms_per_request"]
            available = CORES * 1000 / TARGETS[kind] - real[kind]["client_cpu_ms_per_request"]
            split[kind] = {
                "per_second": real[kind]["per_second"],
                "weightless_per_second": weightless[kind]["per_second"],
                "server_cpu_ms": spent,
                "the_rest_ms": rest,
                "model_in_server_ms": round(spent - rest, 3),
                "model_alone_ms": alone[kind],
                "target_per_second": TARGETS[kind],
                "server_cpu_ms_available_at_target": round(available, 3),
                "left_for_the_rest_at_target_ms": round(available - (spent - rest), 3),
            }
        result[surface] = {"split": split, "real": real, "weightless": weightless}
    return result
