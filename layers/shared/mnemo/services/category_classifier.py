"""Zero-shot categories for memories: embedding similarity between a memory and each category's phrasings.

Every category is embedded in several phrasings: its name (underscores as spaces), its description, the two
together and, for the default categories (the language pack's: mnemo.language `CategoryWords`), a handful of
prototype memories the pack writes for them. A memory's score for a category is the mean cosine similarity of the
category's 2 closest phrasings (`PHRASINGS_AVERAGED`; the single best one is a noisier match). The phrasings'
vectors are embedded once per embedder and category set: a categorizer keeps them by its tuple of categories, and
every categorizer of the same embedder object shares them by the phrasings' texts (`SharedPhrasings`), since the
platform makes a categorizer per project and each would otherwise embed the same ~200 phrasings again.

The decision (`Rule`): the best-scoring category when its score reaches `threshold`; a further category only when
it also reaches the threshold and is within `margin` of the best, up to `max_categories`; by default `margin` = 0
and `max_categories` = 1, i.e. one category at most (a second category costs more precision than it gains recall).
When no category reaches the threshold the memory gets none, or `misc` with `fallback=True` when the set has `misc`
(off by default: most memories that reach no category are not miscellaneous, just hard). The rule is generic: a
custom category set (any names and descriptions) goes through the same scoring, without prototypes. How the
threshold and the rule were chosen, and what they reach, is measured by `python -m bench.categories`
(bench/results/categories.json)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mnemo.language import CategoryWords
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import Category

Scores = npt.NDArray[np.float32]

MISC = "misc"
# A category's score: the mean similarity of its closest phrasings (one phrasing is a noisy match on its own).
PHRASINGS_AVERAGED = 2
# Category sets whose vectors are kept (a service sees the default set and each project's custom one).
MAX_CACHED_SETS = 64


class SharedPhrasings:
    """The phrasings' vectors of each embedder object, by the tuple of phrasings, for every categorizer of the
    process: what a text's vector is depends only on the embedder, so two categorizers of one embedder need embed
    a category set once. Weakly keyed, so an embedder that is dropped takes its vectors with it; an embedder that
    cannot be weakly referenced shares nothing (each categorizer keeps its own)."""

    def __init__(self) -> None:
        self._by_embedder: weakref.WeakKeyDictionary[Embedder, dict[tuple[str, ...], Scores]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def vectors(self, embedder: Embedder, phrasings: tuple[str, ...]) -> Scores:
        """The embedder's vectors of `phrasings` (one row each), embedded on the first call for them."""
        try:
            with self._lock:
                known = self._by_embedder.setdefault(embedder, {})
        except TypeError:  # not weakly referenceable, or not hashable
            return embedder.embed(list(phrasings))
        with self._lock:
            cached = known.get(phrasings)
        if cached is None:
            # Outside the lock (two first callers may both embed); a copy of its own, read only, for every categorizer.
            cached = np.array(embedder.embed(list(phrasings)))
            cached.setflags(write=False)
            with self._lock:
                if len(known) >= MAX_CACHED_SETS:
                    del known[next(iter(known))]  # the oldest set
                known[phrasings] = cached
        return cached


SHARED_PHRASINGS = SharedPhrasings()


@dataclass(frozen=True)
class Rule:
    """Which of a memory's category scores (cosine similarities) it is filed under: the best category when its
    score reaches `threshold`; others too when they reach `threshold` and are within `margin` of the best, up to
    `max_categories` in all. When none reaches the threshold: `misc` if `fallback` and the set has it, else none."""

    threshold: float = 0.225
    margin: float = 0.0
    max_categories: int = 1
    fallback: bool = False


