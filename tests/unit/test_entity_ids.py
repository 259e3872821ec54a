"""The one rule of user, agent, app and run ids (mnemo.domain.entity_ids): an id is what it prints as."""

from __future__ import annotations

import pytest

from mnemo.domain.entity_ids import checked_entity_id, checked_storable_id, entity_id_problem, script_of
from mnemo.errors import ValidationError

IDS = [
    "alice",
    "alice-42",
    "user_01HF3",
    "alice@example.com",
    "Zoë",  # composed: NFC
    "ユーザー山田",  # Katakana with Han
    "김민준",  # Hangul
    "王小明",  # Han
    "Алиса",  # Cyrillic alone
    "Ελένη",  # Greek alone
    "user-🙂",  # a symbol goes with any script
    "*",
    "u" * 255,
]

# (the id, a word its refusal names)
REFUSED = [
    ("", "empty"),
    ("alice ", "whitespace"),
    (" alice", "whitespace"),
    ("alice\t", "whitespace"),
    ("alice\n", "whitespace"),
    ("ali ce", "whitespace"),
    ("alice\u00a0", "whitespace"),  # NBSP
    ("alice\u3000", "whitespace"),  # the ideographic space
    ("alice\u2028", "whitespace"),  # the line separator
    ("alice\x85", "whitespace"),  # NEL
    ("a\x00b", "control"),
    ("a\x1bb", "control"),
    ("al\u200bice", "invisible"),  # zero-width space
    ("al\u200dice", "invisible"),  # zero-width joiner
    ("\ufeffalice", "invisible"),  # the byte order mark
    ("alice\u202e", "invisible"),  # right-to-left override
    ("a\ue000", "invisible"),  # private use
    ("a\ud800", "surrogate"),
    ("Zoe\u0308", "NFC"),  # e + combining diaeresis
    ("\u0430lice", "writing systems"),  # Cyrillic a, Latin lice
    ("p\u0430ypal", "writing systems"),
    ("admin\u03bf", "writing systems"),  # Greek omicron
    ("u" * 256, "too long"),
    ("🙂" * 129, "too long"),  # 129 characters, 516 bytes
]


@pytest.mark.parametrize("value", IDS)
def test_an_id_that_prints_as_itself_is_accepted_unchanged(value: str) -> None:
    assert checked_entity_id(value, "user_id") == value


@pytest.mark.parametrize(("value", "named"), REFUSED)
def test_an_id_that_could_pass_for_another_is_refused_naming_why(value: str, named: str) -> None:
    with pytest.raises(ValidationError) as refused:
        checked_entity_id(value, "user_id")
    assert str(refused.value.message).startswith("user_id ")
    assert named in str(refused.value.message)


def test_the_scripts_of_letters_and_of_what_is_no_letter() -> None:
    assert [script_of(c) for c in "aаαア山김"] == ["Latin", "Cyrillic", "Greek", "Katakana", "Han", "Hangul"]
    assert [script_of(c) for c in "7-_@🙂\u0301"] == [None] * 6
    assert script_of("Ａ") == "Latin"  # FULLWIDTH LATIN CAPITAL LETTER A


def test_a_stored_scope_is_held_only_to_what_a_store_can_keep() -> None:
    assert checked_storable_id("alice ", "user_id") == "alice "  # stored before the whole rule: still readable
    with pytest.raises(ValidationError):
        checked_storable_id("a\x00b", "user_id")
    with pytest.raises(ValidationError):
        checked_storable_id("u" * 256, "user_id")


def test_every_refusal_is_a_problem_and_every_id_is_none() -> None:
    assert [entity_id_problem(v) for v in IDS] == [None] * len(IDS)
    assert all(entity_id_problem(v) for v, _ in REFUSED)
