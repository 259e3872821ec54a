"""A search's candidates (services/memory/search/retrieve.py, first_person.py): the pool, the query read in the first
person when it names the one user searched, and the memories that state what the query asks about."""

from __future__ import annotations

from mnemo.domain import filters as f
from mnemo.domain.memory import LifecycleState, now
from mnemo.services.commands import SearchCommand
from mnemo.services.decay import Decay, DecaySettings
from mnemo.services.memory.search.first_person import FirstPerson
from mnemo.services.memory.search.retrieve import Retrieval, pool_size
from tests.unit.memory.fakes import BOB, Namespace

ALICE_FILTER = f.Condition("user_id", "eq", "alice")


def retrieval(ns: Namespace) -> Retrieval:
    return Retrieval(ns.parts, FirstPerson(ns.parts))


def test_the_pool_is_three_times_top_k_and_wider_with_decay_or_rerank() -> None:
    assert pool_size(SearchCommand("q", ALICE_FILTER, top_k=5)) == 30
    assert pool_size(SearchCommand("q", ALICE_FILTER, top_k=20)) == 60
    assert pool_size(SearchCommand("q", ALICE_FILTER, top_k=5, decay=Decay(DecaySettings(), now()))) == 50
    assert pool_size(SearchCommand("q", ALICE_FILTER, top_k=5, rerank=True)) == 100


def test_the_candidates_are_the_visible_memories_by_meaning_and_keyword(ns: Namespace) -> None:
    tea = ns.put("Drinks green tea every morning")
    ns.put("Drinks green tea at night", state=LifecycleState.OUTDATED)
    ns.put("Drinks green tea", BOB)

    retrieved = retrieval(ns).retrieve(SearchCommand("green tea", ALICE_FILTER), "green tea")

    assert [h.memory_id for h in retrieved.hits] == [tea.id]
    assert retrieved.hits[0].keyword > 0 and retrieved.answers == frozenset()


def test_without_keywords_the_candidates_have_no_keyword_score(ns: Namespace) -> None:
    ns.put("Drinks green tea every morning")
    retrieved = retrieval(ns).retrieve(SearchCommand("green tea", ALICE_FILTER, keyword=False), "green tea")
    assert [h.keyword for h in retrieved.hits] == [0.0]


def test_a_memory_stating_what_is_asked_is_a_candidate_whatever_its_score(ns: Namespace) -> None:
    home = ns.put("I moved to Porto.")
    retrieved = retrieval(ns).retrieve(SearchCommand("Where do I live?", ALICE_FILTER), "Where do I live?")
    assert retrieved.answers == frozenset({home.id})
    assert home.id in [h.memory_id for h in retrieved.hits]


def test_a_query_naming_the_user_searched_is_read_in_the_first_person(ns: Namespace) -> None:
    ns.put("Name is Alice Smith")
    first_person = FirstPerson(ns.parts)

    assert first_person.read("Where does alice live?", ALICE_FILTER)[0] == "Where do I live?"
    assert first_person.read("Where does Smith live?", ALICE_FILTER)[0] == "Where do I live?"  # a name of hers
    assert first_person.read("Where does Bob live?", ALICE_FILTER)[0] == "Where does Bob live?"
    both = f.Condition("user_id", "in", ["alice", "bob"])
    assert first_person.read("Where does alice live?", both)[0] == "Where does alice live?"  # not one user


def test_the_rewritten_query_is_embedded_again(ns: Namespace) -> None:
    FirstPerson(ns.parts).read("Where does alice live?", ALICE_FILTER)
    assert ns.embedder.embedded() == ["Where does alice live?", "Where do I live?"]
