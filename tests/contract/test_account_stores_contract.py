"""The contracts of the account stores: users, API keys and refresh tokens. Every adapter of these ports must
pass this one suite.

To add an adapter (e.g. DynamoDB), write a context manager that builds the three stores on a fresh, empty
backend and register it in ADAPTERS; every test below then runs against it too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from mnemo.adapters.dynamodb.refresh_token_store import DynamoRefreshTokenStore
from mnemo.adapters.dynamodb.user_store import DynamoUserStore
from mnemo.adapters.sqlite.api_key_store import SqliteApiKeyStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.refresh_token_store import SqliteRefreshTokenStore
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.domain.accounts import Role, User
from mnemo.domain.api_keys import ApiKey, key_digest, new_key_value, shown_prefix
from mnemo.domain.memory import new_id
from mnemo.domain.sessions import RefreshTokenRecord, jti_digest
from mnemo.errors import ConflictError
from mnemo.ports.api_key_store import ApiKeyStore
from mnemo.ports.refresh_token_store import RefreshTokenStore
from mnemo.ports.user_store import UserStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table
from tests.support.waits import seconds

T0 = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


@dataclass
class Stores:
    users: UserStore
    keys: ApiKeyStore
    tokens: RefreshTokenStore


@contextmanager
def _sqlite(tmp_path: Path) -> Iterator[Stores]:
    db = Database(tmp_path / "accounts.sqlite3")
    try:
        yield Stores(SqliteUserStore(db), SqliteApiKeyStore(db), SqliteRefreshTokenStore(db))
    finally:
        db.close()


@contextmanager
def _dynamodb(tmp_path: Path) -> Iterator[Stores]:
    """One table under moto, as template.yaml declares it."""
    with mock_aws():
        client = moto_aws.OneCallAtATime(moto_aws.client("dynamodb"))
        create_accounts_table(client, "mnemo-accounts-test")
        yield Stores(
            DynamoUserStore(client, "mnemo-accounts-test", sleep=lambda _: None),
            DynamoApiKeyStore(client, "mnemo-accounts-test", sleep=lambda _: None),
            DynamoRefreshTokenStore(client, "mnemo-accounts-test", sleep=lambda _: None),
        )


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[Stores]]] = {"sqlite": _sqlite, "dynamodb": _dynamodb}


@pytest.fixture(params=list(ADAPTERS))
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


def user(email: str, *, at: datetime = T0, role: Role = Role.MEMBER) -> User:
    return User(new_id(), email.split("@", maxsplit=1)[0].title(), email, role, "$argon2id$v=19$m=64,t=1,p=1$x$y", at)


def api_key(owner: User, *, at: datetime = T0, label: str = "k") -> tuple[ApiKey, str]:
    value = new_key_value()
    return ApiKey(new_id(), owner.id, label, shown_prefix(value), key_digest(value), at), value


def refresh_record(
    owner: str, family: str, *, at: datetime = T0, ttl: timedelta = timedelta(days=30)
) -> RefreshTokenRecord:
    return RefreshTokenRecord(jti_digest(new_id()), owner, family, at, at + ttl)


# ---- users -------------------------------------------------------------------------------------------------


def test_given_a_user_when_added_then_it_is_found_by_id_and_email_unchanged(stores: Stores) -> None:
    ada = user("ada@example.com", role=Role.ADMIN).changed(last_login_at=T0 + timedelta(hours=1))
    stores.users.add(ada)
    assert stores.users.get(ada.id) == ada
    assert stores.users.get_by_email("ada@example.com") == ada
    assert stores.users.get("nobody") is None
    assert stores.users.get_by_email("nobody@example.com") is None
    assert stores.users.count() == 1


def test_given_a_taken_email_when_another_user_takes_it_then_it_conflicts(stores: Stores) -> None:
    ada, bob = user("ada@example.com"), user("bob@example.com")
    stores.users.add(ada)
    stores.users.add(bob)
    with pytest.raises(ConflictError):
        stores.users.add(user("ada@example.com"))
    with pytest.raises(ConflictError):
        stores.users.update(bob.changed(email="ada@example.com"))
    assert stores.users.get(bob.id) == bob
    assert stores.users.count() == 2


def test_add_first_stores_only_while_there_is_no_user_even_when_racing(stores: Stores) -> None:
    candidates = [user(f"admin{i}@example.com", role=Role.ADMIN) for i in range(8)]
    start = threading.Barrier(len(candidates))
    won: list[bool] = []

    def attempt(candidate: User) -> None:
        start.wait(timeout=seconds(10))
        won.append(stores.users.add_first(candidate))

    threads = [threading.Thread(target=attempt, args=(c,)) for c in candidates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds(30))
    assert sorted(won) == [False] * 7 + [True]
    assert stores.users.count() == 1
    assert stores.users.add_first(user("late@example.com")) is False


def test_users_are_listed_oldest_first_updated_and_removed(stores: Stores) -> None:
    later = user("later@example.com", at=T0 + timedelta(minutes=5))
    first = user("first@example.com", at=T0)
    stores.users.add(later)
    stores.users.add(first)
    assert [u.email for u in stores.users.list()] == ["first@example.com", "later@example.com"]

    renamed = first.changed(name="Renamed", email="renamed@example.com", role=Role.ADMIN, password_hash="$new")
    assert stores.users.update(renamed) is True
    assert stores.users.get(first.id) == renamed
    assert stores.users.get_by_email("first@example.com") is None
    assert stores.users.update(user("ghost@example.com")) is False

    assert stores.users.remove(first.id) is True
    assert stores.users.remove(first.id) is False
    assert [u.id for u in stores.users.list()] == [later.id]


# ---- API keys ----------------------------------------------------------------------------------------------


def test_given_keys_then_a_user_lists_only_its_live_ones_newest_first(stores: Stores) -> None:
    ada, bob = user("ada@example.com"), user("bob@example.com")
    old, _ = api_key(ada, at=T0, label="old")
    new, _ = api_key(ada, at=T0 + timedelta(days=1), label="new")
    revoked, _ = api_key(ada, at=T0 + timedelta(days=2), label="revoked")
    bobs, _ = api_key(bob)
    for key in (old, new, revoked, bobs):
        stores.keys.add(key)
    assert stores.keys.revoke(revoked.id, T0 + timedelta(days=3)) is True

    assert [k.label for k in stores.keys.list_for_user(ada.id)] == ["new", "old"]
    assert stores.keys.list_for_user(ada.id)[1] == old
    assert stores.keys.get(revoked.id) == revoked.changed(revoked_at=T0 + timedelta(days=3))
    assert stores.keys.get("nope") is None


def test_a_key_is_found_by_its_shown_prefix_until_revoked_and_revoked_once(stores: Stores) -> None:
    ada = user("ada@example.com")
    key, value = api_key(ada)
    stores.keys.add(key)
    assert list(stores.keys.find_active_by_prefix(value[:12])) == [key]
    assert list(stores.keys.find_active_by_prefix("m0sk_0000000")) == []

    stores.keys.touch(key.id, T0 + timedelta(minutes=1))
    assert stores.keys.get(key.id) == key.changed(last_used_at=T0 + timedelta(minutes=1))

    assert stores.keys.revoke(key.id, T0 + timedelta(hours=1)) is True
    assert stores.keys.revoke(key.id, T0 + timedelta(hours=2)) is False
    assert stores.keys.revoke("nope", T0) is False
    assert list(stores.keys.find_active_by_prefix(value[:12])) == []


def test_removing_a_users_keys_leaves_the_others(stores: Stores) -> None:
    ada, bob = user("ada@example.com"), user("bob@example.com")
    for owner in (ada, ada, bob):
        stores.keys.add(api_key(owner)[0])
    assert stores.keys.remove_for_user(ada.id) == 2
    assert stores.keys.list_for_user(ada.id) == []
    assert len(stores.keys.list_for_user(bob.id)) == 1


def test_the_auth_epoch_moves_when_a_key_or_user_may_have_changed_meaning_and_only_then(stores: Stores) -> None:
    """The verified-key cache's guard (services/api_keys.py): a store without one says None (nothing is cached)."""
    epoch = stores.keys.auth_epoch
    if epoch() is None:
        assert isinstance(stores.keys, DynamoApiKeyStore)
        return
    ada, bob = user("ada@example.com"), user("bob@example.com")
    stores.users.add(ada)
    stores.users.add(bob)
    key, _ = api_key(ada)
    stores.keys.add(key)
    stores.keys.add(api_key(bob)[0])
    start = epoch()
    stores.keys.touch(key.id, T0 + timedelta(minutes=5))  # a use, a new key or user: no change of meaning
    stores.keys.add(api_key(ada)[0])
    stores.users.add(user("cy@example.com"))
    assert epoch() == start
    moves: list[Callable[[], object]] = [
        lambda: stores.keys.revoke(key.id, T0 + timedelta(hours=1)),
        lambda: stores.users.update(ada.changed(role=Role.ADMIN)),
        lambda: stores.keys.remove_for_user(bob.id),
        lambda: stores.users.remove(bob.id),
    ]
    for move in moves:
        before = epoch()
        move()
        assert epoch() is not None and epoch() > before  # type: ignore[operator]


