"""Filing new memories under categories by embedding similarity (services/memory/add/categorizing.py)."""

from __future__ import annotations

from mnemo.domain.memory import MemoryRecord
from mnemo.language.en import english
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.providers import ProviderSet
from tests.unit.memory.fakes import ALICE, Namespace, WordEmbedder

DEFAULT_CATEGORIES = english().default_categories
SET = (("cooking", "recipes pasta cooking dinner"), ("travel", "trips flights hotels travel"))


def records(*texts: str, categories: tuple[str, ...] = ()) -> list[MemoryRecord]:
    return [MemoryRecord.create(t, ALICE, categories=categories) for t in texts]


def test_each_memory_without_categories_is_filed_under_the_closest_of_the_set(ns: Namespace) -> None:
    new = [*records("I cook pasta for dinner", "I booked flights and hotels"), *records("x", categories=("mine",))]
    filed = Categorizing(ns.parts).filed(new, ns.parts.embed([r.text for r in new]), SET)
    assert [r.categories for r in filed] == [("cooking",), ("travel",), ("mine",)]


def test_a_memory_near_no_category_falls_back_to_one_of_the_defaults(ns: Namespace) -> None:
    (filed,) = Categorizing(ns.parts).filed(records("zzz"), ns.parts.embed(["zzz"]), DEFAULT_CATEGORIES)
    assert len(filed.categories) >= 1
    assert set(filed.categories) <= {name for name, _ in DEFAULT_CATEGORIES}


def test_nothing_is_filed_without_a_category_set(ns: Namespace) -> None:
    new = records("I cook pasta for dinner")
    assert Categorizing(ns.parts).filed(new, ns.parts.embed(["I cook pasta for dinner"]), ()) is new


def test_the_categories_are_embedded_once_per_embedder(ns: Namespace) -> None:
    categorizing = Categorizing(ns.parts)
    new = records("I cook pasta for dinner")
    vectors = ns.parts.embed([new[0].text])
    categorizing.filed(new, vectors, SET)
    categorizing.filed(new, vectors, SET)
    assert sum(1 for call in ns.embedder.calls if SET[0][1] in " ".join(call)) == 1

    other = WordEmbedder()
    ns.providers.swap(ProviderSet(embedder=other))
    categorizing.filed(new, vectors, SET)
    assert any(SET[0][1] in " ".join(call) for call in other.calls)  # a new embedder: its own category vectors
