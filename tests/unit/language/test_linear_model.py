"""The learned models a language pack ships (mnemo.language.linear_model): read from their JSON file, refused with
their name when malformed, applied only to the embedder they were trained on; and the English pack's durable-fact
model, with the real default embedder, telling facts from chat it was not trained on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.language.en import english
from mnemo.language.linear_model import LinearModel, LinearModelError, linear_model_file, read_linear_model


def test_a_model_file_round_trips_and_scores_rows() -> None:
    model = LinearModel("m", "local/x", np.array([2.0, -2.0]), 0.0, 0.5)
    read = read_linear_model("m", linear_model_file(model, trained_on="a test"))

    assert read.reads("local/x", 2) and not read.reads("local/y", 2) and not read.reads("local/x", 3)
    probabilities = read.probabilities(np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    assert probabilities[0] > 0.5 > probabilities[1]
    assert read.passes(np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)).tolist() == [True, False]
    assert json.loads(linear_model_file(model, trained_on="a test"))["about"] == {"trained_on": "a test"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "not a linear model file"),
        ('{"embedder": "e", "bias": 0, "threshold": 0.5}', "not a linear model file"),
        ('{"embedder": "e", "weights": [], "bias": 0, "threshold": 0.5}', "non-empty list of finite numbers"),
        ('{"embedder": "e", "weights": [1, "NaN"], "bias": 0, "threshold": 0.5}', "finite numbers"),
        ('{"embedder": "e", "weights": [1], "bias": 0, "threshold": 1.5}', "between 0 and 1"),
    ],
)
def test_a_malformed_model_file_is_refused_with_its_name(text: str, problem: str) -> None:
    with pytest.raises(LinearModelError, match=problem) as refused:
        read_linear_model("pack data/model.json", text)
    assert "pack data/model.json" in str(refused.value)


FACTS = [
    "My daughter Ines started at a new school in Braga.",
    "Has been gluten-free since the diagnosis.",
    "I drive a red 2015 Golf.",
    "Works weekends at the climbing gym.",
]
CHAT = ["lol fair enough", "thanks so much, that was really helpful!", "could you make it a bit shorter?"]


def test_the_english_durable_fact_model_reads_the_default_embedder(embedder: LocalMiniLMEmbedder) -> None:
    model = english().durable_fact
    assert model is not None and model.reads(embedder.name, embedder.dimension)

    kept = model.passes(embedder.embed(FACTS + CHAT)).tolist()
    assert kept == [True] * len(FACTS) + [False] * len(CHAT)
