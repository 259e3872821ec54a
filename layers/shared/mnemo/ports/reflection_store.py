"""Where Dream keeps track of Synthesis (reflection): which projects have it on (what the schedule reads), and for
each user of a project when the last run on their memories began and whether a run holds them now (a lease).

A user is reflected on at most once per interval and never by two runs at once, whatever number of processes or
functions run: a run first claims the user (`claim`, one conditional write: of two claims at once, one wins) and
ends the claim when it is done (`release`). The schedule claims the users it queues a run for, and that run takes
the claim over (`renew`). A claim whose run died is taken over once its lease has ended.

A project's Dream settings live on its Project record (the source of truth); `set_enabled` keeps the list of
projects with Synthesis on beside it, so that the schedule reads a short list instead of every project. A project
listed here whose record says otherwise (or that is gone) is skipped by the schedule and taken off the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ReflectionState:
    """One user of a project, as the runs left them."""

    user_id: str
    last_run_at: datetime | None = None  # when the last run that finished began (None: never)
    claimed_at: datetime | None = None  # when the run holding the user (if any) claimed it
    lease_until: datetime | None = None  # the claim holds until then; later it can be taken over

    def held(self, at: datetime) -> bool:
        """Whether a run holds the user at `at`."""
        return self.lease_until is not None and self.lease_until > at


class ReflectionStore(Protocol):
    def set_enabled(self, project_id: str, enabled: bool) -> None:
        """List the project among those with Synthesis on, or take it off the list (idempotent)."""
        ...

    def enabled_projects(self) -> list[str]:
        """The projects listed with Synthesis on, in id order."""
        ...

    def states(self, project_id: str) -> dict[str, ReflectionState]:
        """Every user of the project a run has claimed, by user id."""
        ...

    def claim(
        self, project_id: str, user_id: str, at: datetime, *, lease: timedelta, not_since: datetime | None = None
    ) -> bool:
        """Take the user for a run beginning at `at`, held until `at + lease`: only when no run holds it (no claim,
        or its lease ended before `at`) and, with `not_since`, when the last run began at or before `not_since`
        (or never ran). True when taken; one conditional write, so of two claims at once one wins."""
        ...

    def renew(self, project_id: str, user_id: str, claimed_at: datetime, at: datetime, *, lease: timedelta) -> bool:
        """Move the claim made at `claimed_at` to `at`, held until `at + lease` (the run the schedule queued takes
        over the claim the schedule made for it). False, writing nothing, when another claim has replaced it or it
        was released."""
        ...

    def release(self, project_id: str, user_id: str, claimed_at: datetime, *, ran: bool) -> None:
        """End the claim made at `claimed_at` (nothing when another claim has replaced it). `ran`: the run
        finished, and `claimed_at` becomes the user's last run; else the user is left as it was before the claim."""
        ...

    def drop_project(self, project_id: str) -> None:
        """Forget the project: off the list, and every user's state gone."""
        ...
