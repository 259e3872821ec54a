"""Every cued pattern of the English pack (mnemo.language.en.cues) proved sound on real texts: a pattern never
matches a text that holds none of its cue words. The texts are every string of the benchmarks' labelled data
(bench/data: memory quality, change pairs, paraphrases, categories, topics), the synthetic corpus the benchmarks
search, and every string the unit tests write, each also in upper case."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.corpus import generate

from mnemo.language.en import english
from mnemo.language.en.cues import CUED, folded

ROOT = Path(__file__).resolve().parents[3]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _bench_texts() -> Iterator[str]:
    for path in sorted((ROOT / "bench" / "data").rglob("*.json*")):
        lines = path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]
        for line in lines:
            if line.strip():
                yield from _strings(json.loads(line))


def _test_texts() -> Iterator[str]:
    for path in sorted((ROOT / "tests" / "unit").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value:
                yield node.value


def texts() -> list[str]:
    found = {*_bench_texts(), *_test_texts(), *(item.text for item in generate(1_500, 60, seed=3))}
    return sorted(found | {text.upper() for text in found})


def test_given_every_cued_pattern_of_the_pack_then_none_matches_a_text_without_its_cues() -> None:
    english()  # every rule module loaded: every cued pattern made
    corpus = texts()
    assert len(CUED) > 50 and len(corpus) > 5_000

    unsound = [
        (cued.pattern.pattern, text)
        for cued in CUED
        if cued.cues is not None
        for text in corpus
        if not any(cue in folded(text) for cue in cued.cues) and cued.pattern.search(text)
    ]

    assert unsound == []


def test_given_the_texts_then_most_patterns_are_skipped_on_most_of_them() -> None:
    english()
    corpus = texts()[:2_000]
    skipped = sum(not cued.may_match(text) for cued in CUED for text in corpus)
    assert skipped > len(CUED) * len(corpus) // 2
