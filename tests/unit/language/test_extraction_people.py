"""The people a conversation names, and the pronouns that stand for them."""

from __future__ import annotations

from mnemo.language.en.extraction.people import People, with_owner


def people(*sentences: str) -> People:
    known = People()
    for sentence in sentences:
        known.observe(sentence)
    return known


def test_a_pronoun_stands_for_the_last_person_named_that_it_fits() -> None:
    known = people("My sister Emma lives in Berlin.", "My brother Tom is a chef.")
    assert known.resolve("She's a nurse.") == "My sister Emma is a nurse."
    assert known.resolve("He works nights.") == "My brother Tom works nights."
    assert known.resolve("Her husband is Dutch.") == "My sister Emma's husband is Dutch."


def test_a_relation_without_a_name_and_a_name_given_later() -> None:
    known = people("My boss is strict.")
    assert known.resolve("She never smiles.") == "My boss never smiles."
    known.observe("My boss is called Dana.")
    assert known.resolve("He is leaving.") == "My boss Dana is leaving."


def test_the_assistants_your_is_the_users_my() -> None:
    assert people("How is your mother Ana?").resolve("She's better.") == "My mother Ana is better."


def test_they_stands_for_people_only() -> None:
    known = people("My parents live in Porto.")
    assert known.resolve("They're retired.") == "My parents are retired."
    assert people("My sister lives in Porto.").resolve("They're retired.") is None


def test_a_pronoun_nobody_named_fits_is_not_resolved() -> None:
    assert People().resolve("She lives in Berlin.") is None
    assert people("My brother Tom is a chef.").resolve("She lives in Berlin.") is None


def test_a_sentence_opening_otherwise_is_left_as_it_is() -> None:
    known = people("My sister Emma lives in Berlin.")
    assert known.resolve("I visited her.") == "I visited her."
    assert known.resolve("Shelly is my friend.") == "Shelly is my friend."  # not "she"


def test_a_name_of_the_conversation_is_known() -> None:
    known = people("Emma, my sister, lives in Berlin.")
    assert known.names_someone("Emma got the job.")
    assert not known.names_someone("Paris is lovely.")


def test_a_common_word_before_a_relation_is_no_name() -> None:
    known = people("Sure! What's your manager's name and what's the reason?")
    assert known.resolve("He's pretty chill.") == "My manager is pretty chill."


def test_a_pet_is_named_with_a_or_by_what_it_is_called() -> None:
    known = people("we fostered a kitten in the winter and adopted her.")
    assert known.resolve("Her name is Tosta") == "My kitten's name is Tosta"
    known = people("we adopted a dog two weeks ago, a rescue called Pita")
    assert known.introduce("Pita is scared of the vacuum") == "My dog Pita is scared of the vacuum"


def test_a_new_name_doing_what_people_do_is_the_latest_relation_named_without_one() -> None:
    known = people("Need a birthday gift for my daughter, she's turning 7.")
    known.name_the_unnamed("Lily is obsessed with horses and drawing")
    assert (
        known.introduce("Lily is obsessed with horses and drawing")
        == "My daughter Lily is obsessed with horses and drawing"
    )
    known = people("my girlfriend wants a cat and I'm not a cat person.")
    known.name_the_unnamed("Inês will love that")  # the girlfriend, not the cat
    assert known.introduce("Inês will love that") == "My girlfriend Inês will love that"
    known = people("my girlfriend wants a cat.")
    known.name_the_unnamed("Lisbon is lovely")  # a place: "is" alone says nothing of a person
    assert known.introduce("Lisbon is lovely") == "Lisbon is lovely"


def test_a_parent_named_without_my_is_the_users() -> None:
    assert with_owner("mum's wrist is all healed btw") == "My mum's wrist is all healed btw"
    assert with_owner("dad called") == "My dad called"
    assert with_owner("momentum is key") == "momentum is key"


def test_a_name_typed_in_lower_case_after_a_relation() -> None:
    assert people("my sister marta is getting married").resolve("she's nervous") == "My sister marta is nervous"
    assert people("my brother jonas lives in berlin").resolve("he's a sound engineer") == (
        "My brother jonas is a sound engineer"
    )
    assert people("my brother lives in berlin").resolve("he's a sound engineer") == "My brother is a sound engineer"
    assert people("my son loves horses").resolve("he's 7") == "My son is 7"
    assert people("My parents live in Porto.").resolve("They're retired.") == "My parents are retired."


def test_a_pronoun_typed_without_its_apostrophe() -> None:
    assert people("my boyfriend rui wants to go").resolve("hes a chef") == "My boyfriend rui is a chef"


def test_a_name_in_lower_case_doing_what_people_do_names_the_relation() -> None:
    known = people("gift ideas for my gf?? her birthday is on saturday")
    known.name_the_unnamed("leila's really into pottery atm")
    assert known.introduce("leila's really into pottery atm") == "My gf leila's really into pottery atm"
    known = people("my gf is great")
    known.name_the_unnamed("she's really into pottery")  # a pronoun, no name
    known.name_the_unnamed("lisbon is lovely")  # "is" alone says nothing of a person
    assert known.resolve("She's a nurse") == "My gf is a nurse"
