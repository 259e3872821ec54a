"""The shared-run benchmark: which builds of the embedding model give a text the same vector in a batch as alone."""

from __future__ import annotations

from typing import Any

import pytest
from bench import model_batching, report


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return model_batching.run(count=24, calibration=12)


def test_the_default_int8_model_gives_a_batched_text_another_vector(figures: dict[str, Any]) -> None:
    """Its activations are quantised with one scale per run: why one text per run is what the server does."""
    for kind in ("question", "add_text"):
        measured = figures["builds"]["int8"][kind]
        assert measured["batch_of_8_vs_alone_least_cosine"] < 0.9999
        assert measured["cosine_to_fp32"]["mean"] > 0.98


def test_the_float_and_the_statically_quantised_models_give_the_same_vector_in_any_batch(
    figures: dict[str, Any],
) -> None:
    for build in ("fp32", "int8-static"):
        for kind in ("question", "add_text"):
            measured = figures["builds"][build][kind]
            assert measured["batch_of_8_vs_alone_least_cosine"] > 0.99999
            assert set(measured["cpu_ms_per_text_by_batch"]) == {str(size) for size in model_batching.SIZES}
    assert figures["builds"]["fp32"]["question"]["cosine_to_fp32"]["least"] > 0.99999
    static = figures["builds"]["int8-static"]["question"]["cosine_to_fp32"]["mean"]
    assert 0.95 < static < 0.9999  # quantised: close to the float model, not the float model
    assert figures["calibration_texts"] == 24


def test_the_report_renders_a_row_per_build_and_kind(figures: dict[str, Any]) -> None:
    machine = {"date": "2026-11-28T13:00:00+00:00", "commit": "abc1234"}
    rows = report.model_batching_rows({"machine": machine, "figures": figures})
    assert "batch of 1, 2, 4, 8, 16" in rows[0]
    assert sum(row.startswith("| int8-static, add text: ") for row in rows) == 1
    assert len([row for row in rows if row.startswith("| ")]) == 1 + 3 * 2  # the header, a row per build and kind
    assert rows[-1].startswith("24 texts of each kind")
