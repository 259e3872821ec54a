"""The local LLM server's modules (bench/llm_local/*.mjs) pass their own `node --test` tests: OpenAI requests to
node-llama-cpp's options, response_format schemas to its grammar subset, the reply and its usage, the slot whose
cached prefix a prompt reuses, one generation at a time. Node.js only: no runtime, no model."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.support.waits import seconds

TESTS = Path(__file__).resolve().parents[2] / "bench" / "llm_local" / "tests"


def test_the_server_modules_pass_their_node_tests() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed to test bench/llm_local (apt-get install nodejs)"
    files = sorted(str(path) for path in TESTS.glob("*.test.mjs"))
    assert len(files) == 3

    done = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=seconds(120), check=False)

    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
