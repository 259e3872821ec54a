"""BatchedEmbedder (mnemo.adapters.embedders.batched): the texts go to the API in batches of `batch_size`, and what
comes back is checked (count, width) and made unit length, whatever the API."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.batched import BatchedEmbedder
from mnemo.errors import ProviderError


class Scripted(BatchedEmbedder):
    """Answers each batch with `width` values per text (the text's length first), or with the rows it is given."""

    def __init__(self, *, batch_size: int = 2, dims: int | None = None, known: int | None = None, width: int = 3):
        super().__init__(batch_size=batch_size, embedding_dims=dims, known_dimension=known)
        self.width = width
        self.batches: list[list[str]] = []
        self.answer: list[Any] | None = None

    def _embed_batch(self, chunk: list[str]) -> list[Any]:
        self.batches.append(chunk)
        if self.answer is not None:
            return self.answer
        return [[float(len(text))] + [1.0] * (self.width - 1) for text in chunk]


def test_given_five_texts_and_batches_of_two_then_three_calls_and_unit_rows_in_order() -> None:
    embedder = Scripted(batch_size=2)

    rows = embedder.embed(["a", "bb", "ccc", "dddd", "eeeee"])

    assert embedder.batches == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert rows.shape == (5, 3) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    assert list(np.argsort(rows[:, 0])) == [0, 1, 2, 3, 4]  # the longer the text, the larger its first value
    assert embedder.dimension == 3


def test_given_no_texts_then_an_empty_matrix_as_wide_as_known() -> None:
    assert Scripted(known=768).embed([]).shape == (0, 768)
    assert Scripted().embed([]).shape == (0, 0)


def test_given_no_known_width_then_the_dimension_is_found_by_embedding_one_text() -> None:
    embedder = Scripted(width=5)

    assert embedder.dimension == 5
    assert embedder.batches == [["dimension probe"]]


@pytest.mark.parametrize(
    ("answer", "dims", "message"),
    [
        ([[1.0, 0.0]], None, "wrong number"),
        ([1.0, 0.0], None, "wrong size (expected equal-length rows)"),  # numbers, not rows
        ([[1.0, 0.0], [1.0]], None, "malformed"),
        ([[1.0, 0.0], [0.0, 1.0]], 3, "wrong size (expected 3)"),
        ([[1.0, "x"], [0.0, 1.0]], None, "malformed"),
    ],
)
def test_given_rows_that_do_not_fit_then_a_bad_response(answer: list[Any], dims: int | None, message: str) -> None:
    embedder = Scripted(dims=dims)
    embedder.answer = answer

    with pytest.raises(ProviderError, match="Provider returned") as raised:
        embedder.embed(["a", "b"])

    assert message in str(raised.value)
    assert raised.value.code == "provider_bad_response"
