"""The claims' patterns kept as data (mnemo.language.en.claim_patterns over data/claims.toml): grouped for the claim
readers, each cued, and the word lists of data/words.toml every file's patterns may name."""

from __future__ import annotations

import pytest

from mnemo.language.en import claim_patterns
from mnemo.language.en.cues import CUED, CuedPattern
from mnemo.language.en.patterns import compile_patterns
from mnemo.language.en.words import PackDataError


def test_given_the_data_then_each_reader_gets_its_group_in_the_files_order_and_cued() -> None:
    assert len(claim_patterns.RESIDENCE) == 6 and len(claim_patterns.EMPLOYER) == 6
    assert all(isinstance(p, CuedPattern) and p in CUED for p in claim_patterns.RESIDENCE)
    assert claim_patterns.RESIDENCE[0].search("We live in Lisbon") is not None
    assert [value for value, _ in claim_patterns.WORKPLACE] == ["home", "office"]


def test_given_a_pattern_marked_not_cued_then_it_is_a_plain_compiled_pattern() -> None:
    match = claim_patterns.SUBJECT.match("My big sister Emma lives in Berlin")
    assert match is not None and match.group("who") == "My big sister Emma"
    assert not isinstance(claim_patterns.SUBJECT, CuedPattern)


def test_given_a_group_or_a_value_the_file_lacks_then_the_error_names_the_file() -> None:
    with pytest.raises(PackDataError, match=r"data/claims.toml: group `no_such_group` has no pattern"):
        claim_patterns._group("no_such_group")
    with pytest.raises(PackDataError, match=r"data/claims.toml: pattern `residence_1` needs a `value`"):
        claim_patterns._valued("residence")


def test_given_the_shared_word_lists_then_a_pattern_reads_them_the_longest_alternative_first() -> None:
    document = {"patterns": {"who": {"pattern": r"^my (?:{{relations}})"}, "pet": {"pattern": r"^{{pet_words}}$"}}}

    compiled = compile_patterns(document, "mnemo.language.en data/test.toml")

    assert compiled["who"].match("my co-worker") and compiled["who"].match("my in-laws")
    cousins = compiled["who"].match("my cousins are here")
    assert cousins is not None and cousins.group() == "my cousins"  # not cut at "cousin"
    assert compiled["pet"].match("puppies") and not compiled["pet"].match("lion")
