"""bench/memory_quality: the matching rules and the figures, on a tiny hand-made example (no service, no model)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from bench.memory_quality.data import Conversation, DateLabel, Fact, FactKind, Message, Person, Rule
from bench.memory_quality.scoring import (
    GoldCheck,
    Hit,
    ProbeOutcome,
    Stored,
    check_gold,
    date_resolved,
    duplicates,
    gold_figures,
    judge,
    lost_subject,
    probe_figures,
    rank_probe,
    relative_dates,
)


def rule(*required: list[str], forbidden: tuple[str, ...] = ()) -> Rule:
    return Rule(tuple(tuple(group) for group in required), forbidden)


def fact(key: str, r: Rule, kind: FactKind = "gold", about: str | None = None, date: DateLabel | None = None) -> Fact:
    return Fact("alice", key, key, r, kind, "alice-1", about=about, date=date)


LISBON = fact("lives_lisbon", rule(["Lisbon"], ["live*", "moved", "based"]))
PARIS = fact("lives_paris", rule(["Paris"], ["live*", "based", "from"], forbidden=("Lisbon",)))
NAME = fact("name", rule(["Alice"], ["name", "I'm", "I am"]))
SISTER = fact("sofia_nurse", rule(["Sofia", "sister"], ["nurs*"]), about="Sofia")
UNPACKING = fact("unpacking", rule(["unpack*"]), kind="acceptable")
FACTS = (LISBON, PARIS, NAME, SISTER, UNPACKING)
SOFIA = Person("Sofia", "sister", (), ("she", "her", "hers"))


def memory(text: str, *roles: str, state: str = "active", memory_id: str | None = None) -> Stored:
    return Stored(memory_id or text, text, "alice", state, roles or ("user",))


# ---- rules ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Lisbon in March.", True),
        ("Lives in Lisbon", True),
        ("LISBON is where she lives", True),
        ("Lisbon is beautiful.", False),  # no word of living there
        ("Lisboners moved", False),  # a word, not a prefix of one
    ],
)
def test_a_rule_needs_every_group_at_word_boundaries(text: str, expected: bool) -> None:
    assert LISBON.rule.matches(text) is expected


def test_a_forbidden_word_refuses_the_text() -> None:
    assert PARIS.rule.matches("I live in Paris")
    assert not PARIS.rule.matches("I moved from Paris to Lisbon")


def test_wildcards_accents_and_quotes() -> None:
    assert rule(["work* from home"]).matches("She works from home")
    assert rule(["Charite"]).matches("a nurse at the Charité")
    assert rule(["I'm"], ["Alice"]).matches("hi! I’m Alice")  # a curly apostrophe
    assert rule(["6:30"]).matches("I walk the dog at 6:30")
    assert not rule(["teach*"]).matches("the reteaching plan")


# ---- judging memories ----------------------------------------------------------------------------------------


def test_memories_are_judged_against_the_users_facts() -> None:
    assert judge(memory("I moved to Lisbon in March."), FACTS).gold == ("alice/lives_lisbon",)
    assert judge(memory("still unpacking boxes lol"), FACTS).acceptable == ("alice/unpacking",)
    compound = judge(memory("I'm Alice and I live in Paris"), FACTS)
    assert set(compound.gold) == {"alice/name", "alice/lives_paris"}
    assert not compound.junk


@pytest.mark.parametrize(
    ("stored", "reason"),
    [
        (memory("Nice to meet you, Alice! I hear you moved to Lisbon.", "assistant"), "assistant's words"),
        (memory("Where do you live?"), "a question"),
        (memory("She's a nurse."), "lost its subject"),
        (memory("Mostly in the Alps."), "matches no fact"),
        (memory("haha yes, always black"), "matches no fact"),
    ],
)
def test_junk_and_why(stored: Stored, reason: str) -> None:
    verdict = judge(stored, FACTS, (SOFIA,))
    assert verdict.junk
    assert verdict.reason == reason


def test_a_memory_from_the_user_and_the_assistant_is_the_users() -> None:
    """An assistant turn may give context: "Where do you live?" + "Lisbon, I moved in March." is the user's."""
    assert judge(memory("Moved to Lisbon in March", "assistant", "user"), FACTS).gold == ("alice/lives_lisbon",)


def test_duplicates_are_gold_facts_stated_by_more_than_one_active_memory() -> None:
    verdicts = [
        judge(memory(text), FACTS)
        for text in ("I moved to Lisbon.", "Lives in Lisbon", "I'm Alice", "Lisbon is beautiful.")
    ]
    verdicts.append(judge(memory("I live in Lisbon", state="merged"), FACTS))
    assert duplicates(verdicts) == {"alice/lives_lisbon": ["I moved to Lisbon.", "Lives in Lisbon"]}


# ---- gold facts stored ---------------------------------------------------------------------------------------


def test_a_gold_fact_is_stored_when_an_active_memory_of_the_user_states_it() -> None:
    memories = [
        memory("I moved to Lisbon in March."),
        memory("Nice to meet you, Alice! I'm glad.", "assistant"),  # the assistant's words count for nothing
        memory("I live in Paris", state="merged"),  # not active
    ]
    checks = {c.fact.key: c for c in check_gold(FACTS, memories)}
    assert set(checks) == {"lives_lisbon", "lives_paris", "name", "sofia_nurse"}  # gold only
    assert checks["lives_lisbon"].stored
    assert not checks["name"].stored
    assert not checks["lives_paris"].stored
    figures = gold_figures(list(checks.values()))
    assert figures["all"] == {"facts": 4, "stored": 1, "share": 0.25}
    assert figures["about_a_third_person"] == {"facts": 1, "stored": 0, "share": 0.0}
    assert figures["self_introductions"]["facts"] == 1


