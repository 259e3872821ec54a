"""The configuration service keeps the provider keys sealed (mnemo.services.configuration with the Fernet box): the
stored row holds no key, the providers get it whole, GET /configure's view redacts it, a key stored in clear by an
older version is still used and sealed at the next write, and a stored key the box cannot open stops the start."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from cryptography.fernet import Fernet

from mnemo.adapters.crypto.fernet_box import FernetSecretBox
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.errors import ConfigurationError
from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import LLM
from mnemo.services.config_secrets import REDACTED
from mnemo.services.configuration import SETTINGS_KEY, ConfigurationService, ConfiguredProviders

KEY = "sk-at-rest-0123456789abcdef"
DEFAULTS: dict[str, Any] = {
    "version": "v1.1",
    "embedder": {"provider": "local", "config": {}},
    "llm": None,
    "custom_instructions": None,
}


class RecordingCatalog:
    """Builds stand-in providers and records the configs it was given."""

    def __init__(self) -> None:
        self.llm_configs: list[dict[str, Any]] = []

    def bundled(self) -> dict[str, list[str]]:
        return {"llm": ["openai"], "embedder": ["local"]}

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        return cast(Embedder, object())

    def build_llm(self, provider: str, config: dict[str, Any] | None) -> LLM:
        self.llm_configs.append(dict(config or {}))
        return cast(LLM, object())


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteMemoryStore]:
    database = Database(tmp_path / "mnemo.sqlite3")
    yield SqliteMemoryStore(database)
    database.close()


def box(key: str) -> FernetSecretBox:
    return FernetSecretBox(lambda: key, "the test key")


def service(store: SqliteMemoryStore, key: str, catalog: RecordingCatalog | None = None) -> ConfigurationService:
    return ConfigurationService(ConfiguredProviders(store, catalog or RecordingCatalog(), DEFAULTS, box(key)))


def llm(api_key: str) -> dict[str, Any]:
    return {"llm": {"provider": "openai", "config": {"model": "m", "api_key": api_key}}}


def test_a_configured_key_is_stored_sealed_used_whole_and_shown_redacted(store: SqliteMemoryStore) -> None:
    # Given a service, when an LLM with a key is configured
    key = Fernet.generate_key().decode()
    catalog = RecordingCatalog()
    configuration = service(store, key, catalog)
    configuration.update(llm(KEY))
    # Then the stored row holds no trace of the key, the provider got it whole, and the view redacts it
    stored = store.get_setting(SETTINGS_KEY)
    assert isinstance(stored, dict)
    assert KEY not in repr(stored)
    assert stored["llm"]["config"]["api_key"].startswith("enc:v1:")
    assert catalog.llm_configs[-1]["api_key"] == KEY
    assert configuration.redacted()["llm"]["config"]["api_key"] == REDACTED
    # And a service started later with the same key builds its provider with it
    again = RecordingCatalog()
    service(store, key, again)
    assert again.llm_configs[-1]["api_key"] == KEY


def test_a_redacted_key_sent_back_keeps_the_stored_one(store: SqliteMemoryStore) -> None:
    key = Fernet.generate_key().decode()
    catalog = RecordingCatalog()
    configuration = service(store, key, catalog)
    configuration.update(llm(KEY))
    configuration.update({"llm": {"provider": "openai", "config": {"model": "m2", "api_key": REDACTED}}})
    assert catalog.llm_configs[-1] == {"model": "m2", "api_key": KEY}


def test_a_key_stored_in_clear_is_used_and_sealed_at_the_next_write(store: SqliteMemoryStore) -> None:
    # Given a key an older version stored in clear
    store.put_setting(SETTINGS_KEY, llm(KEY))
    catalog = RecordingCatalog()
    # When the service starts, then the provider gets it
    configuration = service(store, Fernet.generate_key().decode(), catalog)
    assert catalog.llm_configs[-1]["api_key"] == KEY
    # When anything is configured next, then the stored key is sealed
    configuration.update({"custom_instructions": "Be brief."})
    assert KEY not in repr(store.get_setting(SETTINGS_KEY))
    assert configuration.current()["llm"]["config"]["api_key"] == KEY


def test_a_stored_key_the_box_cannot_open_stops_the_start(store: SqliteMemoryStore) -> None:
    # Given a key sealed with one key
    service(store, Fernet.generate_key().decode()).update(llm(KEY))
    # When a service starts with another, then it refuses to, saying so
    with pytest.raises(ConfigurationError, match="cannot be decrypted"):
        service(store, Fernet.generate_key().decode())


def test_a_key_that_cannot_be_sealed_changes_nothing(store: SqliteMemoryStore) -> None:
    # Given a box with no key to seal with (the AWS backend without its parameter)
    def no_key() -> str:
        raise ConfigurationError("no key")

    catalog = RecordingCatalog()
    configuration = ConfigurationService(
        ConfiguredProviders(store, catalog, DEFAULTS, FernetSecretBox(no_key, "nowhere"))
    )
    # When a key is configured, then it is refused, and neither the store nor the providers changed
    with pytest.raises(ConfigurationError, match="no key"):
        configuration.update(llm(KEY))
    assert store.get_setting(SETTINGS_KEY) is None
    assert configuration.providers.get().llm is None
    assert catalog.llm_configs == []
    # And what holds no secret is still configured
    configuration.update({"custom_instructions": "Be brief."})
    assert configuration.current()["custom_instructions"] == "Be brief."


def test_a_given_key_that_looks_sealed_is_kept_as_given_and_breaks_no_start(store: SqliteMemoryStore) -> None:
    # Given a key that reads like a sealed value (a hostile or confused caller)
    key = Fernet.generate_key().decode()
    service(store, key).update(llm("enc:v1:not-a-token"))
    # When a service starts on the store, then it starts, and the provider gets the key as it was given
    catalog = RecordingCatalog()
    service(store, key, catalog)
    assert catalog.llm_configs[-1]["api_key"] == "enc:v1:not-a-token"


def test_a_rotation_writes_every_stored_key_again_under_the_new_key(store: SqliteMemoryStore) -> None:
    # Given a key sealed with the old key
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    service(store, old).update(llm(KEY))
    # When the service runs with the new key before the old one and is configured once, even with nothing
    service(store, f"{new},{old}").update({})
    # Then the new key alone opens what is stored
    catalog = RecordingCatalog()
    service(store, new, catalog)
    assert catalog.llm_configs[-1]["api_key"] == KEY
