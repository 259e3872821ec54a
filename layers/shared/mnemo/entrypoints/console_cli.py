"""The `mnemo platform` commands' side of the console's sign-in: a password read from standard input (never from
an argument, where it would sit in the shell history and the process list, as `docker login --password-stdin`
does), `bootstrap --password-stdin`, and `set-password` for a platform user who has none or forgot theirs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from mnemo.domain.console_accounts import password_problem
from mnemo.settings import Settings

USAGE_ERROR = 2  # what argparse exits with on a bad command line: a refused password is one too


def read_password(stream: TextIO, command: str) -> str | None:
    """One line of `stream`, its line ending stripped; None (with the reason on standard error) when it is empty
    or too weak."""
    line = stream.readline()
    password = line.removesuffix("\n").removesuffix("\r")
    problem = "no password was given on standard input." if not password else password_problem(password)
    if problem is not None:
        print(f"{command}: {problem}", file=sys.stderr)
        return None
    return password


def add_set_password(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser(
        "set-password",
        help="Set the console password of a platform user (read from standard input) and end their sessions.",
        allow_abbrev=False,
    )
    command.add_argument("--email", required=True, help="The platform user's email.")
    command.add_argument(
        "--password-stdin",
        action="store_true",
        required=True,
        help="Read the password from standard input (one line); it is never taken as an argument.",
    )
    command.add_argument("--data-dir", type=Path, help="Where the SQLite file lives (env MNEMO_DATA_DIR).")
    command.set_defaults(run=set_password)


def set_password(args: argparse.Namespace, session: Any | None = None) -> int:
    from mnemo.composition.platform import open_console_accounts
    from mnemo.errors import MnemoError

    password = read_password(sys.stdin, "mnemo platform set-password")
    if password is None:
        return USAGE_ERROR
    settings = Settings(**({"data_dir": args.data_dir} if args.data_dir is not None else {}))
    try:
        with open_console_accounts(settings, session) as (_store, console):
            user = console.set_password(args.email, password)
    except MnemoError as exc:
        print(f"mnemo platform set-password: {exc.message}", file=sys.stderr)
        return 1
    print(f"The console password of {user.email} is set; their other sessions have ended.")
    return 0
