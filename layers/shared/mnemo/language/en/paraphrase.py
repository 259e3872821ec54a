"""Whether two memories of one user state the same fact, without an LLM: the rule a merge of duplicates uses.

Rule: `same_fact(a, b, similarity)` is true when the cosine similarity of their all-MiniLM-L6-v2 vectors is at least
MERGE_THRESHOLD (0.69) and no guard tells the texts apart. The guards, cheap reads of the text:

- numbers: the sets of numbers differ (digits, number words and ordinals read alike: "2" = "two", "3rd" = "third");
- negation: one is negated and the other not ("not", "n't", "never", "no", "without", "dislikes", "hates", ...),
  or one says "unX"/"inX"/"disX"/"nonX" where the other says "X" ("unvaccinated" / "vaccinated");
- names: a capitalised word not opening a sentence (a name, place, brand, month, weekday) of one is not a word of
  the other ("Lives in Lisbon" / "Lives in Porto", "on 3 May" / "on 3 June");
- relations: the relatives and other people named differ ("My sister lives in Porto" / "Lives in Porto");
- change: the words of a change over time or a plan differ ("used to", "no longer", "was", "will", "plans", ...);
- roles: the possessors differ ("Ana's boss is Rui" / "Rui's boss is Ana"), or, in a comparison ("than", "over",
  "from", "prefers X to Y"), the shared words come in another order ("Prefers tea over coffee" / "coffee over tea");
- wording: the content words differ once stop words, filler ("user", "apparently", "mentioned"), numbers and
  negations are set aside and a crude stem and spelling map applied ("favourite colour" = "favorite color",
  "runs" = "running", "named" = "called"). Any word on one side only is a different fact: a substituted value
  ("left" / "right", "morning" / "evening", "vegetarian" / "vegan") or a more specific one ("Likes music" /
  "Likes jazz", counted as NOT the same fact: merging would lose the detail or over-claim it).

Why the wording guard: the embedding alone does not separate facts. On the labelled pairs
(bench/data/paraphrase_pairs.jsonl: 369 short memories, 132 paraphrases and 237 mostly hard non-paraphrases, a
third held out as `test`) negatives reach cosine 0.975 ("Sleeps on the left / right side of the bed"), and cosine
alone never reaches precision 0.98 at any useful recall (0.62 at 0.95). The value guards (all but wording) lift it
to 0.80 at 0.69, not enough: a one-word substitution of a value is common and nothing but the words catches it.
The price is recall: a paraphrase through synonyms ("purchased" / "bought", "physician" / "doctor", "Diet:
vegetarian" / "User is vegetarian", "is vegetarian" / "doesn't eat meat") is not merged; rewordings that keep the
content words (first / third person, word order, filler, spelling, numbers in words) are.

Threshold: with every guard on, no negative of the set passes at any cosine from 0.30 up, so the cosine is the
safety net for what the guards cannot read; 0.69 is the highest cosine that keeps tune recall within 0.05 of its
best (0.63 below 0.60) on both backends of the model (ONNX int8, the default, and float32, cosines up to 0.05
apart); `python -m bench.merge_threshold` recomputes it. What sits lowest: first person against third person
("I'm 34 years old" / "User is 34 years old": 0.49; "I'm vegetarian" / "The user is vegetarian": 0.67).

Measured 2026-11-25 (bench/results/merge.json), ONNX int8 / float32, at 0.69:

- every guard (`same_fact`): tune precision 1.000 / 1.000, recall 0.589 / 0.600 (53, 54 of 90);
  test precision 1.000 / 1.000, recall 0.643 / 0.643 (27 of 42). Zero false merges in 80 merged pairs: with
  this few, the 95% lower bound of precision is about 0.96 (0.89 on test's 27 alone).
- value guards only: tune precision 0.800 / 0.791, recall 0.800; test 0.740 / 0.720, recall 0.881 / 0.857.
- cosine only: tune precision 0.444 / 0.434, recall 0.878; test 0.425 / 0.414, recall 0.881 / 0.857.

The guards were designed by looking at the tune pairs; the test pairs are written the same way by the same hand,
so test measures the rule on unseen pairs of the same style, not on memories extracted from real conversations.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from mnemo.domain.text import words
from mnemo.language.en.keywords import STOP_WORDS, keywords
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import mapping, word_list, word_set

MERGE_THRESHOLD = 0.69

# The words and spellings of the guards, and the patterns of numbers and names (data/paraphrase.toml).
_NUMBER_WORDS = mapping("paraphrase.toml", "numbers", int)
_ORDINALS = mapping("paraphrase.toml", "ordinals", int)
_DIGITS = pattern("paraphrase.toml", "digits")
_NEGATIONS = word_set("paraphrase.toml", "negations")
_COMPARISONS = word_set("paraphrase.toml", "comparisons")
_NEGATING_PREFIXES = word_list("paraphrase.toml", "negating_prefixes")
_KIN = mapping("paraphrase.toml", "relations", str)  # each relation and its words
_RELATIONS = {word: kin for kin, named in _KIN.items() for word in named.split()}
_CHANGE_WORDS = word_set("paraphrase.toml", "change_words")
_SENTENCE_START = pattern("paraphrase.toml", "sentence_start")
_CAPITALISED = pattern("paraphrase.toml", "capitalised")
_NOT_NAMES = word_set("paraphrase.toml", "not_names")
_SPELLINGS = mapping("paraphrase.toml", "spellings", str)
_FILLER = word_set("paraphrase.toml", "filler")


@dataclass(frozen=True, slots=True)
class Reading:
    """What the guards read in one memory."""

    numbers: frozenset[str]
    negated: bool
    names: frozenset[str]
    words: frozenset[str]
    relations: frozenset[str]
    changes: frozenset[str]
    stems: frozenset[str]
    order: tuple[str, ...]
    possessors: frozenset[str]
    compares: bool
    unprefixed: frozenset[str]  # its words of 4+ letters after a negating prefix: "vaccinated" of "unvaccinated"


@functools.lru_cache(maxsize=4096)  # an add compares its memory with the same few stored ones, add after add
def read(text: str) -> Reading:
    tokens = [t.replace("’", "'") for t in words(text)]
    content = _content(text)
    every_word = frozenset(tokens) | frozenset(t.split("'")[0] for t in tokens)
    return Reading(
        numbers=_numbers(text, tokens),
        negated=any(t in _NEGATIONS or t.endswith("n't") for t in tokens),
        names=_names(text),
        words=every_word,
        relations=frozenset(_RELATIONS[t.split("'")[0]] for t in tokens if t.split("'")[0] in _RELATIONS),
        changes=_changes(tokens),
        stems=frozenset(content),
        order=tuple(content),
        possessors=frozenset(
            t[:-2] for t in tokens if t.endswith("'s") and t[:-2] not in _FILLER and t[:-2] not in STOP_WORDS
        ),
        compares=any(t in _COMPARISONS for t in tokens)
        or ("to" in tokens and any(t.startswith("prefer") for t in tokens)),
        unprefixed=_unprefixed(every_word),
    )


def _unprefixed(words: frozenset[str]) -> frozenset[str]:
    return frozenset(
        word[len(prefix) :]
        for word in words
        for prefix in _NEGATING_PREFIXES
        if word.startswith(prefix) and len(word) - len(prefix) >= 4
    )


def _numbers(text: str, tokens: list[str]) -> frozenset[str]:
    found = {d.replace(",", "") for d in _DIGITS.findall(text)}
    found |= {str(_NUMBER_WORDS[t]) for t in tokens if t in _NUMBER_WORDS}
    found |= {str(_ORDINALS[t]) for t in tokens if t in _ORDINALS}
    return frozenset(found)


def _names(text: str) -> frozenset[str]:
    """Capitalised words that do not open a sentence (nor "I", "User"): names, places, brands, months, days."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    return frozenset(
        m.group(1).replace("’", "'").split("'")[0].lower()
        for m in _CAPITALISED.finditer(text)
        if m.start(1) not in starts and m.group(1).replace("’", "'") not in _NOT_NAMES
    )


