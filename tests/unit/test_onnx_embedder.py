"""The ONNX Runtime all-MiniLM-L6-v2: sentence-transformers vectors, a cached model file, NumPy still there."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.embedders import minilm_onnx
from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder
from mnemo.errors import ConfigurationError

REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "minilm_reference.json"
PARAPHRASE = ["My sister lives in Lisbon.", "My sibling's home is in Lisbon, Portugal.", "The stock market fell today."]


def reference() -> tuple[list[str], np.ndarray]:
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data["texts"], np.asarray(data["vectors"], dtype=np.float64)


def cosines(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    got = got.astype(np.float64)
    out: np.ndarray = np.sum(got * expected, axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(expected, axis=1))
    return out


def one_by_one(embedder: LocalMiniLMEmbedder, texts: list[str]) -> np.ndarray:
    return np.concatenate([embedder.embed([text]) for text in texts])


def model_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.onnx"))


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="module")
def fp32(cache_dir: Path) -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(cache_dir)))


@pytest.fixture(scope="module")
def int8(cache_dir: Path, fp32: LocalMiniLMEmbedder) -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=True, model_cache_dir=str(cache_dir)))


def test_given_the_reference_texts_when_embedded_by_onnx_fp32_then_the_sentence_transformers_vectors_are_reproduced(
    fp32: LocalMiniLMEmbedder,
):
    texts, expected = reference()

    got = one_by_one(fp32, texts)

    assert fp32.backend == "onnx"
    assert got.dtype == np.float32
    assert got.shape == expected.shape
    assert float(cosines(got, expected).min()) > 0.9999
    assert float(np.max(np.abs(got - expected))) < 1e-3


def test_given_a_padded_batch_when_embedded_by_onnx_then_each_row_equals_embedding_that_text_alone(
    fp32: LocalMiniLMEmbedder,
):
    texts, expected = reference()
    texts = [*texts, *PARAPHRASE, "x", "A much longer sentence that goes on about many different things, " * 3]
    texts += [f"Sentence {i} is about the weather" + " and more" * (i % 7) for i in range(70)]  # more than one batch

    batch = fp32.embed(texts)

    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    for i in (0, 2, 4, 5, 8, 9, 20, 50, len(texts) - 1):
        np.testing.assert_allclose(batch[i], fp32.embed([texts[i]])[0], atol=1e-5)
    assert float(cosines(batch[: len(expected)], expected).min()) > 0.9999


def test_given_int8_when_embedded_then_close_to_the_reference_and_a_paraphrase_still_ranks_first(
    int8: LocalMiniLMEmbedder, fp32: LocalMiniLMEmbedder
):
    texts, expected = reference()

    got = one_by_one(int8, texts)
    anchor, paraphrase, unrelated = int8.embed(PARAPHRASE)

    assert float(cosines(got, expected).min()) >= 0.985
    assert float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.3
    # int8 is a different model file, not the fp32 one under another name.
    assert not np.array_equal(got, one_by_one(fp32, texts))


def test_given_int8_when_a_batch_is_embedded_then_each_row_equals_embedding_that_text_alone(
    int8: LocalMiniLMEmbedder,
):
    # Activations are quantised with one scale per run; the embedder runs int8 one text per run so that a vector
    # never depends on its batch-mates.
    texts, _ = reference()
    texts = [*texts, *PARAPHRASE, "x"]

    batch = int8.embed(texts)

    np.testing.assert_allclose(batch, one_by_one(int8, texts), atol=1e-6)


def test_given_a_built_model_when_the_embedder_is_built_again_then_the_cached_file_is_reused(
    cache_dir: Path, fp32: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
):
    files = model_files(cache_dir)
    assert [f.name for f in files if f.name.endswith("-fp32.onnx")] == [fp32._onnx.path.name]
    before = {f: f.stat().st_mtime_ns for f in files}

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached model should have been loaded, not built")

    monkeypatch.setattr(minilm_onnx, "build_model", no_build)
    again = LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(cache_dir)))

    assert {f: f.stat().st_mtime_ns for f in model_files(cache_dir)} == before
    np.testing.assert_array_equal(again.embed(PARAPHRASE), fp32.embed(PARAPHRASE))


def test_given_the_cache_file_name_then_it_names_the_model_the_weights_hash_and_the_variant(fp32: LocalMiniLMEmbedder):
    name = fp32._onnx.path.name

    assert name.startswith("all-MiniLM-L6-v2-")
    assert name.endswith(f"-g{minilm_onnx.GRAPH_VERSION}-fp32.onnx")
    digest = name.split("-")[-3]
    assert len(digest) == 16
    assert int(digest, 16) >= 0


@pytest.mark.parametrize("content", [b"", b"not an onnx model at all", b"\x08\x07\x12\x05mnemo"])
def test_given_a_corrupt_cache_file_when_the_embedder_is_built_then_it_is_rebuilt_not_a_crash(
    tmp_path: Path, fp32: LocalMiniLMEmbedder, content: bytes
):
    cached = tmp_path / fp32._onnx.path.name
    cached.write_bytes(content)
    # What builds killed half-way leave behind: swept once old, left alone while another build may still be writing.
    stale, fresh = tmp_path / f".{cached.name}.old.tmp", tmp_path / f".{cached.name}.new.tmp"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))

    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(tmp_path)))

    assert cached.stat().st_size > 1_000_000
    np.testing.assert_allclose(embedder.embed(PARAPHRASE), fp32.embed(PARAPHRASE), atol=1e-6)
    assert sorted(tmp_path.glob(".*.tmp")) == [fresh]  # and the build left no temporary file of its own


def test_given_a_cache_file_built_from_other_weights_when_the_embedder_is_built_then_it_is_rebuilt(
    tmp_path: Path, fp32: LocalMiniLMEmbedder
):
    import onnx

    cached = tmp_path / fp32._onnx.path.name
    model = onnx.load_model(str(fp32._onnx.path))
    minilm_onnx._stamp(model, "0" * 64, "fp32")
    onnx.save_model(model, str(cached))

    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(tmp_path)))

    rebuilt = {p.key: p.value for p in onnx.load_model(str(cached)).metadata_props}
    assert rebuilt["mnemo.weights_sha256"].startswith(cached.name.split("-")[-3])
    assert embedder._onnx.session.get_modelmeta().custom_metadata_map == rebuilt


def test_given_an_unwritable_cache_dir_when_built_then_the_model_is_built_in_a_scratch_dir(
    tmp_path: Path, fp32: LocalMiniLMEmbedder
):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache dir cannot be created under a file", encoding="utf-8")

    embedder = LocalMiniLMEmbedder(
        LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(blocker / "models"))
    )

    np.testing.assert_allclose(embedder.embed(PARAPHRASE), fp32.embed(PARAPHRASE), atol=1e-6)


def test_given_threads_embedding_at_once_then_each_gets_what_it_would_get_alone(fp32: LocalMiniLMEmbedder):
    texts = [f"Memory number {i}: the user likes {topic}." for i, topic in enumerate(["tea", "jazz", "Lisbon"] * 10)]
    expected = fp32.embed(texts)
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        results[k] = fp32.embed(texts[k:] + texts[:k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    for k, got in results.items():
        np.testing.assert_allclose(got, np.roll(expected, -k, axis=0), atol=1e-5)


def test_given_backend_numpy_then_the_numpy_path_runs_and_agrees_with_onnx(fp32: LocalMiniLMEmbedder):
    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig(backend="numpy"))
    texts, expected = reference()

    got = one_by_one(embedder, texts)

    assert embedder.backend == "numpy"
    assert not hasattr(embedder, "_onnx")
    assert float(cosines(got, expected).min()) > 0.99999
    np.testing.assert_allclose(embedder.embed(PARAPHRASE), fp32.embed(PARAPHRASE), atol=1e-5)


def test_given_backend_auto_then_onnx_when_onnxruntime_is_installed(cache_dir: Path):
    embedder = LocalMiniLMEmbedder(LocalEmbedderConfig(model_cache_dir=str(cache_dir)))

    assert embedder.backend == "onnx"
    assert embedder.name == "local/all-MiniLM-L6-v2"
    assert embedder._onnx.path.name.endswith("-int8.onnx")  # the default: int8, one text per run


def test_given_no_onnxruntime_then_auto_falls_back_to_numpy_and_onnx_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, cache_dir: Path
):
    monkeypatch.setitem(sys.modules, "mnemo.adapters.embedders.minilm_onnx", None)  # makes the import fail

    auto = LocalMiniLMEmbedder(LocalEmbedderConfig(model_cache_dir=str(cache_dir)))
    with pytest.raises(ConfigurationError, match="onnxruntime"):
        LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(cache_dir)))

    assert auto.backend == "numpy"


def test_given_onnx_fails_to_start_then_auto_falls_back_to_numpy_and_onnx_says_why(
    monkeypatch: pytest.MonkeyPatch, cache_dir: Path
):
    def broken(*args: object, **kwargs: object) -> None:
        raise ConfigurationError("Could not load the ONNX model built at /somewhere.")

    monkeypatch.setattr(minilm_onnx, "OnnxMiniLM", broken)

    auto = LocalMiniLMEmbedder(LocalEmbedderConfig(model_cache_dir=str(cache_dir)))
    with pytest.raises(ConfigurationError, match="Could not load"):
        LocalMiniLMEmbedder(LocalEmbedderConfig(backend="onnx", quantize=False, model_cache_dir=str(cache_dir)))

    assert auto.backend == "numpy"


def test_given_the_onnx_backend_then_torch_is_never_imported(fp32: LocalMiniLMEmbedder):
    fp32.embed(["no torch here"])

    assert not [name for name in sys.modules if name == "torch" or name.startswith("torch.")]


def test_given_no_cache_dir_configured_then_the_environment_decides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("MNEMO_MODEL_CACHE_DIR", str(tmp_path / "explicit"))
    assert minilm_onnx.default_cache_dir() == tmp_path / "explicit"

    monkeypatch.delenv("MNEMO_MODEL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert minilm_onnx.default_cache_dir() == tmp_path / "xdg" / "mnemo" / "models"
