"""A short answer read with the assistant's question it answers: "Where do you hike?" + "Mostly in the Alps." ->
"Hikes mostly in the Alps". Without its question such an answer is a fragment, which the extractor drops.

The questions understood (case-insensitive; "you"/"your" are the user):
- "<where|when|how|how often|what|why|which …> do you <verb> <rest>?" + an answer -> "<Verb>s <rest> <answer>"
  ("How do you take your coffee?" + "always black" -> "Takes coffee always black"); "What do you do for work /
  for a living?" + "Nurse." -> "Works as a nurse";
- "Do you <verb> <rest>?" + yes/no (and what follows) -> "<Verb>s <rest>: <what follows>" / "Does not <verb> <rest>";
- "What's your <thing>?" + an answer -> "<Thing> is <answer>";
- "Are you <state>?" + yes/no -> "Is <state>" / "Is not <state>";
- "Have you (ever) <done> <rest>?" + yes/no -> "Has <done> <rest>" / "Has never <done> <rest>";
- "How many <things> do you have?" + a number -> "Has <number> <things>".
Any other question gives no reading: the answer stays a fragment."""

from __future__ import annotations

import re

from mnemo.domain.text import STOP_WORDS
from mnemo.services.extraction.wording import INTERJECTIONS, capitalized, third_person

YES = frozenset("yes yeah yep yup yea sure definitely absolutely totally course".split())
NO = frozenset("no nope nah never".split())
_DO_YOU = re.compile(
    r"^(?:(?P<wh>where|when|how often|how much|how|what|why|which \w+)\s+)?do you (?P<verb>[a-z]+)(?P<rest>[^?]*)\?*$",
    re.IGNORECASE,
)
_WORK = re.compile(r"^what do you do(?: for (?:work|a living))?\?*$", re.IGNORECASE)
_WHATS_YOUR = re.compile(r"^what(?:'s|’s| is| are) your (?P<thing>(?:(?!\band\b)[^?\s]+\s?){1,4}?)\?*$", re.IGNORECASE)
_ARE_YOU = re.compile(r"^are you (?P<rest>[^?]+?)\?*$", re.IGNORECASE)
_HAVE_YOU = re.compile(r"^have you (?:ever )?(?P<rest>[^?]+?)\?*$", re.IGNORECASE)
_HOW_MANY = re.compile(r"^how many (?P<things>[a-z ]+?) do you have\?*$", re.IGNORECASE)
_WORD = re.compile(r"[\w'’-]+")
COMMON_OPENERS = (
    STOP_WORDS
    | INTERJECTIONS
    | frozenset(
        """mostly usually always often only sometimes never rarely every around near just probably maybe one two
        three four five six seven eight nine ten""".split()
    )
)


def answered(question: str, answer: str) -> str | None:
    """What the answer says of the user, read with its question; None when the question is not one understood (or
    the answer says nothing but yes or no to a question that needs more)."""
    question = _last_question(question)
    polarity, said = _polarity(answer)
    for read in (_work, _do_you, _whats_your, _are_you, _have_you, _how_many):
        statement = read(question, polarity, said)
        if statement is not None:
            return statement.strip()
    return None


def _last_question(text: str) -> str:
    """The question itself, without what the assistant said before it ("Nice! Where do you hike?")."""
    parts = re.split(r"(?<=[.!])\s+", text.strip())
    return parts[-1].strip()


def _polarity(answer: str) -> tuple[bool | None, str]:
    """Yes (True), no (False) or neither (None), and the answer without its leading interjections and punctuation."""
    words = _WORD.findall(answer)
    polarity: bool | None = None
    i = 0
    while i < len(words) and (words[i].lower() in INTERJECTIONS or words[i].lower() in YES | NO):
        lower = words[i].lower()
        if lower in YES and polarity is None:
            polarity = True
        elif lower in NO and polarity is None:
            polarity = False
        i += 1
    rest = answer
    for word in words[:i]:
        rest = rest[rest.lower().find(word.lower()) + len(word) :]
    return polarity, rest.strip(" ,.!;:-—").strip()


def _own(rest: str) -> str:
    """The question's rest, said of the user: "your coffee" -> "coffee", "yourself" -> "themselves"."""
    rest = re.sub(r"\byour\s+", "", rest, flags=re.IGNORECASE)
    rest = re.sub(r"\byourself\b", "themselves", rest, flags=re.IGNORECASE)
    rest = re.sub(r"\b(?:any|some)\s+", "", rest, flags=re.IGNORECASE)
    return " ".join(rest.split())


def _work(question: str, polarity: bool | None, said: str) -> str | None:
    if not _WORK.match(question) or not said:
        return None
    said = said[:1].lower() + said[1:]
    role = said if said.startswith(("a ", "an ", "the ")) else f"{_article(said)} {said}"
    return f"Works as {role}"


def _do_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _DO_YOU.match(question)
    if match is None:
        return None
    verb, rest = match.group("verb"), _own(match.group("rest"))
    if match.group("wh") is None:  # a yes/no question
        if polarity is None:
            return None
        if polarity is False:
            return f"Does not {verb.lower()} {rest}"
        return f"{capitalized(third_person(verb))} {rest}" + (f": {said}" if said else "")
    if not said:
        return None
    return f"{capitalized(third_person(verb))} {rest} {_lower_first(said)}".replace("  ", " ")


def _whats_your(question: str, polarity: bool | None, said: str) -> str | None:
    match = _WHATS_YOUR.match(question)
    if match is None or not said:
        return None
    thing = _own(match.group("thing"))
    verb = "are" if question.lower().startswith(("what are", "what're")) else "is"
    return f"{capitalized(thing)} {verb} {said}"


def _are_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _ARE_YOU.match(question)
    if match is None or polarity is None:
        return None
    rest = _own(match.group("rest"))
    return f"Is {rest}" if polarity else f"Is not {rest}"


def _have_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HAVE_YOU.match(question)
    if match is None or polarity is None:
        return None
    rest = _own(match.group("rest"))
    return (f"Has {rest}" + (f": {said}" if said else "")) if polarity else f"Has never {rest}"


def _how_many(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HOW_MANY.match(question)
    if match is None or not said:
        return None
    things = match.group("things").strip()
    said = _lower_first(said)
    return f"Has {said}" if things.split()[-1].lower() in said.lower() else f"Has {said} {things}"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _lower_first(text: str) -> str:
    """The answer as the end of a sentence: its first letter lower case when its first word is a common one
    ("Mostly in the Alps" -> "mostly in the Alps"); a name keeps its capital ("Lisbon")."""
    first = text.split(" ", 1)[0].lower()
    return text[:1].lower() + text[1:] if first in COMMON_OPENERS else text
