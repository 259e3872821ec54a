"""The package's shape, beyond what import-linter checks (pyproject.toml, `make lint`): the core takes its
configuration from the composition root, never from the process environment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "shared" / "mnemo"
CORE = ("domain", "ports", "services", "api")


ENVIRONMENT = frozenset({"environ", "environb", "getenv", "putenv"})


def environment_reads(source: str) -> list[int]:
    """Lines that read the process environment: os.environ, os.getenv, os.putenv, or `from os import environ`."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute | ast.ImportFrom) and _reads_environment(node)
    ]


def _reads_environment(node: ast.Attribute | ast.ImportFrom) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in ENVIRONMENT and isinstance(node.value, ast.Name) and node.value.id == "os"
    return node.module == "os" and any(alias.name in ENVIRONMENT for alias in node.names)


@pytest.mark.parametrize("layer", CORE)
def test_the_core_never_reads_the_environment(layer: str) -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        if (lines := environment_reads(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_the_check_finds_each_way_of_reading_the_environment() -> None:
    source = "import os\nfrom os import environ\na = os.environ['X']\nb = os.getenv('Y')\nc = os.cpu_count()\n"
    assert environment_reads(source) == [2, 3, 4]
