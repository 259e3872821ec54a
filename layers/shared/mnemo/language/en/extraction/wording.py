"""What a sentence is, read from its words: a question, filler, a statement about the speaker; and verbs in the
third person (what a memory says of its user: "Hikes", "Has")."""

from __future__ import annotations

import re

from mnemo.domain.text import words
from mnemo.language.en.claim_patterns import PROFESSIONS
from mnemo.language.en.extraction.dates import MONTHS, WEEKDAYS
from mnemo.language.en.keywords import STOP_WORDS

FILLER = frozenset(
    """hi hello hey hiya yo greetings morning afternoon evening night good bye goodbye cya see later thanks thank
    thx ty tysm cheers welcome ok okay k kk sure yes yeah yep yup yea no nope nah maybe fine great cool nice awesome
    perfect lol lmao rofl haha hahaha hehe heh hmm hm um uh uhh ugh meh oh ah aw aww wow omg please pls plz sorry
    alright right got gotcha indeed totally absolutely exactly agreed sounds glad happy help helpful chat talk soon
    too much appreciate it that this you your me i we all anyway well so just really very lot lots again there day
    problem problems worries meet meeting makes make sense funny care take luck enjoy bet true same
    interesting bit little yet shall wish""".split()
) | frozenset(WEEKDAYS)
QUESTION_OPENERS = frozenset(
    """what when where who whom whose which why how is are am was were do does did can could would should will
    shall may might have has had isn aren don doesn didn won wouldn shouldn couldn""".split()
)
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves im ive".split())  # "im", "ive": as typed
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


# Telling the assistant to hand something over: "send me some places pls", "give me three options".
_IMPERATIVE = re.compile(
    r"^(?:(?:ok|okay|so|and|now|pls|please|plz|just|then)[\s,]+)*(?:send|give|show|find|list|tell)\s+me\b",
    re.IGNORECASE,
)
# Talk about the conversation itself or the assistant's day: "I hope you're having a good Sunday", "a lot has
# happened since we last spoke, so bear with me", "wish me luck".
_SMALL_TALK = re.compile(
    r"\bhope (?:you're|you’re|youre|you are|u r|ur) (?:having|doing|well|ok|okay|good|fine)\b|\bbear with me\b|"
    r"\bsince (?:we|i) (?:last )?(?:spoke|talked|chatted|wrote)\b|\bwish me luck\b|\blong time no (?:see|talk|chat)\b|"
    r"\b(?:i'll|i will|will) (?:report back|keep you posted|let you know)\b",
    re.IGNORECASE,
)
# The words of a time and nothing else: "around 23 September 2025", "early next week".
TIME_WORDS = (
    frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | frozenset(
        """jan feb mar apr jun jul aug sep sept oct nov dec around about early late mid end start beginning week weeks
        weekend month months year years day days ago next last this morning afternoon evening night""".split()
    )
)


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
REACTIONS = frozenset(
    """amazing point idea noted fair good great perfect nice cool omg wow brilliant excellent lovely true fine makes
    sense will do deal""".split()
)
_REPLY_INTENTION = re.compile(r"^(?P<ack>[^,;:]+)[,;:]\s*(?:i['’]ll|i will|will)\b", re.IGNORECASE)
_UNREFERENCED_IT = re.compile(r"^(?:it|that|this)(?:['’]s|\s+is|\s+was)\b", re.IGNORECASE)
_PASSING_FEELING = re.compile(
    r"^(?:i\s+feel|i['’]m\s+feeling|i\s+am\s+feeling|feeling)\s+(?:\w+\s*){1,3}[.!]*$", re.IGNORECASE
)


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
_PAST = frozenset(
    """got went bought sold left quit moved started finished joined adopted closed signed booked ran won lost broke
    tore took made met found began came flew drove switched married graduated retired""".split()
)
_DOING = frozenset(
    """moving starting leaving quitting joining working studying living planning training learning renting buying
    selling teaching running taking getting going visiting flying travelling traveling staying retiring""".split()
)
_NOT_VERBS = frozenset(
    "need feed seed speed bed red shed wed indeed thing nothing something anything evening morning".split()
)
_OBJECT_OPENERS = frozenset("on in at to from out up into for with of off a an the my our his her their".split())
_LEADING_NOISE = frozenset("finally just also and so then btw update anyway".split())


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


_PROFESSION = "|".join(sorted(PROFESSIONS, key=len, reverse=True))
_JOB_TITLE = re.compile(
    rf"^(?:(?:now|currently|still)\s+)?(?P<role>(?:an?\s+)?(?:[a-z-]+\s+){{0,2}}(?:{_PROFESSION})s?)\b"
    r"(?P<rest>\s+(?:at|for|in|with)\b[^.!?]*)?[.!]*$",
    re.IGNORECASE,
)


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
_NOTE_ABOUT_THE_USER = re.compile(r"^(?:the\s+)?user(?P<owner>['’]s)?\s+(?P<rest>\S.*)$", re.IGNORECASE)


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
