"""`mnemo serve` without JWT_SECRET: a secret made once in the data dir, readable by its owner only."""

from __future__ import annotations

import stat
from pathlib import Path

from mnemo.entrypoints.cli import local_jwt_secret


def test_the_secret_is_made_once_with_mode_0600_and_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "data" / "jwt_secret"
    first = local_jwt_secret(path)
    assert len(first) >= 43
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert local_jwt_secret(path) == first


def test_a_secret_file_readable_by_others_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "jwt_secret"
    path.write_text("kept-secret-value\n")
    path.chmod(0o644)
    assert local_jwt_secret(path) == "kept-secret-value"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_empty_secret_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "jwt_secret"
    path.write_text("")
    path.chmod(0o600)
    assert len(local_jwt_secret(path)) >= 43