# ---- refresh tokens ----------------------------------------------------------------------------------------


def test_a_refresh_token_is_consumed_once(stores: Stores) -> None:
    record = refresh_record("u1", "f1")
    stores.tokens.add(record)
    assert stores.tokens.get(record.token_hash) == record
    assert stores.tokens.consume(record.token_hash, T0 + timedelta(minutes=1)) == record
    assert stores.tokens.consume(record.token_hash, T0 + timedelta(minutes=2)) is None
    assert stores.tokens.get(record.token_hash) == RefreshTokenRecord(
        record.token_hash, "u1", "f1", record.created_at, record.expires_at, used_at=T0 + timedelta(minutes=1)
    )
    assert stores.tokens.consume("unknown", T0) is None


def test_concurrent_consumers_of_one_refresh_token_never_both_succeed(stores: Stores) -> None:
    record = refresh_record("u1", "f1")
    stores.tokens.add(record)
    start = threading.Barrier(8)
    results: list[RefreshTokenRecord | None] = []

    def consume() -> None:
        start.wait(timeout=seconds(10))
        results.append(stores.tokens.consume(record.token_hash, T0 + timedelta(seconds=1)))

    threads = [threading.Thread(target=consume) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds(30))
    assert sum(r is not None for r in results) == 1


def test_an_expired_or_revoked_refresh_token_cannot_be_consumed(stores: Stores) -> None:
    expiring = refresh_record("u1", "f1", ttl=timedelta(minutes=5))
    revoked = refresh_record("u1", "f2")
    stores.tokens.add(expiring)
    stores.tokens.add(revoked)
    assert stores.tokens.revoke_family("f2", T0) == 1
    assert stores.tokens.consume(expiring.token_hash, T0 + timedelta(minutes=5)) is None
    assert stores.tokens.consume(revoked.token_hash, T0 + timedelta(minutes=1)) is None


