"""The verified-key cache of ApiKeyService over the SQLite stores: a key checked once is answered again without
reading it, and every change that may alter the answer — the key revoked, its user's role changed, the user
removed — takes effect at the very next check, also when another process (another connection to the file) made
it. A key's use is still recorded once per TOUCH_INTERVAL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.api_key_store import SqliteApiKeyStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.domain.accounts import Role, User
from mnemo.domain.identity import AuthMode
from mnemo.domain.memory import new_id
from mnemo.errors import AuthenticationError
from mnemo.services.api_keys import TOUCH_INTERVAL, ApiKeyService
from mnemo.services.authentication import Authenticator

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


class CountingKeys(SqliteApiKeyStore):
    """The SQLite key store, counting the key lookups (what the cache saves)."""

    lookups = 0

    def find_active_by_prefix(self, key_prefix: str):
        self.lookups += 1
        return super().find_active_by_prefix(key_prefix)


@pytest.fixture
def world(tmp_path: Path):
    db = Database(tmp_path / "mnemo.sqlite3")
    other = Database(tmp_path / "mnemo.sqlite3")  # another process's connections to the same file
    users, keys, clock = SqliteUserStore(db), CountingKeys(db), Clock()
    service = ApiKeyService(keys, users, clock)
    ada = User(new_id(), "Ada", "ada@example.com", Role.MEMBER, "$argon2id$v=19$m=64,t=1,p=1$x$y", T0)
    users.add(ada)
    key, value = service.create(ada, "agent")
    yield service, keys, users, SqliteUserStore(other), SqliteApiKeyStore(other), clock, ada, key, value
    other.close()
    db.close()


def test_a_verified_key_is_answered_again_without_reading_it(world) -> None:
    service, keys, *_, value = world
    assert service.verified(value) is None  # never checked yet
    first = service.authenticate(value)
    assert keys.lookups == 1
    assert service.authenticate(value) == first
    assert service.verified(value) == first
    assert keys.lookups == 1


def test_a_revocation_by_another_process_takes_effect_at_the_next_check(world) -> None:
    service, _keys, _users, _other_users, other_keys, clock, _ada, key, value = world
    service.authenticate(value)
    assert other_keys.revoke(key.id, clock())
    assert service.verified(value) is None
    with pytest.raises(AuthenticationError):
        service.authenticate(value)


def test_a_role_change_or_removal_of_the_user_takes_effect_at_the_next_check(world) -> None:
    service, _keys, _users, other_users, _other_keys, _clock, ada, _key, value = world
    assert service.authenticate(value)[1].role is Role.MEMBER
    other_users.update(ada.changed(role=Role.ADMIN))
    assert service.verified(value) is None
    assert service.authenticate(value)[1].role is Role.ADMIN
    other_users.remove(ada.id)
    assert service.verified(value) is None
    with pytest.raises(AuthenticationError):
        service.authenticate(value)


def test_a_use_is_still_recorded_once_per_interval(world) -> None:
    service, keys, _users, _other_users, _other_keys, clock, _ada, key, value = world
    service.authenticate(value)
    assert keys.get(key.id).last_used_at == T0
    clock.at = T0 + TOUCH_INTERVAL / 2
    service.authenticate(value)
    assert keys.get(key.id).last_used_at == T0
    clock.at = T0 + TOUCH_INTERVAL + timedelta(seconds=1)
    assert service.verified(value) is None  # a use is due: the full check records it
    service.authenticate(value)
    assert keys.get(key.id).last_used_at == clock.at


def test_the_authenticator_answers_a_verified_key_and_the_admin_key_without_the_full_check(world) -> None:
    service, *_rest, value = world
    checks = Authenticator(tokens=None, api_keys=service, admin_api_key="an admin key of some length")  # type: ignore[arg-type]
    assert checks.identify_verified(None, value) is None
    caller = checks.identify(None, value)
    assert checks.identify_verified(None, value) == caller
    assert caller.mode is AuthMode.API_KEY
    assert checks.identify_verified(None, "an admin key of some length") is not None
    assert checks.identify_verified("a bearer token", value) is None  # tokens take the full check
    assert checks.identify_verified(None, None) is None
