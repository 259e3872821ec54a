"""MkDocs hooks (`hooks:` in mkdocs.yml): the generated parts of the site, written at every build.

A page asks for a generated part with a marker alone on its line; the build puts the part in its place, so the part
is never committed and cannot drift from the code it is read from:

- `<!-- generated: settings -->`: the configuration reference, from `mnemo.settings.Settings`;
- `<!-- generated: routes self-hosted -->`, `<!-- generated: routes platform -->`: a surface's route tables, from
  the OpenAPI snapshot `tests/fixtures/openapi.json`.

An unknown marker fails the build."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # MkDocs loads this file by its path: make `docs.gen` importable beside it
    sys.path.insert(0, str(ROOT))

from docs.gen import route_tables, settings_reference  # noqa: E402

MARKER = re.compile(r"^<!-- generated: (?P<what>[a-z -]+?) -->$", re.MULTILINE)


class UnknownMarkerError(ValueError):
    """A page asked for a generated part that does not exist."""


def part(what: str) -> str:
    if what == "settings":
        return settings_reference.render()
    kind, _, surface = what.partition(" ")
    if kind == "routes" and surface in route_tables.SURFACES:
        return route_tables.render(surface)
    raise UnknownMarkerError(f"no generated part {what!r}")


def fill(markdown: str) -> str:
    """The page with each marker replaced by its generated part."""
    return MARKER.sub(lambda match: part(match["what"]).rstrip("\n"), markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return fill(markdown)
