"""`mnemo platform bootstrap --password-stdin` and `mnemo platform set-password`: the password comes from standard
input only (one line, its line ending stripped), a missing or weak one is refused with exit code 2 before anything
is written, and the owner it is set for can sign in to the console."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mnemo.composition.platform import open_console_accounts, open_tenancy_store
from mnemo.entrypoints import cli
from mnemo.errors import AuthenticationError
from mnemo.settings import Settings

PASSWORD = "a long enough secret"


@pytest.fixture(autouse=True)
def cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_ARGON2_TIME_COST", "1")
    monkeypatch.setenv("MNEMO_ARGON2_MEMORY_KIB", "64")
    monkeypatch.setenv("MNEMO_ARGON2_PARALLELISM", "1")


def run(monkeypatch: pytest.MonkeyPatch, stdin: str, *args: str) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return cli.main(["platform", *args])


def bootstrap_args(data_dir: Path, *extra: str) -> list[str]:
    return ["bootstrap", "--json", "--email", "Owner@Example.com", "--org", "Acme", "--data-dir", str(data_dir), *extra]


def test_bootstrap_with_password_stdin_lets_the_owner_sign_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(monkeypatch, PASSWORD + "\r\n", *bootstrap_args(tmp_path, "--password-stdin")) == 0
    started = json.loads(capsys.readouterr().out)

    with open_console_accounts(Settings(data_dir=tmp_path)) as (_store, console):
        session = console.sign_in("owner@example.com", PASSWORD, "cli-test")
    assert session.user.email == "owner@example.com" and started["org_id"].startswith("org_")


@pytest.mark.parametrize("stdin", ["", "\n", "short\n"])
def test_an_empty_or_weak_password_is_refused_with_exit_code_2_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str
) -> None:
    assert run(monkeypatch, stdin, *bootstrap_args(tmp_path, "--password-stdin")) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "mnemo platform bootstrap:" in printed.err
    with open_tenancy_store(Settings(data_dir=tmp_path)) as store:
        assert store.user_by_email("owner@example.com") is None


def test_the_weak_password_message_says_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run(monkeypatch, "short\n", *bootstrap_args(tmp_path, "--password-stdin"))
    assert "at least 12 characters" in capsys.readouterr().err


def test_a_password_argument_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (bootstrap_args(tmp_path), ["set-password", "--email", "a@example.com", "--password-stdin"]):
        with pytest.raises(SystemExit) as refused:
            run(monkeypatch, "", *command, "--password", PASSWORD)
        assert refused.value.code == 2
        assert "unrecognized arguments: --password" in capsys.readouterr().err


def test_without_the_flag_the_owner_has_no_password_until_an_operator_sets_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(monkeypatch, PASSWORD + "\n", *bootstrap_args(tmp_path)) == 0  # standard input is not read
    capsys.readouterr()
    with open_console_accounts(Settings(data_dir=tmp_path)) as (_store, console), pytest.raises(AuthenticationError):
        console.sign_in("owner@example.com", PASSWORD, "cli-test")

    args = ["set-password", "--email", "owner@example.com", "--password-stdin", "--data-dir", str(tmp_path)]
    assert run(monkeypatch, PASSWORD + "\n", *args) == 0
    assert "owner@example.com" in capsys.readouterr().out
    with open_console_accounts(Settings(data_dir=tmp_path)) as (_store, console):
        assert console.sign_in("owner@example.com", PASSWORD, "cli-test").user.email == "owner@example.com"


def test_set_password_refuses_an_unknown_email_and_a_weak_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["set-password", "--email", "ghost@example.com", "--password-stdin", "--data-dir", str(tmp_path)]
    assert run(monkeypatch, PASSWORD + "\n", *args) == 1
    assert "No platform user has the email ghost@example.com." in capsys.readouterr().err
    assert run(monkeypatch, "tiny\n", *args) == 2


def test_set_password_needs_the_stdin_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as refused:
        run(monkeypatch, PASSWORD, "set-password", "--email", "a@example.com", "--data-dir", str(tmp_path))
    assert refused.value.code == 2 and "--password-stdin" in capsys.readouterr().err
