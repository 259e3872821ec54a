"""Lambda cold start: for each functions/<name>/app.py, the time from a fresh interpreter to a handler ready
to serve, whether torch was imported, and the unzipped size of what the function deploys (its folder plus
the shared layer's package)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"
LAYER = ROOT / "layers" / "shared"

_PROBE = """
import importlib.util, json, sys, time
start = time.perf_counter()
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
ready = getattr(module, "warm", None)
if callable(ready):
    ready()
print(json.dumps({"seconds": time.perf_counter() - start, "torch": "torch" in sys.modules}))
"""


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def run(repeats: int = 3) -> dict[str, Any]:
    apps = sorted(FUNCTIONS.glob("*/app.py"))
    results: dict[str, Any] = {"functions": {}}
    if not apps:
        results["note"] = "no Lambda functions exist yet: they arrive with the AWS deployment (functions/README.md)"
    for app in apps:
        timings = []
        torch = False
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", _PROBE, str(app)], capture_output=True, text=True, check=True)
            probe = json.loads(out.stdout.strip().splitlines()[-1])
            timings.append(probe["seconds"])
            torch = torch or probe["torch"]
        results["functions"][app.parent.name] = {
            "ready_seconds_median": round(sorted(timings)[len(timings) // 2], 3),
            "imports_torch": torch,
            "unzipped_mb": round((folder_bytes(app.parent) + folder_bytes(LAYER)) / 1e6, 2),
        }
    return results
