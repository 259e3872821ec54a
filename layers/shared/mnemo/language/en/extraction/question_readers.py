"""One reader for each form of question an answer is read with (mnemo.language.en.extraction.answers): each takes
the question, whether the answer says yes (True), no (False) or neither (None), and what it says beyond that, and
gives the statement the pair makes, or None when the question is not of its form (or the answer does not say what
that form needs). Their patterns are data (data/answers.toml)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemo.language.en.extraction.answer_words import (
    HOW_ONE_IS,
    NO_REST,
    PREPOSITIONS,
    answer_pattern,
    article,
    lower_first,
    own,
    says_more,
)
from mnemo.language.en.extraction.wording import capitalized, third_person

Reader = Callable[[str, bool | None, str], str | None]

_DO_YOU = answer_pattern("do_you")
_WORK = answer_pattern("work")
_WHATS_YOUR = answer_pattern("whats_your")
_PLURAL_WHAT = answer_pattern("plural_what")
_ARE_YOU = answer_pattern("are_you")
_HAVE_YOU = answer_pattern("have_you")
_HOW_MANY = answer_pattern("how_many")
_HOW_MANY_DO = answer_pattern("how_many_do")
_KIND_YOU = answer_pattern("kind_you")
_KIND_NAME = answer_pattern("kind_name")
_ARE_YOU_DOING = answer_pattern("are_you_doing")
_WHATS_THE = answer_pattern("whats_the")
_NUMBER = answer_pattern("number")
_ABOUT = answer_pattern("about")


def _work(question: str, polarity: bool | None, said: str) -> str | None:
    if not _WORK.match(question) or not said:
        return None
    said = said[:1].lower() + said[1:]
    role = said if said.startswith(("a ", "an ", "the ")) else f"{article(said)} {said}"
    return f"Works as {role}"


def _do_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _DO_YOU.match(question)
    if match is None:
        return None
    verb, rest = match.group("verb"), own(match.group("rest"))
    if match.group("wh") is None:  # a yes/no question
        if polarity is False:
            return f"Does not {verb.lower()} {rest}" + (f": {said}" if said else "")
        if polarity is None and not says_more(said):
            return None
        return f"{capitalized(third_person(verb))} {rest}" + (f": {said}" if said else "")
    if not said:
        return None
    return f"{capitalized(third_person(verb))} {rest} {lower_first(said)}".replace("  ", " ")


def _whats_your(question: str, polarity: bool | None, said: str) -> str | None:
    match = _WHATS_YOUR.match(question)
    if match is None or not said:
        return None
    thing = own(match.group("thing"))
    verb = "are" if _PLURAL_WHAT.match(question.lower()) else "is"
    return f"{capitalized(thing)} {verb} {said}"


def _are_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _ARE_YOU.match(question)
    if match is None:
        return None
    rest = own(match.group("rest"))
    if polarity is None:
        return _chosen(rest, said)
    return (f"Is {rest}" if polarity else f"Is not {rest}") + (f": {said}" if said else "")


def _chosen(rest: str, said: str) -> str | None:
    """An answer to "Are you <doing> <on X or Y>?" that picks one: "Is <doing> <on> <answer>"."""
    if " or " not in rest or not says_more(said):
        return None
    words = rest.split(" or ", 1)[0].split()
    cut = max((i for i, w in enumerate(words) if w.lower() in PREPOSITIONS), default=0)
    return f"Is {' '.join(words[: cut + 1])} {lower_first(said)}"


def _are_you_doing(question: str, polarity: bool | None, said: str) -> str | None:
    match = _ARE_YOU_DOING.match(question)
    if match is None or not says_more(said):
        return None
    if match.group("wh").lower() == "how" and _asks_how_one_is(match):
        return None
    rest = own(match.group("rest"))
    return " ".join(f"Is {match.group('verb').lower()} {rest} {lower_first(said)}".split())


def _asks_how_one_is(match: re.Match[str]) -> bool:
    """ "How are you feeling / finding it / holding up?" asks how the user is, not a fact of theirs."""
    rest = match.group("rest").strip().lower()
    return match.group("verb").lower() in HOW_ONE_IS or not rest or rest in NO_REST


def _kind_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _KIND_YOU.match(question)
    if match is None or not says_more(said):
        return None
    return f"{capitalized(third_person(match.group('verb')))} {match.group('thing').strip()}: {said}"


def _kind_name(question: str, polarity: bool | None, said: str) -> str | None:
    match = _KIND_NAME.match(question)
    if match is None or not says_more(said):
        return None
    return f"{match.group('name')} is {lower_first(said)}"


def _whats_the(question: str, polarity: bool | None, said: str) -> str | None:
    match = _WHATS_THE.match(question)
    if match is None or not says_more(said):
        return None
    return f"{capitalized(match.group('thing').strip())} is {lower_first(said)}"


def _how_many_do(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HOW_MANY_DO.match(question)
    number = _NUMBER.match(_ABOUT.sub("", said))
    if match is None or number is None:
        return None
    things = match.group("things").strip()
    rest = number.group("rest").split()
    unit = things.split()[0].lower()
    if rest and rest[0].lower().rstrip(".,") in (unit, unit.rstrip("s")):
        rest = rest[1:]
    tail = (" " + " ".join(rest)) if rest else ""
    return f"{capitalized(third_person(match.group('verb')))} {number.group('n')} {things}{tail}".rstrip(" .,")


def _have_you(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HAVE_YOU.match(question)
    if match is None or polarity is None:
        return None
    rest = own(match.group("rest"))
    return (f"Has {rest}" + (f": {said}" if said else "")) if polarity else f"Has never {rest}"


def _how_many(question: str, polarity: bool | None, said: str) -> str | None:
    match = _HOW_MANY.match(question)
    if match is None or not said:
        return None
    things = match.group("things").strip()
    said = lower_first(said)
    return f"Has {said}" if things.split()[-1].lower() in said.lower() else f"Has {said} {things}"


READERS: tuple[Reader, ...] = (
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
