"""The namespace each memory pipeline test works on (tests/unit/memory/fakes.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.memory.fakes import Namespace


@pytest.fixture
def make_namespace(tmp_path: Path) -> Iterator[Callable[..., Namespace]]:
    """Builds namespaces (the options of Namespace), each in a file of its own, closed after the test."""
    made: list[Namespace] = []

    def make(**options: Any) -> Namespace:
        made.append(Namespace(tmp_path / f"ns{len(made)}.sqlite3", **options))
        return made[-1]

    yield make
    for namespace in made:
        namespace.close()


@pytest.fixture
def ns(make_namespace: Callable[..., Namespace]) -> Namespace:
    """A namespace with the self-hosted policy (no filing, no merging), no LLM, no access log, no reranker."""
    return make_namespace()