def test_families_and_users_are_revoked_as_a_whole(stores: Stores) -> None:
    a1, a2 = refresh_record("u1", "fa"), refresh_record("u1", "fa")
    b1 = refresh_record("u1", "fb")
    other = refresh_record("u2", "fc")
    for record in (a1, a2, b1, other):
        stores.tokens.add(record)
    stores.tokens.consume(a1.token_hash, T0)
    assert stores.tokens.revoke_family("fa", T0) == 1  # a1 was already used
    assert stores.tokens.consume(a2.token_hash, T0) is None

    b2 = refresh_record("u1", "fb")
    d1 = refresh_record("u1", "fd")
    stores.tokens.add(b2)
    stores.tokens.add(d1)
    assert stores.tokens.revoke_for_user("u1", T0, keep_family="fb") == 1  # d1
    assert stores.tokens.consume(d1.token_hash, T0) is None
    assert stores.tokens.consume(b1.token_hash, T0) is not None
    assert stores.tokens.revoke_for_user("u1", T0) == 1  # b2
    assert stores.tokens.consume(other.token_hash, T0) is not None


def test_expired_refresh_tokens_are_pruned(stores: Stores) -> None:
    short = refresh_record("u1", "f1", ttl=timedelta(hours=1))
    long = refresh_record("u1", "f1", ttl=timedelta(days=30))
    stores.tokens.add(short)
    stores.tokens.add(long)
    assert stores.tokens.prune(T0 + timedelta(days=1)) == 1
    assert stores.tokens.get(short.token_hash) is None
    assert stores.tokens.get(long.token_hash) == long
