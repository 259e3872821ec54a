"""What a sentence is, read from its words: a question, filler, a statement about the speaker; and verbs in the
third person (what a memory says of its user: "Hikes", "Has"). Its word lists and patterns are data
(data/wording.toml)."""

from __future__ import annotations

from mnemo.domain.text import words
from mnemo.language.en.extraction.dates import MONTHS, WEEKDAYS
from mnemo.language.en.keywords import STOP_WORDS
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import PackDataError, read_toml, word_set


def _irregular() -> dict[str, str]:
    """The third person singular of irregular verbs (data/wording.toml [irregular])."""
    found = read_toml("wording.toml").get("irregular")
    if not isinstance(found, dict) or not all(isinstance(v, str) and v for v in found.values()):
        raise PackDataError("mnemo.language.en data/wording.toml: [irregular] must map each verb to its third person")
    return dict(found)


FILLER = word_set("wording.toml", "filler") | frozenset(WEEKDAYS)
QUESTION_OPENERS = word_set("wording.toml", "question_openers")
FIRST_PERSON = word_set("wording.toml", "first_person")
INTERJECTIONS = word_set("wording.toml", "interjections")
_IRREGULAR = _irregular()


def tokens(sentence: str) -> list[str]:
    """Its words, lower case, a contraction read as its first word ("that's" -> "that", "i'm" -> "i")."""
    return [t.replace("’", "'").split("'")[0] for t in words(sentence)]


def is_question(sentence: str) -> bool:
    """A question: it ends with "?", or opens with a question word without ending as a statement ("do you know
    the way"; "When I was ten I lived in Oslo." is a statement)."""
    stripped = sentence.rstrip()
    if stripped.rstrip("!.").endswith("?"):  # "Really?!"
        return True
    found = tokens(sentence)
    return bool(found) and found[0] in QUESTION_OPENERS and not stripped.endswith((".", "!"))


def is_filler(sentence: str) -> bool:
    """Greetings, thanks, acknowledgements, laughter: nothing but filler and stop words ("ugh ok thx")."""
    return all(t in FILLER or t in STOP_WORDS for t in tokens(sentence))


def content_words(sentence: str) -> list[str]:
    return [t for t in tokens(sentence) if t not in STOP_WORDS and t not in FILLER]


def speaks_of_self(sentence: str) -> bool:
    """The speaker says something of themselves or their own: I, me, my, we, our..."""
    return any(t in FIRST_PERSON for t in tokens(sentence))


def third_person(verb: str) -> str:
    """The third person singular of a verb in its base form: hike -> hikes, have -> has, watch -> watches."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


# Words that say nothing of the user by themselves: "I'll think about it", "whatever, I'll figure it out".
VAGUE = word_set("wording.toml", "vague")
_REQUEST = pattern("wording.toml", "request")


# Telling the assistant to hand something over: "send me some places pls", "give me three options".
_IMPERATIVE = pattern("wording.toml", "imperative")
# Talk about the conversation itself or the assistant's day: "I hope you're having a good Sunday", "a lot has
# happened since we last spoke, so bear with me", "wish me luck".
_SMALL_TALK = pattern("wording.toml", "small_talk")
# The words of a time and nothing else: "around 23 September 2025", "early next week".
TIME_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS) | word_set("wording.toml", "time_words")


def is_small_talk(sentence: str) -> bool:
    """About the conversation or the assistant, not the user ("I hope you're having a good Sunday")."""
    return _SMALL_TALK.search(sentence) is not None


def says_more_than_when(sentence: str) -> bool:
    """A content word besides the words of a time and numbers ("around 23 September 2025." says only when)."""
    return any(w not in TIME_WORDS and not w.isdigit() for w in content_words(sentence))


def is_vague(sentence: str) -> bool:
    """Nothing but vague words once filler and stop words are gone ("I'll think about it")."""
    return all(word in VAGUE for word in content_words(sentence))


def is_request(sentence: str) -> bool:
    """A request to the assistant, not a fact of the user's ("I need dinner ideas", "Can you write an email…")."""
    stripped = sentence.strip()
    return _REQUEST.search(stripped) is not None or _IMPERATIVE.match(stripped) is not None


