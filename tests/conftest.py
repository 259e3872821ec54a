"""Shared fixtures: the real embedding model (loaded once), a container on a temporary data dir, an API client."""

from __future__ import annotations

import os

# One BLAS thread: on two cores, NumPy's own worker threads only fight the request threads for the same cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The ONNX model the local embedder builds on first use goes to a directory of the test run, not the user's cache:
# made by the process that starts the run (the workers and the servers the tests start inherit it), and removed
# when that process ends (some 140 MB a run).
if "MNEMO_MODEL_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["MNEMO_MODEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="mnemo-test-models-")
    atexit.register(shutil.rmtree, os.environ["MNEMO_MODEL_CACHE_DIR"], ignore_errors=True)

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.registry import ProviderRegistry
from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.ports.embedder import Embedder
from mnemo.settings import Settings
from tests.support import moto_aws
from tests.support.http_clients import share_the_default_tls_context

pytest_plugins = ["tests.support.file_times"]

moto_aws.order_items_by_value()
moto_aws.one_table_copy_per_transaction()
moto_aws.look_up_actions_once()
share_the_default_tls_context()


def pytest_configure(config: pytest.Config) -> None:
    """With xdist workers to come, the process that starts them builds the ONNX model files into the run's cache
    (above) first: each worker (and each server a test starts) then loads them, where each built its own (some 6 s
    of quantizing a worker). In a run without workers the first test to need the model builds it, as before."""
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        LocalMiniLMEmbedder()


@pytest.fixture(scope="session")
def embedder() -> LocalMiniLMEmbedder:
    """all-MiniLM-L6-v2, the real default model, loaded once per test session."""
    return LocalMiniLMEmbedder()


class CachedModelRegistry(ProviderRegistry):
    """The real registry, except that `local` reuses the session's loaded model instead of loading it again."""

    def __init__(self, local: Embedder) -> None:
        self._local = local

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        if provider == "local" and not config:
            return self._local
        return super().build_embedder(provider, config)


@pytest.fixture
def registry(embedder: LocalMiniLMEmbedder) -> CachedModelRegistry:
    return CachedModelRegistry(embedder)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def container(data_dir: Path, registry: CachedModelRegistry) -> Iterator[Container]:
    """A container for tests that are not about authentication: auth disabled (the default is on; the tests
    of authentication build their own, in tests/e2e/auth)."""
    built = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    yield built
    built.close()


@pytest.fixture
def client(container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container)) as test_client:
        yield test_client
