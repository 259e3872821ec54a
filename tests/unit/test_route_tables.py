"""The route tables of the site (docs/gen/route_tables.py) are written from the OpenAPI snapshot, and the docs build
puts them, and the configuration reference, where a page's marker asks (docs/gen/hooks.py)."""

from __future__ import annotations

from typing import Any

import pytest
from docs.gen import hooks, route_tables


def _document() -> dict[str, Any]:
    """Three routes of three kinds: open, a self-hosted user's, a platform project's, and one taking either."""
    bearer: dict[str, list[str]] = {"BearerToken": []}
    key: dict[str, list[str]] = {"ApiKey": []}
    project: dict[str, list[str]] = {"PlatformToken": []}
    return {
        "paths": {
            "/search": {"post": {"summary": "Search memories", "tags": ["memories"], "security": [bearer, key]}},
            "/auth/login": {"post": {"summary": "Sign in", "tags": ["authentication"]}},
            "/v1/ping/": {
                "get": {"summary": "Who | the key is", "tags": ["platform: memories"], "security": [project]}
            },
            "/mcp": {"post": {"summary": "Tools", "tags": ["mcp"], "security": [project, bearer, key]}},
        }
    }


def test_each_surface_lists_its_routes_by_group_with_their_credentials() -> None:
    selfhosted = route_tables.render("self-hosted", _document())
    platform = route_tables.render("platform", _document())

    assert selfhosted.splitlines()[0] == "### Authentication"
    assert "| POST | `/auth/login` | Sign in | none |" in selfhosted
    assert "| POST | `/search` | Search memories | Bearer token or `X-API-Key` |" in selfhosted
    assert "/v1/ping/" not in selfhosted
    assert "### Memories" in platform and "| GET | `/v1/ping/` | Who \\| the key is | project key |" in platform
    # MCP takes either surface's credentials: it is listed on both
    assert "### MCP" in selfhosted and "### MCP" in platform


def test_the_snapshot_s_every_route_is_in_a_table() -> None:
    document = route_tables.load()
    operations = sum(len(ops) for ops in document["paths"].values())
    listed = {
        line.split(" | ")[0] + line.split(" | ")[1]
        for surface in route_tables.SURFACES
        for line in route_tables.render(surface, document).splitlines()
        if line.startswith("| ") and "`" in line
    }
    assert len(listed) == operations


def test_an_unknown_surface_is_refused() -> None:
    with pytest.raises(ValueError, match="no surface 'dashboard'"):
        route_tables.render("dashboard", _document())


def test_the_build_replaces_each_marker_with_its_part() -> None:
    page = "# Configuration\n\n<!-- generated: settings -->\n\nAfter.\n<!-- generated: routes platform -->\n"

    filled = hooks.on_page_markdown(page, page=None, config=None, files=None)

    assert "<!-- generated" not in filled
    assert "| `MNEMO_PORT` | `int` | `8000` |" in filled
    assert "| GET | `/v1/ping/` |" in filled
    assert filled.startswith("# Configuration\n\n### ") and "\n\nAfter.\n" in filled


def test_an_unknown_marker_fails_the_build() -> None:
    with pytest.raises(hooks.UnknownMarkerError, match="routes dashboard"):
        hooks.fill("<!-- generated: routes dashboard -->")
