"""The cue words of a regular expression (mnemo.language.en.cues): read from the expression, and never a reason to
skip a text the expression matches — the claims' patterns find the same matches with and without them."""

from __future__ import annotations

import re

import pytest
from bench.corpus import generate

from mnemo.language.en import claim_patterns as claims
from mnemo.language.en.cues import CuedPattern, cued, cues_of


@pytest.mark.parametrize(
    ("pattern", "flags", "cues"),
    [
        (r"\bfavou?rite\s+food\b", 0, ("favo",)),  # the longest of the required runs: "favo", " food"
        (r"\b(?:cats?|dogs?)\b", 0, ("cat", "dog")),
        (r"(?P<neg>not\s+)?(?:an?\s+)?(?P<value>vegan|vegetarian)\b", re.I, ("veg",)),  # re factors "veg" out
        (r"\bMoved\s+to\s+[A-Z]\w+", 0, ("moved",)),  # compared case-folded
        (r"(?:\w+\s+){2,}home\b", 0, ("home",)),
        (r"\bi’m\s+(?P<value>\d+)", 0, ("i",)),  # a run stops at a character outside ASCII
    ],
)
def test_given_an_expression_then_its_cues_are_a_required_part_of_it(pattern: str, flags: int, cues: tuple[str, ...]):
    assert cues_of(re.compile(pattern, flags)) == cues


@pytest.mark.parametrize(
    "pattern",
    [r"[A-Z][a-z]+", r"(?:big\s+)?\d+", r"(?:yes|)\s*k?", r"(?<=\s)[A-Z]\w*"],
)
def test_given_an_expression_without_a_required_literal_then_it_has_no_cues_and_always_runs(pattern: str):
    cued_pattern = cued(pattern)

    assert cued_pattern.cues is None
    assert cued_pattern.may_match("")


def test_given_case_variants_python_matches_case_insensitively_then_the_cue_lets_them_through():
    # re.IGNORECASE matches "i" to the dotless ı and the dotted İ, "s" to the long ſ, "k" to the Kelvin sign.
    pattern = cued(r"\bskin\s+care\b", re.IGNORECASE)
    texts = ["SKIN CARE", "ſkin care", "\u212akin care", "skın care", "SKİN CARE", "skin  care", "skincare", "kin care"]

    for text in texts:
        expected = pattern.pattern.search(text)
        found = pattern.search(text)
        assert (found and found.span()) == (expected and expected.span()), text
    assert pattern.search("SKİN CARE") is not None
    assert pattern.search("skincare") is None


def _patterns_of_claims() -> list[CuedPattern]:
    found: list[CuedPattern] = []
    for value in vars(claims).values():
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            pattern = item[-1] if isinstance(item, tuple) else item  # (name, pattern) pairs
            if isinstance(pattern, CuedPattern):
                found.append(pattern)
    return found


TEXTS = [
    "I live in Lisbon now",
    "We moved back from Porto to Berlin last year",
    "My sister Emma works as a nurse at St. Mary's",
    "I'm not vegetarian anymore",
    "I QUIT GOOGLE AND JOINED STRIPE",
    "We had to put Biscuit down",
    "I’m 34 and I just turned thirty-four",
    "Name is Alice",
    "My favourite food is ramen",
    "I don't like coffee anymore",
    "Working night shifts at the hospital",
    "Got a used Renault Zoe",
    "ſtill living with my parents",
    "ı live in İzmir",
    "",
    "   ",
    "🙂 emoji only 🙂",
]


def test_given_the_claims_patterns_then_cues_never_change_what_they_find():
    patterns = _patterns_of_claims()
    texts = TEXTS + [item.text for item in generate(1_500, 60, seed=3)]
    assert len(patterns) > 50  # every reader's patterns are cued
    assert sum(p.cues is not None for p in patterns) > 45
    skipped = 0
    for pattern in patterns:
        for text in texts:
            expected = [m.span() for m in pattern.pattern.finditer(text)]
            assert [m.span() for m in pattern.finditer(text)] == expected, (pattern.pattern.pattern, text)
            skipped += not pattern.may_match(text)
    assert skipped > len(patterns) * len(texts) // 2  # and most of the patterns are skipped on most texts
