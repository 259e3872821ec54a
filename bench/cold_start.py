"""Lambda cold start: for each functions/<name>/app.py, the time from a fresh interpreter to a handler ready
to serve (its imports plus building its container), whether torch or ONNX Runtime was imported, and the unzipped
size of what the function deploys (its folder plus the shared layer, Lambda's limit being 250 MB).

The code measured is what deploys: `sam build`'s artifacts in .aws-sam/build when they exist (`make sam-build`),
else the layer built the same way (layers/shared/Makefile) into bench/.work/lambda-layer, with the function's
folder. The probe runs without site-packages (`python -S`), so it imports only what Lambda would have.
The AWS services the container reads at cold start (SSM, DynamoDB) are moto's server on loopback; tracing is on,
as in Lambda. Each time is also taken in CPU seconds of the probe's process (user + sys): on a shared, busy
machine the wall-clock figures grow with the load, the CPU figures much less.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"
LAYER = ROOT / "layers" / "shared"
BUILD = ROOT / ".aws-sam" / "build"
WORK = ROOT / "bench" / ".work" / "lambda-layer"
LAMBDA_LIMIT_MB = 250
HEAVY = ("torch", "onnxruntime", "onnx", "tokenizers")

_PROBE = """
import importlib.util, json, sys, time
start, start_cpu = time.perf_counter(), time.process_time()
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
imported, imported_cpu = time.perf_counter() - start, time.process_time() - start_cpu
module.warm()
ready, ready_cpu = time.perf_counter() - start, time.process_time() - start_cpu
import mnemo
print(json.dumps({
    "seconds": ready,
    "import_seconds": imported,
    "cpu_seconds": ready_cpu,
    "import_cpu_seconds": imported_cpu,
    "heavy": [m for m in sys.argv[2].split(",") if m in sys.modules],
    "mnemo": mnemo.__file__,
}))
"""


def folder_bytes(path: Path, *, bytecode: bool) -> int:
    """The bytes of the files under `path`; .pyc files only when they deploy (`sam build` puts them there)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and (bytecode or "__pycache__" not in p.parts))


def logical_id(folder: str) -> str:
    """functions/ingest_worker -> IngestWorkerFunction, as template.yaml names them."""
    return "".join(part.title() for part in folder.split("_")) + "Function"


def deployed_code(app: Path) -> tuple[Path, Path, str]:
    """The function's code folder, the layer's python/ folder, and where they come from."""
    built_function, built_layer = BUILD / logical_id(app.parent.name), BUILD / "SharedLayer" / "python"
    if built_function.is_dir() and built_layer.is_dir():
        return built_function, built_layer, ".aws-sam/build"
    return app.parent, layer_from_requirements(), "layers/shared/Makefile"


