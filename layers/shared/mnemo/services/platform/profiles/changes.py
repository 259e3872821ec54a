"""What makes a profile stale: the memory changes of its user. `ProfileChanges.note` takes the outbound events of
memory changes (locally from the webhook relay; on AWS from the webhook delivery function, which receives every
event of the topic) and, for each changed user of a project whose profiles are enabled, claims a generation in
the store (ProfileStore.claim_generation) and queues it `debounce` seconds later. A user whose generation is
queued already only has the change's time recorded: that generation waits for the changes to be quiet, and reads
them all (mnemo.services.platform.profiles). It needs no memory store and no provider: the delivery function runs
it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from mnemo.domain.memory import now
from mnemo.domain.profiles import ENTITY_USER, ProfileTask
from mnemo.domain.webhooks import OutboundEvent, WebhookEventType
from mnemo.ports.profile_store import ProfileStore

RECLAIM_AFTER = timedelta(minutes=15)  # a generation queued longer ago than this was lost: claim it anew
MEMORY_CHANGES = frozenset(
    {WebhookEventType.MEMORY_ADD.value, WebhookEventType.MEMORY_UPDATE.value, WebhookEventType.MEMORY_DELETE.value}
)

Dispatch = Callable[[ProfileTask, float], None]  # a ProfileTaskQueue's dispatch: (task, delay)


def claim(store: ProfileStore, project_id: str, user_id: str, at: datetime, changed_at: datetime | None = None) -> bool:
    """Claim the next generation of the user's profile (a claim older than RECLAIM_AFTER counts as lost)."""
    return store.claim_generation(
        project_id, ENTITY_USER, user_id, at=at, reclaim_before=at - RECLAIM_AFTER, changed_at=changed_at
    )


def changed_users(events: Sequence[OutboundEvent]) -> dict[tuple[str, str], datetime]:
    """(project, user) → the time of the user's last memory change among `events`."""
    changed: dict[tuple[str, str], datetime] = {}
    for event in events:
        user_id = event.payload.get("user_id")
        if event.type not in MEMORY_CHANGES or not isinstance(user_id, str) or not user_id:
            continue
        key = (event.namespace, user_id)
        changed[key] = max(changed.get(key, event.occurred_at), event.occurred_at)
    return changed


class ProfileChanges:
    def __init__(
        self, store: ProfileStore, dispatch: Dispatch, debounce: float, clock: Callable[[], datetime] = now
    ) -> None:
        self._store = store
        self._dispatch = dispatch
        self.debounce = debounce
        self._clock = clock

    def note(self, events: Sequence[OutboundEvent]) -> int:
        """Memory changes happened (their outbound events): how many generations were queued."""
        enabled: dict[str, bool] = {}
        queued = 0
        for (project_id, user_id), changed_at in changed_users(events).items():
            if project_id not in enabled:
                settings = self._store.get_settings(project_id)
                enabled[project_id] = settings is not None and settings.enabled
            at = self._clock()
            if enabled[project_id] and claim(self._store, project_id, user_id, at, changed_at):
                self._dispatch(ProfileTask("generate", project_id, user_id, at), self.debounce)
                queued += 1
        return queued
