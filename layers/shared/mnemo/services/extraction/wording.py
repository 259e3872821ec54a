"""What a sentence is, read from its words: a question, filler, a statement about the speaker; and verbs in the
third person (what a memory says of its user: "Hikes", "Has")."""

from __future__ import annotations

import re

from mnemo.domain.text import STOP_WORDS, words

FILLER = frozenset(
    """hi hello hey hiya yo greetings morning afternoon evening night good bye goodbye cya see later thanks thank
    thx ty tysm cheers welcome ok okay k kk sure yes yeah yep yup yea no nope nah maybe fine great cool nice awesome
    perfect lol lmao rofl haha hahaha hehe heh hmm hm um uh uhh ugh meh oh ah aw aww wow omg please pls plz sorry
    alright right got gotcha indeed totally absolutely exactly agreed sounds glad happy help helpful chat talk soon
    too much appreciate it that this you your me i we all anyway well so just really very lot lots again there day
    problem problems worries meet meeting makes make sense funny care take luck enjoy bet true same
    interesting""".split()
)
QUESTION_OPENERS = frozenset(
    """what when where who whom whose which why how is are am was were do does did can could would should will
    shall may might have has had isn aren don doesn didn won wouldn shouldn couldn""".split()
)
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
INTERJECTIONS = frozenset(
    """haha hahaha hehe lol lmao oh ah well hmm hm um uh so yeah yes yep yup yea sure no nope nah ok okay
    honestly""".split()
)
_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes", "am": "is", "are": "is"}


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
VAGUE = frozenset(
    """think thinking thought figure guess know knew see try trying check look looking mean meant get got let
    sure maybe thing things stuff something anything everything nothing kind sort way actually probably definitely
    totally whatever idea ideas point tell said say says wait anyway later bit""".split()
)
_REQUEST = re.compile(
    r"^(?:so\s+|ok\s+|okay\s+|hi\s+|hey\s+)?(?:i\s+(?:need|want|would like|'d like|’d like)|i'm looking for|"
    r"i am looking for|please|can you|could you|would you|help me|give me|tell me|show me|write|suggest|recommend|"
    r"find me|remind me|let me know)\b.*\b(?:ideas?|suggestions?|recipes?|advice|help|recommendations?|tips?|options?|"
    r"email|message|letter|note|list|plan|draft|summary|you)\b",
    re.IGNORECASE,
)


def is_vague(sentence: str) -> bool:
    """Nothing but vague words once filler and stop words are gone ("I'll think about it")."""
    return all(word in VAGUE for word in content_words(sentence))


def is_request(sentence: str) -> bool:
    """A request to the assistant, not a fact of the user's ("I need dinner ideas", "Can you write an email…")."""
    return _REQUEST.search(sentence.strip()) is not None
