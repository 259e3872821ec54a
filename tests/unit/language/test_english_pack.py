"""The English pack as a whole: its data files loaded once and checked as they load, its version, the interface it
implements, and the reader of regular expressions its cue words come from."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mnemo.language import Language
from mnemo.language.en import english, words
from mnemo.language.en.cues import cues_of
from mnemo.language.en.pack import English, pack_version
from mnemo.language.en.regex_parts import Alternation, Anchor, Literal, Opaque, Repeat, parse
from mnemo.language.en.words import PackDataError


def test_given_the_pack_then_the_composition_root_gets_one_english_language_with_a_version() -> None:
    pack: Language = english()

    assert pack is english()  # one per process
    assert isinstance(pack, English) and pack.code == "en"
    assert pack.version == pack_version() and pack.version.startswith("en-1-")
    assert pack.facets("I live in Lisbon and work at Stripe") == ["employer", "residence"]


def test_given_the_word_lists_then_each_calendar_name_is_read_once_from_the_data() -> None:
    loaded = words.words()

    assert loaded.weekdays[0] == "monday" and len(loaded.weekdays) == 7
    assert loaded.months[4] == "may" and len(loaded.months) == 12
    assert loaded.seasons["autumn"] == 9
    assert {"monday", "december", "i'm"} <= loaded.not_beings
    assert loaded.diets[-1] == "gluten free"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: doc.pop("weekdays"), "`weekdays` must be a non-empty list of words"),
        (lambda doc: doc.update(months=doc["months"][:11]), "7 weekdays and 12 months are needed"),
        (lambda doc: doc.pop("relations"), "[relations] is missing"),
        (lambda doc: doc["seasons"].update(winter=13), "[seasons] must give each season a month 1-12"),
        (lambda doc: doc["claims"].update(diets=[]), "words.toml [claims]: `diets` must be a non-empty list"),
    ],
)
def test_given_a_broken_word_list_when_loaded_then_a_pack_data_error_names_the_file_and_the_key(
    monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    document = words.read_toml("words.toml")
    change(document)
    monkeypatch.setattr(words, "read_toml", lambda name: document)
    words.words.cache_clear()
    try:
        with pytest.raises(PackDataError, match=re.escape(message)):
            words.words()
    finally:
        words.words.cache_clear()


def test_given_a_data_file_that_is_not_toml_then_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PackDataError, match=r"data/missing\.toml"):
        words.read_toml("missing.toml")


def test_given_an_expression_then_the_reader_sees_its_literals_groups_repeats_and_opaque_parts() -> None:
    (branch,) = parse(r"\bab+(?:c|d)?[xy](?=z)$").branches

    assert branch == (
        Anchor(),
        Literal("a"),
        Repeat(Literal("b"), 1),
        Repeat(Alternation(((Literal("c"),), (Literal("d"),))), 0),
        Opaque(),
        Opaque(),
        Anchor(),
    )
    assert [len(b) for b in parse(r"(?P<x>a)|(?i:b)|(?#c)").branches] == [1, 1, 1]
    with pytest.raises(ValueError, match="unbalanced"):
        parse("(a")


@pytest.mark.parametrize(
    ("pattern", "cues"),
    [
        (r"(?P<who>my)\s+(?:sister|brother)", ("brother", "sister")),  # the alternation's cues beat "my"
        (r"\bsoon(?:er)?\b", ("soon",)),
        (r"a{2,}|b{1,3}", ("a", "b")),
        (r"x{0,3}", None),
        (r"\d+\s*(?i:kg)", ("kg",)),
        (r"(a)(?<!\w)\1", ("a",)),  # a lookaround and a back-reference require nothing of their own
    ],
)
def test_given_more_expressions_then_their_cues_are_required_words(pattern: str, cues: tuple[str, ...] | None) -> None:
    assert cues_of(re.compile(pattern)) == cues
