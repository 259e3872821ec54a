"""Signing in and out of the self-hosted surface: the use cases that take an account and its tokens together."""

from __future__ import annotations

from mnemo.domain.accounts import User
from mnemo.domain.sessions import TokenPair
from mnemo.services.accounts import AccountService
from mnemo.services.tokens import TokenService


class SessionService:
    def __init__(self, accounts: AccountService, tokens: TokenService) -> None:
        self._accounts = accounts
        self._tokens = tokens

    def register_first_admin(self, name: str, email: str, password: str) -> TokenPair:
        """The first user (an admin, while no user exists), signed in."""
        self._tokens.require_configured()
        return self._tokens.issue(self._accounts.register_first_admin(name, email, password))

    def login(self, email: str, password: str) -> TokenPair:
        self._tokens.require_configured()
        return self._tokens.issue(self._accounts.authenticate(email, password))

    def refresh(self, refresh_token: str) -> TokenPair:
        return self._tokens.refresh(refresh_token)

    def change_password(self, user: User, current_password: str, new_password: str, keep_family: str | None) -> None:
        """A new password; every other session of the user ends (the caller's own, `keep_family`, goes on)."""
        self._accounts.change_password(user, current_password, new_password)
        self._tokens.end_other_sessions(user, keep_family=keep_family)