# What the user says back to the assistant, which is no fact of theirs.
REACTIONS = word_set("wording.toml", "reactions")
_REPLY_INTENTION = pattern("wording.toml", "reply_intention")
_UNREFERENCED_IT = pattern("wording.toml", "unreferenced_it")
_PASSING_FEELING = pattern("wording.toml", "passing_feeling")


def is_reply_intention(sentence: str) -> bool:
    """An acknowledgement and what the user will do next in the conversation ("good point, I'll ask Giulia", "omg
    amazing, I'll send her the recipe")."""
    match = _REPLY_INTENTION.match(sentence.strip())
    if match is None:
        return False
    return all(t in FILLER or t in STOP_WORDS or t in REACTIONS for t in tokens(match.group("ack")))


def speaks_of_an_unnamed_it(sentence: str) -> bool:
    """Opens with "it's", "that's", "this is" about something the sentence does not name, with no name or number in
    it ("it's not, I checked", "it's grey and expensive but I love it"); "it's a tiny flat in Namba" names one."""
    stripped = sentence.strip()
    if _UNREFERENCED_IT.match(stripped) is None:
        return False
    later = stripped.split()[1:]
    return not any(any(c.isdigit() for c in w) or (w[:1].isupper() and w != "I") for w in later)


def is_passing_feeling(sentence: str) -> bool:
    """How the user feels just now, in a few words ("I feel human again", "feeling better")."""
    return _PASSING_FEELING.match(sentence.strip()) is not None


# A sentence without its subject, of something the user did or does ("closed on a house in Montclair yesterday",
# "moving out of Brooklyn at the end of the month", "back at work after parental leave").
_PAST = word_set("wording.toml", "past")
_DOING = word_set("wording.toml", "doing")
_NOT_VERBS = word_set("wording.toml", "not_verbs")
_OBJECT_OPENERS = word_set("wording.toml", "object_openers")
_LEADING_NOISE = word_set("wording.toml", "leading_noise")


def is_subjectless_event(sentence: str) -> bool:
    """Opens (after "finally", "just", …) with a verb in the past or in -ing, or with "back", followed by its object
    or a place: the user's own doing told without "I"."""
    found = tokens(sentence)
    while found and (found[0] in _LEADING_NOISE or found[0] in INTERJECTIONS):
        found = found[1:]
    if len(found) < 3 or found[0] in _NOT_VERBS:
        return False
    first, second = found[0], found[1]
    verb = first in _PAST or first in _DOING or first.endswith("ed") or first == "back"
    return verb and second in _OBJECT_OPENERS


_JOB_TITLE = pattern("wording.toml", "job_title")


def job_title(sentence: str) -> str | None:
    """A fragment that is the user's job ("data analyst at a fintech now" -> "Works as a data analyst at a fintech
    now"); None for any other sentence."""
    match = _JOB_TITLE.match(sentence.strip())
    if match is None:
        return None
    role = match.group("role")
    if not role.lower().startswith(("a ", "an ")):
        role = ("an " if role[:1].lower() in "aeiou" else "a ") + role
    return f"Works as {role}{match.group('rest') or ''}".rstrip()


# A note an agent wrote about its user, in the third person ("User prefers window seats", "The user's daughter is
# called Mia"): the user's fact, written as memories are, without the word "user".
_NOTE_ABOUT_THE_USER = pattern("wording.toml", "note_about_the_user")


def note_about_the_user(sentence: str) -> str | None:
    """ "User prefers window seats" -> "Prefers window seats", "The user's favorite language is Rust" -> "Favorite
    language is Rust"; None for a sentence that is no such note."""
    match = _NOTE_ABOUT_THE_USER.match(sentence.strip())
    if match is None:
        return None
    rest = match.group("rest").strip()
    if not content_words(rest) or is_question(sentence):
        return None
    return capitalized(rest)
