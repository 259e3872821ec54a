"""How long the console's sessions and invitations last and how many failed sign-ins are let through: one value
given to the service by the composition root (from the settings), with the defaults the settings have."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True, slots=True)
class ConsolePolicy:
    session_idle: timedelta = timedelta(hours=8)  # a session unused this long ends (each use moves it on)
    session_lifetime: timedelta = timedelta(days=7)  # a session ends this long after sign-in, used or not
    invitation_lifetime: timedelta = timedelta(days=7)
    max_failures: int = 5  # failed sign-ins per email, and per client address, within `failure_window`
    failure_window: timedelta = timedelta(minutes=15)
