"""The memory a mnemo process needs to serve a store: `python -m bench.footprint DATA_DIR QUESTIONS.json`.

A fresh interpreter opens the store (loading its search index), answers the questions with the real embedder,
and prints one JSON object: its peak resident memory (VmHWM) and the memories it served. The benchmark process
itself holds several stores and a table of precomputed vectors, so its own peak says little about a server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mnemo.composition.container import build_container
from mnemo.domain import filters as f
from mnemo.services.commands import SearchCommand
from mnemo.settings import Settings


def measure(data_dir: Path, questions: list[tuple[str, str]]) -> dict[str, Any]:
    """Run this module in a fresh interpreter and return what it printed."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.footprint", str(data_dir), json.dumps(questions)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    from bench.engine import peak_rss_mb

    container = build_container(Settings(data_dir=Path(argv[0]), auth_disabled=True))
    questions: list[list[str]] = json.loads(argv[1])
    for user, question in questions:
        container.memory_service.search(SearchCommand(question, f.parse({"user_id": user}), top_k=10, threshold=0.0))
    memories = container.memory_service.index.count()
    container.close()
    print(json.dumps({"peak_rss_mb": peak_rss_mb(), "memories": memories, "questions": len(questions)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
