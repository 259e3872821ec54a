"""Who is calling, from the credentials of a request, in the documented order: a Bearer access token, then
an X-API-Key (the legacy admin key, else a per-user key), then disabled auth, else 401."""

from __future__ import annotations

import hashlib
import hmac

from mnemo.domain.identity import AuthMode, Caller
from mnemo.errors import AuthenticationError
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.tokens import TokenService

MISSING = "Authentication required. Provide a Bearer token or X-API-Key header."


class Authenticator:
    def __init__(
        self,
        tokens: TokenService,
        api_keys: ApiKeyService,
        *,
        admin_api_key: str | None = None,
        disabled: bool = False,
    ) -> None:
        self.tokens = tokens
        self.api_keys = api_keys
        self.disabled = disabled
        # Compared as digests: equal length, constant time, whatever the length of the presented value.
        self._admin_digest = _digest(admin_api_key) if admin_api_key else None

    def identify(self, bearer: str | None, api_key: str | None) -> Caller:
        if bearer is not None:
            grant = self.tokens.verify_access(bearer)
            return Caller(AuthMode.BEARER, grant.user, family_id=grant.family_id)
        if api_key:
            if self.is_admin_key(api_key):
                return Caller(AuthMode.ADMIN_KEY)
            key, user = self.api_keys.authenticate(api_key)
            return Caller(AuthMode.API_KEY, user, key_prefix=key.key_prefix)
        if self.disabled:
            return Caller(AuthMode.DISABLED)
        raise AuthenticationError(MISSING, challenge=True)

    def identify_verified(self, bearer: str | None, api_key: str | None) -> Caller | None:
        """The caller without a write and with at most one small read (the store's auth epoch): the admin key, or a
        per-user key verified before and unchanged since (ApiKeyService.verified). None: `identify` decides."""
        if bearer is not None or not api_key:
            return None
        if self.is_admin_key(api_key):
            return Caller(AuthMode.ADMIN_KEY)
        found = self.api_keys.verified(api_key)
        if found is None:
            return None
        key, user = found
        return Caller(AuthMode.API_KEY, user, key_prefix=key.key_prefix)

    def is_admin_key(self, value: str) -> bool:
        return self._admin_digest is not None and hmac.compare_digest(self._admin_digest, _digest(value))


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8")).digest()
