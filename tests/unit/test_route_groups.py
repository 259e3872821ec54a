"""The route groups (mnemo.api.route_groups): a group's routers are imported on its first lookup only."""

from __future__ import annotations

import json
import subprocess
import sys

from fastapi import APIRouter

from mnemo.api.route_groups import GROUP_ROUTERS, ROUTE_GROUPS, RouteGroups, uses_platform
from tests.support.lambda_aws import ROOT


def test_given_groups_when_only_named_or_tested_then_none_is_loaded() -> None:
    groups = RouteGroups({"health": ("mnemo.api.health:router",), "platform": ("mnemo.api.platform:PLATFORM_ROUTERS",)})

    assert list(groups) == ["health", "platform"] and len(groups) == 2
    assert "health" in groups and "nothing" not in groups

    assert groups.loaded() == []


def test_when_a_group_is_looked_up_then_its_routers_are_loaded_as_a_tuple() -> None:
    groups = RouteGroups({"health": ("mnemo.api.health:router",), "platform": ("mnemo.api.platform:PLATFORM_ROUTERS",)})

    health = groups["health"]
    platform = groups["platform"]

    assert len(health) == 1 and isinstance(health[0], APIRouter)
    assert len(platform) > 1 and all(isinstance(r, APIRouter) for r in platform)
    assert groups["health"] is health and groups.loaded() == ["health", "platform"]


def test_the_app_groups_are_those_the_functions_serve() -> None:
    assert list(ROUTE_GROUPS) == list(GROUP_ROUTERS) == ["memories", "configure", "auth", "admin", "platform", "mcp"]
    assert uses_platform(["platform"]) and uses_platform(["mcp", "memories"])
    assert not uses_platform(["memories", "configure", "auth", "admin"])


def test_importing_the_app_and_the_composition_root_imports_no_groups_routers() -> None:
    probe = (
        "import json, sys\n"
        "from mnemo.api.app import create_app\n"
        "from mnemo.composition.container import build_container\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('mnemo.api.selfhosted.', 'mnemo.api.platform',"
        " 'mnemo.api.mcp_server.route')) and '.responses' not in m and not m.endswith('.bodies'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )

    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