def _changes(tokens: list[str]) -> frozenset[str]:
    """Words of a change over time or of a plan: "used to", "no longer", "going to", "was" (but "was born")."""
    found: set[str] = set()
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        before = tokens[i - 1] if i else ""
        if token in ("was", "were") and after == "born":
            continue
        if (
            token in _CHANGE_WORDS
            or (token in ("used", "going") and after == "to")
            or (token == "longer" and before == "no")
        ):
            found.add(token)
    return frozenset(found)


def _stem(word: str) -> str:
    """A crude stem, enough to match "runs", "running" and "run" or "named" and "name" (not a dictionary form)."""
    word = _SPELLINGS.get(word, word)
    for suffixes in ((("ies", "y"), ("sses", "ss"), ("es", ""), ("s", "")), (("ing", ""), ("ed", ""))):
        for suffix, keep in suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
                word = word[: -len(suffix)] + keep
                break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _content(text: str) -> list[str]:
    """The stems of the content words in order: no stop words, filler ("user", "apparently"), numbers (the
    numbers guard reads them) or negations (the negation guard does); "dislike" is "like"."""
    stems: list[str] = []
    for word in keywords(text):
        kept = word[3:] if word.startswith("dislike") else word
        if kept != word or not (
            word in _FILLER or word in _NUMBER_WORDS or word in _ORDINALS or word in _NEGATIONS or word[0].isdigit()
        ):
            stem = _stem(kept)
        else:
            continue
        if stem not in stems:
            stems.append(stem)
    return stems


