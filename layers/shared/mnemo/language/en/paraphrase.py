"""Whether two memories of one user state the same fact, without an LLM: the rule a merge of duplicates uses.

Rule: `same_fact(a, b, similarity)` is true when the cosine similarity of their all-MiniLM-L6-v2 vectors is at least
MERGE_THRESHOLD and no guard tells the texts apart. The guards, cheap reads of the text (.paraphrase_reading):

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
(bench/data/paraphrase_pairs.jsonl: short memories, paraphrases and mostly hard non-paraphrases, a third held out as
`test`) negatives reach a cosine near 1 ("Sleeps on the left / right side of the bed"), and neither the cosine alone
nor the value guards (all but wording) reach the precision a merge needs: a one-word substitution of a value is
common and nothing but the words catches it. The price is recall: a paraphrase through synonyms ("purchased" /
"bought", "physician" / "doctor", "Diet: vegetarian" / "User is vegetarian", "is vegetarian" / "doesn't eat meat")
is not merged; rewordings that keep the content words (first / third person, word order, filler, spelling, numbers
in words) are.

Threshold: with every guard on, the cosine is the safety net for what the guards cannot read; MERGE_THRESHOLD is the
highest cosine that keeps the tune pairs' recall close to its best on both backends of the model (ONNX int8, the
default, and float32). What sits lowest is first person against third person ("I'm 34 years old" / "User is 34
years old"). `python -m bench.merge_threshold` recomputes it; its figures, for every guard, the value guards only
and the cosine only, on the tune and test pairs, are in bench/results/merge.json (docs/benchmarks/results.md,
"Merging paraphrases without an LLM").

The guards were designed by looking at the tune pairs; the test pairs are written the same way by the same hand,
so test measures the rule on unseen pairs of the same style, not on memories extracted from real conversations.
"""

from __future__ import annotations

from mnemo.language.en.paraphrase_reading import Reading, read

MERGE_THRESHOLD = 0.69

VALUE_GUARDS = ("numbers", "negation", "names", "relations", "change", "roles")
GUARDS = (*VALUE_GUARDS, "wording")


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
