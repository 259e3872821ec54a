"""The Fernet secret box (mnemo.adapters.crypto.fernet_box): what it seals opens with its key only, a change at rest
is refused, a value stored in clear is told apart, several keys rotate, and the key file is made once, 0600."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from mnemo.adapters.crypto.fernet_box import V1, FernetSecretBox, key_file
from mnemo.errors import ConfigurationError

SECRET = "sk-live-0123456789abcdef"


def box_of(*keys: str) -> FernetSecretBox:
    return FernetSecretBox(lambda: ",".join(keys), "the test key")


def test_a_sealed_value_opens_to_what_was_sealed_and_does_not_hold_it() -> None:
    # Given a box with a key
    box = box_of(Fernet.generate_key().decode())
    # When a secret is sealed
    sealed = box.seal(SECRET)
    # Then it is versioned, holds no trace of the secret, and opens to it
    assert sealed.startswith(V1)
    assert SECRET not in sealed
    assert box.sealed(sealed)
    assert box.open(sealed) == SECRET


def test_the_same_secret_sealed_twice_reads_differently() -> None:
    box = box_of(Fernet.generate_key().decode())
    assert box.seal(SECRET) != box.seal(SECRET)


def test_a_value_stored_in_clear_is_not_taken_for_a_sealed_one() -> None:
    box = box_of(Fernet.generate_key().decode())
    assert not box.sealed(SECRET)
    assert not box.sealed("")


def test_a_sealed_value_changed_at_rest_is_refused() -> None:
    # Given a sealed secret with one character of its token changed
    box = box_of(Fernet.generate_key().decode())
    sealed = box.seal(SECRET)
    at = len(V1) + 40
    tampered = sealed[:at] + ("A" if sealed[at] != "A" else "B") + sealed[at + 1 :]
    # When it is opened, then it is refused, saying where the key came from
    with pytest.raises(ConfigurationError, match="cannot be decrypted with the key of the test key"):
        box.open(tampered)


def test_another_key_opens_nothing_and_the_error_names_no_key() -> None:
    key = Fernet.generate_key().decode()
    other = Fernet.generate_key().decode()
    sealed = box_of(key).seal(SECRET)
    with pytest.raises(ConfigurationError) as raised:
        box_of(other).open(sealed)
    assert key not in str(raised.value)
    assert other not in str(raised.value)
    assert SECRET not in str(raised.value)


def test_an_unknown_format_version_is_refused() -> None:
    box = box_of(Fernet.generate_key().decode())
    with pytest.raises(ConfigurationError, match="format this version does not know"):
        box.open("enc:v9:whatever")


def test_a_key_that_is_not_a_fernet_key_is_refused_on_first_use_without_being_shown() -> None:
    box = FernetSecretBox(lambda: "not-a-key", "MNEMO_CONFIG_ENCRYPTION_KEY")
    with pytest.raises(ConfigurationError, match="MNEMO_CONFIG_ENCRYPTION_KEY is not a Fernet key") as raised:
        box.seal(SECRET)
    assert "not-a-key" not in str(raised.value)


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="is empty"):
        FernetSecretBox(lambda: " \n", "the test key").seal(SECRET)


def test_the_key_is_read_on_first_need_only() -> None:
    calls: list[int] = []
    key = Fernet.generate_key().decode()

    def read() -> str:
        calls.append(1)
        return key

    box = FernetSecretBox(read, "the test key")
    assert calls == []
    box.open(box.seal(SECRET))
    assert calls == [1]


def test_a_new_key_first_seals_and_the_old_one_after_it_still_opens() -> None:
    # Given a secret sealed with the old key
    old = Fernet.generate_key().decode()
    new = Fernet.generate_key().decode()
    sealed_before = box_of(old).seal(SECRET)
    # When the key is rotated (the new one first, the old one kept after it)
    rotated = box_of(new, old)
    # Then what the old key sealed still opens, and what is sealed now opens with the new key alone
    assert rotated.open(sealed_before) == SECRET
    assert box_of(new).open(rotated.seal(SECRET)) == SECRET


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    # Given no key file
    path = tmp_path / "data" / "config_encryption_key"
    # When it is asked for twice
    first = key_file(path)
    second = key_file(path)
    # Then one Fernet key was made, kept 0600, and nothing else was left in the directory
    assert first == second
    Fernet(first.strip())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["config_encryption_key"]


def test_a_key_file_open_to_others_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "config_encryption_key"
    key = Fernet.generate_key().decode()
    path.write_text(key + "\n")
    path.chmod(0o644)
    assert key_file(path).strip() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