def test_a_relative_date_counts_as_resolved_when_the_memory_names_the_date() -> None:
    dated = fact("marathon", rule(["marathon"]), date=DateLabel("yesterday", "2026-02-15"))
    assert GoldCheck(dated, ("Ran a marathon on 15 February 2026",)).date_resolved
    assert not GoldCheck(dated, ("I ran my first marathon yesterday!",)).date_resolved
    assert GoldCheck(dated, ()).date_resolved is None  # not stored


@pytest.mark.parametrize(
    ("text", "resolved", "expected"),
    [
        ("Ran a marathon on 15 February 2026", "2026-02-15", True),
        ("Ran a marathon on February 15th, 2026", "2026-02-15", True),
        ("Ran a marathon on 2026-02-15", "2026-02-15", True),
        ("Ran a marathon in February 2026", "2026-02-15", False),
        ("Ran a marathon on 5 February 2026", "2026-02-15", False),
        ("Got engaged on 6 June 2026", "2026-06", True),
        ("Got engaged on June 6, 2026", "2026-06", True),
        ("Got engaged in Jun 2026", "2026-06", True),
        ("Got engaged last weekend", "2026-06", False),
        ("Plans a wedding in summer 2027", "2027", True),
    ],
)
def test_date_resolved(text: str, resolved: str, expected: bool) -> None:
    assert date_resolved(text, resolved) is expected


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("I ran my first marathon yesterday!!!", ["yesterday"]),
        ("my mum had a fall last Tuesday", ["last tuesday"]),
        ("we adopted a dog two weeks ago", ["two weeks ago"]),
        ("finals start in two weeks", ["in two weeks"]),
        ("moving out at the end of the month", ["at the end of the month"]),
        ("Swims on Tuesdays and Fridays", []),  # recurring, not relative
        ("Moved to Lisbon in March 2026", []),
    ],
)
def test_relative_dates(text: str, found: list[str]) -> None:
    assert relative_dates(text) == found


def test_a_pronoun_is_resolved_when_the_memory_names_someone_it_may_stand_for() -> None:
    klara = Person("Klara", "daughter", (), ("she", "her", "hers"))
    hana = Person("Hana", "manager", (), ("she", "her", "hers"))
    assert lost_subject("she seems sharp", (hana, klara)) == "she"
    assert lost_subject("Klara started daycare, she cried more than me", (hana, klara)) is None
    assert lost_subject("My sister is visiting, she's coming from Berlin", (SOFIA,)) is None
    assert lost_subject("I walk the dog at 6:30", (SOFIA,)) is None


# ---- probes --------------------------------------------------------------------------------------------------


def hits(*texts: str) -> list[Hit]:
    return [Hit(text, text, "active", 1.0 - i / 10) for i, text in enumerate(texts)]


def probe(found: list[Hit], assistant_only: dict[str, bool] | None = None, person: str = "third") -> ProbeOutcome:
    return rank_probe("alice/home", person, "Where does Alice live?", found, (LISBON, [PARIS]), assistant_only or {})


def test_the_current_fact_first() -> None:
    outcome = probe(hits("I moved from Paris to Lisbon", "I live in Paris"))
    assert outcome.top1 and not outcome.outdated_above
    assert (outcome.current_rank, outcome.outdated_rank) == (1, 2)


def test_the_outdated_fact_above_the_current_one() -> None:
    outcome = probe(hits("Nice to meet you, Alice!", "I live in Paris", "I moved to Lisbon"))
    assert not outcome.top1
    assert outcome.outdated_above
    assert outcome.first == "Nice to meet you, Alice!"
    assert outcome.first_kind == "other"


def test_the_outdated_fact_found_and_the_current_one_missing() -> None:
    outcome = probe(hits("I live in Paris"))
    assert outcome.outdated_above and outcome.current_rank is None


def test_neither_found_is_no_top1_and_not_outdated_above() -> None:
    outcome = probe(hits("the light here is unreal"))
    assert not outcome.top1 and not outcome.outdated_above


def test_the_assistants_words_never_count_as_the_current_fact() -> None:
    found = hits("So you live in Lisbon now!", "I moved to Lisbon")
    outcome = probe(found, {"So you live in Lisbon now!": True})
    assert outcome.current_rank == 2


def test_probe_figures_split_third_and_first_person() -> None:
    outcomes = [
        rank_probe("a/home", "third", "q", hits("I live in Lisbon"), (LISBON, [PARIS]), {}),
        rank_probe("a/home", "first", "q", hits("I live in Paris", "I live in Lisbon"), (LISBON, [PARIS]), {}),
    ]
    figures = probe_figures(outcomes)
    assert figures["third"]["current_top1_share"] == 1.0
    assert figures["first"]["current_top1_share"] == 0.0
    assert figures["first"]["outdated_above_current_share"] == 1.0
    assert figures["all"]["current_top1"] == 1
    assert figures["all"]["outdated_above_current_share"] == 0.5


def test_a_conversation_keeps_its_people() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    conversation = Conversation("c", "alice", at, (Message("user", "hi"),), (), (), (SOFIA,))
    assert conversation.people[0].words == ("Sofia", "sister")
