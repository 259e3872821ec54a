"""Whether the local LLM is installed, and if not, what is missing: what a benchmark asks before it uses one.

Nothing is downloaded or run here but `node --version`: the model counts as installed when its stamp holds the
pinned hash (and the file has the pinned size), the runtime when its stamp holds the hash of the current package
files, and Node.js when a recent enough one is on PATH.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

from bench.llm_local.model import model_verified
from bench.llm_local.pins import QWEN_CODER_1_5B, CacheLayout, ModelPins
from bench.llm_local.runtime import node_major, node_problem, runtime_ready


@dataclass(frozen=True, slots=True)
class Status:
    root: str
    missing: tuple[str, ...]

    @property
    def ready(self) -> bool:
        return not self.missing

    def describe(self) -> str:
        if self.ready:
            return f"installed in {self.root}"
        return f"not installed ({'; '.join(self.missing)}): `make llm-local` installs it into {self.root}"


def installation_status(
    layout: CacheLayout | None = None,
    pins: ModelPins = QWEN_CODER_1_5B,
    *,
    find_node: Callable[[], str | None] = lambda: shutil.which("node"),
    node_version: Callable[[str | None], int | None] = node_major,
) -> Status:
    """What is missing of the model, the runtime and Node.js (nothing: ready to serve)."""
    layout = layout or CacheLayout.from_environment()
    missing: list[str] = []
    node = find_node()
    problem = node_problem(node, node_version(node))
    if problem:
        missing.append(problem)
    if not runtime_ready(layout):
        missing.append("node-llama-cpp is not installed")
    if not model_verified(layout, pins):
        missing.append(f"the model {pins.file_name} is not there or not verified")
    return Status(str(layout.root), tuple(missing))