class EmbeddingCategorizer:
    """Assigns categories to memories by embedding similarity against each category's phrasings (its name, its
    description, its name and description together, and, for a default category, its prototypes)."""

    def __init__(
        self, embedder: Embedder, rule: Rule | None = None, *, words: CategoryWords, prototypes: bool = True
    ) -> None:
        """`words`: the language pack's default categories and their prototypes."""
        self._embedder = embedder
        self._words = words
        self.rule = rule or Rule()
        self._prototypes = prototypes
        # Per category set: the phrasings' vectors and, for each phrasing, the index of its category.
        self._cache: dict[tuple[Category, ...], tuple[Scores, npt.NDArray[np.intp], Scores]] = {}

    def categorize(self, texts: Sequence[str], categories: Sequence[Category]) -> list[tuple[str, ...]]:
        """Each text's category names, in order of similarity (best first)."""
        if not texts:
            return []
        if not categories:
            return [() for _ in texts]
        return self.decide(self.similarities(texts, categories), categories)

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def categorize_vectors(self, vectors: Scores, categories: Sequence[Category]) -> list[tuple[str, ...]]:
        """`categorize` for texts already embedded (by this categorizer's embedder: unit vectors, one per row)."""
        if not len(vectors):
            return []
        if not categories:
            return [() for _ in vectors]
        return self.decide(self.scores(vectors, categories), categories)

    def similarities(self, texts: Sequence[str], categories: Sequence[Category]) -> Scores:
        """One row per text, one column per category: the mean cosine similarity to the category's closest
        `PHRASINGS_AVERAGED` phrasings."""
        return self.scores(self._embedder.embed(list(texts)), categories)

    def scores(self, vectors: Scores, categories: Sequence[Category]) -> Scores:
        """`similarities` of texts already embedded."""
        phrasings, columns, counts = self._category_vectors(tuple(categories))
        per_phrasing = vectors @ phrasings.T
        # Every category's phrasings side by side (a category with fewer than the most has -inf in the rest), so
        # that one sort ranks each category's own: a loop over the categories cost ~0.2 ms an add.
        padded = np.concatenate([per_phrasing, np.full((len(per_phrasing), 1), -np.inf, np.float32)], axis=1)
        best = np.sort(padded[:, columns], axis=2)[:, :, ::-1][:, :, :PHRASINGS_AVERAGED]
        out: Scores = np.where(np.isfinite(best), best, np.float32(0)).sum(axis=2) / counts
        return out

    def decide(self, scores: Scores, categories: Sequence[Category], rule: Rule | None = None) -> list[tuple[str, ...]]:
        """The rule applied to each row of `scores` (as `similarities` gives them)."""
        rule = rule or self.rule
        names = [name for name, _ in categories]
        fallback = (MISC,) if rule.fallback and MISC in names else ()
        out: list[tuple[str, ...]] = []
        for row in scores:
            order = np.argsort(-row, kind="stable")[: rule.max_categories]
            best = float(row[order[0]])
            chosen = tuple(
                names[i] for i in order if float(row[i]) >= rule.threshold and float(row[i]) >= best - rule.margin
            )
            out.append(chosen or fallback)
        return out

    def _category_vectors(self, key: tuple[Category, ...]) -> tuple[Scores, npt.NDArray[np.intp], Scores]:
        """The phrasings' vectors; for each category the columns of its phrasings (padded with the column past the
        last, which `scores` fills with -inf); and how many of them each category's score averages."""
        cached = self._cache.get(key)
        if cached is None:
            texts: list[str] = []
            owned: list[list[int]] = []
            for category in key:
                phrased = self._phrasings(category)
                owned.append(list(range(len(texts), len(texts) + len(phrased))))
                texts.extend(phrased)
            width = max((len(cols) for cols in owned), default=1)
            columns = np.full((len(owned), width), len(texts), dtype=np.intp)
            for index, cols in enumerate(owned):
                columns[index, : len(cols)] = cols
            counts = np.asarray([min(len(cols), PHRASINGS_AVERAGED) for cols in owned], dtype=np.float32)
            cached = (SHARED_PHRASINGS.vectors(self._embedder, tuple(texts)), columns, counts)
            if len(self._cache) >= MAX_CACHED_SETS:
                del self._cache[next(iter(self._cache))]  # the oldest set
            self._cache[key] = cached
        return cached

    def _phrasings(self, category: Category) -> list[str]:
        name, description = category
        label = name.replace("_", " ").strip() or name
        phrasings = [label]
        if description.strip():
            phrasings += [description, f"{label}: {description}"]
        if self._prototypes and category in self._words.default_categories:
            phrasings += self._words.category_prototypes(name)
        return list(dict.fromkeys(phrasings))
