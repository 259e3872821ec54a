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
fragment. Each form has its reader (.question_readers); the words and patterns are data (data/answers.toml)."""

from __future__ import annotations

from mnemo.language.en.extraction.answer_words import NO, NOT_OBJECTS, WORD, YES, answer_pattern
from mnemo.language.en.extraction.question_readers import READERS
from mnemo.language.en.extraction.wording import INTERJECTIONS

__all__ = ["NO", "YES", "answered", "object_of", "with_object"]

_NOT_REALLY = answer_pattern("not_really")
_PARTS = answer_pattern("parts")
_OBJECT = answer_pattern("object")
_YOUR = answer_pattern("your")
_MY = answer_pattern("my")
_IT = answer_pattern("it")
_BEFORE_QUESTION = answer_pattern("before_question")


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
    if thing.lower() in NOT_OBJECTS:
        return None
    return _YOUR.sub("my", thing)


def with_object(sentence: str, question: str) -> str:
    """The answer with an "it" that stands for what the question asked about written out ("she loves it" + "Does
    Sofia eat spicy food?" -> "she loves spicy food"); unchanged otherwise."""
    thing = object_of(question)
    if thing is None:
        return sentence
    return _IT.sub(thing, sentence, count=1)


def _with_it(question: str, previous: str | None) -> str:
    """The question with an "it" written as what the question before it asked about."""
    thing = object_of(previous) if previous else None
    if thing is None:
        return question
    return _IT.sub(_MY.sub("your", thing), question, count=1)


def _last_question(text: str) -> str:
    """The question itself, without what the assistant said before it ("Nice! Where do you hike?", "Exciting — what's
    the new job?")."""
    parts = _BEFORE_QUESTION.split(text.strip())
    last = parts[-1].strip()
    return last[:1].upper() + last[1:]


def _polarity(answer: str) -> tuple[bool | None, str]:
    """Yes (True), no (False) or neither (None), and the answer without its leading interjections and punctuation
    ("not really" is a no; "not yet" neither)."""
    not_really = _NOT_REALLY.match(answer)
    if not_really is not None:
        return False, answer[not_really.end() :].strip(" ,.!;:-—").strip()
    words = WORD.findall(answer)
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
