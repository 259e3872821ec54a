"""What the paraphrase guards read in one memory (mnemo.language.en.paraphrase_reading)."""

from __future__ import annotations

from mnemo.language.en.paraphrase_reading import read


def test_numbers_in_digits_words_and_ordinals_read_alike() -> None:
    assert read("Has 2 kids, the third is due").numbers == frozenset({"2", "3"})
    assert read("Has two kids").numbers == frozenset({"2"})


def test_a_change_is_read_but_being_born() -> None:
    assert read("I used to live in Porto and was happy").changes == frozenset({"used", "was"})
    assert read("I was born in Porto").changes == frozenset()
    assert read("No longer smokes").changes == frozenset({"longer"})


def test_the_content_words_are_stemmed_in_order_without_filler_numbers_or_negations() -> None:
    assert read("User really likes running 5 km daily").order == ("lik", "run", "kilometer", "day")  # a crude stem
    assert read("Dislikes coffee").order == ("lik", "coffe")  # the negation guard reads "dis"


def test_names_relations_possessors_and_comparisons() -> None:
    reading = read("My sister's boss is Rui and she prefers tea to coffee")
    assert reading.names == frozenset({"rui"})
    assert reading.relations == frozenset({"sister", "boss"})
    assert reading.possessors == frozenset({"sister"})
    assert reading.compares and not reading.negated


def test_a_negating_prefix_is_read_off_a_long_enough_word() -> None:
    assert "vaccinated" in read("Is unvaccinated").unprefixed
    assert read("Is unfit").unprefixed == frozenset()  # "fit": too short to be read off
