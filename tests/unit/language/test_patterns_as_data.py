"""Regular expressions kept as data (mnemo.language.en.patterns): a data file's [patterns] compiled once, a word list
of [lists] written into them, and a broken pattern named with its file."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mnemo.language.en import changes, english
from mnemo.language.en import patterns as patterns_module
from mnemo.language.en.extraction import dates
from mnemo.language.en.patterns import compile_patterns, pattern, patterns, tagged
from mnemo.language.en.words import PackDataError, mapping, word_set

WHERE = "mnemo.language.en data/test.toml"


def test_given_parts_flags_and_a_list_then_the_pattern_is_their_concatenation_with_the_list_as_alternatives() -> None:
    document = {
        "lists": {"pets": ["cat", "dog"]},
        "patterns": {"pet": {"pattern": [r"\bmy (?:", "{{pets}})", r"\b"], "flags": ["IGNORECASE"]}},
    }

    compiled = compile_patterns(document, WHERE)["pet"]

    assert compiled.pattern == r"\bmy (?:cat|dog)\b" and compiled.flags & re.IGNORECASE
    assert compiled.search("My Dog is old") and not compiled.search("my doghouse")


def test_given_a_quantifier_in_braces_then_it_is_not_read_as_a_list() -> None:
    document = {"patterns": {"digits": {"pattern": r"\d{2,4}"}}}

    assert compile_patterns(document, WHERE)["digits"].fullmatch("123")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"patterns": {"broken": {"pattern": "(?:a"}}}, "pattern `broken` does not compile"),
        ({"patterns": {"pet": {"pattern": "{{pets}}"}}}, "pattern `pet` names {{pets}}, not a list of [lists]"),
        ({"patterns": {"pet": {"pattern": "a", "flags": ["LOUD"]}}}, "pattern `pet` has an unknown flag 'LOUD'"),
        ({"patterns": {"pet": {"pattern": 3}}}, "pattern `pet` must be a string or a list of strings"),
        ({"patterns": {"pet": "a"}}, "pattern `pet` must be a table with a `pattern`"),
        ({}, "a [patterns] table is needed"),
    ],
)
def test_given_a_broken_pattern_then_a_pack_data_error_names_the_file_and_the_pattern(
    document: dict[str, Any], message: str
) -> None:
    with pytest.raises(PackDataError, match=re.escape(f"{WHERE}: {message}")):
        compile_patterns(document, WHERE)


def test_given_the_changes_file_then_its_patterns_read_a_change_and_clauses() -> None:
    assert pattern("changes.toml", "change").search("We moved to Porto last spring")
    assert pattern("changes.toml", "change").search("My new job is great")  # {{new_things}}
    assert changes.clauses("I live in Porto, and I work at a bakery") == ["I live in Porto", "I work at a bakery"]
    with pytest.raises(PackDataError, match=re.escape("data/changes.toml: pattern `nothing` is missing")):
        pattern("changes.toml", "nothing")


def test_given_a_fragment_and_the_calendar_then_patterns_share_them() -> None:
    document = {
        "fragments": {"day": r"(\d{1,2}) ({{months}})"},
        "patterns": {"around": {"pattern": r"\baround {{day}}\b", "flags": ["IGNORECASE"]}},
    }

    compiled = compile_patterns(document, WHERE)["around"]

    match = compiled.search("Around 8 May, I think")
    assert match is not None and match.groups() == ("8", "May")
    assert compiled.pattern.startswith(r"\baround (\d{1,2}) (january|february|")


def test_given_the_time_words_file_then_its_patterns_come_widest_first() -> None:
    names = list(patterns("time_words.toml"))

    assert names[0] == "week_before" and names.index("week") < names.index("day") < names.index("month")


def test_given_the_facets_file_then_each_question_pattern_carries_the_facets_it_asks_about() -> None:
    asked = dict(tagged("facets.toml", "facets"))

    assert ("residence",) in asked.values() and ("pets", "pet died") in asked.values()
    assert english().asked_facets("What's your favourite band? Where do you live?") == ["residence", "favorite band"]


def test_given_a_tag_that_is_not_a_list_of_words_then_a_pack_data_error_names_the_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = {"patterns": {"age": {"pattern": r"\bage\b", "facets": "age"}}}
    monkeypatch.setattr(patterns_module, "read_toml", lambda name: document)
    patterns.cache_clear()
    tagged.cache_clear()
    try:
        with pytest.raises(PackDataError, match=re.escape("data/x.toml: pattern `age`'s `facets` must be a list")):
            tagged("x.toml", "facets")
    finally:
        patterns.cache_clear()
        tagged.cache_clear()


def test_given_the_dates_file_then_each_rule_has_its_resolver_in_order_and_a_stray_one_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert len(dates.RULES) == len(patterns("dates.toml")) - 2  # all but the two tenses
    assert dates.RULES[0][0].pattern == r"\bthe day before yesterday\b" and dates.NUMBERS["a couple of"] == 2

    monkeypatch.setattr(dates, "patterns", lambda file: {**patterns(file), "fortnight": re.compile("fortnight")})
    with pytest.raises(PackDataError, match=re.escape("data/dates.toml: pattern `fortnight` is no rule of dates.py")):
        dates._rules()


def test_given_a_missing_word_list_then_a_pack_data_error_names_the_file_and_the_key() -> None:
    assert "thx" in word_set("wording.toml", "filler")
    with pytest.raises(PackDataError, match=re.escape("data/wording.toml [words]: `nothing` must be a non-empty list")):
        word_set("wording.toml", "nothing")
    with pytest.raises(PackDataError, match=re.escape("data/wording.toml: [lists] is missing")):
        word_set("wording.toml", "filler", table="lists")


def test_given_a_table_of_words_then_each_maps_to_a_value_of_its_kind_else_the_table_is_named() -> None:
    assert mapping("paraphrase.toml", "numbers", int)["twenty"] == 20
    assert mapping("paraphrase.toml", "spellings", str)["favourite"] == "favorite"
    with pytest.raises(
        PackDataError, match=re.escape("data/paraphrase.toml: [spellings] must map each word to one int")
    ):
        mapping("paraphrase.toml", "spellings", int)
