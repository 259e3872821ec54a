"""The English pack's learned models: linear classifiers over the default embedder's vectors, trained by
bench/learned_rules.py on labelled sentences in bench/data and shipped as data/*.json. Each loads on first use;
a missing file means the pack has no such model (the core keeps to its rules)."""

from __future__ import annotations

import functools
from importlib import resources

from mnemo.language.linear_model import LinearModel, read_linear_model

DURABLE_FACT = "durable_fact.json"


@functools.cache
def model(file_name: str) -> LinearModel | None:
    found = resources.files("mnemo.language.en") / "data" / file_name
    if not found.is_file():
        return None
    return read_linear_model(f"mnemo.language.en data/{file_name}", found.read_text(encoding="utf-8"))
