"""The English pack's default categories (data/categories.toml), words of topics (data/topics.toml) and words of
keyword search (data/keywords.toml): what the core reads through the interface, and a broken data file named."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from mnemo.language import CategoryWords, KeywordWords, TopicWords
from mnemo.language.en import category_words, english, keywords, topic_words, words
from mnemo.language.en.words import PackDataError


def test_given_the_pack_then_the_fifteen_default_categories_come_in_order_with_their_prototypes() -> None:
    pack: CategoryWords = english()

    names = [name for name, _ in pack.default_categories]

    assert names[:3] == ["personal_details", "family", "professional_details"] and names[-1] == "misc"
    assert len(names) == 15 and all(description.endswith(".") for _, description in pack.default_categories)
    assert pack.default_categories[0][1].startswith("Personal details about the user: name, nickname, age,")
    assert "Lives in Madrid" in pack.category_prototypes("personal_details")
    assert pack.category_prototypes("no such category") == ()


def test_given_a_free_text_then_its_topics_are_split_at_commas_and_joining_words() -> None:
    pack: TopicWords = english()

    assert pack.topics("health, money AND my kids; travel.\nsports or games") == [
        "health",
        "money",
        "my kids",
        "travel",
        "sports",
        "games",
    ]
    assert pack.topics("health, health") == ["health"]
    assert pack.topics("Anderson") == ["Anderson"]  # a joining word only apart
    assert pack.about_topic("health") == "facts about health"


def test_given_a_text_then_its_keywords_leave_out_stop_words_and_read_a_contraction_as_its_first_word() -> None:
    pack: KeywordWords = english()

    assert pack.keywords("Where does my sister's husband work? He doesn't say, the husband") == [
        "sister",
        "husband",
        "work",
        "say",
    ]


def test_given_a_moment_then_its_day_in_words_is_in_utc_with_the_months_name() -> None:
    pack: KeywordWords = english()

    assert pack.date_words(datetime(2023, 5, 8, 12, tzinfo=UTC)) == "8 May 2023"
    assert pack.date_words(datetime(2023, 1, 1, 1, tzinfo=timezone(timedelta(hours=3)))) == "31 December 2022"
    assert pack.date_words(datetime(2024, 9, 30)) == "30 September 2024"  # a naive moment is read as it is


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: doc.pop("category"), "at least one [[category]] is needed"),
        (lambda doc: doc["category"][1].pop("description"), "category 2 needs a non-empty string `description`"),
        (lambda doc: doc["category"][2].update(prototypes="x"), "category 3's `prototypes` must be a list"),
        (lambda doc: doc["category"][1].update(name="personal_details"), "a category is named twice"),
    ],
)
def test_given_a_broken_categories_file_when_loaded_then_a_pack_data_error_names_it(
    monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    document = words.read_toml("categories.toml")
    change(document)
    monkeypatch.setattr(category_words, "read_toml", lambda name: document)
    category_words.phrasings.cache_clear()
    try:
        with pytest.raises(PackDataError, match=re.escape(f"data/categories.toml: {message}")):
            category_words.phrasings()
    finally:
        category_words.phrasings.cache_clear()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: doc.update(joining_words=[]), "`joining_words` must be a non-empty list of words"),
        (lambda doc: doc.update(about="facts"), "`about` must be a phrase holding {} once"),
    ],
)
def test_given_a_broken_topics_file_when_loaded_then_a_pack_data_error_names_it(
    monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    document = words.read_toml("topics.toml")
    change(document)
    monkeypatch.setattr(topic_words, "read_toml", lambda name: document)
    topic_words.rules.cache_clear()
    try:
        with pytest.raises(PackDataError, match=re.escape(f"data/topics.toml: {message}")):
            topic_words.rules()
    finally:
        topic_words.rules.cache_clear()


def test_given_a_keywords_file_without_stop_words_when_loaded_then_a_pack_data_error_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(keywords, "read_toml", lambda name: {"stop_words": " "})
    keywords.stop_words.cache_clear()
    try:
        with pytest.raises(PackDataError, match=re.escape("data/keywords.toml: `stop_words` must be a non-empty")):
            keywords.stop_words()
    finally:
        keywords.stop_words.cache_clear()
