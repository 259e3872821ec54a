"""Every function, loaded in a fresh interpreter as Lambda loads it (its app.py by path) and made ready with its
default composition (no test doubles: Bedrock clients, the OpenSearch index, SSM secrets), under moto: it must
start, and must not have imported torch, ONNX Runtime or the tokenizers (none is in the layer)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.lambda_aws import FUNCTIONS, ROOT
from tests.support.waits import seconds

HEAVY = ("torch", "onnxruntime", "onnx", "tokenizers", "sentence_transformers", "transformers")

_PROBE = """
import importlib.util, json, os, sys
from pathlib import Path
from moto import mock_aws
from tests.support.lambda_aws import create_stack

with mock_aws():
    stack = create_stack()
    os.environ.update(stack.env)
    ready = []
    for app in sys.argv[1:]:
        spec = importlib.util.spec_from_file_location(f"function_{Path(app).parent.name}", app)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.warm()
        ready.append(Path(app).parent.name)
heavy = sorted(m for m in json.loads(os.environ["HEAVY"]) if m in sys.modules)
print(json.dumps({"ready": ready, "heavy": heavy}))
"""


def test_every_function_starts_with_its_default_composition_and_without_torch_or_onnx() -> None:
    apps = sorted(str(p) for p in FUNCTIONS.glob("*/app.py"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HEAVY": json.dumps(HEAVY), "POWERTOOLS_TRACE_DISABLED": "true"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *apps],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=seconds(120),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"ready": sorted(p.split("/")[-2] for p in apps), "heavy": []}
    assert len(result["ready"]) == 9  # with the MCP function
