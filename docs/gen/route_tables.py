"""The route tables of the site, written from `tests/fixtures/openapi.json` each time the site is built.

That file is the snapshot a test keeps equal to the served `/openapi.json`, so the tables list exactly the routes
the service answers: per surface (self-hosted, platform) and per group (the route's OpenAPI tag), each route's
method, path, summary and the credentials it takes. Prose about a route belongs in the pages around the tables."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "tests" / "fixtures" / "openapi.json"
SURFACES = ("self-hosted", "platform")
_METHODS = ("get", "post", "put", "patch", "delete")
# What each security scheme of /openapi.json is called in the tables.
_CREDENTIALS = {
    "BearerToken": "Bearer token",
    "ApiKey": "`X-API-Key`",
    "PlatformToken": "project key",
}
_TITLES = {"api keys": "API keys", "mcp": "MCP"}  # group names whose capitals the tag does not carry


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    summary: str
    group: str
    schemes: tuple[str, ...]

    @property
    def surfaces(self) -> tuple[str, ...]:
        """The platform's routes take a project key alone; a route that takes other credentials too (MCP) serves
        both surfaces; every other route is the self-hosted server's."""
        platform = "PlatformToken" in self.schemes
        selfhosted = not self.schemes or any(s != "PlatformToken" for s in self.schemes)
        return tuple(s for s, on in zip(SURFACES, (selfhosted, platform), strict=True) if on)

    @property
    def credentials(self) -> str:
        if not self.schemes:
            return "none"
        return " or ".join(_CREDENTIALS.get(scheme, scheme) for scheme in self.schemes)


def load(path: Path = OPENAPI) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def routes(document: dict[str, Any]) -> list[Route]:
    """Every operation of the document, in path order, then in the order GET, POST, PUT, PATCH, DELETE."""
    found = []
    for path, operations in sorted(document["paths"].items()):
        for method in _METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            security = operation.get("security") or []
            found.append(
                Route(
                    method=method.upper(),
                    path=path,
                    summary=" ".join((operation.get("summary") or "").split()),
                    group=(operation.get("tags") or ["other"])[0],
                    schemes=tuple(name for requirement in security for name in requirement),
                )
            )
    return found


def groups(found: Iterable[Route], surface: str) -> dict[str, list[Route]]:
    """The routes of one surface by group, the groups in alphabetical order."""
    by_group: dict[str, list[Route]] = {}
    for route in found:
        if surface in route.surfaces:
            by_group.setdefault(route.group, []).append(route)
    return dict(sorted(by_group.items()))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(surface: str, document: dict[str, Any] | None = None) -> str:
    """One table per group of the surface's routes, as Markdown."""
    if surface not in SURFACES:
        raise ValueError(f"no surface {surface!r}: one of {', '.join(SURFACES)}")
    lines: list[str] = []
    for group, members in groups(routes(document or load()), surface).items():
        title = _TITLES.get(group, group.removeprefix("platform: "))
        lines += [f"### {title[:1].upper()}{title[1:]}", "", "| Method | Path | What it does | Credentials |"]
        lines.append("|---|---|---|---|")
        lines += [f"| {r.method} | `{r.path}` | {_cell(r.summary)} | {r.credentials} |" for r in members]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
