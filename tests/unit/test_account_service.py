"""AccountService on a real SQLite user store and real argon2id (at its cheapest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.domain.accounts import Role
from mnemo.errors import AuthenticationError
from mnemo.services.accounts import AccountService


class CountingHasher(Argon2PasswordHasher):
    """The real hasher, counting its work: what a login costs, whatever the email."""

    def __init__(self, **params: int) -> None:
        super().__init__(**params)
        self.hashes = 0
        self.verifies = 0

    def hash(self, password: str) -> str:
        self.hashes += 1
        return super().hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        self.verifies += 1
        return super().verify(password_hash, password)


@pytest.fixture
def hasher() -> CountingHasher:
    return CountingHasher(time_cost=1, memory_kib=64, parallelism=1)


@pytest.fixture
def accounts(tmp_path: Path, hasher: CountingHasher) -> Iterator[AccountService]:
    db = Database(tmp_path / "users.sqlite3")
    try:
        yield AccountService(SqliteUserStore(db), hasher)
    finally:
        db.close()


def test_a_login_costs_one_hash_check_whether_or_not_the_email_exists(
    accounts: AccountService, hasher: CountingHasher
) -> None:
    accounts.register_first_admin("Ada", "ada@example.com", "correct horse")
    accounts.authenticate("ada@example.com", "correct horse")  # the first login also makes the stand-in hash
    work: dict[str, tuple[int, int]] = {}
    for case, email, password in (
        ("unknown email", "nobody@example.com", "correct horse"),
        ("wrong password", "ada@example.com", "wrong horse!"),
    ):
        before = (hasher.hashes, hasher.verifies)
        with pytest.raises(AuthenticationError, match=r"^Invalid email or password\.$"):
            accounts.authenticate(email, password)
        work[case] = (hasher.hashes - before[0], hasher.verifies - before[1])
    before = (hasher.hashes, hasher.verifies)
    accounts.authenticate("ada@example.com", "correct horse")
    work["right password"] = (hasher.hashes - before[0], hasher.verifies - before[1])
    assert work == {"unknown email": (0, 1), "wrong password": (0, 1), "right password": (0, 1)}


def test_passwords_are_stored_as_argon2id_hashes(accounts: AccountService) -> None:
    user = accounts.register_first_admin("Ada", "ada@example.com", "correct horse")
    assert user.password_hash.startswith("$argon2id$")
    assert "correct horse" not in user.password_hash
    assert user.role is Role.ADMIN


def test_a_hash_made_with_older_parameters_is_upgraded_at_the_next_login(tmp_path: Path) -> None:
    db = Database(tmp_path / "users.sqlite3")
    try:
        store = SqliteUserStore(db)
        weak = AccountService(store, Argon2PasswordHasher(time_cost=1, memory_kib=64, parallelism=1))
        old_hash = weak.register_first_admin("Ada", "ada@example.com", "correct horse").password_hash
        stronger = AccountService(store, Argon2PasswordHasher(time_cost=2, memory_kib=128, parallelism=1))
        upgraded = stronger.authenticate("ada@example.com", "correct horse")
        assert upgraded.password_hash != old_hash
        assert "m=128,t=2" in upgraded.password_hash
        stronger.authenticate("ada@example.com", "correct horse")
    finally:
        db.close()
