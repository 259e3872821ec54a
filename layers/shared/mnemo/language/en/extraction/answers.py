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
- "How many <things> do you have?" + a number -> "Has <number> <things>"; "How many <things> can/do you <verb>?" + a
  number -> "<Verb>s <number> <things>" ("How many days a week can you run?" + "4 days" -> "Runs 4 days a week");
- "What kind of <thing> do you <verb>?" + an answer -> "<Verb>s <thing>: <answer>"; "What kind of <thing> is <Name>?"
  -> "<Name> is <answer>";
- "What/where/how are you <verb>ing <rest>?" + an answer -> "Is <verb>ing <rest> <answer>" ("Where are you renting?"
  + "a 1-bedroom in Bushwick" -> "Is renting a 1-bedroom in Bushwick"; "How are you feeling?" is no such question);
  "Are you <verb>ing on X or Y?" + "Y" -> "Is <verb>ing on Y";
- "What's the <thing>?" + an answer -> "<Thing> is <answer>" ("What's the new job?" -> "New job is …").
A yes/no question answered with more than yes or no keeps what follows ("Do you play gigs?" + "sometimes, in small
bars" -> "Plays gigs: sometimes, in small bars"). A question that asks two things ("What's your manager's name and
what's the reason?") is read as each of its parts; an "it" in a question stands for what the question before it
asked about ("Do you drink coffee? Do you take it black?"). Any other question gives no reading: the answer stays a
fragment."""

from __future__ import annotations

import re

from mnemo.language.en.extraction.wording import FILLER, INTERJECTIONS, VAGUE, capitalized, third_person
from mnemo.language.en.keywords import STOP_WORDS

YES = frozenset("yes yeah yep yup yea sure definitely absolutely totally course".split())
NO = frozenset("no nope nah never".split())
_NOT_REALLY = re.compile(r"^not\s+(?:really|at all|much|quite|exactly)\b[\s,.!]*", re.IGNORECASE)
_DO_YOU = re.compile(
    r"^(?:(?P<wh>where|when|how often|how much|how|what|why|which \w+)\s+)?do you (?P<verb>[a-z]+)(?P<rest>[^?]*)\?*$",
    re.IGNORECASE,
)
_WORK = re.compile(r"^what do you do(?: for (?:work|a living))?\?*$", re.IGNORECASE)
_WHATS_YOUR = re.compile(r"^what(?:'s|’s| is| are) your (?P<thing>(?:(?!\band\b)[^?\s]+\s?){1,4}?)\?*$", re.IGNORECASE)
_ARE_YOU = re.compile(r"^are you (?P<rest>[^?]+?)\?*$", re.IGNORECASE)
_HAVE_YOU = re.compile(r"^have you (?:ever )?(?P<rest>[^?]+?)\?*$", re.IGNORECASE)
_HOW_MANY = re.compile(r"^how many (?P<things>[a-z ]+?) do you have\?*$", re.IGNORECASE)
_HOW_MANY_DO = re.compile(
    r"^how many (?P<things>[a-z ]+?) (?:can|do|will) you (?:usually |normally |typically |often )?(?P<verb>[a-z]+)\?*$",
    re.IGNORECASE,
)
_KIND_OF = r"^what (?:kind|type|sort|breed) of (?P<thing>[a-z ]+?)"
_KIND_YOU = re.compile(rf"{_KIND_OF} do you (?P<verb>[a-z]+)\?*$", re.IGNORECASE)
_KIND_NAME = re.compile(rf"{_KIND_OF} is (?P<name>[A-Z][\w'’-]+)\?*$", re.IGNORECASE)
_ARE_YOU_DOING = re.compile(
    r"^(?P<wh>what|where|how|which \w+) (?:are|were) you (?P<verb>[a-z]+ing)(?P<rest>[^?]*)\?*$", re.IGNORECASE
)
_WHATS_THE = re.compile(r"^what(?:'s|’s| is) the (?P<thing>(?:new |next |first |main )?[a-z]+)\?*$", re.IGNORECASE)
_PARTS = re.compile(r",?\s+and\s+(?=(?:what|how|where|when|which|who|why|do|does|are|is|have)\b)", re.IGNORECASE)
_OBJECT = re.compile(
    r"^(?:do|does|did)\s+(?:you|he|she|they|[A-Z][\w'’-]*)\s+(?P<verb>[a-z]+)\s+(?P<object>[^?]+?)\s*"
    r"(?:\b(?:in|on|at|for|with|during|every|each|when|before|after|to)\b[^?]*)?\?*$",
    re.IGNORECASE,
)
_PREPOSITIONS = frozenset("on in at for with about from to of into by".split())
_NUMBER = re.compile(
    r"^(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
FREQUENCY = frozenset("sometimes often usually occasionally regularly mostly always daily weekly".split())
_WORD = re.compile(r"[\w'’-]+")
COMMON_OPENERS = (
    STOP_WORDS
    | INTERJECTIONS
    | frozenset(
        """mostly usually always often only sometimes never rarely every around near just probably maybe one two
        three four five six seven eight nine ten""".split()
    )
)


def answered(question: str, answer: str, previous: str | None = None) -> str | None:
    """What the answer says of the user, read with its question (`previous`: the question the assistant asked before
    it in the same message); None when the question is not one understood (or the answer says nothing but yes or no
    to a question that needs more)."""
    question = _with_it(_last_question(question), previous)
    polarity, said = _polarity(answer)
    for part in _PARTS.split(question):
        for read in READERS:
            statement = read(part.strip(), polarity, said)
            if statement is not None:
                return statement.strip()
    return None


def object_of(question: str) -> str | None:
    """What a yes/no question asks about ("Do you drink coffee in the morning?" -> "coffee", "Does Sofia eat spicy
    food?" -> "spicy food"), said by the user ("your bike" -> "my bike"); None for any other question."""
    match = _OBJECT.match(_last_question(question))
    if match is None:
        return None
    thing = match.group("object").strip()
    if thing.lower() in ("it", "that", "this", "them", "so", "too"):
        return None
    return re.sub(r"\byour\b", "my", thing, flags=re.IGNORECASE)


def with_object(sentence: str, question: str) -> str:
    """The answer with an "it" that stands for what the question asked about written out ("she loves it" + "Does
    Sofia eat spicy food?" -> "she loves spicy food"); unchanged otherwise."""
    thing = object_of(question)
    if thing is None:
        return sentence
    return re.sub(r"(?<=\w )it\b(?!['’])", thing, sentence, count=1)


def _with_it(question: str, previous: str | None) -> str:
    """The question with an "it" written as what the question before it asked about."""
    thing = object_of(previous) if previous else None
    if thing is None:
        return question
    return re.sub(r"(?<=\w )it\b(?!['’])", re.sub(r"\bmy\b", "your", thing), question, count=1)


def _last_question(text: str) -> str:
    """The question itself, without what the assistant said before it ("Nice! Where do you hike?", "Exciting — what's
    the new job?")."""
    parts = re.split(r"(?<=[.!:])\s+|\s+[—–]\s+", text.strip())
    last = parts[-1].strip()
    return last[:1].upper() + last[1:]


def _polarity(answer: str) -> tuple[bool | None, str]:
    """Yes (True), no (False) or neither (None), and the answer without its leading interjections and punctuation
    ("not really" is a no; "not yet" neither)."""
    not_really = _NOT_REALLY.match(answer)
    if not_really is not None:
        return False, answer[not_really.end() :].strip(" ,.!;:-—").strip()
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
        if polarity is False:
            return f"Does not {verb.lower()} {rest}" + (f": {said}" if said else "")
        if polarity is None and not _says_more(said):
            return None
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
    if match is None:
        return None
    rest = _own(match.group("rest"))
    if polarity is None:
        return _chosen(rest, said)
    return (f"Is {rest}" if polarity else f"Is not {rest}") + (f": {said}" if said else "")


def _chosen(rest: str, said: str) -> str | None:
    """An answer to "Are you <doing> <on X or Y>?" that picks one: "Is <doing> <on> <answer>"."""
    if " or " not in rest or not _says_more(said):
        return None
    words = rest.split(" or ", 1)[0].split()
    cut = max((i for i, w in enumerate(words) if w.lower() in _PREPOSITIONS), default=0)
    return f"Is {' '.join(words[: cut + 1])} {_lower_first(said)}"


# "How are you feeling / finding it / holding up?" asks how the user is, not a fact of theirs.
_HOW_ONE_IS = frozenset("feeling doing finding holding coping settling".split())
_NO_REST = frozenset(("", "on", "up", "along", "so far", "today", "these days"))


def _are_you_doing(question: str, polarity: bool | None, said: str) -> str | None:
    match = _ARE_YOU_DOING.match(question)
    if match is None or not _says_more(said):
        return None
    if match.group("wh").lower() == "how" and (
        match.group("verb").lower() in _HOW_ONE_IS or match.group("rest").strip().lower() in _NO_REST
    ):
        return None
    rest = _own(match.group("rest"))
    return " ".join(f"Is {match.group('verb').lower()} {rest} {_lower_first(said)}".split())


def _kind_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _KIND_YOU.match(question)
    if match is None or not _says_more(said):
        return None
    return f"{capitalized(third_person(match.group('verb')))} {match.group('thing').strip()}: {said}"


def _kind_name(question: str, polarity: bool | None, said: str) -> str | None:
    match = _KIND_NAME.match(question)
    if match is None or not _says_more(said):
        return None
    return f"{match.group('name')} is {_lower_first(said)}"


def _whats_the(question: str, polarity: bool | None, said: str) -> str | None:
    match = _WHATS_THE.match(question)
    if match is None or not _says_more(said):
        return None
    return f"{capitalized(match.group('thing').strip())} is {_lower_first(said)}"


def _how_many_do(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HOW_MANY_DO.match(question)
    number = _NUMBER.match(re.sub(r"^(?:usually|normally|typically|mostly|about|around|like)\s+", "", said, flags=re.I))
    if match is None or number is None:
        return None
    things = match.group("things").strip()
    rest = number.group("rest").split()
    unit = things.split()[0].lower()
    if rest and rest[0].lower().rstrip(".,") in (unit, unit.rstrip("s")):
        rest = rest[1:]
    tail = (" " + " ".join(rest)) if rest else ""
    return f"{capitalized(third_person(match.group('verb')))} {number.group('n')} {things}{tail}".rstrip(" .,")


def _says_more(said: str) -> bool:
    """The answer says something beyond yes, no and filler."""
    return any(
        (w.lower() not in COMMON_OPENERS and w.lower() not in FILLER and w.lower() not in VAGUE)
        or w.lower() in FREQUENCY
        or w.isdigit()
        for w in _WORD.findall(said)
    )


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


READERS = (
    _work,
    _how_many,
    _how_many_do,
    _kind_you,
    _kind_name,
    _do_you,
    _whats_your,
    _whats_the,
    _are_you_doing,
    _are_you,
    _have_you,
)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _lower_first(text: str) -> str:
    """The answer as the end of a sentence: its first letter lower case when its first word is a common one
    ("Mostly in the Alps" -> "mostly in the Alps"); a name keeps its capital ("Lisbon")."""
    first = text.split(" ", 1)[0].lower()
    return text[:1].lower() + text[1:] if first in COMMON_OPENERS else text