def _in_order(a: Reading, b: Reading) -> bool:
    """Who is whose and which way a comparison goes: the same possessors ("Ana's boss is Rui" is not "Rui's boss
    is Ana") and, when either compares ("than", "over", "from", "rather", ...), their shared words in one order."""
    if a.possessors != b.possessors:
        return False
    if not (a.compares or b.compares):
        return True
    shared = set(a.order) & set(b.order)
    return [w for w in a.order if w in shared] == [w for w in b.order if w in shared]


def _prefix_negated(a: Reading, b: Reading) -> bool:
    """One says "unvaccinated" or "uncomfortable" where the other says "vaccinated" or "comfortable"."""
    return not (a.unprefixed.isdisjoint(b.words) and b.unprefixed.isdisjoint(a.words))


VALUE_GUARDS = ("numbers", "negation", "names", "relations", "change", "roles")
GUARDS = (*VALUE_GUARDS, "wording")


def guards_fired(a_text: str, b_text: str, guards: tuple[str, ...] = GUARDS) -> list[str]:
    """The guards that tell the two memories apart, by name (empty: nothing in the text says they differ)."""
    a, b = read(a_text), read(b_text)
    checks = {
        "numbers": lambda: a.numbers != b.numbers,
        "negation": lambda: a.negated != b.negated or _prefix_negated(a, b),
        "names": lambda: not (a.names <= b.words and b.names <= a.words),
        "relations": lambda: a.relations != b.relations,
        "change": lambda: a.changes != b.changes,
        "roles": lambda: not _in_order(a, b),
        "wording": lambda: a.stems != b.stems,
    }
    return [name for name in guards if checks[name]()]


def same_fact(a_text: str, b_text: str, similarity: float) -> bool:
    """Whether two memories of one user state the same fact: cosine `similarity` of their all-MiniLM-L6-v2 vectors
    at least MERGE_THRESHOLD and no guard telling them apart (see the module's docstring)."""
    return similarity >= MERGE_THRESHOLD and not guards_fired(a_text, b_text)
