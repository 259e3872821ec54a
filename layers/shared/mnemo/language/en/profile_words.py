"""What the profile generator without an LLM reads in English (mnemo.language.interface `ProfileWords`): a property
said in words to be embedded ("location: Where lives"), and what a memory plainly states of a property: yes or no
for a boolean, a number written in digits for a number.

- a property is its name in words ("isVegetarian", "is_vegetarian": "is vegetarian") and its description without
  "the user";
- its key words are its name's words but those that say nothing of it ("is", "has", "the", …);
- a memory speaks of a property when each key word is one of its words, or a form of it ("vegetarians", "smoke" for
  "smoker"); it states it true unless a negation ("not", "no", "never", "non", "n't", …) is among the three words
  before the first key word, and states nothing plainly when it asks a question or speaks of a change or the past
  ("used to", "stopped", "anymore", "was", …);
- it states a number when it holds exactly one, in digits, with a key word of the property's name or description
  within three words of it ("Is 34 years old": age 34).
The words and patterns are data (data/profile_words.toml)."""

from __future__ import annotations

from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import word_set

_FILE = "profile_words.toml"
_WORD = pattern(_FILE, "word")
_NUMBER = pattern(_FILE, "number")
_THE_USER = pattern(_FILE, "the_user")
_CAMEL = pattern(_FILE, "camel")
_NAME_SPLIT = pattern(_FILE, "name_split")
_NAME_FILLERS = word_set(_FILE, "name_fillers")
_DESCRIPTION_FILLERS = _NAME_FILLERS | word_set(_FILE, "description_fillers")
_NEGATIONS = word_set(_FILE, "negations")
_UNSURE = word_set(_FILE, "unsure")
_NEAR = 3  # words


def name_words(name: str) -> list[str]:
    """A property's name in words, lower case ("isVegetarian" -> is, vegetarian)."""
    return [w.lower() for w in _NAME_SPLIT.split(_CAMEL.sub(" ", name)) if w]


def without_the_user(description: str) -> str:
    """A description without "the user" ("Where the user lives" -> "Where lives"), single spaces."""
    return " ".join(_THE_USER.sub(" ", description).split())


def property_text(name: str, description: str) -> str:
    """What a property is embedded as: its name in words and its description without "the user" (the description
    alone misses "I live in Lisbon" for "Where the user lives")."""
    words = " ".join(name_words(name))
    if not description.strip():
        return words
    return f"{words}: {without_the_user(description)}"


def key_words(name: str) -> list[str]:
    return [w for w in name_words(name) if w not in _NAME_FILLERS]


def tokens(text: str) -> list[str]:
    """Lower-cased words; "don't" and "isn't" become "do not", "is not"; "non-vegetarian" is "non vegetarian"."""
    words: list[str] = []
    for word in _WORD.findall(text.replace("’", "'").lower()):
        if word.endswith("n't"):
            words.extend([word[:-3] or "not", "not"])
        else:
            words.extend(word.split("'"))
    return words


def _same_word(key: str, word: str) -> bool:
    """A memory's word is the key word, or one of its forms ("vegetarians", "smoke" for "smoker")."""
    return word == key or (len(word) >= 4 and len(key) >= 4 and (word.startswith(key) or key.startswith(word)))


def _positions(keys: list[str], words: list[str]) -> list[int] | None:
    """Where each key word appears in the memory's words (its first place), or None when one is missing."""
    found: list[int] = []
    for key in keys:
        place = next((i for i, word in enumerate(words) if _same_word(key, word)), None)
        if place is None:
            return None
        found.append(place)
    return found


def speaks_of(name: str, text: str) -> bool:
    """Whether the memory speaks of the property: it has key words, and each is among the memory's words."""
    keys = key_words(name)
    return bool(keys) and _positions(keys, tokens(text)) is not None


def stated_truth(name: str, text: str) -> bool | None:
    """What a memory that speaks of the property plainly states of it: True, False (negated), or None (unsure, or
    it does not speak of it)."""
    keys, words = key_words(name), tokens(text)
    places = _positions(keys, words) if keys else None
    if places is None or "?" in text or any(w in _UNSURE for w in words):
        return None
    first = min(places)
    before = words[max(0, first - _NEAR) : first]
    return not any(w in _NEGATIONS for w in before)


def stated_number(name: str, description: str, text: str) -> str | None:
    """The one number written in digits the memory holds, as written ("34"), when a key word of the property's name
    or description is within three words of it; else None."""
    numbers = list(_NUMBER.finditer(text))
    if len(numbers) != 1:
        return None
    keys = {w for w in key_words(name) + tokens(description) if w not in _DESCRIPTION_FILLERS and len(w) >= 3}
    before = tokens(text[: numbers[0].start()])[-_NEAR:]
    after = tokens(text[numbers[0].end() :])[:_NEAR]
    if not any(_same_word(key, word) for key in keys for word in before + after):
        return None
    return numbers[0].group()


class EnglishProfileWords:
    """mnemo.language `ProfileValues` reading English words alone: booleans, numbers and how a property is said,
    and no kind of value (every string property takes the text of the memory closest to it)."""

    def property_text(self, name: str, description: str) -> str:
        return property_text(name, description)

    def speaks_of(self, name: str, text: str) -> bool:
        return speaks_of(name, text)

    def stated_truth(self, name: str, text: str) -> bool | None:
        return stated_truth(name, text)

    def stated_number(self, name: str, description: str, text: str) -> str | None:
        return stated_number(name, description, text)

    def value_kind(self, name: str, description: str) -> str | None:
        return None

    def stated_value(self, kind: str, text: str) -> str | None:
        return None
