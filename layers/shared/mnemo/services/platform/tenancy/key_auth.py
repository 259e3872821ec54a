"""Who a project API key is: the key checked against its stored digest, its user still a member of its project.

A key is verified on every request, so a caller verified before is answered from a small cache for as long as
nothing that could change the answer changed: the store's auth epoch moves with every change of keys, members
or projects, and a use due to be recorded (once a minute per key) goes to the store."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from mnemo.domain.api_keys import key_digest
from mnemo.domain.tenancy import PlatformUser, Project, Role, is_project_key
from mnemo.errors import AuthenticationError
from mnemo.ports.tenancy_store import DirectoryStore, role_of
from mnemo.services.platform.tenancy.callers import PlatformCaller

INVALID_KEY = "Invalid API key. You can find your API key on the dashboard's API keys page."
TOUCH_INTERVAL = timedelta(seconds=60)
MAX_VERIFIED = 10_000  # keys the verified-key cache holds at most (it starts again empty when full)


def project_role(store: DirectoryStore, project: Project, user: PlatformUser) -> Role | None:
    """The user's role in the project: their membership's, or their organization role (an OWNER wins)."""
    direct = role_of(store.project_members(project.id), user.id)
    org = role_of(store.org_members(project.org_id), user.id)
    if Role.OWNER in (direct, org):
        return Role.OWNER
    return direct or org


class KeyAuthenticator:
    def __init__(self, store: DirectoryStore, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock
        # key digest -> (the store's auth epoch then, the caller, when the key's use was last recorded)
        self._verified: dict[str, tuple[int, PlatformCaller, datetime | None]] = {}

    def verified(self, value: str) -> PlatformCaller | None:
        """The caller of a key verified before, when nothing that could change the answer changed since (one read
        of the store's auth epoch, no write; a use due to be recorded answers None), else None: then
        `authenticate`."""
        cached = self._verified.get(key_digest(value))
        if cached is None or cached[0] != self._store.auth_epoch():
            return None
        _, caller, last_used_at = cached
        if last_used_at is None or self._clock() - last_used_at >= TOUCH_INTERVAL:
            return None
        return caller

    def authenticate(self, value: str | None) -> PlatformCaller:
        if not value or not is_project_key(value):
            raise AuthenticationError(INVALID_KEY)
        digest = key_digest(value)
        epoch = self._store.auth_epoch()  # read before the key: a change after it moves it past what is cached
        key = self._store.key_by_hash(digest)
        if key is None:
            raise AuthenticationError(INVALID_KEY)
        user = self._store.user_by_id(key.user_id)
        project = self._store.get_project(key.project_id)
        if user is None or project is None:
            raise AuthenticationError(INVALID_KEY)
        role = project_role(self._store, project, user)
        if role is None:  # the key's user left the project: the key no longer opens it
            raise AuthenticationError(INVALID_KEY)
        moment = self._clock()
        last_used_at = key.last_used_at
        if last_used_at is None or moment - last_used_at >= TOUCH_INTERVAL:
            self._store.touch_key(key.id, moment)
            last_used_at = moment
        caller = PlatformCaller(user, project, role, key.id)
        if epoch is not None:
            if len(self._verified) >= MAX_VERIFIED:
                self._verified = {}
            self._verified[digest] = (epoch, caller, last_used_at)
        return caller