def layer_from_requirements() -> Path:
    """The layer as `sam build` makes it (layers/shared/Makefile: the requirements' wheels for Lambda, the mnemo
    package, all compiled), in bench/.work; the requirements are installed again only when they change."""
    requirements = LAYER / "requirements.txt"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()[:12]
    artifacts = WORK / digest
    target = artifacts / "python"
    if not (artifacts / ".complete").exists():
        shutil.rmtree(artifacts, ignore_errors=True)
        subprocess.run(
            [
                "make",
                "-s",
                "-C",
                str(LAYER),
                "build-SharedLayer",
                f"ARTIFACTS_DIR={artifacts}",
                f"PYTHON={sys.executable}",
            ],
            check=True,
        )
        (artifacts / ".complete").touch()
    else:  # the package may have changed since: copy and compile it again
        shutil.rmtree(target / "mnemo", ignore_errors=True)
        shutil.copytree(LAYER / "mnemo", target / "mnemo", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(target / "mnemo")],
            check=True,
        )
    return target


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def aws_on_loopback() -> tuple[Any, dict[str, str]]:
    """moto's server on a free loopback port, with the stack's tables, queue, topic and SSM secrets, and the
    environment a function gets from the template."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # not a line per request
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    from tests.support import moto_aws
    from tests.support.lambda_aws import create_stack

    moto_aws.client.cache_clear()  # the clients are made once per process: these must reach the server

    stack = create_stack()
    return server, {**stack.env, "AWS_ENDPOINT_URL": endpoint}


def function_env(name: str, stack_env: dict[str, str]) -> dict[str, str]:
    """What template.yaml gives the function: the ingest queue to those that queue jobs (the platform function, the
    worker for the next part of a long job, the Dream scheduler for its runs), the events topic and the profile queue
    to those that publish webhook events or queue profile generations (the platform function, the worker, the webhook
    delivery function), and no sign-in secrets to those that serve no HTTP."""
    env = {
        k: v for k, v in stack_env.items() if k not in ("MNEMO_QUEUE_URL", "MNEMO_TOPIC_ARN", "MNEMO_PROFILE_QUEUE_URL")
    }
    if name in ("platform", "console", "ingest_worker", "webhook_delivery"):
        env["MNEMO_TOPIC_ARN"] = stack_env["MNEMO_TOPIC_ARN"]
        if "MNEMO_PROFILE_QUEUE_URL" in stack_env:
            env["MNEMO_PROFILE_QUEUE_URL"] = stack_env["MNEMO_PROFILE_QUEUE_URL"]
    if name in ("platform", "console", "ingest_worker", "dream_scheduler"):
        env["MNEMO_QUEUE_URL"] = stack_env["MNEMO_QUEUE_URL"]
    if name in ("console", "ingest_worker", "webhook_delivery", "dream_scheduler"):
        env |= {"MNEMO_JWT_SECRET_PARAMETER": "", "MNEMO_ADMIN_API_KEY_PARAMETER": ""}
    return env


def probe_once(name: str, code: Path, paths: list[Path], aws_env: dict[str, str]) -> dict[str, Any]:
    """One cold start of function `name` (as functions/ names it) from its code folder `code`, in a fresh
    `python -S` with `paths` as its PYTHONPATH and the environment the template gives it: what _PROBE prints."""
    env = {
        **os.environ,
        **function_env(name, aws_env),
        "PYTHONPATH": os.pathsep.join(str(path) for path in paths),
        "LAMBDA_TASK_ROOT": str(code),  # Powertools' tracer is on inside Lambda only
        "AWS_LAMBDA_FUNCTION_NAME": f"mnemo-{name}",
        "POWERTOOLS_TRACE_DISABLED": "false",
        "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
    }
    out = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, str(code / "app.py"), ",".join(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=code,
    )
    found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def run(repeats: int = 3) -> dict[str, Any]:
    apps = sorted(FUNCTIONS.glob("*/app.py"))
    results: dict[str, Any] = {"functions": {}, "limit_mb": LAMBDA_LIMIT_MB}
    if not apps:
        results["note"] = "no Lambda functions exist yet (functions/README.md)"
        return results
    load_at_start = os.getloadavg()  # the machine is shared: its load says how far the wall-clock figures grew
    server, aws_env = aws_on_loopback()
    try:
        for app in apps:
            code, layer, source = deployed_code(app)
            timings, imports, cpu, import_cpu, heavy, origin = [], [], [], [], set(), ""
            for _ in range(repeats):
                probe = probe_once(app.parent.name, code, [code, layer], aws_env)
                timings.append(probe["seconds"])
                imports.append(probe["import_seconds"])
                cpu.append(probe["cpu_seconds"])
                import_cpu.append(probe["import_cpu_seconds"])
                heavy.update(probe["heavy"])
                origin = probe["mnemo"]
            size = folder_bytes(code, bytecode=source == ".aws-sam/build") + folder_bytes(layer, bytecode=True)
            results["functions"][app.parent.name] = {
                "ready_seconds_median": round(sorted(timings)[len(timings) // 2], 3),
                "import_seconds_median": round(sorted(imports)[len(imports) // 2], 3),
                "ready_cpu_seconds_median": round(sorted(cpu)[len(cpu) // 2], 3),
                "import_cpu_seconds_median": round(sorted(import_cpu)[len(import_cpu) // 2], 3),
                "imports_torch": "torch" in heavy,
                "heavy_imports": sorted(heavy),
                "unzipped_mb": round(size / 1e6, 2),
                "code_from": source,
                "mnemo_loaded_from": str(Path(origin).parent.relative_to(ROOT)) if origin else "",
            }
        results["load_average"] = {
            "start": [round(x, 1) for x in load_at_start],
            "end": [round(x, 1) for x in os.getloadavg()],
        }
    finally:
        server.stop()
        os.environ.pop("AWS_ENDPOINT_URL", None)
        from tests.support import moto_aws

        moto_aws.client.cache_clear()  # a later benchmark of this process (cost) must not reach the stopped server
    return results
