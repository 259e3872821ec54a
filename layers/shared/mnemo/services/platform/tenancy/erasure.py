"""What a delete erases beside a project's memories (README "Deletes erase").

The memory store erases a deleted memory's texts from what it keeps (the memory, its history, its siblings'
sources, its unpublished webhook events: mnemo.ports.memory_store `remove`). Other records of the project quote
them too, and are scrubbed here, once per delete operation (however many memories it deleted):

- its events: the add (or import) that made the memory keeps its id and event, not its text nor the messages it was
  drawn from; a Dream run's results lose its texts (mnemo.domain.erasure.scrubbed_event);
- its webhooks' deliveries, in any state: the event of an add or update of the memory keeps its id, not its text
  (the delete's own event never carried the text: mnemo.domain.webhooks.change_events);
- its exports: the memory's entry is dropped, its texts cut out of the rest;
- its users' stored profiles: a property drawn from the memory goes (the regeneration the delete queued brings back
  what the other memories say);

then `purge` makes what was rewritten unrecoverable from the files (locally: the main SQLite file's WAL is
checkpointed and truncated; nothing on DynamoDB).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from mnemo.domain.erasure import Erasure, scrubbed_profile
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.tenancy_store import EventStore, ProjectRecordStore
from mnemo.ports.webhook_store import WebhookStore

log = logging.getLogger("mnemo.platform.erasure")
SCRUB_ROUNDS = 10  # reads of a profile a delete scrubs, while generations keep storing new ones


class ProjectErasure:
    def __init__(
        self,
        events: EventStore,
        records: ProjectRecordStore,
        webhooks: WebhookStore | None = None,
        profiles: ProfileStore | None = None,
        purge: Callable[[], object] | None = None,
    ) -> None:
        """`profiles`: the profile store, on a backend with profiles; `purge`: what makes the rewritten records
        unrecoverable from their files (the main SQLite file's checkpoint)."""
        self._events = events
        self._records = records
        self._webhooks = webhooks
        self._profiles = profiles
        self.purge = purge

    def erased(self, project_id: str, erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        """Scrub the project's records of the memories a delete removed (`records`, as they were)."""
        if not erasure:
            return
        self._events.erase_from_events(project_id, erasure)
        self._records.erase_from_exports(project_id, erasure)
        if self._webhooks is not None:
            self._webhooks.erase_from_deliveries(project_id, erasure)
        self._erase_from_profiles(project_id, erasure, records)
        if self.purge is not None:
            self.purge()

    def _erase_from_profiles(self, project_id: str, erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        store = self._profiles
        if store is None:
            return
        for user_id in sorted({r.scope.user_id for r in records if r.scope.user_id}):
            for _ in range(SCRUB_ROUNDS):
                profile = store.get_profile(project_id, "user", user_id)
                clean = None if profile is None else scrubbed_profile(profile, erasure)
                # Only the content is written: the claim of the regeneration this delete queued may come meanwhile.
                if clean is None or store.save_content(clean):
                    break
            else:
                log.warning("a profile kept changing while a delete scrubbed it; its regeneration replaces it")
