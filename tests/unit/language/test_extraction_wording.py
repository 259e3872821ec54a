"""The extractor's reading of words: questions, filler, the speaker speaking of themselves, verbs in the third
person."""

from __future__ import annotations

import pytest

from mnemo.language.en.extraction.wording import (
    content_words,
    is_filler,
    is_passing_feeling,
    is_question,
    is_reply_intention,
    is_request,
    is_small_talk,
    is_subjectless_event,
    job_title,
    note_about_the_user,
    says_more_than_when,
    speaks_of_an_unnamed_it,
    speaks_of_self,
    third_person,
)


@pytest.mark.parametrize(
    "sentence",
    [
        "What is my sister's name?",
        "Can you recommend a good restaurant in Lisbon?",
        "Do you know the way to the station",
        "Where does my sister live",
        "I wonder whether pizza is healthy?",
        "Is vegetable pizza healthy",
        "Really?!",
    ],
)
def test_a_question_is_a_question(sentence: str) -> None:
    assert is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["When I was ten I lived in Oslo.", "How I met my wife is a long story.", "I love pizza", "Do not call me."],
)
def test_a_statement_that_opens_like_a_question_is_not_one(sentence: str) -> None:
    assert not is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["Hi!", "ok thanks!", "ugh ok thx", "haha yes", "lol", "Okay, thank you so much.", "Got it, thanks again.", "meh"],
)
def test_greetings_acknowledgements_and_laughter_are_filler(sentence: str) -> None:
    assert is_filler(sentence)


@pytest.mark.parametrize("sentence", ["haha yes, always black", "I love pizza", "Mostly in the Alps."])
def test_a_sentence_with_a_content_word_is_not_filler(sentence: str) -> None:
    assert not is_filler(sentence)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [("I'm vegan.", True), ("We moved to Lisbon.", True), ("Our dog is old", True), ("Mostly in the Alps.", False)],
)
def test_speaking_of_oneself(sentence: str, expected: bool) -> None:
    assert speaks_of_self(sentence) is expected


def test_content_words_leave_out_stop_words_and_filler() -> None:
    assert content_words("Thanks, I really love vegetable pizza!") == ["love", "vegetable", "pizza"]


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("hike", "hikes"), ("have", "has"), ("watch", "watches"), ("fly", "flies"), ("play", "plays"), ("go", "goes")],
)
def test_verbs_in_the_third_person(verb: str, expected: str) -> None:
    assert third_person(verb) == expected


@pytest.mark.parametrize(
    ("sentence", "reply"),
    [
        ("good point, I'll ask Giulia", True),
        ("omg amazing, I'll send her the recipe", True),
        ("ok thx, I'll order the Lupton one", True),
        ("I'll be in Rome next week", False),
        ("my sister called, I'll visit her in May", False),
    ],
)
def test_an_acknowledgement_with_what_the_user_will_do_next_is_a_reply(sentence: str, reply: bool) -> None:
    assert is_reply_intention(sentence) is reply


@pytest.mark.parametrize(
    ("sentence", "unnamed"),
    [
        ("it's not, I checked", True),
        ("it's grey and expensive but I love it.", True),
        ("that was fun", True),
        ("it's a tiny 1K in Namba but it's mine", False),
        ("it's for a prenatal appointment, I'm 5 months pregnant", False),
        ("I love it", False),
    ],
)
def test_a_sentence_about_an_it_it_does_not_name(sentence: str, unnamed: bool) -> None:
    assert speaks_of_an_unnamed_it(sentence) is unnamed


@pytest.mark.parametrize(
    ("sentence", "passing"),
    [("I feel human again", True), ("feeling better", True), ("I feel that my job is at risk since the merger", False)],
)
def test_a_passing_feeling(sentence: str, passing: bool) -> None:
    assert is_passing_feeling(sentence) is passing


@pytest.mark.parametrize(
    ("sentence", "event"),
    [
        ("closed on a house in Montclair yesterday", True),
        ("moving out of Brooklyn at the end of the month", True),
        ("back at work after parental leave, kind of surreal", True),
        ("finally got a new bike", True),
        ("exhausted and broke lol", False),
        ("putting on some music to calm down", False),
        ("need a gift for my dad", False),
        ("looking forward to it", False),
    ],
)
def test_a_subjectless_event_of_the_user(sentence: str, event: bool) -> None:
    assert is_subjectless_event(sentence) is event


@pytest.mark.parametrize(
    ("sentence", "job"),
    [
        ("data analyst at a fintech now", "Works as a data analyst at a fintech now"),
        ("nurse.", "Works as a nurse"),
        ("an ER nurse at the Jewish General", "Works as an ER nurse at the Jewish General"),
        ("the nurse was rude to me", None),
        ("mostly screens", None),
    ],
)
def test_a_fragment_that_is_a_job(sentence: str, job: str | None) -> None:
    assert job_title(sentence) == job


def test_speaking_of_oneself_as_typed() -> None:
    assert speaks_of_self("im a nurse at são joão") and speaks_of_self("ive been vegan for years")


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("User prefers window seats", "Prefers window seats"),
        ("The user works as a night nurse.", "Works as a night nurse."),
        ("user's favorite language is Rust", "Favorite language is Rust"),
        ("The user’s daughter Mia is 6", "Daughter Mia is 6"),
        ("User is vegetarian", "Is vegetarian"),
        ("The user", None),
        ("User is", None),
        ("User asked what time it is?", None),
        ("Users love this app", None),
        ("I prefer window seats", None),
    ],
)
def test_a_note_an_agent_wrote_about_its_user_is_the_users_fact(sentence: str, fact: str | None) -> None:
    assert note_about_the_user(sentence) == fact


@pytest.mark.parametrize(
    ("sentence", "small_talk"),
    [
        ("Hi there, I hope you're having a good Sunday.", True),
        ("A lot has happened since we last spoke, so bear with me.", True),
        ("Wish me luck for Tuesday!", True),
        ("I'll report back once I know more!", True),
        ("I hope to move to Porto next year", False),
        ("We last spoke about my sister", False),
    ],
)
def test_talk_about_the_conversation_is_small_talk(sentence: str, small_talk: bool) -> None:
    assert is_small_talk(sentence) is small_talk


@pytest.mark.parametrize(
    ("sentence", "more"),
    [
        ("around 23 September 2025.", False),
        ("early next week", False),
        ("on Friday 9 May 2025", False),
        ("flying to Lisbon on 4 December 2025", True),
        ("the wedding is on 6 June 2026", True),
    ],
)
def test_a_time_alone_says_only_when(sentence: str, more: bool) -> None:
    assert says_more_than_when(sentence) is more


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("send me some places pls", True),
        ("ok give me three options", True),
        ("tell me more", True),
        ("My sister sends me photos every day", False),
        ("I send my mum flowers every May", False),
    ],
)
def test_telling_the_assistant_to_hand_something_over_is_a_request(sentence: str, asks: bool) -> None:
    assert is_request(sentence) is asks


def test_a_bare_modal_or_a_wish_is_filler() -> None:
    assert is_filler("I shall.")
    assert is_filler("wish me luck")
    assert not is_filler("I shall move to Oslo")
