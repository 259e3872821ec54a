"""The NumPy all-MiniLM-L6-v2: same vectors as sentence-transformers, unit length, order-preserving.

These tests pin backend="numpy"; the ONNX Runtime backend (the default when installed) is in test_onnx_embedder.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder
from mnemo.errors import ConfigurationError

REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    """The NumPy backend explicitly (overrides the session-wide default embedder, which may run on ONNX Runtime)."""
    numpy_embedder = LocalMiniLMEmbedder(LocalEmbedderConfig(backend="numpy"))
    assert numpy_embedder.backend == "numpy"
    return numpy_embedder


def reference() -> tuple[list[str], np.ndarray]:
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data["texts"], np.asarray(data["vectors"], dtype=np.float64)


def test_given_the_reference_texts_when_embedded_then_the_sentence_transformers_vectors_are_reproduced(
    embedder: LocalMiniLMEmbedder,
):
    texts, expected = reference()
    assert len(texts) == len(expected) > 0

    # One at a time: the long text would otherwise pad the whole batch (batching is covered below).
    got = np.concatenate([embedder.embed([text]) for text in texts]).astype(np.float64)

    assert got.shape == expected.shape
    for text, row, ref in zip(texts, got, expected, strict=True):
        cosine = float(row @ ref / (np.linalg.norm(row) * np.linalg.norm(ref)))
        assert cosine > 0.99999, text[:40]
        assert float(np.max(np.abs(row - ref))) < 1e-4, text[:40]


def test_given_texts_when_embedded_then_rows_are_unit_length_float32_of_dimension_384(embedder: LocalMiniLMEmbedder):
    texts = ["I love vegetable pizza.", "x", "Ünïcödé and emoji 🎉", "  leading and trailing spaces  "]

    vectors = embedder.embed(texts)

    assert vectors.dtype == np.float32
    assert vectors.shape == (4, 384)
    assert embedder.dimension == 384
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.all(np.isfinite(vectors))


def test_given_no_texts_when_embedded_then_an_empty_matrix_of_the_right_width(embedder: LocalMiniLMEmbedder):
    vectors = embedder.embed([])

    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_given_a_batch_when_embedded_then_each_row_equals_embedding_that_text_alone(embedder: LocalMiniLMEmbedder):
    # Lengths vary (the batch is sorted by length internally) and there are more texts than one inner batch.
    topics = ["pizza", "Lisbon", "the weather", "my sister's new job as a nurse", "jazz", "quantum physics"]
    texts = [f"Sentence {i} is about {topics[i % len(topics)]}" + " and more" * (i % 5) for i in range(67)]
    texts[5] = "Short."
    texts[40] = "A much longer sentence that goes on and on about many different things, " * 2

    batch = embedder.embed(texts)

    for i in (0, 5, 13, 40, 64, 66):
        alone = embedder.embed([texts[i]])[0]
        np.testing.assert_allclose(batch[i], alone, atol=1e-5)
    # Rows are not interchangeable: each is closest to its own text's vector.
    assert float(batch[5] @ embedder.embed(["Short."])[0]) > 0.9999
    assert float(batch[40] @ batch[5]) < 0.9


def test_given_the_same_text_twice_when_embedded_then_identical_vectors(embedder: LocalMiniLMEmbedder):
    first = embedder.embed(["My dog is called Rex."])
    second = embedder.embed(["My dog is called Rex."])

    np.testing.assert_array_equal(first, second)


def test_given_a_paraphrase_and_an_unrelated_sentence_then_the_paraphrase_is_closer(embedder: LocalMiniLMEmbedder):
    anchor, paraphrase, unrelated = embedder.embed(
        ["My sister lives in Lisbon.", "My sibling's home is in Lisbon, Portugal.", "The stock market fell today."]
    )

    assert float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.3


def test_given_a_long_text_when_embedded_then_it_is_truncated_not_rejected(embedder: LocalMiniLMEmbedder):
    long_text = "pizza " * 1000

    vectors = embedder.embed([long_text, "pizza " * 400])

    assert vectors.shape == (2, 384)
    # Both are cut to max_seq_length tokens of the same word, so they embed alike.
    assert float(vectors[0] @ vectors[1]) > 0.9999


def test_given_a_model_dir_that_does_not_exist_when_built_then_configuration_error(tmp_path: Path):
    missing = tmp_path / "no-such-model"

    with pytest.raises(ConfigurationError) as caught:
        LocalMiniLMEmbedder(LocalEmbedderConfig(model_dir=str(missing)))

    assert str(missing) in caught.value.message


def test_given_a_model_dir_without_weights_when_built_then_configuration_error(tmp_path: Path):
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")

    with pytest.raises(ConfigurationError, match=r"model\.safetensors"):
        LocalMiniLMEmbedder(LocalEmbedderConfig(model_dir=str(tmp_path)))


def test_given_the_default_config_when_built_then_the_name_says_local_minilm(embedder: LocalMiniLMEmbedder):
    assert embedder.name == "local/all-MiniLM-L6-v2"
