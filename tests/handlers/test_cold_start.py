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
    assert len(result["ready"]) == 10  # with the MCP and console functions


# What each HTTP function loads: its groups, the mnemo modules and the libraries below, and whether it built the
# platform's features, after its entry is imported and warmed in a fresh interpreter. One interpreter imports what
# every probe imports first (moto, the stack's helpers), then forks a child per function: each child starts from
# exactly the state a fresh interpreter has at that point, and pays no second start of Python and moto.
_LOADED_PROBE = """
import importlib.util, json, os, sys, traceback
from moto import mock_aws
from tests.support.lambda_aws import create_stack

def probe(app):
    with mock_aws():
        os.environ.update(create_stack().env)
        spec = importlib.util.spec_from_file_location("function", app)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.warm()
        built = module.entry.function.container.get().features.built
    libraries = ("mcp", "jsonschema", "jwt", "httpcore", "uvicorn")
    return {
        "app": app,
        "groups": list(module.entry.function.groups),
        "platform_built": built,
        "modules": sorted(m for m in sys.modules if m.startswith("mnemo.") or m.split(".")[0] in libraries),
    }

failed = []
for app in sys.argv[1:]:
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            print("PROBE " + json.dumps(probe(app)))
            code = 0
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if os.waitpid(pid, 0)[1] != 0:
        failed.append(app)
sys.exit(f"failed: {failed}" if failed else 0)
"""


# A platform feature's modules (mnemo.services.platform.<feature>...), the platform's composition, the libraries only
# its routes use: none of them is loaded by a function whose groups use no platform feature.
PLATFORM_ONLY = (
    "mnemo.services.platform.",
    "mnemo.composition.aws_platform",
    "mnemo.composition.platform",
    "mnemo.api.platform",
    "jsonschema",
)
PLATFORM_SHELL = ("mnemo.services.platform.served",)  # the type of what every app serves: no feature in it

# Loaded on first use, by no function on its way to ready: the English pack's rule modules (its patterns compile on
# the first text read), PyJWT (on the first token), jsonschema (on the first schema checked), the webhook sender and
# httpx's connection pool (on the first webhook checked or sent; the index's HTTP client on its first request).
DEFERRED = ("mnemo.language.en.", "jwt", "jsonschema", "mnemo.adapters.webhooks.http_sender", "httpcore")
DEFERRED_SHELL = ("mnemo.language.en.pack", "mnemo.language.en.words")  # the pack's version: no rule in them
# The profiles' reading of memories (its values, and the words of a property with the patterns they are read with):
# built with the platform's features, where the routes use them.
PLATFORM_RULES = (
    "mnemo.language.en.profile_values",
    "mnemo.language.en.profile_words",
    "mnemo.language.en.patterns",
    "mnemo.language.en.life_slots",
)
# What only the platform's features use: a self-hosted function loads none of these either (the platform's records).
SELF_HOSTED_DEFERRED = ("mnemo.domain.tenancy", "mnemo.domain.webhooks", "mnemo.domain.profiles")


def http_functions() -> list[str]:
    return sorted(p.parent.name for p in FUNCTIONS.glob("*/app.py") if "http_entry(" in p.read_text())


def loaded_by(functions: list[str]) -> dict[str, dict[str, object]]:
    """What each of `functions` loads, by function, each in an interpreter of its own."""
    apps = {str(FUNCTIONS / function / "app.py"): function for function in functions}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "POWERTOOLS_TRACE_DISABLED": "true"}
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_PROBE, *apps],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=seconds(120),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded: dict[str, dict[str, object]] = {}
    for line in done.stdout.strip().splitlines():
        if line.startswith("PROBE "):
            result = json.loads(line.removeprefix("PROBE "))
            loaded[apps[result.pop("app")]] = result
    assert sorted(loaded) == sorted(functions), done.stdout[-3000:]
    return loaded


def router_modules(group: str) -> set[str]:
    from mnemo.api.route_groups import GROUP_ROUTERS

    explorer = "mnemo.api.explorer"  # every app serves the explorer, whatever its groups
    return {ref.split(":")[0] for ref in GROUP_ROUTERS[group]} - {explorer}


def test_each_http_function_loads_only_the_modules_of_its_own_route_groups() -> None:
    from mnemo.api.route_groups import GROUP_ROUTERS, uses_platform

    assert http_functions() == ["admin", "auth", "configure", "mcp", "memories", "platform"]
    # Given each function's entry imported and warmed in a fresh interpreter, as Lambda starts it
    every = loaded_by(http_functions())
    for function in http_functions():
        loaded = every[function]
        groups, names = loaded["groups"], loaded["modules"]
        assert isinstance(groups, list) and isinstance(names, list)
        modules = set(names)

        # Then no group's routers are loaded: its own are loaded by the first request they could answer
        for group in GROUP_ROUTERS:
            mine = router_modules(group)
            assert not mine & modules, (function, group, mine & modules)
        # And the platform's features are imported and built only where its routes use them
        platform = uses_platform(groups)
        assert loaded["platform_built"] is platform, function
        if not platform:
            strays = {m for m in modules if m.startswith(PLATFORM_ONLY) and m not in PLATFORM_SHELL}
            assert not strays, (function, sorted(strays))
        # And none loads the MCP SDK (imported on the first MCP call), nor the local server (not in the layer)
        assert not any(m.split(".")[0] in ("mcp", "uvicorn") for m in modules), function
        # And none loads what is loaded on first use; a self-hosted one nothing of the platform's features either
        deferred = DEFERRED if platform else DEFERRED + SELF_HOSTED_DEFERRED
        allowed = DEFERRED_SHELL + PLATFORM_RULES if platform else DEFERRED_SHELL
        loaded_early = {m for m in modules if _named(m, deferred) and m not in allowed}
        assert not loaded_early, (function, sorted(loaded_early))


def _named(module: str, prefixes: tuple[str, ...]) -> bool:
    """Whether `module` is one of `prefixes` or inside one (a prefix ending in "." names a package's modules)."""
    return any(module.startswith(p) if p.endswith(".") else module == p or module.startswith(f"{p}.") for p in prefixes)
