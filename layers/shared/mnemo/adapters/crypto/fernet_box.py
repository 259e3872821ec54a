"""Secrets sealed with Fernet (the `cryptography` package): AES-128-CBC with an HMAC-SHA256 tag over it, so a value
changed at rest, or opened with another key, is refused rather than decrypted into something else.

A sealed value reads `enc:v1:<Fernet token>`: the version says how the rest is made, so a later format can sit beside
this one, and a value without the `enc:` prefix is one an older version stored in clear.

The key is one or more Fernet keys (URL-safe base64 of 32 random bytes), separated by commas or whitespace: the first
seals, every one opens (MultiFernet). Rotating it is putting a new key first and keeping the old one after it until
every sealed value has been written again. The key is read on first need (the first value sealed or opened), so a
deployment that stores no secret needs none; a key that is not a Fernet key, or that opens nothing stored, is a
ConfigurationError that names where the key came from, never the key. `cryptography` itself is imported then too:
a process that keeps no secret does not pay for loading it."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo.errors import ConfigurationError

if TYPE_CHECKING:  # imported on first need: a process that seals and opens nothing does not load it
    from cryptography.fernet import MultiFernet

SEALED = "enc:"  # what every sealed value starts with, whatever its version
V1 = "enc:v1:"  # a Fernet token follows
PRIVATE_FILE = 0o600
_SEPARATORS = re.compile(r"[\s,]+")


class FernetSecretBox:
    def __init__(self, key: Callable[[], str], where: str) -> None:
        """`key`: gives the key text when first needed (it may make it, or raise ConfigurationError when there is
        none); `where`: where it comes from, for the errors (a setting's name, a file's path)."""
        self._key = key
        self._where = where
        self._fernet: MultiFernet | None = None
        self._lock = threading.Lock()

    def seal(self, plaintext: str) -> str:
        return V1 + self._keys().encrypt(plaintext.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        from cryptography.fernet import InvalidToken

        if not sealed.startswith(V1):
            raise ConfigurationError(
                f"A stored secret is sealed in a format this version does not know ({sealed[:8]}…): run the version "
                "that wrote it, or configure the value again."
            )
        try:
            return self._keys().decrypt(sealed[len(V1) :].encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError) as exc:
            raise ConfigurationError(
                f"A stored secret cannot be decrypted with the key of {self._where}: it was sealed with another key, "
                "or changed at rest. Restore the key that sealed it (keep the old key after a new one to rotate), or "
                "configure the value again once the stored one is removed."
            ) from exc

    def sealed(self, value: str) -> bool:
        return value.startswith(SEALED)

    def _keys(self) -> MultiFernet:
        with self._lock:
            if self._fernet is None:
                self._fernet = parse_keys(self._key(), self._where)
            return self._fernet


def parse_keys(text: str, where: str) -> MultiFernet:
    """The Fernet keys in `text` (commas or whitespace between them), the first one sealing."""
    from cryptography.fernet import Fernet, MultiFernet

    keys = [k for k in _SEPARATORS.split(text.strip()) if k]
    if not keys:
        raise ConfigurationError(f"The encryption key of {where} is empty.")
    try:
        return MultiFernet([Fernet(k) for k in keys])
    except (ValueError, TypeError) as exc:  # not URL-safe base64 of 32 bytes; the message would not name the key
        raise ConfigurationError(
            f"The encryption key of {where} is not a Fernet key (URL-safe base64 of 32 bytes, as "
            "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'` prints)."
        ) from exc


def key_file(path: Path) -> str:
    """The key kept in `path`, made on first use: random, readable by its owner only. Several processes starting at
    once agree on one key: each writes its own to a file of its own and links it into place; the first link wins and
    the others read the winner's."""
    from cryptography.fernet import Fernet

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        draft = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        try:
            os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken bits of the owner's too
            os.write(fd, Fernet.generate_key() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)
        finally:
            draft.unlink()
    if path.stat().st_mode & 0o077:
        path.chmod(PRIVATE_FILE)
    return path.read_text(encoding="ascii")
