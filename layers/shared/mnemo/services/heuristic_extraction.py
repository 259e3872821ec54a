"""The extractor used when no LLM is configured: keep informative statements, drop the rest.

It splits each message into sentences and keeps a sentence when it states something: not a question, not a
greeting or filler, and with at least two content words. It does not rewrite, resolve pronouns, merge
facts, or detect contradictions; that needs the LLM path. Near-duplicates are dropped afterwards by
embedding similarity (see MemoryService).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.text import STOP_WORDS, words

FILLER = frozenset(
    """hi hello hey hiya yo greetings morning afternoon evening night good bye goodbye cya see later thanks thank
    thx ty cheers welcome ok okay k kk sure yes yeah yep yup no nope nah maybe fine great cool nice awesome
    perfect lol haha hahaha hmm hm um uh oh ah wow please sorry alright right got it gotcha indeed totally
    absolutely exactly agreed sounds glad happy help helpful chat talk soon too much appreciate it that this
    you your me i we all anyway well so just really very much lot lots again there day problem problems worries
    meet meeting nice makes make sense funny care take luck enjoy""".split()
)
QUESTION_OPENERS = frozenset(
    """what when where who whom whose which why how is are am was were do does did can could would should will
    shall may might have has had isn aren don doesn didn won wouldn shouldn couldn""".split()
)
_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;]*")


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    message_index: int


def informative_statements(messages: list[tuple[int, str]]) -> list[Statement]:
    """Informative sentences of the given (message index, content) pairs, in order."""
    found: list[Statement] = []
    for index, content in messages:
        for match in _SENTENCE.finditer(content):
            sentence = match.group(0).strip()
            if is_informative(sentence):
                found.append(Statement(sentence, index))
    return found


def is_informative(sentence: str) -> bool:
    # Contractions count as their first word ("that's" -> "that", "what's" -> "what"), so that
    # "Thanks, that's really helpful!" is filler and "What's up" is a question.
    tokens = [t.replace("’", "'").split("'")[0] for t in words(sentence)]
    if not tokens or sentence.rstrip().endswith("?"):
        return False
    if tokens[0] in QUESTION_OPENERS and not sentence.rstrip().endswith((".", "!")):
        # "do you know the way" is a question; "When I was ten I lived in Oslo." is a statement.
        return False
    if all(t in FILLER or t in STOP_WORDS for t in tokens):
        return False
    content = [t for t in tokens if t not in STOP_WORDS and t not in FILLER]
    return len(content) >= 2 or (len(content) == 1 and len(tokens) >= 3)
